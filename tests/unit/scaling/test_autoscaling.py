"""Template assertions for EndpointScaling and ServerlessScaling."""

from __future__ import annotations

from pathlib import Path

import pytest
from aws_cdk import Duration, Stack
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk.assertions import Match, Template

from inference_constructs.errors import InferenceConfigError
from inference_constructs.scaling import (
    EndpointScaling,
    ScheduledFloor,
    ServerlessFacts,
    ServerlessScaling,
)
from inference_constructs.spec import EndpointKind, Serving
from tests.unit.scaling._plans import GPU4, scaling_plan
from tests.unit.scaling._synth import synth_checked

SERVICE_LINKED_ROLE_SUFFIX = (
    ":role/aws-service-role/sagemaker.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint"
)


def _realtime(stack: Stack, *, gpu_count: int = 4, min_capacity: int = 1) -> EndpointScaling:
    return EndpointScaling(
        stack, "Scaling", endpoint_name="chat", min_capacity=min_capacity, max_capacity=8, gpu_count=gpu_count
    )


def _async(stack: Stack, *, min_capacity: int = 0) -> EndpointScaling:
    return EndpointScaling(
        stack, "Scaling", endpoint_name="jobs", kind=EndpointKind.ASYNC, min_capacity=min_capacity, max_capacity=4
    )


# ------------------------------------------------------------------ scalable target


def test_scalable_target_scales_variant_instances_with_the_service_linked_role() -> None:
    # GIVEN a real-time endpoint scaled between 1 and 8 instances
    # WHEN the stack is synthesized
    template = synth_checked(lambda s: _realtime(s).scale_on_concurrency(per_instance=8))
    # THEN the target addresses the variant's instance count and uses the service-linked role
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {
            "ServiceNamespace": "sagemaker",
            "ResourceId": "endpoint/chat/variant/AllTraffic",
            "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
            "MinCapacity": 1,
            "MaxCapacity": 8,
            "RoleARN": {"Fn::Join": ["", Match.array_with([Match.string_like_regexp("AWSServiceRoleFor")])]},
        },
    )


def test_no_iam_role_is_created_for_scaling() -> None:
    # GIVEN an endpoint with every real-time policy and a schedule
    def build(stack: Stack) -> None:
        scaling = _realtime(stack)
        scaling.scale_on_concurrency(per_instance=8)
        scaling.scale_on_invocations(per_instance_per_minute=120)
        scaling.scale_on_gpu_memory(percent_per_gpu=80)
        scaling.scale_on_schedule(cron="cron(0 7 ? * MON-FRI *)", min_capacity=2)

    # WHEN synthesized
    template = synth_checked(build)
    # THEN no IAM role or policy appears, and the role ARN ends in the service-linked role
    template.resource_count_is("AWS::IAM::Role", 0)
    template.resource_count_is("AWS::IAM::Policy", 0)
    arn_parts = template.find_resources("AWS::ApplicationAutoScaling::ScalableTarget")
    (target,) = arn_parts.values()
    assert target["Properties"]["RoleARN"]["Fn::Join"][1][-1].endswith(SERVICE_LINKED_ROLE_SUFFIX)


# ------------------------------------------------------------------ real-time policies


def test_concurrency_uses_the_high_resolution_predefined_metric() -> None:
    # GIVEN a real-time endpoint
    # WHEN it scales on 8 concurrent requests per instance
    template = synth_checked(lambda s: _realtime(s).scale_on_concurrency(per_instance=8))
    # THEN target tracking uses ConcurrentRequestsPerModel at high resolution, with the documented cooldowns
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "PolicyType": "TargetTrackingScaling",
            "TargetTrackingScalingPolicyConfiguration": {
                "PredefinedMetricSpecification": {
                    "PredefinedMetricType": "SageMakerVariantConcurrentRequestsPerModelHighResolution"
                },
                "TargetValue": 8,
                "ScaleOutCooldown": 60,
                "ScaleInCooldown": 600,
            },
        },
    )


