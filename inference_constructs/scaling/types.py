"""The scaling vocabulary: what a scalable target scales, the policies, scheduled floors, the ``scaling:``
intent, the facts of the host and of a serverless endpoint, and the plan for one endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inference_constructs.observability.metric_definitions import (
    Dimension,
)
from inference_constructs.scaling.defaults import DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION
from inference_constructs.spec import EndpointKind
from inference_constructs.stats import Statistic

__all__ = [
    "GREATER_THAN_OR_EQUAL",
    "HostFacts",
    "MetricRef",
    "ScalableDimension",
    "ScalingIntent",
    "ScalingPlan",
    "ScheduledFloor",
    "ServerlessFacts",
    "TargetTrackingPolicy",
    "WakeUpPolicy",
]

GREATER_THAN_OR_EQUAL = "GreaterThanOrEqualToThreshold"


class ScalableDimension(StrEnum):
    """What a scalable target scales (Application Auto Scaling ``ScalableDimension``)."""

    VARIANT_INSTANCES = "sagemaker:variant:DesiredInstanceCount"
    PROVISIONED_CONCURRENCY = "sagemaker:variant:DesiredProvisionedConcurrency"
    INFERENCE_COMPONENT_COPIES = "sagemaker:inference-component:DesiredCopyCount"


@dataclass(frozen=True)
class MetricRef:
    """A CloudWatch metric by namespace, name, dimension names and statistic."""

    namespace: str
    metric_name: str
    dimensions: tuple[Dimension, ...]
    statistic: Statistic | str


@dataclass(frozen=True)
class TargetTrackingPolicy:
    """One target-tracking policy: keep ``metric`` at ``target_value``.

    Exactly one of ``predefined_metric`` (an Application Auto Scaling ``PredefinedMetricType``) and
    ``custom_metric`` is set. ``construct_id`` is the stable PascalCase id of the policy.
    """

    construct_id: str
    target_value: float
    scale_out_cooldown_seconds: int
    scale_in_cooldown_seconds: int
    reason: str
    predefined_metric: str | None = None
    custom_metric: MetricRef | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form for the plan document."""
        metric = self.predefined_metric or (self.custom_metric.metric_name if self.custom_metric else None)
        return {
            "policy": self.construct_id,
            "type": "target-tracking",
            "metric": metric,
            "namespace": self.custom_metric.namespace if self.custom_metric else None,
            "statistic": self.custom_metric.statistic if self.custom_metric else None,
            "dimensions": [d.value for d in self.custom_metric.dimensions] if self.custom_metric else [],
            "target_value": self.target_value,
            "scale_out_cooldown_seconds": self.scale_out_cooldown_seconds,
            "scale_in_cooldown_seconds": self.scale_in_cooldown_seconds,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class WakeUpPolicy:
    """A step policy that adds capacity when an alarm on ``alarm_metric`` reaches ``threshold``.

    Used to leave zero capacity: target tracking alone cannot, because its metric has no
    per-instance value while there are no instances.
    """

    construct_id: str
    alarm_metric: MetricRef
    period_seconds: int
    evaluation_periods: int
    datapoints_to_alarm: int
    metric_aggregation: str
    cooldown_seconds: int
    reason: str
    threshold: float = 1.0
    comparison_operator: str = GREATER_THAN_OR_EQUAL
    adjustment: int = 1
    treat_missing_data: str = "missing"
    """CloudWatch ``TreatMissingData``: no datapoint (no traffic) keeps the alarm as it was."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form for the plan document."""
        return {
            "policy": self.construct_id,
            "type": "step",
            "alarm_metric": self.alarm_metric.metric_name,
            "namespace": self.alarm_metric.namespace,
            "statistic": self.alarm_metric.statistic,
            "dimensions": [d.value for d in self.alarm_metric.dimensions],
            "period_seconds": self.period_seconds,
            "evaluation_periods": self.evaluation_periods,
            "datapoints_to_alarm": self.datapoints_to_alarm,
            "metric_aggregation": self.metric_aggregation,
            "treat_missing_data": self.treat_missing_data,
            "threshold": self.threshold,
            "comparison_operator": self.comparison_operator,
            "adjustment": self.adjustment,
            "cooldown_seconds": self.cooldown_seconds,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ScheduledFloor:
    """A scheduled change of the minimum (and optionally maximum) capacity.

    Parameters
    ----------
    cron:
        Application Auto Scaling cron in UTC, ``cron(minutes hours day-of-month month day-of-week year)``
        with exactly one of day-of-month and day-of-week set to ``?``.
    min_capacity:
        Minimum capacity from that time on.
    max_capacity:
        Maximum capacity from that time on. Default: the maximum is left unchanged.
    """

    cron: str
    min_capacity: int
    max_capacity: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form for the plan document."""
        return {"cron": self.cron, "min": self.min_capacity, "max": self.max_capacity}


@dataclass(frozen=True)
class ScalingIntent:
    """The ``scaling:`` keys of one endpoint; each value that is set becomes its own policy.

    Parameters
    ----------
    concurrency_per_instance:
        Target in-flight requests per instance (``ConcurrentRequestsPerModel``, high resolution).
        Default: no concurrency policy.
    invocations_per_instance_per_minute:
        Target ``InvocationsPerInstance`` per minute. Default: no invocations policy.
    gpu_memory_percent:
        Target GPU memory use per GPU, 0–100; multiplied by the host's GPU count.
        Default: no GPU-memory policy.
    backlog_per_instance:
        Async only: target ``ApproximateBacklogSizePerInstance``. Default: no backlog policy.
    schedule:
        Scheduled capacity floors. Default: no scheduled actions.
    """

    concurrency_per_instance: float | None = None
    invocations_per_instance_per_minute: float | None = None
    gpu_memory_percent: float | None = None
    backlog_per_instance: float | None = None
    schedule: tuple[ScheduledFloor, ...] = ()

    @property
    def has_policies(self) -> bool:
        """True when any target-tracking key or schedule is set."""
        return bool(
            self.concurrency_per_instance is not None
            or self.invocations_per_instance_per_minute is not None
            or self.gpu_memory_percent is not None
            or self.backlog_per_instance is not None
            or self.schedule
        )


@dataclass(frozen=True)
class ScalingPlan:
    """Everything the scaling constructs create for one endpoint, with the reasons.

    ``dimension`` says what is scaled: instances of a variant, serverless provisioned concurrency,
    or inference-component copies (real-time scale to zero). ``enabled`` is False when nothing
    scales (fixed capacity and no policies); then no scalable target is created.
    ``managed_instance_max`` is set only for inference-component hosting: the endpoint config's
    ``ManagedInstanceScaling.MaxInstanceCount``.
    """

    kind: EndpointKind
    dimension: ScalableDimension
    min_capacity: int
    max_capacity: int
    target_tracking: tuple[TargetTrackingPolicy, ...] = ()
    wake_up: WakeUpPolicy | None = None
    schedules: tuple[ScheduledFloor, ...] = ()
    warnings: tuple[str, ...] = ()
    managed_instance_max: int | None = None
    enabled: bool = True
    signal: str = ""
    """Which metrics drive scale-out and scale-in, and why (one sentence for the plan)."""

    @property
    def uses_inference_component(self) -> bool:
        """True when the endpoint must be hosted through an inference component (real-time scale to zero)."""
        return self.dimension is ScalableDimension.INFERENCE_COMPONENT_COPIES

    @property
    def owns_variant_instance_count(self) -> bool:
        """True when a scalable target on the variant's ``DesiredInstanceCount`` exists (the endpoint then retains
        its variant properties across updates)."""
        return self.enabled and self.dimension is ScalableDimension.VARIANT_INSTANCES

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form for the plan document."""
        return {
            "enabled": self.enabled,
            "signal": self.signal,
            "scalable_dimension": self.dimension.value,
            "min_capacity": self.min_capacity,
            "max_capacity": self.max_capacity,
            "inference_component": self.uses_inference_component,
            "managed_instance_max": self.managed_instance_max,
            "policies": [p.to_dict() for p in self.target_tracking]
            + ([self.wake_up.to_dict()] if self.wake_up else []),
            "schedules": [s.to_dict() for s in self.schedules],
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class HostFacts:
    """What scaling needs to know about the chosen host.

    Parameters
    ----------
    gpu_count:
        GPUs on the host (0 for CPU, Inferentia and Trainium hosts).
    burstable:
        True for ``ml.t*`` burstable types, which Application Auto Scaling cannot scale.
    instance_type:
        Instance type name for messages. Default: messages say "the host".
    """

    gpu_count: int = 0
    burstable: bool = False
    instance_type: str | None = None


@dataclass(frozen=True)
class ServerlessFacts:
    """Serverless settings that bound provisioned-concurrency scaling: the endpoint's ``serverless.max_concurrency``
    and ``serverless.provisioned_concurrency`` (their defaults are the hosting request's, ``ServerlessOptions``)."""

    max_concurrency: int
    provisioned_concurrency: int
    target_utilization: float = DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION
