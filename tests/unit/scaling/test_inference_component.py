"""Real-time scale to zero: endpoint config variant, inference component, copy scaling and its wake-up."""

from __future__ import annotations

import pytest
from aws_cdk import Stack
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk.assertions import Match

from inference_constructs.compliance import acknowledge
from inference_constructs.errors import InferenceConfigError
from inference_constructs.scaling import (
    HostFacts,
    InferenceComponentScaling,
    ModelInferenceComponent,
    ScheduledFloor,
)
from inference_constructs.scaling.inference_component import managed_instance_scaling, scale_to_zero_variant
from inference_constructs.spec import EndpointKind
from tests.unit.scaling._plans import GPU4, scaling_plan
from tests.unit.scaling._synth import synth_checked

ROLE_ARN = "arn:aws:iam::111122223333:role/sagemaker-execution"
IMAGE = "763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128"


def _scale_to_zero_endpoint(stack: Stack, *, max_instances: int = 2) -> ModelInferenceComponent:
    """A minimal model + endpoint config + endpoint hosting one inference component."""
    model = sagemaker.CfnModel(
        stack,
        "Model",
        execution_role_arn=ROLE_ARN,
        primary_container=sagemaker.CfnModel.ContainerDefinitionProperty(image=IMAGE),
        vpc_config=sagemaker.CfnModel.VpcConfigProperty(
            security_group_ids=["sg-0123456789abcdef0"], subnets=["subnet-0123456789abcdef0"]
        ),
        enable_network_isolation=False,
    )
    config = sagemaker.CfnEndpointConfig(
        stack,
        "Config",
        execution_role_arn=ROLE_ARN,
        production_variants=[scale_to_zero_variant(instance_type="ml.g5.12xlarge", max_instance_count=max_instances)],
    )
    for pack in ("NIST.800.53.R5", "HIPAA.Security"):
        acknowledge(
            config,
            f"{pack}-SageMakerEndpointConfigurationKMSKeyConfigured",
            "ml.g5 hosts use local NVMe instance storage, on which SageMaker rejects KmsKeyId; it is encrypted by "
            "the hardware",
        )
    endpoint = sagemaker.CfnEndpoint(stack, "Endpoint", endpoint_config_name=config.attr_endpoint_config_name)
    return ModelInferenceComponent(
        stack,
        "Component",
        endpoint_name=endpoint.attr_endpoint_name,
        model_name=model.attr_model_name,
        accelerator_devices=4,
        min_memory_required_in_mb=16384,
    )


def test_variant_has_managed_instance_scaling_to_zero_and_no_model() -> None:
    # GIVEN an endpoint config built with the scale-to-zero variant
    # WHEN synthesized
    template = synth_checked(lambda s: _scale_to_zero_endpoint(s, max_instances=3))
    # THEN managed instance scaling runs 0..3 and the variant names no model
    template.has_resource_properties(
        "AWS::SageMaker::EndpointConfig",
        {
            "ExecutionRoleArn": ROLE_ARN,
            "ProductionVariants": [
                {
                    "VariantName": "AllTraffic",
                    "InstanceType": "ml.g5.12xlarge",
                    "InitialInstanceCount": 1,
                    "ManagedInstanceScaling": {"Status": "ENABLED", "MinInstanceCount": 0, "MaxInstanceCount": 3},
                    "RoutingConfig": {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"},
                    "ModelName": Match.absent(),
                }
            ],
        },
    )


def test_inference_component_reserves_the_hosts_gpus_and_memory() -> None:
    # GIVEN a component for a 4-GPU host
    # WHEN synthesized
    template = synth_checked(_scale_to_zero_endpoint)
    # THEN it names the model, reserves 4 accelerators and the memory, and starts with one copy
    template.has_resource_properties(
        "AWS::SageMaker::InferenceComponent",
        {
            "EndpointName": {"Fn::GetAtt": [Match.any_value(), "EndpointName"]},
            "VariantName": "AllTraffic",
            "InferenceComponentName": Match.string_like_regexp("^[a-zA-Z0-9](-*[a-zA-Z0-9])*$"),
            "Specification": {
                "ModelName": {"Fn::GetAtt": [Match.any_value(), "ModelName"]},
                "ComputeResourceRequirements": {
                    "NumberOfAcceleratorDevicesRequired": 4,
                    "MinMemoryRequiredInMb": 16384,
                },
            },
            "RuntimeConfig": {"CopyCount": 1},
        },
    )


def test_copy_scaling_targets_desired_copy_count_from_zero() -> None:
    # GIVEN a component whose copies scale between 0 and 2 on concurrency
    def build(stack: Stack) -> None:
        _scale_to_zero_endpoint(stack).auto_scale_copies(max_copy_count=2).scale_on_concurrency(per_copy=8)

    # WHEN synthesized
    template = synth_checked(build)
    # THEN the target is the component's copy count, min 0, created after the component
    targets = template.find_resources(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {
            "Properties": {
                "ScalableDimension": "sagemaker:inference-component:DesiredCopyCount",
                "ResourceId": Match.string_like_regexp("^inference-component/"),
                "MinCapacity": 0,
                "MaxCapacity": 2,
            }
        },
    )
    (target,) = targets.values()
    component_id = next(iter(template.find_resources("AWS::SageMaker::InferenceComponent")))
    assert component_id in target["DependsOn"]
    # AND copies track concurrent requests per copy at high resolution
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "PolicyType": "TargetTrackingScaling",
            "TargetTrackingScalingPolicyConfiguration": {
                "PredefinedMetricSpecification": {
                    "PredefinedMetricType": "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution"
                },
                "TargetValue": 8,
                "ScaleOutCooldown": 60,
                "ScaleInCooldown": 600,
            },
        },
    )
    # AND no IAM role is created for scaling
    template.resource_count_is("AWS::IAM::Role", 0)


