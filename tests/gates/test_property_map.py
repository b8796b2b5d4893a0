"""Every property the library writes on its SageMaker, Application Auto Scaling, CloudWatch alarm and dashboard,
alarm topic, cost and Bedrock profile resources comes from the plan: walk each such resource of the default
platform and every example, and check each property against its entry in
:data:`tests.gates.property_map.PROPERTY_MAP`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inference_constructs.hosting.components import component_id
from tests.gates.conftest import config_ids
from tests.gates.property_map import PROPERTY_MAP, Context, Fixed, Plan
from tests.gates.synth import Assembly

_TYPES = {resource_type for resource_type, _ in PROPERTY_MAP}
_LEAVES = {"PrimaryContainer.Environment"}


def _flatten(value: Any, path: str = "") -> dict[str, Any]:
    """``{"A.B": value}`` for every leaf; lists and intrinsic functions are leaves, except the one production
    variant, whose properties are mapped one by one."""
    intrinsic = isinstance(value, dict) and len(value) == 1 and next(iter(value)).startswith(("Ref", "Fn::"))
    if isinstance(value, dict) and not intrinsic and path not in _LEAVES:
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_flatten(item, f"{path}.{key}" if path else key))
        return out
    if path == "ProductionVariants" and isinstance(value, list):
        out = {path: value}
        for index, item in enumerate(value):
            out.update(_flatten(item, f"{path}[{index}]"))
        return out
    return {path: value}


def _construct_paths(assembly: Assembly) -> dict[tuple[str, str], str]:
    """``(stack, logical id) -> construct path`` from the assembly's metadata files."""
    found = {}
    for path in sorted(assembly.outdir.glob("*.metadata.json")):
        stack = path.name.removesuffix(".metadata.json")
        for construct_path, entries in json.loads(path.read_text()).items():
            for entry in entries:
                if entry.get("type") == "aws:cdk:logicalId":
                    found[(stack, entry["data"])] = construct_path
    return found


def _alarm_of(endpoint: dict[str, Any], construct_id: str) -> dict[str, Any] | None:
    """The plan's rollback alarm, or the wake-up step policy's alarm, built as ``construct_id``."""
    for alarm in endpoint["deployment"]["rollback_alarms"]:
        if alarm["alarm"] == construct_id:
            return dict(alarm)
    for policy in endpoint["scaling"]["policies"]:
        if policy["type"] == "step" and f"{policy['policy']}Alarm" == construct_id:
            return {**policy, "metric": policy["alarm_metric"], "unit": None, "description": policy["reason"]}
    return None


def _policy_of(endpoint: dict[str, Any], construct_id: str) -> dict[str, Any] | None:
    for policy in endpoint["scaling"]["policies"]:
        if construct_id in (policy["policy"], f"{policy['policy']}Policy"):
            return dict(policy)
    return None