def test_invocations_use_invocations_per_instance() -> None:
    # GIVEN a real-time endpoint
    # WHEN it scales on 120 invocations per instance per minute
    template = synth_checked(lambda s: _realtime(s).scale_on_invocations(per_instance_per_minute=120))
    # THEN target tracking uses the predefined InvocationsPerInstance metric
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "TargetTrackingScalingPolicyConfiguration": {
                "PredefinedMetricSpecification": {"PredefinedMetricType": "SageMakerVariantInvocationsPerInstance"},
                "TargetValue": 120,
                "ScaleOutCooldown": 120,
                "ScaleInCooldown": 600,
            }
        },
    )


@pytest.mark.parametrize(
    ("gpu_count", "percent", "target"),
    [(4, 80, 320), (1, 80, 80), (8, 75, 600)],
)
def test_gpu_memory_target_is_multiplied_by_gpu_count(gpu_count: int, percent: float, target: float) -> None:
    # GIVEN a host with gpu_count GPUs
    # WHEN the endpoint scales on a per-GPU memory percent
    template = synth_checked(lambda s: _realtime(s, gpu_count=gpu_count).scale_on_gpu_memory(percent_per_gpu=percent))
    # THEN GPUMemoryUtilization (0-100 x GPUs) is tracked at percent x gpu_count
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "TargetTrackingScalingPolicyConfiguration": {
                "CustomizedMetricSpecification": {
                    "MetricName": "GPUMemoryUtilization",
                    "Namespace": "/aws/sagemaker/Endpoints",
                    "Statistic": "Average",
                    "Dimensions": [
                        {"Name": "EndpointName", "Value": "chat"},
                        {"Name": "VariantName", "Value": "AllTraffic"},
                    ],
                },
                "TargetValue": target,
            }
        },
    )


def test_several_policies_coexist_on_one_target() -> None:
    # GIVEN a real-time endpoint
    def build(stack: Stack) -> None:
        scaling = _realtime(stack)
        scaling.scale_on_concurrency(per_instance=8)
        scaling.scale_on_gpu_memory(percent_per_gpu=80)
        scaling.scale_on_invocations(per_instance_per_minute=100)

    # WHEN three policies are added
    template = synth_checked(build)
    # THEN there is one target and three target-tracking policies
    template.resource_count_is("AWS::ApplicationAutoScaling::ScalableTarget", 1)
    assert len(template.find_resources("AWS::ApplicationAutoScaling::ScalingPolicy")) == 3


def test_cooldowns_can_be_overridden() -> None:
    # GIVEN a real-time endpoint
    # WHEN concurrency scaling is given explicit cooldowns
    template = synth_checked(
        lambda s: _realtime(s).scale_on_concurrency(
            per_instance=4, scale_out_cooldown=Duration.seconds(30), scale_in_cooldown=Duration.minutes(15)
        )
    )
    # THEN they replace the defaults
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {"TargetTrackingScalingPolicyConfiguration": {"ScaleOutCooldown": 30, "ScaleInCooldown": 900}},
    )


def test_fails_on_a_misspelt_cooldown_keyword() -> None:
    # GIVEN a real-time endpoint's scaling
    scaling = _realtime(Stack())
    # WHEN a policy is asked for with a keyword that is not a cooldown
    # THEN it is refused, as a misspelt keyword argument is, naming the cooldowns
    with pytest.raises(TypeError, match="scale_in_cooldown"):
        scaling.scale_on_concurrency(per_instance=4, scale_out_cooldwn=Duration.seconds(30))  # type: ignore[call-arg]


def test_endpoint_name_token_orders_the_target_after_the_endpoint() -> None:
    # GIVEN a minimal endpoint resource whose name attribute is passed as a token
    def build(stack: Stack) -> None:
        endpoint = sagemaker.CfnEndpoint(stack, "Endpoint", endpoint_config_name="config")
        EndpointScaling(
            stack, "Scaling", endpoint_name=endpoint.attr_endpoint_name, max_capacity=2
        ).scale_on_concurrency(per_instance=4)

    # WHEN synthesized
    template = synth_checked(build)
    # THEN the resource id is built from the endpoint's name attribute
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {
            "ResourceId": {
                "Fn::Join": ["", ["endpoint/", {"Fn::GetAtt": [Match.any_value(), "EndpointName"]}, Match.any_value()]]
            }
        },
    )


