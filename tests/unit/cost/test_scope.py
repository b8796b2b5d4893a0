"""Cost controls that share an account safely: the plan's cost decisions and the rules it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from inference_constructs.config import validate_config
from inference_constructs.cost.capacity_tags import CAPACITY_TAG, PLATFORM_TAG
from inference_constructs.cost.decisions import platform_expression
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform
from inference_constructs.plan.cost import decide_cost

MONITOR = "arn:aws:ce::123456789012:anomalymonitor/0f1e2d3c-aaaa-bbbb-cccc-123456789012"


def _config(cost: dict[str, Any], **top: Any) -> Any:
    return validate_config({"name": "acme", **top, "cost": cost})


def test_default_monitor_is_custom_on_the_platform_tag_and_the_tag_is_activated() -> None:
    # GIVEN anomaly monitoring with no existing monitor
    plan, problems = decide_cost(_config({"anomaly_monitor": {"notify_email": "f@example.com"}}))
    # THEN a CUSTOM monitor watches the platform's tagged spend, and the cost stack activates that tag
    assert problems == []
    assert plan.monitor == "custom"
    assert plan.monitor_specification == {"Tags": {"Key": "inference:platform", "Values": ["acme"]}}
    assert plan.activation_keys == (PLATFORM_TAG,)


def test_an_existing_monitor_is_subscribed_to_and_nothing_is_created() -> None:
    plan, _ = decide_cost(
        _config({"anomaly_monitor": {"notify_email": "f@example.com", "existing_monitor_arn": MONITOR}})
    )
    assert (plan.monitor, plan.existing_monitor_arn, plan.monitor_specification) == ("existing", MONITOR, None)
    assert plan.activation_keys == ()


@pytest.mark.parametrize(
    ("scope", "expected_filter", "expected_keys"),
    [("platform", platform_expression("acme"), ("team", PLATFORM_TAG)), ("account", None, ("team",))],
)
def test_budget_counts_the_platforms_spend_unless_scoped_to_the_account(
    scope: str, expected_filter: dict[str, Any] | None, expected_keys: tuple[str, ...]
) -> None:
    # GIVEN a budget with this scope and one configured activation key
    cost = {"activate_cost_allocation_tags": ["team"], "budget": {"monthly_limit_usd": 100, "scope": scope}}
    plan, _ = decide_cost(_config(cost, tags={"team": "ml"}))
    # THEN the filter and the activated keys follow the scope
    assert plan.budget_filter == expected_filter
    assert plan.activation_keys == expected_keys


def _deny(roles: list[str]) -> dict[str, Any]:
    return {"budget": {"monthly_limit_usd": 100, "notify_email": "f@example.com", "deny_role_arns": roles}}


@pytest.mark.parametrize(
    ("roles", "account", "expected"),
    [
        (
            ["arn:aws:iam::123456789012:role/deployer", "arn:aws:iam::999999999999:role/other"],
            "123456789012",
            "cost.budget.deny_role_arns[1]: the role is in account 999999999999",
        ),
        (
            ["arn:aws:iam::111122223333:role/a", "arn:aws:iam::444455556666:role/b"],
            None,
            "cost.budget.deny_role_arns[1]: the role is in account 444455556666",
        ),
    ],
    ids=["other-than-deploy-account", "two-accounts"],
)
def test_a_deny_role_outside_the_deploy_account_is_refused_with_its_key_path(
    roles: list[str], account: str | None, expected: str
) -> None:
    # GIVEN deny roles of another account than the deploy account (or of two accounts) WHEN loaded for the plan
    top = {"account": account} if account else {}
    with pytest.raises(InferenceConfigError) as err:
        plan_platform(_config(_deny(roles), **top))
    # THEN the config is refused, naming the key path and the account
    assert any(p.startswith(expected) for p in err.value.problems), err.value.problems


def test_without_an_account_the_plan_names_the_deny_roles_account() -> None:
    config = _config(_deny(["arn:aws:iam::111122223333:role/a"]))
    plan, problems = decide_cost(config)
    assert problems == []
    assert plan.deny_account == "111122223333"
    # AND the cost stack must assert that account (an InferenceAccount rule, no longer only a warning)
    (requirement,) = plan_platform(config).account_requirements("cost")
    assert (requirement.account, requirement.needed_by) == ("111122223333", ("cost.budget.deny_role_arns[0]",))


def test_plan_refuses_an_existing_monitor_of_another_account() -> None:
    config = _config(
        {"anomaly_monitor": {"notify_email": "f@example.com", "existing_monitor_arn": MONITOR}},
        account="999999999999",
    )
    with pytest.raises(InferenceConfigError, match=r"cost\.anomaly_monitor\.existing_monitor_arn: the monitor is in"):
        plan_platform(config)


def test_the_plan_document_shows_the_cost_decisions() -> None:
    # GIVEN a budget scoped to the platform WHEN planned THEN the plan JSON carries the filter and the keys
    plan = plan_platform(_config({"budget": {"monthly_limit_usd": 100}}))
    assert plan.to_json()["cost"]["budget_filter"] == platform_expression("acme")
    assert plan.to_json()["cost"]["activate_cost_allocation_tags"] == [PLATFORM_TAG]


SERVERLESS_ENDPOINT = {
    "name": "tabular",
    "type": "serverless",
    "model": {"source": "s3", "s3_uri": "s3://acme-models/tabular/model.tar.gz"},
    "serving": "sklearn",
    "serverless": {"memory_mb": 2048, "max_concurrency": 5},
}
REALTIME_ENDPOINT = {**SERVERLESS_ENDPOINT, "name": "tabular-rt", "type": "realtime", "serverless": None}


@pytest.mark.parametrize(
    ("endpoints", "capacity_tags", "activated"),
    [([REALTIME_ENDPOINT], True, True), ([REALTIME_ENDPOINT], False, False), ([SERVERLESS_ENDPOINT], True, False)],
)
def test_capacity_tags_activate_the_capacity_key(
    endpoints: list[dict[str, Any]], capacity_tags: bool, activated: bool
) -> None:
    # GIVEN an instance-backed endpoint with capacity tags on (or off, or only serverless endpoints)
    config = _config({"capacity_tags": capacity_tags}, endpoints=[{k: v for k, v in e.items() if v} for e in endpoints])
    plan, problems = decide_cost(config)
    # THEN inference:capacity is activated exactly when endpoints carry it (Cost Explorer groups by active keys only)
    assert problems == []
    assert (CAPACITY_TAG in plan.activation_keys) is activated


def test_the_budget_and_monitor_filters_are_what_botocore_models_accept() -> None:
    # GIVEN the platform budget and the custom monitor of a config
    from botocore.session import get_session
    from botocore.validate import ParamValidator

    plan, _ = decide_cost(
        _config({"budget": {"monthly_limit_usd": 100}, "anomaly_monitor": {"notify_email": "f@example.com"}})
    )
    session = get_session()
    budgets = session.get_service_model("budgets")
    ce = session.get_service_model("ce")
    # WHEN their expressions are validated against the CreateBudget and CreateAnomalyMonitor input shapes
    budget_request = {
        "AccountId": "123456789012",
        "Budget": {
            "BudgetName": "b",
            "BudgetType": "COST",
            "TimeUnit": "MONTHLY",
            "BudgetLimit": {"Amount": "100", "Unit": "USD"},
            "FilterExpression": plan.budget_filter,
            "Metrics": list(plan.budget.metrics),  # type: ignore[union-attr]
        },
    }
    monitor_request = {
        "AnomalyMonitor": {
            "MonitorName": "m",
            "MonitorType": "CUSTOM",
            "MonitorSpecification": plan.monitor_specification,
        }
    }
    validator = ParamValidator()
    budget_report = validator.validate(budget_request, budgets.operation_model("CreateBudget").input_shape)
    monitor_report = validator.validate(monitor_request, ce.operation_model("CreateAnomalyMonitor").input_shape)
    # THEN both are valid, and the monitor names the tag the way the ce model documents (no MatchOptions)
    assert not budget_report.has_errors(), budget_report.generate_report()
    assert not monitor_report.has_errors(), monitor_report.generate_report()
    assert plan.budget.metrics == ("UnblendedCost",)  # type: ignore[union-attr]
    assert "MatchOptions" not in plan.monitor_specification["Tags"]  # type: ignore[index]
