"""What the default platform composes: stacks per concern, stable endpoint names, one alarm topic,
capacity and team tags on every hosting resource, the cost resources, and sharding by resource count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App

from inference_constructs.config import validate_config
from inference_constructs.layout import EndpointFootprint, estimated_resources, shard
from inference_constructs.spec import EndpointKind
from inference_constructs.stacks.platform import check_stack_sizes, synthesize
from tests.gates.synth import Assembly

Templates = dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def default(assemblies: dict[str, tuple[Assembly, Assembly]]) -> Templates:
    return assemblies["default"][0].templates


def _resources(template: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [r for r in template["Resources"].values() if r["Type"] == type_]


def _tags(resource: dict[str, Any]) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in resource["Properties"].get("Tags", [])}


def test_one_stack_per_concern(default: Templates) -> None:
    assert sorted(default) == [
        "acme-genai-bedrock",
        "acme-genai-cost",
        "acme-genai-hosting-1",
        "acme-genai-observability",
    ]


def test_endpoints_have_stable_platform_prefixed_names(default: Templates) -> None:
    names = sorted(
        r["Properties"]["EndpointName"] for r in _resources(default["acme-genai-hosting-1"], "AWS::SageMaker::Endpoint")
    )
    assert names == [
        "acme-genai-batch-extract",
        "acme-genai-chat",
        "acme-genai-churn",
        "acme-genai-summarize",
        "acme-genai-tenant-risk",
    ]


def test_endpoint_configs_and_models_have_no_physical_names(default: Templates) -> None:
    hosting = default["acme-genai-hosting-1"]
    assert all(
        "EndpointConfigName" not in r["Properties"] for r in _resources(hosting, "AWS::SageMaker::EndpointConfig")
    )
    assert all("ModelName" not in r["Properties"] for r in _resources(hosting, "AWS::SageMaker::Model"))


def test_every_endpoint_alarm_notifies_the_one_topic_of_the_observability_stack(default: Templates) -> None:
    # GIVEN the observability stack owns the only topic and hands its ARN over in an SSM parameter
    observability = default["acme-genai-observability"]
    (topic_id,) = [k for k, r in observability["Resources"].items() if r["Type"] == "AWS::SNS::Topic"]
    (handoff,) = [
        r["Properties"]
        for r in _resources(observability, "AWS::SSM::Parameter")
        if r["Properties"]["Value"] == {"Ref": topic_id}
    ]
    assert handoff["Name"] == "/inference-platform/acme-genai-observability/alarm-topic-arn"
    # THEN every alarm in the hosting stack that notifies anything notifies that topic, read from the parameter
    hosting = default["acme-genai-hosting-1"]
    (parameter,) = [k for k, p in hosting["Parameters"].items() if p.get("Default") == handoff["Name"]]
    assert hosting["Parameters"][parameter]["Type"] == "AWS::SSM::Parameter::Value<String>"
    actions = [
        action
        for alarm in _resources(hosting, "AWS::CloudWatch::Alarm")
        for action in alarm["Properties"].get("AlarmActions", [])
        if not (isinstance(action, dict) and action.get("Ref") in hosting["Resources"])  # not a scaling policy
    ]
    assert actions
    assert {json.dumps(a) for a in actions} == {json.dumps({"Ref": parameter})}


def test_no_stack_exports_or_imports_a_value(default: Templates) -> None:
    # CloudFormation refuses to change or delete an export another stack imports: a model bump or a removed
    # profile would fail the update, so values cross stacks through SSM parameters only
    for name, template in default.items():
        assert "Fn::ImportValue" not in json.dumps(template), name
        assert not [o for o in template.get("Outputs", {}).values() if "Export" in o], name


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        (
            "acme-genai-chat",
            {"inference:capacity": "mixed", "inference:baseline-instances": "1", "inference:max-instances": "4"},
        ),
        ("acme-genai-batch-extract", {"inference:capacity": "burst", "inference:baseline-instances": "0"}),
    ],
)
def test_endpoints_carry_capacity_and_team_tags(default: Templates, endpoint: str, expected: dict[str, str]) -> None:
    hosting = default["acme-genai-hosting-1"]
    (resource,) = [
        r for r in _resources(hosting, "AWS::SageMaker::Endpoint") if r["Properties"]["EndpointName"] == endpoint
    ]
    tags = _tags(resource)
    assert expected.items() <= tags.items()
    assert {"team": "ml-platform", "cost-center": "4711", "inference:platform": "acme-genai"}.items() <= tags.items()


def test_cost_stack_has_budget_anomaly_monitor_and_tag_activation(default: Templates) -> None:
    cost = default["acme-genai-cost"]
    tagged = {"Key": "inference:platform", "MatchOptions": ["EQUALS"], "Values": ["acme-genai"]}
    # THEN the budget counts only the platform's tagged spend (the key with and without user:), unblended
    (budget,) = _resources(cost, "AWS::Budgets::Budget")
    assert budget["Properties"]["Budget"]["BudgetLimit"] == {"Amount": 25000, "Unit": "USD"}
    assert budget["Properties"]["Budget"]["FilterExpression"] == {
        "Or": [{"Tags": tagged}, {"Tags": {**tagged, "Key": "user:inference:platform"}}]
    }
    assert budget["Properties"]["Budget"]["Metrics"] == ["UnblendedCost"]
    # AND the anomaly monitor is CUSTOM on the same spend (never a second DIMENSIONAL SERVICE monitor), in the form
    # the ce model documents for a tag (no MatchOptions)
    (monitor,) = _resources(cost, "AWS::CE::AnomalyMonitor")
    assert monitor["Properties"]["MonitorType"] == "CUSTOM"
    assert json.loads(monitor["Properties"]["MonitorSpecification"]) == {
        "Tags": {"Key": "inference:platform", "Values": ["acme-genai"]}
    }
    # AND the platform and capacity tags are activated beside the configured keys, with a pending-keys alarm
    (activation,) = [r for r in cost["Resources"].values() if r["Type"].startswith("Custom::")]
    assert sorted(activation["Properties"]["TagKeys"]) == [
        "cost-center",
        "inference:capacity",
        "inference:platform",
        "team",
    ]
    (pending,) = _resources(cost, "AWS::CloudWatch::Alarm")
    (action,) = pending["Properties"]["AlarmActions"]
    parameter_name = "/inference-platform/acme-genai-observability/alarm-topic-arn"
    assert cost["Parameters"][action["Ref"]]["Default"] == parameter_name


def test_rollback_alarms_notify_the_alarm_topic(default: Templates) -> None:
    # GIVEN the hosting stack THEN every alarm has an action (Control Tower CT.CLOUDWATCH.PR.1), rollback ones too
    alarms = _resources(default["acme-genai-hosting-1"], "AWS::CloudWatch::Alarm")
    assert alarms
    assert [a for a in alarms if not a["Properties"].get("AlarmActions")] == []


def test_async_endpoints_export_their_input_prefix(default: Templates) -> None:
    # GIVEN the default platform's one async endpoint THEN its input prefix is a stack output
    outputs = default["acme-genai-hosting-1"]["Outputs"]
    value = json.dumps(outputs["batchXextractAsyncInputPrefix"]["Value"])
    assert value.endswith('"/async/acme-genai-batch-extract/inputs/"]]}')


def test_plan_records_each_endpoint_stack_and_the_commitment(assemblies: dict[str, tuple[Assembly, Assembly]]) -> None:
    plan = assemblies["default"][0].plan
    assert {e["stack"] for e in plan["endpoints"]} == {"acme-genai-hosting-1"}
    assert plan["savings_plan"]["commitment_usd_per_hour"] > 0
    assert plan["savings_plan"]["options"]["recommended"]["monthly_cost_usd"] <= min(
        plan["savings_plan"]["options"]["average"]["monthly_cost_usd"],
        plan["savings_plan"]["options"]["peak"]["monthly_cost_usd"],
    )


def test_sharding_keeps_config_order_and_limit() -> None:
    # GIVEN 300 real-time endpoints with one scaling policy each
    footprints = [EndpointFootprint(EndpointKind.REALTIME, scaling_policies=1, scaling_enabled=True)] * 300
    per_endpoint = estimated_resources(footprints[0])
    # WHEN sharded THEN stacks are filled in config order, each within 450 resources
    shards = shard(footprints)
    assert [i for s in shards for i in s] == list(range(300))
    assert all(4 + per_endpoint * len(s) <= 450 for s in shards)
    assert len(shards) == -(-300 // ((450 - 4) // per_endpoint))


def test_fails_on_a_limit_that_cannot_hold_shared_resources() -> None:
    with pytest.raises(ValueError, match="max_resources must exceed 4"):
        shard([], max_resources=4)


def test_estimate_bounds_real_counts_when_sharded_tightly(tmp_path: Path) -> None:
    # GIVEN nine endpoints of every kind placed three per stack and a limit of 60 resources per stack
    endpoint_kinds = [
        {"type": "realtime", "serving": "sklearn", "capacity": {"min": 1, "max": 3}},
        {"type": "async", "serving": "sklearn", "capacity": {"min": 0, "max": 2}},
        {"type": "serverless", "serving": "sklearn"},
    ]
    endpoints = [
        {
            "name": f"ep{i}",
            "model": {"source": "s3", "s3_uri": f"s3://acme-models/m{i}.tar.gz"},
            **endpoint_kinds[i % 3],
            "stack": i // 3 + 1,
        }
        for i in range(9)
    ]
    path = tmp_path / "many.yaml"
    config = {"name": "shards", "tags": {"team": "t"}, "endpoints": endpoints}
    validate_config(json.loads(json.dumps(config)))
    path.write_text(json.dumps(config))
    # WHEN synthesized (synthesize refuses any stack above the limit)
    result = synthesize(App(outdir=str(tmp_path / "out")), path, max_resources_per_stack=60)
    # THEN the endpoints spread over several hosting stacks, each within the limit
    hosting = [s for s in result.assembly.stacks if "-hosting-" in s.stack_name]
    assert len(hosting) >= 3
    assert all(len(s.template["Resources"]) <= 60 for s in hosting)
    # AND the size check reads the assembly on disk and names a stack over a lower limit
    largest = max(hosting, key=lambda s: len(s.template["Resources"]))
    size = len(largest.template["Resources"])
    check_stack_sizes(result.assembly.directory, size)
    with pytest.raises(
        RuntimeError, match=rf"stack shards-hosting-\d+ has {size} resources, over the {size - 1} allowed"
    ):
        check_stack_sizes(result.assembly.directory, size - 1)


ENDPOINT_KINDS = {
    "realtime-scaled": {"type": "realtime", "serving": "sklearn", "capacity": {"min": 1, "max": 3}},
    "realtime-fixed": {"type": "realtime", "serving": "sklearn"},
    "async-from-zero": {"type": "async", "serving": "sklearn", "capacity": {"min": 0, "max": 2}},
    "serverless": {"type": "serverless", "serving": "sklearn"},
    "serverless-provisioned": {
        "type": "serverless",
        "serving": "sklearn",
        "serverless": {"provisioned_concurrency": 2, "max_concurrency": 10},
    },
    "realtime-scale-to-zero": {
        "type": "realtime",
        "serving": "vllm",
        "accelerator": "gpu",
        "model": {"id": "org/m", "parameters_billion": 3},
        "capacity": {"min": 0, "max": 2},
        "scaling": {"concurrency_per_instance": 4},
    },
}


@pytest.mark.parametrize("kind", sorted(ENDPOINT_KINDS))
def test_resource_estimate_is_a_tight_upper_bound(tmp_path: Path, kind: str) -> None:
    # GIVEN a platform with one endpoint of this kind
    spec = {"name": "ep", "model": {"source": "s3", "s3_uri": "s3://acme-models/m.tar.gz"}, **ENDPOINT_KINDS[kind]}
    path = tmp_path / "one.yaml"
    path.write_text(json.dumps({"name": "count", "endpoints": [spec]}))
    # WHEN synthesized
    result = synthesize(App(outdir=str(tmp_path / "out")), path)
    (hosting,) = [s for s in result.assembly.stacks if "-hosting-" in s.stack_name]
    types = [r["Type"] for r in hosting.template["Resources"].values()]
    shared = sum(t in ("AWS::S3::Bucket", "AWS::S3::BucketPolicy") for t in types)
    actual = len(types) - shared
    # THEN the planned estimate is never below what the endpoint adds, and at most one above
    estimate = estimated_resources(result.plan.endpoints[0].footprint)
    assert actual <= estimate <= actual + 1


def test_scale_to_zero_example_alarms_and_scales_its_inference_component(
    assemblies: dict[str, tuple[Assembly, Assembly]],
) -> None:
    # GIVEN the scale-to-zero example: a real-time endpoint with capacity.min 0
    hosting = assemblies["examples-scale-to-zero"][0].templates["lab-llm-hosting-1"]
    (component,) = _resources(hosting, "AWS::SageMaker::InferenceComponent")
    component_name = component["Properties"]["InferenceComponentName"]
    # THEN copy scaling targets the component, from 0
    targets = [t["Properties"] for t in _resources(hosting, "AWS::ApplicationAutoScaling::ScalableTarget")]
    copy_targets = [t for t in targets if t["ScalableDimension"] == "sagemaker:inference-component:DesiredCopyCount"]
    assert len(copy_targets) == 1
    assert copy_targets[0]["MinCapacity"] == 0
    # AND the observability alarms on its invocations read the component's metrics
    dumped = json.dumps(_resources(hosting, "AWS::CloudWatch::Alarm"))
    assert json.dumps({"Name": "InferenceComponentName", "Value": component_name}) in dumped


@pytest.mark.parametrize(
    ("config", "platform"), [("examples-scale-to-zero", "lab-llm"), ("examples-inference-components", "shared-llm")]
)
def test_the_dashboard_graphs_each_inference_component_the_hosting_stack_names(
    assemblies: dict[str, tuple[Assembly, Assembly]], config: str, platform: str
) -> None:
    # GIVEN a shipped config whose endpoint is served through inference components (adapters aside)
    templates = assemblies[config][0].templates
    named = {
        r["Properties"]["InferenceComponentName"]
        for r in _resources(templates[f"{platform}-hosting-1"], "AWS::SageMaker::InferenceComponent")
        if "InferenceComponentName" in r["Properties"]
    }
    assert named
    (dashboard,) = _resources(templates[f"{platform}-observability"], "AWS::CloudWatch::Dashboard")
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    # THEN the observability stack's dashboard graphs every one of them on its own InferenceComponentName, as a
    # literal (no value crosses the stacks)
    for name in named:
        assert f'\\"InferenceComponentName\\",\\"{name}\\"' in body, name
    assert "Fn::ImportValue" not in body


def test_hosting_stack_builds_from_the_plans_own_decisions() -> None:
    # GIVEN the default platform planned once
    from inference_constructs.config import load_config
    from inference_constructs.plan import plan_platform
    from inference_constructs.stacks.hosting import HostingStack
    from inference_constructs.stacks.platform import build_platform

    plan = plan_platform(load_config(Path(__file__).resolve().parents[2] / "config" / "default.yaml"))
    app = App()
    # WHEN the stacks are composed
    build_platform(app, plan)
    (hosting,) = [s for s in app.node.children if isinstance(s, HostingStack)]
    # THEN every endpoint carries exactly the plan's decisions (nothing is decided twice)
    assert all(hosting.endpoints[d.name].plan is d.hosting for d in plan.endpoints)


@pytest.fixture(scope="module")
def governed(assemblies: dict[str, tuple[Assembly, Assembly]]) -> Templates:
    return assemblies["examples-bedrock-governed"][0].templates


def test_governed_guardrail_versions_are_never_exported(governed: Templates) -> None:
    # GIVEN logging and guardrails: a created guardrail's version changes with its policy
    bedrock = governed["governed-llm-bedrock"]
    exported = json.dumps([o for o in bedrock.get("Outputs", {}).values() if "Export" in o])
    # THEN no other stack imports it (CloudFormation would refuse the next policy change), yet callers can read it
    assert "GuardrailVersion" not in exported and "GuardrailArn" not in exported
    assert {"supportassistantGuardrailArn", "supportassistantGuardrailVersion"} <= set(bedrock["Outputs"])
    # AND the intervention and delivery alarms live beside the guardrails, on the stack's own topic
    alarms = _resources(bedrock, "AWS::CloudWatch::Alarm")
    namespaces = sorted(
        a["Properties"].get("Namespace") or a["Properties"]["Metrics"][1]["MetricStat"]["Metric"]["Namespace"]
        for a in alarms
    )
    assert namespaces == ["AWS/Bedrock"] * 3 + ["AWS/Bedrock/Guardrails"] * 2
    assert len(_resources(bedrock, "AWS::SNS::Topic")) == 1


def test_governed_role_policies_deny_calls_without_the_guardrail(governed: Templates) -> None:
    bedrock = governed["governed-llm-bedrock"]
    policies = [p for p in _resources(bedrock, "AWS::IAM::ManagedPolicy") if p["Properties"].get("Roles")]
    denies = [
        s
        for p in policies
        for s in p["Properties"]["PolicyDocument"]["Statement"]
        if s["Effect"] == "Deny" and "bedrock:InvokeModel" in s["Action"]
    ]
    # THEN each of the two profiles' invoke policies carries the Deny on a missing or other guardrail
    assert len(denies) == 2
    assert all(list(s["Condition"]) == ["StringNotEquals"] for s in denies)