# ------------------------------------------------------------------ async


def test_backlog_tracks_approximate_backlog_per_instance_with_endpoint_name_only() -> None:
    # GIVEN an async endpoint with minimum 1
    # WHEN it scales on a backlog of 5 per instance
    template = synth_checked(lambda s: _async(s, min_capacity=1).scale_on_backlog(per_instance=5))
    # THEN the customized metric has the EndpointName dimension only
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "TargetTrackingScalingPolicyConfiguration": {
                "CustomizedMetricSpecification": {
                    "MetricName": "ApproximateBacklogSizePerInstance",
                    "Namespace": "AWS/SageMaker",
                    "Statistic": "Average",
                    "Dimensions": [{"Name": "EndpointName", "Value": "jobs"}],
                },
                "TargetValue": 5,
            }
        },
    )
    # AND without minimum 0 there is no wake-up alarm
    template.resource_count_is("AWS::CloudWatch::Alarm", 0)


def test_async_min_zero_adds_step_policy_driven_by_has_backlog_without_capacity() -> None:
    # GIVEN an async endpoint that may scale to zero
    # WHEN it scales on backlog
    template = synth_checked(lambda s: _async(s).scale_on_backlog(per_instance=5))
    # THEN the target allows 0
    template.has_resource_properties("AWS::ApplicationAutoScaling::ScalableTarget", {"MinCapacity": 0})
    # AND a step policy adds one instance
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "PolicyType": "StepScaling",
            "StepScalingPolicyConfiguration": {
                "AdjustmentType": "ChangeInCapacity",
                "MetricAggregationType": "Average",
                "Cooldown": 300,
                "StepAdjustments": [{"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}],
            },
        },
    )
    # AND an alarm on HasBacklogWithoutCapacity >= 1 triggers that step policy
    step_id = next(
        key
        for key, res in template.find_resources("AWS::ApplicationAutoScaling::ScalingPolicy").items()
        if res["Properties"]["PolicyType"] == "StepScaling"
    )
    template.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "MetricName": "HasBacklogWithoutCapacity",
            "Namespace": "AWS/SageMaker",
            "Dimensions": [{"Name": "EndpointName", "Value": "jobs"}],
            "Statistic": "Average",
            "Period": 60,
            "EvaluationPeriods": 2,
            "DatapointsToAlarm": 2,
            "ComparisonOperator": "GreaterThanOrEqualToThreshold",
            "Threshold": 1,
            "TreatMissingData": "missing",
            "AlarmActions": [{"Ref": step_id}],
            "AlarmName": Match.absent(),
        },
    )


def test_fails_async_min_zero_without_backlog_scaling_at_synth() -> None:
    # GIVEN an async endpoint with minimum 0 and no backlog policy
    stack = Stack()
    _async(stack)
    # WHEN synthesized
    # THEN synthesis reports that nothing would wake it
    with pytest.raises(RuntimeError, match="needs scale_on_backlog"):
        Template.from_stack(stack)


# ------------------------------------------------------------------ schedules


def test_schedules_raise_and_lower_min_capacity() -> None:
    # GIVEN a real-time endpoint
    def build(stack: Stack) -> None:
        scaling = _realtime(stack)
        scaling.scale_on_concurrency(per_instance=8)
        scaling.scale_on_schedule(cron="cron(0 7 ? * MON-FRI *)", min_capacity=3)
        scaling.scale_on_schedule(cron="cron(0 19 ? * MON-FRI *)", min_capacity=1)

    # WHEN a morning floor and an evening floor are scheduled
    template = synth_checked(build)
    # THEN the target carries both scheduled actions
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {
            "ScheduledActions": [
                {
                    "ScheduledActionName": "Floor1",
                    "Schedule": "cron(0 7 ? * MON-FRI *)",
                    "ScalableTargetAction": {"MinCapacity": 3},
                },
                {
                    "ScheduledActionName": "Floor2",
                    "Schedule": "cron(0 19 ? * MON-FRI *)",
                    "ScalableTargetAction": {"MinCapacity": 1},
                },
            ]
        },
    )