def _planned_alarms(plan: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """``(stack, construct path) -> alarm plan entry`` of every alarm the plan places outside the endpoint
    constructs: the endpoints' monitoring alarms, the observability and Bedrock stacks' alarms, the cost stack's."""
    name = plan["name"]
    found = {(e["stack"], a["construct"]): a for e in plan["endpoints"] for a in e["alarms"]}
    found |= {(f"{name}-observability", a["construct"]): a for a in plan["observability"]["alarms"]}
    found |= {(f"{name}-bedrock", a["construct"]): a for a in plan["observability"]["governance_alarms"]}
    pending = plan["cost"]["tag_activation_alarm"]
    if pending is not None:
        found[(f"{name}-cost", pending["construct"])] = pending
    return found


def _endpoint_context(resource_type: str, endpoint: dict[str, Any], owner: str, plan: dict[str, Any]) -> Context | None:
    """What a resource of ``endpoint`` built as construct ``owner`` is compared with (None: nothing planned)."""
    if resource_type == "AWS::ApplicationAutoScaling::ScalingPolicy":
        policy = _policy_of(endpoint, owner)
        return None if policy is None else Context(plan=plan, endpoint=endpoint, policy=policy)
    if resource_type == "AWS::CloudWatch::Alarm":
        alarm = _alarm_of(endpoint, owner)
        return None if alarm is None else Context(plan=plan, endpoint=endpoint, alarm=alarm)
    return Context(plan=plan, endpoint=endpoint)


def _component_view(endpoint: dict[str, Any], parts: list[str]) -> dict[str, Any]:
    """The endpoint's plan entry as a resource of one of its further inference components sees it (the component's
    container, reservation, update policy and scaling), or as is; an adapter sees its own entry as ``adapter``."""
    block = endpoint.get("components")
    if block is None or len(parts) < 3:
        return endpoint
    for component in block["components"][1:]:
        if component_id(component["name"]) == parts[2]:
            keys = ("container", "inference_component", "deployment", "scaling")
            return {**endpoint, **{k: component[k] for k in keys}}
    for adapter in block["adapters"]:
        if f"{component_id(adapter['name'])}Adapter" == parts[2]:
            return {**endpoint, "adapter": adapter}
    return endpoint


def _context(
    resource_type: str, stack: str, parts: list[str], plan: dict[str, Any], alarms: dict[tuple[str, str], Any]
) -> Context | None:
    """What the resource at construct path ``parts`` (stack first) is compared with (None: nothing planned)."""
    endpoint = next((e for e in plan["endpoints"] if (e["stack"], e["name"]) == (stack, parts[1])), None)
    owner = parts[-2] if parts[-1] == "Resource" else parts[-1]
    if endpoint is not None:
        return _endpoint_context(resource_type, _component_view(endpoint, parts), owner, plan)
    path = "/".join(parts[1:-1] if parts[-1] == "Resource" else parts[1:])
    if resource_type == "AWS::CloudWatch::Alarm":
        alarm = alarms.get((stack, path))
        return None if alarm is None else Context(plan=plan, alarm=alarm, owner=path)
    return Context(plan=plan, owner=path)


def _check(assembly: Assembly) -> tuple[list[str], int]:
    """(problems, number of plan comparisons made) for one synthesized platform."""
    plan = assembly.plan
    alarms = _planned_alarms(plan)
    paths = _construct_paths(assembly)
    problems: list[str] = []
    compared = 0
    for stack, template in assembly.templates.items():
        for logical_id, resource in template.get("Resources", {}).items():
            if resource["Type"] not in _TYPES:
                continue
            parts = paths[(stack, logical_id)].strip("/").split("/")
            context = _context(resource["Type"], stack, parts, plan, alarms)
            if context is None:
                problems.append(f"{stack}/{logical_id}: no plan entry for {'/'.join(parts[1:])!r}")
                continue
            for prop, value in _flatten(resource.get("Properties", {})).items():
                source = PROPERTY_MAP.get((resource["Type"], prop))
                where = f"{stack}/{logical_id} {resource['Type']} {prop}"
                if source is None:
                    problems.append(f"{where}: no entry in the property map")
                elif isinstance(source, Fixed) and value != source.value:
                    problems.append(f"{where}: {value!r}, the translation always writes {source.value!r}")
                elif isinstance(source, Plan):
                    compared += 1
                    expected, actual = source.expected(context), source.actual(value)
                    if actual != expected:
                        problems.append(f"{where}: {actual!r} in the template, {expected!r} at plan {source.field}")
    return problems, compared


@pytest.mark.parametrize("config", config_ids())
def test_every_endpoint_property_equals_its_plan_field(
    assemblies: dict[str, tuple[Assembly, Assembly]], config: str
) -> None:
    # GIVEN the synthesized platform of a config and its plan document
    assembly = assemblies[config][0]
    # WHEN every property of every endpoint resource is looked up in the property map
    problems, compared = _check(assembly)
    # THEN each has an entry, each plan-sourced value equals its plan field, and endpoints were compared
    assert problems == []
    assert compared > 0 or not assembly.plan["endpoints"]


def test_the_check_fails_on_an_unmapped_property_and_on_a_changed_value(
    assemblies: dict[str, tuple[Assembly, Assembly]],
) -> None:
    # GIVEN the default platform with one property renamed and one plan field changed
    assembly = assemblies["default"][0]
    stack = next(s for s in assembly.templates if "hosting" in s)
    template = assembly.templates[stack]
    endpoint = next(r for r in template["Resources"].values() if r["Type"] == "AWS::SageMaker::Endpoint")
    endpoint["Properties"]["Unmapped"] = 1
    policy = endpoint["Properties"]["DeploymentConfig"]["BlueGreenUpdatePolicy"]
    policy["MaximumExecutionTimeoutInSeconds"] += 1
    try:
        # WHEN the check runs
        problems, _ = _check(assembly)
    finally:
        del endpoint["Properties"]["Unmapped"]
        policy["MaximumExecutionTimeoutInSeconds"] -= 1
    # THEN both are reported
    assert any("Unmapped: no entry in the property map" in p for p in problems)
    assert any(
        "MaximumExecutionTimeoutInSeconds" in p and "deployment.maximum_execution_timeout" in p for p in problems
    )


def test_the_check_fails_on_a_changed_alarm_band_subscription_and_budget(
    assemblies: dict[str, tuple[Assembly, Assembly]],
) -> None:
    # GIVEN the default platform with a profile alarm's band, the alarm e-mail and the budget limit changed
    assembly = assemblies["default"][0]
    observability = assembly.templates["acme-genai-observability"]["Resources"]
    cost = assembly.templates["acme-genai-cost"]["Resources"]
    alarm = next(r for r in observability.values() if r["Type"] == "AWS::CloudWatch::Alarm")
    subscription = next(r for r in observability.values() if r["Type"] == "AWS::SNS::Subscription")
    budget = next(r for r in cost.values() if r["Type"] == "AWS::Budgets::Budget")
    band = alarm["Properties"]["Metrics"][0]
    limit = budget["Properties"]["Budget"]
    saved = (band["Expression"], subscription["Properties"]["Endpoint"], limit["BudgetLimit"])
    band["Expression"] = "ANOMALY_DETECTION_BAND(m0, 9)"
    subscription["Properties"]["Endpoint"] = "someone@example.com"
    limit["BudgetLimit"] = {"Amount": 1, "Unit": "USD"}
    try:
        # WHEN the check runs
        problems, _ = _check(assembly)
    finally:
        band["Expression"], subscription["Properties"]["Endpoint"], limit["BudgetLimit"] = saved
    # THEN each change is reported against its plan field
    assert any("Metrics" in p and "ANOMALY_DETECTION_BAND(m0, 9)" in p for p in problems)
    assert any("Endpoint" in p and "observability.alarm_email" in p for p in problems)
    assert any("BudgetLimit.Amount" in p and "cost.budget.monthly_limit_usd" in p for p in problems)
