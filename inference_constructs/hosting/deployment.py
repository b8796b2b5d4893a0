"""How an endpoint update rolls out and rolls back: the deployment decisions, as plan fields.

Pure Python (no ``aws_cdk`` import). A variant-hosted endpoint updates blue/green (all at once, canary or
linear traffic shifting); an endpoint hosted through an inference component updates its copies with a
rolling update (the endpoint's blue/green does not apply). Both roll back when a rollback alarm fires.

Rules (SageMaker ``DeploymentConfig`` and ``InferenceComponentDeploymentConfig``,
https://docs.aws.amazon.com/sagemaker/latest/dg/deployment-guardrails.html):

- ``MaximumExecutionTimeoutInSeconds`` is 600..28,800 s; the library budgets the model's download and
  start-up health check, every traffic step's wait, the old fleet's termination wait and 900 s of margin.
- An all-at-once shift ends without a baking period (termination wait 0).
- A rolling update replaces 5..50 % of the copies per step (``MaximumBatchSize`` as ``CAPACITY_PERCENT``).
- An endpoint update applies the new endpoint config's ``InitialInstanceCount`` unless
  ``RetainAllVariantProperties`` is true (SageMaker ``UpdateEndpoint``, "RetainAllVariantProperties ... The default
  is false", https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_UpdateEndpoint.html; the retained
  ``VariantProperty`` types are ``DesiredInstanceCount`` and ``DesiredWeight``,
  https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_VariantProperty.html). Where Application Auto
  Scaling owns the variant's instance count, the plan retains it, so an image, environment or tag change does not
  reset a scaled-out fleet to ``capacity.min``. ``RetainDeploymentConfig`` (reuse the previous
  ``DeploymentConfig``) does not apply: every variant-hosted endpoint states its ``DeploymentConfig``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from inference_constructs._plan_dict import plan_dict
from inference_constructs.hosting.request import DeploymentOptions, DeploymentStrategy
from inference_constructs.observability import metric_table
from inference_constructs.observability.metric_definitions import COMPONENT_DIMENSIONS, VARIANT_DIMENSIONS
from inference_constructs.observability.metric_table import MetricDefinition

__all__ = [
    "MAX_EXECUTION_TIMEOUT_SECONDS",
    "MIN_EXECUTION_TIMEOUT_SECONDS",
    "DeploymentPlan",
    "RollbackAlarmPlan",
    "plan_deployment",
]

MIN_EXECUTION_TIMEOUT_SECONDS = 600
"""SageMaker's lower bound of ``MaximumExecutionTimeoutInSeconds``."""
MAX_EXECUTION_TIMEOUT_SECONDS = 28_800
"""SageMaker's upper bound of ``MaximumExecutionTimeoutInSeconds`` (8 hours)."""
EXECUTION_MARGIN_SECONDS = 900
"""Margin on top of the computed rollout time (instance provisioning, health checks)."""
ROLLING_BATCH_PERCENT_RANGE = (5, 50)
"""``MaximumBatchSize`` of a rolling update as a share of the copies, in percent."""
ROLLING_BATCH_PERCENT_DEFAULT = 50
"""Share of copies replaced per rolling step when the strategy shifts all at once (blue/green, all-at-once)."""

_ROUTING = {
    DeploymentStrategy.ALL_AT_ONCE: "ALL_AT_ONCE",
    DeploymentStrategy.BLUE_GREEN: "ALL_AT_ONCE",
    DeploymentStrategy.CANARY: "CANARY",
    DeploymentStrategy.LINEAR: "LINEAR",
}


@dataclass(frozen=True)
class RollbackAlarmPlan:
    """One alarm SageMaker's deployment auto-rollback watches (an ``AWS::CloudWatch::Alarm``).

    Its dimensions are the endpoint's invocation-metric dimensions (variant or inference component), bound by
    the construct.
    """

    construct_id: str
    namespace: str
    metric_name: str
    statistic: str
    period_seconds: int
    unit: str | None
    threshold: float
    comparison_operator: str
    evaluation_periods: int
    datapoints_to_alarm: int
    treat_missing_data: str
    description: str
    dimensions: tuple[str, ...] = ()
    """The dimension names of its metric (the endpoint's variant, or its inference component)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form for the plan document."""
        return plan_dict(
            self,
            ("alarm", "construct_id"),
            "namespace",
            ("metric", "metric_name"),
            "statistic",
            "period_seconds",
            "unit",
            "threshold",
            "comparison_operator",
            "evaluation_periods",
            "datapoints_to_alarm",
            "treat_missing_data",
            "dimensions",
            "description",
        )


