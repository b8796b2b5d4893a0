"""The plan's cross-account observability and Transaction Search: what the sink admits, where each link deploys and
what it shares, which accounts turn Transaction Search on, and the refusals (own account as a source, a sink of
another region, a second Transaction Search for one account)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inference_constructs.config import load_config, validate_config
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform

EXAMPLE = Path(__file__).parents[3] / "config" / "examples" / "monitoring-two-accounts.yaml"
SINK_ARN = "arn:aws:oam:us-east-1:999988887777:sink/a1b2c3d4-5678-90ab-cdef-example11111"
SOURCES = ["111122223333", "444455556666"]


def _config(**observability: Any) -> dict[str, Any]:
    return {
        "name": "central",
        "account": "999988887777",
        "region": "us-east-1",
        "observability": {"source_account_ids": SOURCES, **observability},
    }


def _plan(doc: dict[str, Any]) -> dict[str, Any]:
    return plan_platform(validate_config(doc)).to_json()["observability"]


def test_example_sink_names_both_accounts_and_each_link_names_the_sink() -> None:
    # GIVEN the shipped monitoring example with two source accounts and the sink's ARN
    obs = plan_platform(load_config(EXAMPLE)).to_json()["observability"]
    cross = obs["cross_account"]
    # THEN the sink admits exactly the two accounts, and one link per account deploys to that account, in the
    # sink's region, naming the sink, sharing metrics (dashboards, alarms) and traces and logs (Transaction Search)
    assert cross["sink"]["principals"] == SOURCES
    assert [(link["stack"], link["account"], link["region"]) for link in cross["links"]] == [
        (f"ml-central-link-{a}", a, "us-east-1") for a in SOURCES
    ]
    assert {link["sink_arn"] for link in cross["links"]} == {SINK_ARN}
    assert all(
        link["resource_types"] == ["AWS::CloudWatch::Metric", "AWS::XRay::Trace", "AWS::Logs::LogGroup"]
        for link in cross["links"]
    )
    # AND Transaction Search is on here and in both source accounts; the dashboard keeps LOCAL (its accounts)
    assert obs["transaction_search"] == {"indexing_percentage": 1.0, "accounts": ["this", *SOURCES]}
    assert obs["dashboard"]["source_account_ids"] == SOURCES


def test_links_wait_for_the_sink_arn() -> None:
    # GIVEN a sink without its ARN yet (first deploy) / THEN the plan has the links but none deployed
    cross = _plan(_config(cross_account={}))["cross_account"]
    assert cross["sink"]["name"] == "central-monitoring"
    assert [link["deployed"] for link in cross["links"]] == [False, False]


def test_metrics_only_without_transaction_search() -> None:
    cross = _plan(_config(cross_account={"sink_arn": SINK_ARN}))["cross_account"]
    assert cross["sink"]["resource_types"] == ["AWS::CloudWatch::Metric"]


def test_organization_replaces_the_account_list_in_the_policy() -> None:
    cross = _plan(_config(cross_account={"organization_id": "o-abcdef1234"}))["cross_account"]
    assert cross["sink"]["principals"] == []
    assert cross["sink"]["organization_id"] == "o-abcdef1234"


def test_plan_without_cross_account_has_no_such_section() -> None:
    # GIVEN the existing monitoring example (SEARCH only) / THEN the plan holds neither new section
    obs = plan_platform(load_config(EXAMPLE.with_name("monitoring-account.yaml"))).to_json()["observability"]
    assert "cross_account" not in obs and "transaction_search" not in obs


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        (
            {
                **_config(cross_account={}),
                "observability": {"source_account_ids": ["999988887777"], "cross_account": {}},
            },
            r"observability.source_account_ids\[0\]: 999988887777 is this platform's own account",
        ),
        (
            _config(cross_account={"sink_arn": SINK_ARN.replace("us-east-1", "eu-west-1")}),
            "observability.cross_account.sink_arn: is in eu-west-1, the link is in us-east-1",
        ),
        (
            _config(cross_account={"sink_arn": SINK_ARN.replace("999988887777", "123456789012")}),
            "observability.cross_account.sink_arn: is in account 123456789012, the sink this config creates is in",
        ),
        (
            _config(cross_account={"sink_arn": "arn:aws:sns:us-east-1:999988887777:x"}),
            "observability.cross_account.sink_arn: .* is not a sink arn",
        ),
        (
            _config(cross_account={"resource_types": ["AWS::XRay::Trace"]}),
            "observability.cross_account.resource_types: leaves out AWS::CloudWatch::Metric",
        ),
        (
            {**_config(), "observability": {"cross_account": {}}},
            "observability.source_account_ids: the sink policy would admit no account",
        ),
        (
            _config(cross_account={"sink": False}),
            "observability.cross_account: creates neither the sink",
        ),
    ],
)
def test_fails_cross_account_mistakes_with_the_key_path(doc: dict[str, Any], match: str) -> None:
    with pytest.raises(InferenceConfigError, match=match):
        plan_platform(validate_config(doc))


def test_fails_an_indexing_percentage_over_100() -> None:
    with pytest.raises(InferenceConfigError, match=r"observability\.transaction_search\.indexing_percentage"):
        validate_config(_config(transaction_search={"indexing_percentage": 101}))


def test_transaction_search_stays_in_this_account_when_asked() -> None:
    obs = _plan(_config(cross_account={"sink_arn": SINK_ARN}, transaction_search={"source_accounts": False}))
    assert obs["transaction_search"]["accounts"] == ["this"]


def test_plan_table_says_where_each_link_deploys() -> None:
    table = plan_platform(load_config(EXAMPLE)).table()
    assert (
        "cross-account link 111122223333: stack ml-central-link-111122223333 in account 111122223333, us-east-1; "
        "shares AWS::CloudWatch::Metric, AWS::XRay::Trace, AWS::Logs::LogGroup"
    ) in table.splitlines()
    assert (
        "cross-account sink ml-central-monitoring (stack ml-central-observability): admits 111122223333, 444455556666"
        in table
    )


def test_diff_shows_a_source_account_added_and_removed() -> None:
    # GIVEN a monitoring platform linking one source account, then a second
    from inference_constructs.diff.plans import diff_plans

    one = plan_platform(
        validate_config(
            {
                **_config(cross_account={"sink_arn": SINK_ARN}),
                "observability": {"source_account_ids": SOURCES[:1], "cross_account": {"sink_arn": SINK_ARN}},
            }
        )
    ).to_json()
    two = _plan_doc(_config(cross_account={"sink_arn": SINK_ARN}))
    # WHEN diffed both ways / THEN the second account's link is added, then removed
    added = [i for i in diff_plans(one, two).items if i.kind == "source account" and i.status != "unchanged"]
    assert [(i.name, i.status) for i in added] == [(SOURCES[1], "added")]
    removed = [i for i in diff_plans(two, one).items if i.kind == "source account" and i.status != "unchanged"]
    assert [(i.name, i.status) for i in removed] == [(SOURCES[1], "removed")]


def test_diff_shows_an_agent_lifecycle_change() -> None:
    from inference_constructs.diff.plans import diff_plans

    agent = {
        "name": "support",
        "container_uri": "999988887777.dkr.ecr.us-east-1.amazonaws.com/a:1",
        "role_arn": "arn:aws:iam::999988887777:role/agent",
    }
    before = _plan_doc({**_config(), "agents": [agent]})
    after = _plan_doc({**_config(), "agents": [{**agent, "conversation": "short"}]})
    (item,) = [i for i in diff_plans(before, after).items if i.kind == "agent"]
    assert item.status == "changed"
    assert [(c.field, c.old, c.new) for c in item.changes] == [("idle_timeout_seconds", 900, 120)]


def _plan_doc(doc: dict[str, Any]) -> dict[str, Any]:
    return plan_platform(validate_config(doc)).to_json()