# ------------------------------------------------------------------ construct rules


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"min_capacity": 5, "max_capacity": 2}, r"capacity\.min: 5 is greater than capacity\.max 2"),
        (
            {"min_capacity": 1, "max_capacity": 2, "burstable": True, "instance_type": "ml.t2.medium"},
            r"ml\.t2\.medium is a burstable instance type and cannot be auto scaled",
        ),
        ({"min_capacity": 0, "max_capacity": 2}, r"capacity\.min: 0 is not allowed when scaling real-time"),
        (
            {"min_capacity": 0, "max_capacity": 2, "kind": EndpointKind.MULTI_MODEL},
            r"0 is not allowed on a multi-model endpoint",
        ),
        ({"min_capacity": 1, "max_capacity": 0}, r"capacity\.max: 0 is out of range"),
        (
            {"min_capacity": 1, "max_capacity": 2, "kind": EndpointKind.SERVERLESS},
            r"use ServerlessScaling",
        ),
    ],
)
def test_fails_invalid_capacity(kwargs: dict[str, object], match: str) -> None:
    # GIVEN invalid bounds, kind or host
    # WHEN the construct is created
    # THEN one InferenceConfigError names the problem
    with pytest.raises(InferenceConfigError, match=match):
        EndpointScaling(Stack(), "Scaling", endpoint_name="chat", **kwargs)  # type: ignore[arg-type]


def test_fails_gpu_memory_scaling_on_a_host_without_gpus() -> None:
    # GIVEN a CPU host
    scaling = _realtime(Stack(), gpu_count=0)
    # WHEN GPU-memory scaling is asked for
    # THEN it is refused with the fix
    with pytest.raises(InferenceConfigError, match=r"gpu_memory_percent: .* has no gpu.*choose a gpu instance type"):
        scaling.scale_on_gpu_memory(percent_per_gpu=80)


def test_fails_gpu_memory_scaling_for_a_server_that_reserves_gpu_memory() -> None:
    # GIVEN a 4-GPU host serving vLLM, which reserves 90% of each GPU at start-up
    scaling = EndpointScaling(
        Stack(), "Scaling", endpoint_name="chat", max_capacity=4, gpu_count=4, serving=Serving.VLLM
    )
    # WHEN GPU-memory scaling is asked for THEN it is refused with the reason (the construct applies the plan's rule)
    with pytest.raises(InferenceConfigError, match=r"serving vllm cannot scale in on gpu memory: vLLM pre-allocates"):
        scaling.scale_on_gpu_memory(percent_per_gpu=80)


def test_fails_backlog_scaling_on_a_realtime_endpoint() -> None:
    # GIVEN a real-time endpoint
    scaling = _realtime(Stack())
    # WHEN backlog scaling is asked for
    # THEN it is refused
    with pytest.raises(InferenceConfigError, match=r"backlog scaling needs an async endpoint, this one is realtime"):
        scaling.scale_on_backlog(per_instance=5)


@pytest.mark.parametrize(
    ("method", "kwargs", "match"),
    [
        ("scale_on_concurrency", {"per_instance": 0}, r"concurrency_per_instance: 0 is out of range"),
        ("scale_on_invocations", {"per_instance_per_minute": -1}, r"invocations_per_instance_per_minute: -1 is out"),
        ("scale_on_gpu_memory", {"percent_per_gpu": 120}, r"gpu_memory_percent: 120 is out of range; use 0 < value"),
        ("scale_on_schedule", {"cron": "cron(0 7 * * MON-FRI *)", "min_capacity": 2}, r"exactly one of day-of-month"),
        ("scale_on_schedule", {"cron": "cron(0 7 ? * MON-FRI)", "min_capacity": 2}, r"has 5 fields"),
        ("scale_on_schedule", {"cron": "rate(5 minutes)", "min_capacity": 2}, r"is not a cron expression"),
        (
            "scale_on_schedule",
            {"cron": "cron(0 7 ? * MON-FRI *)", "min_capacity": 9},
            r"9 is greater than the maximum 8",
        ),
        (
            "scale_on_schedule",
            {"cron": "cron(0 7 ? * MON-FRI *)", "min_capacity": 0},
            r"0 is not allowed on this realtime",
        ),
    ],
)
def test_fails_targets_out_of_range(method: str, kwargs: dict[str, object], match: str) -> None:
    # GIVEN a real-time endpoint on a 4-GPU host
    scaling = _realtime(Stack())
    # WHEN a policy is given an out-of-range target or a bad schedule
    # THEN it is refused
    with pytest.raises(InferenceConfigError, match=match):
        getattr(scaling, method)(**kwargs)