def test_no_capacity_invocation_failures_alarm_wakes_the_component() -> None:
    # GIVEN copy scaling with minimum 0
    def build(stack: Stack) -> None:
        _scale_to_zero_endpoint(stack).auto_scale_copies(max_copy_count=2).scale_on_invocations(per_copy_per_minute=30)

    # WHEN synthesized
    template = synth_checked(build)
    # THEN a +1 copy step policy exists
    steps = template.find_resources(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "Properties": {
                "PolicyType": "StepScaling",
                "StepScalingPolicyConfiguration": {
                    "AdjustmentType": "ChangeInCapacity",
                    "MetricAggregationType": "Maximum",
                    "Cooldown": 60,
                    "StepAdjustments": [{"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}],
                },
            }
        },
    )
    (step_id,) = steps
    # AND the NoCapacityInvocationFailures >= 1 alarm triggers it
    template.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "MetricName": "NoCapacityInvocationFailures",
            "Namespace": "AWS/SageMaker",
            "Dimensions": [{"Name": "InferenceComponentName", "Value": Match.any_value()}],
            "Statistic": "Sum",
            "Period": 60,
            "EvaluationPeriods": 1,
            "DatapointsToAlarm": 1,
            "ComparisonOperator": "GreaterThanOrEqualToThreshold",
            "Threshold": 1,
            "AlarmActions": [{"Ref": step_id}],
        },
    )
    # AND the invocations policy tracks InvocationsPerCopy
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "TargetTrackingScalingPolicyConfiguration": Match.object_like(
                {
                    "PredefinedMetricSpecification": {
                        "PredefinedMetricType": "SageMakerInferenceComponentInvocationsPerCopy"
                    },
                    "TargetValue": 30,
                }
            )
        },
    )


def test_minimum_one_copy_has_no_wake_up() -> None:
    # GIVEN copy scaling that never reaches zero
    # WHEN synthesized
    template = synth_checked(
        lambda s: InferenceComponentScaling(
            s, "Scaling", inference_component_name="chat-ic", min_copy_count=1, max_copy_count=3
        ).scale_on_concurrency(per_copy=4)
    )
    # THEN there is no alarm and no step policy
    template.resource_count_is("AWS::CloudWatch::Alarm", 0)
    template.has_resource_properties("AWS::ApplicationAutoScaling::ScalableTarget", {"MinCapacity": 1})


