"""Scaling hooks on the endpoint constructs: auto_scale, auto_scale_provisioned_concurrency, auto_scale_from_plan."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Match

from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import AsyncOptions, Capacity, InferenceEndpoint, RealtimeEndpoint, ServerlessEndpoint
from inference_constructs.scaling.autoscaling import EndpointScaling, ServerlessScaling
from inference_constructs.scaling.decisions import HostFacts, ScalingIntent, ServerlessFacts, plan_scaling
from inference_constructs.spec import AcceleratorChoice, EndpointKind, ModelSourceKind, ModelSpec
from tests.unit.hosting._synth import logical_ids, synth_checked

LLAMA_8B = ModelSpec(
    id="NousResearch/Meta-Llama-3.1-8B-Instruct",
    parameters_billion=8,
    max_context_tokens=8192,
    max_concurrent_sequences=16,
)
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")
TARGET = "AWS::ApplicationAutoScaling::ScalableTarget"
POLICY = "AWS::ApplicationAutoScaling::ScalingPolicy"


def _gpu_llm(stack: Stack, capacity: Capacity | None = None) -> RealtimeEndpoint:
    return RealtimeEndpoint(stack, "Chat", model=LLAMA_8B, accelerator=AcceleratorChoice.GPU, capacity=capacity)


def _serverless(stack: Stack, provisioned: int = 2) -> ServerlessEndpoint:
    return ServerlessEndpoint(stack, "Churn", model=TABULAR, max_concurrency=20, provisioned_concurrency=provisioned)


def _endpoint_id(template: dict[str, Any]) -> str:
    return logical_ids(template, "AWS::SageMaker::Endpoint")[0]


def test_auto_scale_targets_the_variant_after_the_endpoint() -> None:
    # GIVEN a gpu llm scaled 1..8 on concurrency
    def build(stack: Stack) -> None:
        _gpu_llm(stack).auto_scale(min_capacity=1, max_capacity=8).scale_on_concurrency(per_instance=8)

    # WHEN synthesized (nag + cfn-lint clean)
    assertions, template = synth_checked(build)
    # THEN the target is the variant's instance count, created after the endpoint, with a concurrency policy
    target = template["Resources"][logical_ids(template, TARGET)[0]]
    assert target["Properties"]["ScalableDimension"] == "sagemaker:variant:DesiredInstanceCount"
    assert target["Properties"]["ResourceId"].startswith("endpoint/") and target["Properties"]["ResourceId"].endswith(
        "/variant/AllTraffic"
    )
    assert (target["Properties"]["MinCapacity"], target["Properties"]["MaxCapacity"]) == (1, 8)
    assert _endpoint_id(template) in target["DependsOn"]
    assertions.has_resource_properties(
        POLICY,
        {
            "TargetTrackingScalingPolicyConfiguration": Match.object_like(
                {
                    "PredefinedMetricSpecification": {
                        "PredefinedMetricType": "SageMakerVariantConcurrentRequestsPerModelHighResolution"
                    },
                    "TargetValue": 8,
                }
            )
        },
    )


def test_auto_scale_defaults_to_the_endpoint_capacity() -> None:
    # GIVEN an endpoint with capacity 2..5 WHEN auto_scale() is called without bounds
    stack = Stack(App(), "Test")
    scaling = _gpu_llm(stack, Capacity(2, 5)).auto_scale()
    # THEN the bounds and the GPU count come from the endpoint
    assert (scaling.min_capacity, scaling.max_capacity, scaling.gpu_count) == (2, 5, 1)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda s: _serverless(s).auto_scale(), r"Churn.type: a serverless endpoint has no instances to scale"),
        (
            lambda s: _gpu_llm(s, Capacity(0, 2)).auto_scale(),
            r"Chat.capacity.min: 0 hosts the model through an inference component",
        ),
        (lambda s: [e := _gpu_llm(s), e.auto_scale(), e.auto_scale()], r"auto scaling was already added"),
    ],
)
def test_fails_auto_scale_where_instances_do_not_scale(build: Any, message: str) -> None:
    # GIVEN a serverless endpoint, an inference-component endpoint, or scaling added twice
    stack = Stack(App(), "Test")
    # WHEN auto_scale is called THEN one InferenceConfigError says why and what to use
    with pytest.raises(InferenceConfigError, match=message):
        build(stack)


def test_auto_scale_provisioned_concurrency_on_a_serverless_endpoint() -> None:
    # GIVEN a serverless endpoint with 2 provisioned of 20 WHEN its provisioned concurrency is scaled
    assertions, template = synth_checked(lambda s: _serverless(s).auto_scale_provisioned_concurrency())
    # THEN the target runs 2..20 on DesiredProvisionedConcurrency, created after the endpoint
    target = template["Resources"][logical_ids(template, TARGET)[0]]
    assert target["Properties"]["ScalableDimension"] == "sagemaker:variant:DesiredProvisionedConcurrency"
    assert (target["Properties"]["MinCapacity"], target["Properties"]["MaxCapacity"]) == (2, 20)
    assert _endpoint_id(template) in target["DependsOn"]
    assertions.resource_count_is(POLICY, 1)


def test_fails_provisioned_concurrency_scaling_without_provisioned_concurrency() -> None:
    # GIVEN a serverless endpoint without provisioned concurrency WHEN it is scaled THEN the fix is named
    stack = Stack(App(), "Test")
    with pytest.raises(InferenceConfigError, match=r"serverless.provisioned_concurrency: 0 gives the variant no"):
        _serverless(stack, provisioned=0).auto_scale_provisioned_concurrency()


def _realtime_plan(lo: int, hi: int, **intent: Any) -> Any:
    return plan_scaling(
        "endpoints[0]",
        kind=EndpointKind.REALTIME,
        min_capacity=lo,
        max_capacity=hi,
        intent=ScalingIntent(**intent),
        host=HostFacts(gpu_count=1),
    )


@pytest.mark.parametrize(
    ("build", "expected_type", "dimension"),
    [
        (
            lambda s: _gpu_llm(s, Capacity(1, 4)).auto_scale_from_plan(
                _realtime_plan(1, 4, concurrency_per_instance=12)
            ),
            EndpointScaling,
            "sagemaker:variant:DesiredInstanceCount",
        ),
        (
            lambda s: _serverless(s).auto_scale_from_plan(
                plan_scaling(
                    "endpoints[0]",
                    kind=EndpointKind.SERVERLESS,
                    min_capacity=1,
                    max_capacity=1,
                    intent=ScalingIntent(),
                    serverless=ServerlessFacts(max_concurrency=20, provisioned_concurrency=2),
                )
            ),
            ServerlessScaling,
            "sagemaker:variant:DesiredProvisionedConcurrency",
        ),
    ],
)
def test_auto_scale_from_plan_builds_the_plans_dimension(build: Any, expected_type: type, dimension: str) -> None:
    # GIVEN a plan for the endpoint's own kind and capacity
    built: list[object] = []
    # WHEN applied
    _, template = synth_checked(lambda s: built.append(build(s)))
    # THEN the matching construct scales the matching dimension
    assert isinstance(built[0], expected_type)
    target = template["Resources"][logical_ids(template, TARGET)[0]]
    assert target["Properties"]["ScalableDimension"] == dimension


def test_auto_scale_from_plan_adds_the_async_wake_up() -> None:
    # GIVEN an async endpoint 0..2 and its plan (backlog 5)
    def build(stack: Stack) -> None:
        endpoint = RealtimeEndpoint(
            stack,
            "Batch",
            model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/llama/", parameters_billion=8),
            async_inference=AsyncOptions(),
            capacity=Capacity(0, 2),
        )
        plan = plan_scaling(
            "endpoints[0]",
            kind=EndpointKind.ASYNC,
            min_capacity=0,
            max_capacity=2,
            intent=ScalingIntent(backlog_per_instance=5),
        )
        endpoint.auto_scale_from_plan(plan)

    # WHEN synthesized
    assertions, _ = synth_checked(build)
    # THEN HasBacklogWithoutCapacity >= 1 triggers the scale-from-zero step policy
    assertions.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "MetricName": "HasBacklogWithoutCapacity",
            "ComparisonOperator": "GreaterThanOrEqualToThreshold",
            "Threshold": 1,
            "AlarmActions": [{"Ref": Match.string_like_regexp("ScaleOutFromZeroPolicy")}],
        },
    )


def test_auto_scale_from_plan_returns_none_when_nothing_scales() -> None:
    # GIVEN a fixed 1..1 endpoint and its disabled plan
    stack = Stack(App(), "Test")
    endpoint = _gpu_llm(stack)
    plan = _realtime_plan(1, 1)
    # WHEN applied THEN nothing is created
    assert (plan.enabled, endpoint.auto_scale_from_plan(plan), endpoint.scaling) == (False, None, None)


@pytest.mark.parametrize(
    ("capacity", "plan", "message"),
    [
        (
            Capacity(1, 4),
            lambda: _realtime_plan(1, 8, concurrency_per_instance=8),
            r"Chat.capacity: the scaling plan's range 1..8 differs from this endpoint's capacity 1..4",
        ),
        (
            Capacity(1, 2),
            lambda: _realtime_plan(0, 2, concurrency_per_instance=8),
            r"Chat.capacity.min: the scaling plan scales sagemaker:inference-component:DesiredCopyCount, but this "
            r"endpoint scales sagemaker:variant:DesiredInstanceCount",
        ),
        (
            Capacity(1, 2),
            lambda: plan_scaling(
                "e", kind=EndpointKind.MULTI_MODEL, min_capacity=1, max_capacity=2, intent=ScalingIntent()
            ),
            r"Chat.type: the scaling plan is for a multi-model endpoint, this one is realtime",
        ),
    ],
)
def test_fails_a_plan_that_does_not_match_the_endpoint(capacity: Capacity, plan: Any, message: str) -> None:
    # GIVEN an endpoint and a plan made for another capacity, dimension or kind
    stack = Stack(App(), "Test")
    endpoint = RealtimeEndpoint(
        stack, "Chat", model=LLAMA_8B, accelerator=AcceleratorChoice.GPU, capacity=capacity, path="Chat"
    )
    # WHEN applied THEN it is refused with the reason
    with pytest.raises(InferenceConfigError, match=message):
        endpoint.auto_scale_from_plan(plan())


def test_endpoint_from_request_accepts_the_lead_stack_call() -> None:
    # GIVEN the hosting stack's call: endpoint.auto_scale_from_plan(plan) on a base InferenceEndpoint
    stack = Stack(App(), "Test")
    endpoint: InferenceEndpoint = _gpu_llm(stack, Capacity(1, 3))
    # WHEN applied THEN the result is the instance scaling, reachable as endpoint.scaling
    scaling = endpoint.auto_scale_from_plan(_realtime_plan(1, 3, concurrency_per_instance=12))
    assert scaling is endpoint.scaling and isinstance(scaling, EndpointScaling)
