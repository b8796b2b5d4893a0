"""The update policy is a plan decision: traffic routing, time budgets, rolling batch and rollback alarms."""

from __future__ import annotations

import pytest

from inference_constructs.hosting import Capacity, DeploymentOptions, DeploymentStrategy, EndpointRequest
from inference_constructs.hosting.decisions import plan_endpoint
from inference_constructs.hosting.deployment import plan_deployment
from inference_constructs.scaling.decisions import ScalableDimension, ScalingIntent, plan_scaling
from inference_constructs.spec import EndpointKind, ModelSpec, Serving


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        # 1000 s start-up + one 300 s wait + 0 termination + 900 margin
        (DeploymentOptions(strategy=DeploymentStrategy.ALL_AT_ONCE), ("ALL_AT_ONCE", 0, 2200, 50, 2 * 1300 + 900)),
        (DeploymentOptions(), ("ALL_AT_ONCE", 600, 2800, 50, 3500)),
        # canary: two waits; the rolling batch is the canary size, at least 5 %
        (
            DeploymentOptions(strategy=DeploymentStrategy.CANARY, canary_size_percent=3),
            ("CANARY", 600, 3100, 5, 20 * 1300 + 900),
        ),
        # linear 25 %: four waits, four rolling batches
        (DeploymentOptions(strategy=DeploymentStrategy.LINEAR), ("LINEAR", 600, 3700, 25, 4 * 1300 + 900)),
        # the budget is capped at SageMaker's 8 hours
        (
            DeploymentOptions(strategy=DeploymentStrategy.LINEAR, linear_step_percent=1, wait_interval_seconds=3600),
            ("LINEAR", 600, 28_800, 5, 28_800),
        ),
    ],
)
def test_update_policy_numbers(options: DeploymentOptions, expected: tuple[str, int, int, int, int]) -> None:
    # GIVEN deployment options and 1000 s of model download plus start-up
    # WHEN the update policy is planned
    plan = plan_deployment(options, startup_seconds=1000, p99_model_latency_ms=2000, inference_component=False)
    # THEN the routing, termination wait, both time budgets and the rolling batch are stated in the plan
    assert (
        plan.traffic_routing,
        plan.termination_wait_seconds,
        plan.maximum_execution_timeout_seconds,
        plan.rolling_batch_percent,
        plan.rolling_maximum_execution_timeout_seconds,
    ) == expected


def test_rollback_alarms_are_plan_fields_and_off_when_asked() -> None:
    # GIVEN a 2 % error-rate limit and a 1.5 s p99 limit
    options = DeploymentOptions(max_error_rate_percent=2.0)
    # WHEN the update policy is planned, with rollback on and off
    on = plan_deployment(options, startup_seconds=0, p99_model_latency_ms=1500, inference_component=False)
    off = plan_deployment(
        DeploymentOptions(rollback_on_alarms=False),
        startup_seconds=0,
        p99_model_latency_ms=1500,
        inference_component=False,
    )
    # THEN the 5XX alarm's threshold is the rate as 0..1 and the latency alarm's is in microseconds, 2 of 3 minutes
    errors, latency = on.rollback_alarms
    assert (errors.metric_name, errors.statistic, errors.threshold) == ("Invocation5XXErrors", "Average", 0.02)
    assert (latency.metric_name, latency.statistic, latency.threshold) == ("ModelLatency", "p99", 1_500_000.0)
    assert {(a.evaluation_periods, a.datapoints_to_alarm, a.period_seconds) for a in on.rollback_alarms} == {(3, 2, 60)}
    assert off.rollback_alarms == ()


@pytest.mark.parametrize(("minimum", "component"), [(0, True), (1, False)])
def test_inference_component_is_decided_once_and_scaling_follows_it(minimum: int, component: bool) -> None:
    # GIVEN a real-time LLM endpoint with capacity minimum 0 or 1
    request = EndpointRequest(
        kind=EndpointKind.REALTIME,
        model=ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7),
        serving=Serving.LMI,
        capacity=Capacity(minimum, 2),
    )
    # WHEN hosting is planned and scaling is planned from the hosting plan's decision
    hosting = plan_endpoint(request)
    scaling = plan_scaling(
        "endpoints[0]",
        kind=EndpointKind.REALTIME,
        min_capacity=minimum,
        max_capacity=2,
        intent=ScalingIntent(concurrency_per_instance=8),
        inference_component=hosting.uses_inference_component,
    )
    # THEN both say the same: the component's copies scale (minimum 0), or the variant's instances
    assert hosting.uses_inference_component is component
    assert hosting.update_policy.inference_component is component
    expected = ScalableDimension.INFERENCE_COMPONENT_COPIES if component else ScalableDimension.VARIANT_INSTANCES
    assert scaling.dimension is expected