def test_from_plan_builds_copy_scaling_with_schedules() -> None:
    # GIVEN a real-time plan with capacity.min 0, concurrency and a schedule
    plan = scaling_plan(
        EndpointKind.REALTIME,
        min_capacity=0,
        max_capacity=2,
        concurrency_per_instance=8,
        schedule=(ScheduledFloor("cron(0 7 ? * MON-FRI *)", 1), ScheduledFloor("cron(0 19 ? * MON-FRI *)", 0)),
        host=GPU4,
    )
    # WHEN the copy scaling is built from it
    template = synth_checked(
        lambda s: InferenceComponentScaling.from_plan(s, "Scaling", inference_component_name="chat-ic", plan=plan)
    )
    # THEN it scales the named component's copies with a warm floor during the day
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {
            "ResourceId": "inference-component/chat-ic",
            "MinCapacity": 0,
            "ScheduledActions": [
                Match.object_like({"ScalableTargetAction": {"MinCapacity": 1}}),
                Match.object_like({"ScalableTargetAction": {"MinCapacity": 0}}),
            ],
        },
    )
    template.resource_count_is("AWS::CloudWatch::Alarm", 1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"min_copy_count": 3, "max_copy_count": 2}, r"capacity\.min: 3 is greater than capacity\.max 2"),
        ({"max_copy_count": 0}, r"capacity\.max: 0 is out of range"),
    ],
)
def test_fails_invalid_copy_bounds(kwargs: dict[str, int], match: str) -> None:
    # GIVEN invalid copy-count bounds
    # WHEN the scaling is created
    # THEN it is refused
    with pytest.raises(InferenceConfigError, match=match):
        InferenceComponentScaling(Stack(), "Scaling", inference_component_name="chat-ic", **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"min_instance_count": 3, "max_instance_count": 2}, r"capacity\.min: 3 is greater than capacity\.max 2"),
        ({"min_instance_count": -1, "max_instance_count": 2}, r"capacity\.min: -1 is negative"),
        ({"max_instance_count": 0}, r"capacity\.max: 0 is out of range"),
    ],
)
def test_fails_invalid_managed_instance_bounds(kwargs: dict[str, int], match: str) -> None:
    # GIVEN instance bounds the capacity rule refuses (the same rule as every endpoint's capacity)
    # WHEN the managed instance scaling is built
    # THEN it is refused with the capacity key
    with pytest.raises(InferenceConfigError, match=match):
        managed_instance_scaling(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"inference_component_name": "-bad-"}, r"inference_component_name: '-bad-' is not a valid name"),
        ({"accelerator_devices": -1}, r"accelerator_devices: -1 is negative"),
        ({"min_memory_required_in_mb": 0}, r"min_memory_required_in_mb: 0 is too small"),
    ],
)
def test_fails_invalid_inference_component(kwargs: dict[str, object], match: str) -> None:
    # GIVEN an invalid component property
    props: dict[str, object] = {"endpoint_name": "chat", "model_name": "model", "min_memory_required_in_mb": 1024}
    props.update(kwargs)
    # WHEN the component is created
    # THEN it is refused
    with pytest.raises(InferenceConfigError, match=match):
        ModelInferenceComponent(Stack(), "Component", **props)  # type: ignore[arg-type]


def test_fails_instance_scaling_from_a_copy_plan() -> None:
    # GIVEN a plan that scales variant instances
    plan = scaling_plan(EndpointKind.REALTIME, min_capacity=1, max_capacity=2, concurrency_per_instance=4)
    # WHEN copy scaling is built from it
    # THEN it is refused with the construct to use
    with pytest.raises(InferenceConfigError, match="use EndpointScaling"):
        InferenceComponentScaling.from_plan(Stack(), "Scaling", inference_component_name="chat-ic", plan=plan)


def test_component_scales_from_plan_after_it_exists() -> None:
    # GIVEN a real-time scale-to-zero plan with invocation scaling
    plan = scaling_plan(
        EndpointKind.REALTIME,
        min_capacity=0,
        max_capacity=2,
        invocations_per_instance_per_minute=30,
        host=HostFacts(gpu_count=4),
    )
    # WHEN the component scales from it
    template = synth_checked(lambda s: _scale_to_zero_endpoint(s).auto_scale_from_plan(plan))
    # THEN the copy target depends on the component and the wake-up alarm exists
    (target,) = template.find_resources("AWS::ApplicationAutoScaling::ScalableTarget").values()
    component_id = next(iter(template.find_resources("AWS::SageMaker::InferenceComponent")))
    assert component_id in target["DependsOn"]
    template.has_resource_properties("AWS::CloudWatch::Alarm", {"MetricName": "NoCapacityInvocationFailures"})