def test_fails_concurrency_on_an_async_endpoint() -> None:
    # GIVEN an async endpoint
    scaling = _async(Stack(), min_capacity=1)
    # WHEN concurrency scaling is asked for
    # THEN the error points to backlog scaling
    with pytest.raises(InferenceConfigError, match=r"not available on an async endpoint; use scaling\.backlog"):
        scaling.scale_on_concurrency(per_instance=4)


# ------------------------------------------------------------------ from a plan


def test_from_plan_creates_every_planned_policy_and_schedule() -> None:
    # GIVEN a plan from config keys for a 4-GPU real-time endpoint
    plan = scaling_plan(
        EndpointKind.REALTIME,
        min_capacity=1,
        max_capacity=4,
        concurrency_per_instance=8,
        gpu_memory_percent=80,
        schedule=(ScheduledFloor("cron(0 7 ? * MON-FRI *)", 2), ScheduledFloor("cron(0 19 ? * MON-FRI *)", 1)),
        host=GPU4,
    )
    # WHEN the construct is built from it
    template = synth_checked(lambda s: EndpointScaling.from_plan(s, "Scaling", endpoint_name="chat", plan=plan))
    # THEN both policies and both schedules exist
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {"TargetTrackingScalingPolicyConfiguration": Match.object_like({"TargetValue": 320})},
    )
    assert len(template.find_resources("AWS::ApplicationAutoScaling::ScalingPolicy")) == 2
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {
            "MaxCapacity": 4,
            "ScheduledActions": Match.array_with([Match.object_like({"ScheduledActionName": "Floor2"})]),
        },
    )


def test_from_plan_async_zero_has_the_wake_up_alarm() -> None:
    # GIVEN an async plan with minimum 0 and a backlog target
    plan = scaling_plan(EndpointKind.ASYNC, path="endpoints[1]", min_capacity=0, max_capacity=2, backlog_per_instance=5)
    # WHEN the construct is built from it
    template = synth_checked(lambda s: EndpointScaling.from_plan(s, "Scaling", endpoint_name="jobs", plan=plan))
    # THEN the HasBacklogWithoutCapacity alarm is there
    template.has_resource_properties("AWS::CloudWatch::Alarm", {"MetricName": "HasBacklogWithoutCapacity"})


# ------------------------------------------------------------------ serverless


def test_serverless_provisioned_concurrency_tracks_its_utilization() -> None:
    # GIVEN a serverless endpoint with provisioned concurrency
    # WHEN its provisioned concurrency is scaled between 2 and 10
    template = synth_checked(
        lambda s: ServerlessScaling(
            s, "Scaling", endpoint_name="small", min_provisioned_concurrency=2, max_provisioned_concurrency=10
        )
    )
    # THEN the target is DesiredProvisionedConcurrency and the policy tracks its utilization at 0.7
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {
            "ScalableDimension": "sagemaker:variant:DesiredProvisionedConcurrency",
            "ResourceId": "endpoint/small/variant/AllTraffic",
            "MinCapacity": 2,
            "MaxCapacity": 10,
        },
    )
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalingPolicy",
        {
            "TargetTrackingScalingPolicyConfiguration": {
                "PredefinedMetricSpecification": {
                    "PredefinedMetricType": "SageMakerVariantProvisionedConcurrencyUtilization"
                },
                "TargetValue": 0.7,
                "ScaleOutCooldown": 60,
                "ScaleInCooldown": 300,
            }
        },
    )
    template.resource_count_is("AWS::IAM::Role", 0)


