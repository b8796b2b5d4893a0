"""Real-time scale to zero: capacity.min 0 hosts the model through an inference component with copy scaling."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Match

from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import Capacity, RealtimeEndpoint
from inference_constructs.scaling.decisions import HostFacts, ScalingIntent, plan_scaling
from inference_constructs.scaling.inference_component import InferenceComponentScaling
from inference_constructs.spec import AcceleratorChoice, EndpointKind, ModelSpec
from tests.unit.hosting._synth import logical_ids, synth_checked

LLAMA_8B = ModelSpec(
    id="NousResearch/Meta-Llama-3.1-8B-Instruct",
    parameters_billion=8,
    max_context_tokens=8192,
    max_concurrent_sequences=16,
)
PLAN = plan_scaling(
    "endpoints[0]",
    kind=EndpointKind.REALTIME,
    min_capacity=0,
    max_capacity=3,
    intent=ScalingIntent(concurrency_per_instance=12),
    host=HostFacts(gpu_count=4, instance_type="ml.g5.12xlarge"),
)


def _endpoint(stack: Stack) -> RealtimeEndpoint:
    return RealtimeEndpoint(stack, "Chat", model=LLAMA_8B, instance_type="ml.g5.12xlarge", capacity=Capacity(0, 3))


def _scaled(stack: Stack) -> None:
    _endpoint(stack).auto_scale_from_plan(PLAN)


@pytest.fixture(scope="module")
def synthesized() -> tuple[Any, dict[str, Any]]:
    # nag (three packs) and cfn-lint (errors and warnings) run inside synth_checked
    return synth_checked(_scaled)


def _one(template: dict[str, Any], type_: str) -> dict[str, Any]:
    (logical_id,) = logical_ids(template, type_)
    return template["Resources"][logical_id]  # type: ignore[no-any-return]


def test_variant_scales_managed_instances_from_zero_and_names_no_model(
    synthesized: tuple[Any, dict[str, Any]],
) -> None:
    # GIVEN a real-time endpoint with capacity 0..3 WHEN synthesized
    _, template = synthesized
    config = _one(template, "AWS::SageMaker::EndpointConfig")["Properties"]
    # THEN its variant has managed instance scaling 0..3, starts with one instance, routes to the least busy copy,
    # names no model and has no start-up timeouts (the component has them)
    (variant,) = config["ProductionVariants"]
    assert variant["ManagedInstanceScaling"] == {"Status": "ENABLED", "MinInstanceCount": 0, "MaxInstanceCount": 3}
    assert (variant["InitialInstanceCount"], variant["InstanceType"]) == (1, "ml.g5.12xlarge")
    assert variant["RoutingConfig"] == {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"}
    assert "ModelName" not in variant and "ContainerStartupHealthCheckTimeoutInSeconds" not in variant
    # AND the endpoint config carries the endpoint's execution role, required when a variant names no model
    role_id = logical_ids(template, "AWS::IAM::Role")[0]
    assert config["ExecutionRoleArn"] == {"Fn::GetAtt": [role_id, "Arn"]}


def test_component_places_the_model_on_the_whole_host(synthesized: tuple[Any, dict[str, Any]]) -> None:
    # GIVEN the endpoint WHEN synthesized
    _, template = synthesized
    component = _one(template, "AWS::SageMaker::InferenceComponent")
    model_id = logical_ids(template, "AWS::SageMaker::Model")[0]
    spec = component["Properties"]["Specification"]
    # THEN the component names the model, reserves the 4 GPUs and the host RAM to load it, carries the start-up
    # timeouts, starts with one copy and is created after the endpoint
    assert spec["ModelName"] == {"Fn::GetAtt": [model_id, "ModelName"]}
    assert spec["ComputeResourceRequirements"] == {
        "NumberOfAcceleratorDevicesRequired": 4,
        "MinMemoryRequiredInMb": 19355,
    }
    assert set(spec["StartupParameters"]) == {
        "ModelDataDownloadTimeoutInSeconds",
        "ContainerStartupHealthCheckTimeoutInSeconds",
    }
    assert component["Properties"]["RuntimeConfig"] == {"CopyCount": 1}
    assert logical_ids(template, "AWS::SageMaker::Endpoint")[0] in component["DependsOn"]


def test_updates_roll_per_component_with_alarm_rollback(synthesized: tuple[Any, dict[str, Any]]) -> None:
    # GIVEN the endpoint (blue/green by default) WHEN synthesized
    _, template = synthesized
    component = _one(template, "AWS::SageMaker::InferenceComponent")["Properties"]
    endpoint = _one(template, "AWS::SageMaker::Endpoint")["Properties"]
    # THEN the endpoint has no blue/green policy; the component rolls half its copies at a time and rolls back on
    # the two alarms, which watch the component's own invocation metrics
    assert "DeploymentConfig" not in endpoint
    rolling = component["DeploymentConfig"]["RollingUpdatePolicy"]
    assert rolling["MaximumBatchSize"] == {"Type": "CAPACITY_PERCENT", "Value": 50}
    assert (rolling["WaitIntervalInSeconds"], 600 <= rolling["MaximumExecutionTimeoutInSeconds"] <= 28_800) == (
        300,
        True,
    )
    alarm_refs = [a["AlarmName"]["Ref"] for a in component["DeploymentConfig"]["AutoRollbackConfiguration"]["Alarms"]]
    dims = [template["Resources"][ref]["Properties"]["Dimensions"] for ref in alarm_refs]
    assert dims == [[{"Name": "InferenceComponentName", "Value": component["InferenceComponentName"]}]] * 2


def test_copies_scale_from_zero_on_concurrency(synthesized: tuple[Any, dict[str, Any]]) -> None:
    # GIVEN the endpoint scaled by its plan WHEN synthesized
    assertions, template = synthesized
    component = _one(template, "AWS::SageMaker::InferenceComponent")["Properties"]
    target = _one(template, "AWS::ApplicationAutoScaling::ScalableTarget")
    # THEN the component's copy count scales 0..3 and per-copy concurrency is tracked
    assert target["Properties"]["ResourceId"] == f"inference-component/{component['InferenceComponentName']}"
    assert target["Properties"]["ScalableDimension"] == "sagemaker:inference-component:DesiredCopyCount"
    assert (target["Properties"]["MinCapacity"], target["Properties"]["MaxCapacity"]) == (0, 3)
    assertions.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "TargetTrackingScalingPolicyConfiguration": Match.object_like(
                {
                    "PredefinedMetricSpecification": {
                        "PredefinedMetricType": "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution"
                    },
                    "TargetValue": 12,
                }
            )
        },
    )


def test_first_failed_request_wakes_a_copy(synthesized: tuple[Any, dict[str, Any]]) -> None:
    # GIVEN the endpoint scaled by its plan WHEN synthesized
    assertions, template = synthesized
    component = _one(template, "AWS::SageMaker::InferenceComponent")["Properties"]
    step_ids = [
        k
        for k in logical_ids(template, "AWS::ApplicationAutoScaling::ScalingPolicy")
        if template["Resources"][k]["Properties"]["PolicyType"] == "StepScaling"
    ]
    # THEN NoCapacityInvocationFailures >= 1 in a minute triggers the +1 copy step policy
    assertions.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "MetricName": "NoCapacityInvocationFailures",
            "Dimensions": [{"Name": "InferenceComponentName", "Value": component["InferenceComponentName"]}],
            "Statistic": "Sum",
            "ComparisonOperator": "GreaterThanOrEqualToThreshold",
            "Threshold": 1,
            "AlarmActions": [{"Ref": step_ids[0]}],
        },
    )
    step = template["Resources"][step_ids[0]]["Properties"]["StepScalingPolicyConfiguration"]
    assert step["StepAdjustments"] == [{"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}]


def test_resource_count_of_a_scale_to_zero_endpoint(synthesized: tuple[Any, dict[str, Any]]) -> None:
    # GIVEN the endpoint with its copy scaling WHEN counted
    _, template = synthesized
    types = sorted(r["Type"] for r in template["Resources"].values())
    # THEN role, policy, model, config, endpoint, component, 2 rollback alarms, and target + 2 policies + wake-up alarm
    assert types == sorted(
        [
            "AWS::IAM::Role",
            "AWS::IAM::ManagedPolicy",
            "AWS::SageMaker::Model",
            "AWS::SageMaker::EndpointConfig",
            "AWS::SageMaker::Endpoint",
            "AWS::SageMaker::InferenceComponent",
            "AWS::CloudWatch::Alarm",
            "AWS::CloudWatch::Alarm",
            "AWS::ApplicationAutoScaling::ScalableTarget",
            "AWS::ApplicationAutoScaling::ScalingPolicy",
            "AWS::ApplicationAutoScaling::ScalingPolicy",
            "AWS::CloudWatch::Alarm",
        ]
    )


def test_auto_scale_copies_is_the_python_intent() -> None:
    # GIVEN the endpoint WHEN its copies are scaled directly on concurrency
    built: list[InferenceComponentScaling] = []

    def build(stack: Stack) -> None:
        scaling = _endpoint(stack).auto_scale_copies()
        scaling.scale_on_concurrency(per_copy=8)
        built.append(scaling)

    synth_checked(build)
    # THEN copies run between the endpoint's capacity bounds, with the wake-up
    assert (built[0].min_copy_count, built[0].max_copy_count, built[0].wake_up_alarm is not None) == (0, 3, True)


@pytest.mark.parametrize(
    ("method", "metric_name", "namespace", "statistic"),
    [
        ("metric_invocations_per_copy", "InvocationsPerCopy", "AWS/SageMaker", "Sum"),
        ("metric_concurrent_requests_per_copy", "ConcurrentRequestsPerCopy", "AWS/SageMaker", "Maximum"),
        ("metric_no_capacity_invocation_failures", "NoCapacityInvocationFailures", "AWS/SageMaker", "Sum"),
        (
            "metric_gpu_utilization_normalized",
            "GPUUtilizationNormalized",
            "/aws/sagemaker/InferenceComponents",
            "Average",
        ),
        ("metric_invocation_5xx_errors", "Invocation5XXErrors", "AWS/SageMaker", "Average"),
    ],
)
def test_component_metrics_use_the_component_dimension(
    method: str, metric_name: str, namespace: str, statistic: str
) -> None:
    # GIVEN a scale-to-zero endpoint WHEN a metric helper is called
    stack = Stack(App(), "Test")
    endpoint = _endpoint(stack)
    metric = getattr(endpoint, method)()
    # THEN it is the component's metric
    assert endpoint.inference_component is not None
    assert (metric.metric_name, metric.namespace, metric.statistic) == (metric_name, namespace, statistic)
    assert metric.dimensions == {"InferenceComponentName": endpoint.inference_component.inference_component_name}


def test_fails_per_copy_metrics_without_an_inference_component() -> None:
    # GIVEN an endpoint with instances (min 1) WHEN a per-copy metric is asked THEN it is refused with the reason
    stack = Stack(App(), "Test")
    endpoint = RealtimeEndpoint(stack, "Chat", model=LLAMA_8B, accelerator=AcceleratorChoice.GPU)
    with pytest.raises(InferenceConfigError, match=r"Chat.capacity.min: 1 hosts the model without an inference"):
        endpoint.metric_invocations_per_copy()


def test_fails_synth_of_a_scale_to_zero_endpoint_without_copy_scaling() -> None:
    # GIVEN capacity 0..3 on a real-time endpoint and no copy scaling
    app = App()
    _endpoint(Stack(app, "Test"))
    # WHEN synthesized THEN validation says nothing would bring it to zero or wake it
    with pytest.raises(RuntimeError, match=r"capacity.min: 0 on a realtime endpoint needs copy scaling"):
        app.synth()


def test_fails_instance_scaling_plan_on_a_scale_to_zero_endpoint() -> None:
    # GIVEN a scale-to-zero endpoint and a plan that scales variant instances 1..3
    stack = Stack(App(), "Test")
    plan = plan_scaling(
        "endpoints[0]",
        kind=EndpointKind.REALTIME,
        min_capacity=1,
        max_capacity=3,
        intent=ScalingIntent(concurrency_per_instance=8),
    )
    # WHEN applied THEN it is refused
    with pytest.raises(InferenceConfigError, match=r"scales sagemaker:variant:DesiredInstanceCount, but this endpoint"):
        _endpoint(stack).auto_scale_from_plan(plan)


def test_scale_to_zero_template_is_deterministic(synthesized: tuple[Any, dict[str, Any]]) -> None:
    # GIVEN the same endpoint and plan WHEN synthesized again THEN the template is identical (component name included)
    _, template = synthesized
    assert synth_checked(_scaled)[1] == template