@dataclass(frozen=True)
class DeploymentPlan:
    """The update policy of one endpoint, as the template states it.

    Parameters
    ----------
    strategy:
        The requested strategy.
    traffic_routing:
        ``TrafficRoutingConfiguration.Type``: ``ALL_AT_ONCE``, ``CANARY`` or ``LINEAR``.
    canary_size_percent, linear_step_percent:
        The canary's or each linear step's share of the capacity; None when the routing does not use it.
    wait_interval_seconds:
        Wait between traffic steps (and between rolling batches).
    termination_wait_seconds:
        How long the old fleet is kept after the shift (0 for all-at-once).
    maximum_execution_timeout_seconds:
        Time budget of a blue/green update.
    rolling_batch_percent:
        Share of an inference component's copies replaced per rolling step.
    rolling_maximum_execution_timeout_seconds:
        Time budget of a rolling update of an inference component's copies.
    inference_component:
        True when the endpoint is hosted through an inference component: the component's rolling update
        applies and the endpoint has no ``DeploymentConfig``.
    rollback_alarms:
        The alarms that roll an update back; empty when rollback on alarms is off.
    retain_all_variant_properties:
        ``RetainAllVariantProperties`` of the endpoint: True when Application Auto Scaling owns the variant's
        instance count, so an update keeps the current count instead of the config's initial one.
        Default: False (the update applies the endpoint config's counts).
    """

    strategy: DeploymentStrategy
    traffic_routing: str
    canary_size_percent: int | None
    linear_step_percent: int | None
    wait_interval_seconds: int
    termination_wait_seconds: int
    maximum_execution_timeout_seconds: int
    rolling_batch_percent: int
    rolling_maximum_execution_timeout_seconds: int
    inference_component: bool
    rollback_alarms: tuple[RollbackAlarmPlan, ...]
    retain_all_variant_properties: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form for the plan document."""
        return plan_dict(self)


def _clamp_execution_timeout(seconds: int) -> int:
    return min(MAX_EXECUTION_TIMEOUT_SECONDS, max(MIN_EXECUTION_TIMEOUT_SECONDS, seconds))


def _traffic_steps(d: DeploymentOptions) -> int:
    """How many waits a blue/green shift takes: 1 all at once, 2 for a canary, one per linear step."""
    if d.strategy is DeploymentStrategy.CANARY:
        return 2
    if d.strategy is DeploymentStrategy.LINEAR:
        return math.ceil(100 / d.linear_step_percent)
    return 1


def _rolling_batch_percent(d: DeploymentOptions) -> int:
    """Share of copies replaced per rolling step; SageMaker accepts 5..50 % of the copy count."""
    low = ROLLING_BATCH_PERCENT_RANGE[0]
    if d.strategy is DeploymentStrategy.CANARY:
        return max(low, d.canary_size_percent)
    if d.strategy is DeploymentStrategy.LINEAR:
        return max(low, d.linear_step_percent)
    return ROLLING_BATCH_PERCENT_DEFAULT


def rollback_alarm_plans(
    d: DeploymentOptions, p99_model_latency_ms: float, *, inference_component: bool = False
) -> tuple[RollbackAlarmPlan, ...]:
    """The 5XX-rate and p99-latency alarms: 2 of 3 one-minute periods above the threshold, on the invocation
    metrics of the variant or of the inference component."""
    dimensions = tuple(n.value for n in (COMPONENT_DIMENSIONS if inference_component else VARIANT_DIMENSIONS))
    rolls_back = "in 2 of 3 minutes: rolls back an endpoint update in progress"
    return (
        # Average of a 1-or-0-per-request metric: the 5XX error rate (0..1).
        _rollback_alarm(
            "Rollback5xxAlarm",
            metric_table.INVOCATION_5XX_ERRORS,
            d.max_error_rate_percent / 100.0,
            f"5XX error rate above {d.max_error_rate_percent:g}% {rolls_back}",
            dimensions,
        ),
        _rollback_alarm(
            "RollbackLatencyAlarm",
            metric_table.MODEL_LATENCY,
            p99_model_latency_ms * 1000.0,
            f"p99 ModelLatency above {p99_model_latency_ms:g} ms {rolls_back}",
            dimensions,
        ),
    )


def _rollback_alarm(
    construct_id: str, definition: MetricDefinition, threshold: float, description: str, dimensions: tuple[str, ...]
) -> RollbackAlarmPlan:
    """``definition`` at its default statistic and unit per minute, above ``threshold`` in 2 of 3 minutes."""
    return RollbackAlarmPlan(
        construct_id=construct_id,
        namespace=definition.namespace,
        metric_name=definition.name,
        statistic=definition.statistic,
        period_seconds=60,
        unit=definition.unit,
        threshold=threshold,
        comparison_operator="GreaterThanThreshold",
        evaluation_periods=3,
        datapoints_to_alarm=2,
        treat_missing_data="notBreaching",
        description=description,
        dimensions=dimensions,
    )


def plan_deployment(
    d: DeploymentOptions,
    *,
    startup_seconds: int,
    p99_model_latency_ms: float,
    inference_component: bool,
) -> DeploymentPlan:
    """Decide the update policy of one endpoint.

    Parameters
    ----------
    d:
        The requested deployment options (already checked).
    startup_seconds:
        Model download plus container start-up health check timeouts (0 when SageMaker's defaults apply).
    p99_model_latency_ms:
        The p99 ``ModelLatency`` above which an update rolls back.
    inference_component:
        True when the endpoint is hosted through an inference component.
    """
    wait = d.wait_interval_seconds
    termination = 0 if d.strategy is DeploymentStrategy.ALL_AT_ONCE else d.termination_wait_seconds
    blue_green = startup_seconds + wait * _traffic_steps(d) + termination + EXECUTION_MARGIN_SECONDS
    percent = _rolling_batch_percent(d)
    rolling = math.ceil(100 / percent) * (startup_seconds + wait) + EXECUTION_MARGIN_SECONDS
    return DeploymentPlan(
        strategy=d.strategy,
        traffic_routing=_ROUTING[d.strategy],
        canary_size_percent=d.canary_size_percent if d.strategy is DeploymentStrategy.CANARY else None,
        linear_step_percent=d.linear_step_percent if d.strategy is DeploymentStrategy.LINEAR else None,
        wait_interval_seconds=wait,
        termination_wait_seconds=termination,
        maximum_execution_timeout_seconds=_clamp_execution_timeout(blue_green),
        rolling_batch_percent=percent,
        rolling_maximum_execution_timeout_seconds=_clamp_execution_timeout(rolling),
        inference_component=inference_component,
        rollback_alarms=(
            rollback_alarm_plans(d, p99_model_latency_ms, inference_component=inference_component)
            if d.rollback_on_alarms
            else ()
        ),
    )
