"""ObservabilitySink, ObservabilityLink and TransactionSearch: who may link, what a link shares and names, and one
Transaction Search per account."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import App, Environment, Stack

from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability import ObservabilityLink, ObservabilitySink, TransactionSearch
from inference_constructs.observability.cross_account_plan import LINK_RESOURCE_TYPES, sink_policy, sink_region
from tests.cfn_schemas import schema
from tests.unit.observability.conftest import Synth, cfn_lint

SOURCES = ["111122223333", "444455556666"]
SINK_ARN = "arn:aws:oam:us-east-1:999988887777:sink/a1b2c3d4-5678-90ab-cdef-example11111"


def _only(template: dict[str, Any], resource_type: str) -> dict[str, Any]:
    found = [r["Properties"] for r in template["Resources"].values() if r["Type"] == resource_type]
    assert len(found) == 1, found
    return found[0]


def test_sink_policy_names_exactly_the_source_accounts(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a sink for two source accounts
    ObservabilitySink(stack, "Sink", sink_name="central", source_account_ids=SOURCES)
    # WHEN synthesized with the nag packs
    template = synth(app, stack)
    # THEN its one statement allows CreateLink/UpdateLink to those two accounts, for metrics only
    statement = _only(template, "AWS::Oam::Sink")["Policy"]["Statement"]
    assert statement == [
        {
            "Effect": "Allow",
            "Principal": {"AWS": SOURCES},
            "Action": ["oam:CreateLink", "oam:UpdateLink"],
            "Resource": "*",
            "Condition": {"ForAllValues:StringEquals": {"oam:ResourceTypes": ["AWS::CloudWatch::Metric"]}},
        }
    ]
    assert _only(template, "AWS::Oam::Sink")["Name"] == "central"
    assert template["Outputs"]["SinkArn"]["Value"] == {"Fn::GetAtt": [_logical_id(template, "AWS::Oam::Sink"), "Arn"]}
    assert cfn_lint(template) == []


def _logical_id(template: dict[str, Any], resource_type: str) -> str:
    return next(k for k, r in template["Resources"].items() if r["Type"] == resource_type)


def test_sink_policy_admits_the_organization_instead_of_accounts() -> None:
    # GIVEN an organization id / WHEN the policy is built / THEN any principal of that organization may link
    policy = sink_policy([], "o-abcdef1234", ["AWS::CloudWatch::Metric"])
    statement = policy["Statement"][0]
    assert statement["Principal"] == "*"
    assert statement["Condition"]["StringEquals"] == {"aws:PrincipalOrgID": "o-abcdef1234"}


def test_fails_a_sink_that_admits_nobody(stack: Stack) -> None:
    with pytest.raises(InferenceConfigError, match="source_account_ids: the sink policy would admit no account"):
        ObservabilitySink(stack, "Sink", sink_name="central")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sink_name": "has space"}, "sink_name: 'has space' is not a sink name"),
        ({"organization_id": "org-1"}, "organization_id: 'org-1' is not an organization id"),
        ({"resource_types": ["AWS::S3::Bucket"]}, r"resource_types\[0\]: 'AWS::S3::Bucket' is not a type"),
        ({"resource_types": ["AWS::XRay::Trace"]}, "leaves out AWS::CloudWatch::Metric"),
        ({"source_account_ids": ["12345"]}, r"source_account_ids\[0\]: '12345' is not an aws account id"),
    ],
)
def test_fails_sink_settings_aws_refuses(stack: Stack, kwargs: dict[str, Any], match: str) -> None:
    props: dict[str, Any] = {"sink_name": "central", "source_account_ids": SOURCES, **kwargs}
    with pytest.raises(InferenceConfigError, match=match):
        ObservabilitySink(stack, "Sink", **props)


def test_link_names_the_sink_and_shares_what_the_dashboards_read(synth: Synth) -> None:
    # GIVEN a link stack in a source account, in the sink's region
    app = App()
    stack = Stack(app, "Link", env=Environment(account=SOURCES[0], region="us-east-1"))
    ObservabilityLink(stack, "Link", sink_arn=SINK_ARN, resource_types=["AWS::CloudWatch::Metric", "AWS::XRay::Trace"])
    template = synth(app, stack)
    # THEN the link's SinkIdentifier is the sink ARN and it shares metrics and traces, labelled by account name
    assert _only(template, "AWS::Oam::Link") == {
        "SinkIdentifier": SINK_ARN,
        "ResourceTypes": ["AWS::CloudWatch::Metric", "AWS::XRay::Trace"],
        "LabelTemplate": "$AccountName",
    }
    assert cfn_lint(template) == []


def test_fails_a_link_to_a_sink_of_another_region() -> None:
    stack = Stack(App(), "Link", env=Environment(account=SOURCES[0], region="eu-west-1"))
    with pytest.raises(InferenceConfigError, match="sink_arn: is in us-east-1, the link is in eu-west-1"):
        ObservabilityLink(stack, "Link", sink_arn=SINK_ARN)


def test_fails_a_link_to_something_that_is_not_a_sink(stack: Stack) -> None:
    with pytest.raises(InferenceConfigError, match=r"sink_arn: .* is not a sink arn"):
        ObservabilityLink(stack, "Link", sink_arn="arn:aws:sns:us-east-1:999988887777:topic")


def test_sink_region_is_read_from_the_arn() -> None:
    assert sink_region(SINK_ARN) == "us-east-1"
    assert sink_region("arn:aws:oam:us-east-1:999988887777:link/x") is None


def test_resource_types_are_the_bundled_schema_enum() -> None:
    # GIVEN the cfn-lint schema of AWS::Oam::Link / THEN the library's list is its ResourceType enum, and every
    # property the constructs set exists in the sink and link schemas
    link = schema("AWS::Oam::Link")
    assert tuple(link["definitions"]["ResourceType"]["enum"]) == LINK_RESOURCE_TYPES
    assert {"SinkIdentifier", "ResourceTypes", "LabelTemplate", "Tags"} <= set(link["properties"])
    sink = schema("AWS::Oam::Sink")
    assert {"Name", "Policy", "Tags"} <= set(sink["properties"])


def test_transaction_search_writes_the_config_and_its_log_policy(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN Transaction Search indexing 5 % of spans
    TransactionSearch(stack, "TransactionSearch", indexing_percentage=5)
    template = synth(app, stack)
    # THEN the config depends on a log policy letting X-Ray write the two span log groups of this account
    config_id = _logical_id(template, "AWS::XRay::TransactionSearchConfig")
    assert template["Resources"][config_id]["Properties"] == {"IndexingPercentage": 5}
    assert template["Resources"][config_id]["DependsOn"] == [_logical_id(template, "AWS::Logs::ResourcePolicy")]
    document = json.dumps(_only(template, "AWS::Logs::ResourcePolicy")["PolicyDocument"])
    assert "xray.amazonaws.com" in document and "logs:PutLogEvents" in document
    assert ":log-group:aws/spans:*" in document and ":log-group:/aws/application-signals/data:*" in document
    assert "aws:SourceAccount" in document
    assert cfn_lint(template) == []


def test_fails_a_second_transaction_search_for_the_same_account() -> None:
    # GIVEN one Transaction Search in account A
    app = App()
    first = Stack(app, "First", env=Environment(account=SOURCES[0], region="us-east-1"))
    TransactionSearch(first, "TransactionSearch")
    # WHEN another stack of the same app turns it on for account A again / THEN it is refused, naming the first
    second = Stack(app, "Second", env=Environment(account=SOURCES[0], region="us-east-1"))
    with pytest.raises(InferenceConfigError, match="First/TransactionSearch already turns on Transaction Search"):
        TransactionSearch(second, "TransactionSearch")
    # AND another account may have its own
    TransactionSearch(Stack(app, "Other", env=Environment(account=SOURCES[1], region="us-east-1")), "TransactionSearch")


@pytest.mark.parametrize("percentage", [-1, 100.5, float("nan")])
def test_fails_an_indexing_percentage_outside_0_to_100(stack: Stack, percentage: float) -> None:
    with pytest.raises(InferenceConfigError, match=r"indexing_percentage: .* is not allowed; use 0\.\.100"):
        TransactionSearch(stack, "TransactionSearch", indexing_percentage=percentage)


def test_transaction_search_properties_are_the_bundled_schemas() -> None:
    # GIVEN the cfn-lint schemas / THEN IndexingPercentage is 0..100 and the log policy takes a name and a document
    config = schema("AWS::XRay::TransactionSearchConfig")
    percentage = config["definitions"]["IndexingPercentage"]
    assert (percentage["minimum"], percentage["maximum"]) == (0, 100)
    policy = schema("AWS::Logs::ResourcePolicy")
    assert set(policy["required"]) == {"PolicyName", "PolicyDocument"}


def test_platform_link_stacks_are_bound_to_each_source_account() -> None:
    # GIVEN the shipped two-account monitoring example as a construct
    from pathlib import Path

    from inference_constructs.stacks.platform import InferencePlatform

    example = Path(__file__).parents[3] / "config" / "examples" / "monitoring-two-accounts.yaml"
    platform = InferencePlatform(App(), "Platform", config=example, compliance_gates=False, plan_file=None)
    # THEN each link stack deploys to its source account in the sink's region; the sink stays in this account
    links = {role: stack for role, stack in platform.stacks.items() if role.startswith("link-")}
    assert {(s.stack_name, s.account, s.region) for s in links.values()} == {
        (f"ml-central-link-{a}", a, "us-east-1") for a in SOURCES
    }
    assert platform.stacks["observability"].account == "999988887777"