def test_serverless_from_plan_scales_from_provisioned_to_max_concurrency() -> None:
    # GIVEN a serverless plan with 2 provisioned of 20 maximum concurrency
    plan = scaling_plan(
        EndpointKind.SERVERLESS,
        path="endpoints[2]",
        min_capacity=1,
        max_capacity=4,
        serverless=ServerlessFacts(max_concurrency=20, provisioned_concurrency=2),
    )
    # WHEN the construct is built from it
    template = synth_checked(lambda s: ServerlessScaling.from_plan(s, "Scaling", endpoint_name="small", plan=plan))
    # THEN the bounds are the provisioned and the maximum concurrency
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget", {"MinCapacity": 2, "MaxCapacity": 20}
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"min_provisioned_concurrency": 5, "max_provisioned_concurrency": 2}, r"5 is greater than serverless"),
        ({"max_provisioned_concurrency": 201}, r"serverless\.max_concurrency: 201 is out of range; use 1\.\.200"),
        ({"max_provisioned_concurrency": 4, "target_utilization": 1.5}, r"1\.5 is out of range; use 0 < value <= 1"),
    ],
)
def test_fails_invalid_serverless_provisioned_concurrency(kwargs: dict[str, object], match: str) -> None:
    # GIVEN invalid provisioned-concurrency bounds or target
    # WHEN the construct is created
    # THEN it is refused
    with pytest.raises(InferenceConfigError, match=match):
        ServerlessScaling(Stack(), "Scaling", endpoint_name="small", **kwargs)  # type: ignore[arg-type]


def test_scalable_targets_of_a_stack_share_one_import_of_the_service_linked_role() -> None:
    # GIVEN two endpoints' scaling in one stack and one in another stack of the same app
    from aws_cdk import App

    from inference_constructs.scaling._render import SERVICE_LINKED_ROLE_ID

    app = App()
    first, second = Stack(app, "First"), Stack(app, "Second")
    a = EndpointScaling(first, "A", endpoint_name="a", max_capacity=2)
    b = EndpointScaling(first, "B", endpoint_name="b", max_capacity=2)
    c = EndpointScaling(second, "C", endpoint_name="c", max_capacity=2)
    # THEN the two targets of the first stack use one import (a reference: no resource), the other stack its own
    paths = [s.target.role.node.path for s in (a, b, c)]
    assert paths == [
        f"First/{SERVICE_LINKED_ROLE_ID}",
        f"First/{SERVICE_LINKED_ROLE_ID}",
        f"Second/{SERVICE_LINKED_ROLE_ID}",
    ]
    # AND each target names the service-linked role in its own stack's partition and account
    for stack, count in ((first, 2), (second, 1)):
        template = Template.from_stack(stack)
        template.resource_count_is("AWS::IAM::Role", 0)
        targets = template.find_resources("AWS::ApplicationAutoScaling::ScalableTarget").values()
        assert len(targets) == count
        for target in targets:
            parts = target["Properties"]["RoleARN"]["Fn::Join"][1]
            assert {"Ref": "AWS::Partition"} in parts and {"Ref": "AWS::AccountId"} in parts
            assert parts[-1].endswith(SERVICE_LINKED_ROLE_SUFFIX)


def test_scaling_twice_in_a_stack_made_in_javascript_shares_the_import(tmp_path: Path) -> None:
    # GIVEN a nested stack that CfnInclude made (each read of it is a new Python proxy of the same JS stack)
    from constructs import Construct

    from inference_constructs.scaling._render import SERVICE_LINKED_ROLE_ID
    from tests.javascript_stack import javascript_stack

    read = javascript_stack(tmp_path)
    nested = read()
    # WHEN two endpoints are scaled under two constructs of it
    a = EndpointScaling(Construct(nested, "G1"), "A", endpoint_name="a", max_capacity=2)
    b = EndpointScaling(Construct(read(), "G2"), "B", endpoint_name="b", max_capacity=2)
    # THEN both use the one import in that stack, and both targets are in its template
    assert a.target.role.node.path == b.target.role.node.path == f"Parent/Include/Child/{SERVICE_LINKED_ROLE_ID}"
    targets = Template.from_stack(nested).find_resources("AWS::ApplicationAutoScaling::ScalableTarget")
    assert len(targets) == 2
