"""Scaling decisions: validate scaling intent against the endpoint kind and host, and compute targets.

Pure Python (no ``aws_cdk`` import). :func:`plan_scaling` turns the ``capacity:`` and ``scaling:``
keys of one endpoint (``docs/config.md``) into a :class:`ScalingPlan` that the constructs in
:mod:`inference_constructs.scaling` translate into resources and that the plan document shows.
The per-policy functions (``concurrency_policy`` ...) are what the constructs' ``scale_on_*``
methods call, so a Python user and a config file get the same rules and the same messages.

Metric facts (sources: SageMaker "Metrics in Amazon CloudWatch" (monitoring-cloudwatch), "Define a
scaling policy" and "Scale an endpoint to zero instances"; the Application Auto Scaling API model,
botocore ``application-autoscaling/2016-02-06``):

- ``ConcurrentRequestsPerModel`` is high resolution (10 s); its predefined metric is
  ``SageMakerVariantConcurrentRequestsPerModelHighResolution``.
- ``GPUMemoryUtilization`` in ``/aws/sagemaker/Endpoints`` runs 0–100 × the host's GPU count, so a
  per-GPU percent is multiplied by the GPU count.
- Async backlog metrics carry the ``EndpointName`` dimension only; scale from zero needs a step
  policy driven by ``HasBacklogWithoutCapacity >= 1``.
- Real-time scale to zero needs an inference component with managed instance scaling, a copy-count
  target and a step policy driven by ``NoCapacityInvocationFailures >= 1``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inference_constructs.containers.memory import GPU_MEMORY_BEHAVIOUR, GpuMemoryUse
from inference_constructs.errors import ProblemCollector
from inference_constructs.observability.metric_definitions import (
    COMPONENT_DIMENSIONS,
    ENDPOINT_INSTANCE_NAMESPACE,
    ENDPOINT_ONLY_DIMENSIONS,
    SAGEMAKER_NAMESPACE,
    VARIANT_DIMENSIONS,
    Dimension,
    gpu_metric_target,
)
from inference_constructs.spec import EndpointKind, ModelSpec, Serving

# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

GREATER_THAN_OR_EQUAL = "GreaterThanOrEqualToThreshold"


class ScalableDimension(StrEnum):
    """What a scalable target scales (Application Auto Scaling ``ScalableDimension``)."""

    VARIANT_INSTANCES = "sagemaker:variant:DesiredInstanceCount"
    PROVISIONED_CONCURRENCY = "sagemaker:variant:DesiredProvisionedConcurrency"
    INFERENCE_COMPONENT_COPIES = "sagemaker:inference-component:DesiredCopyCount"


def uses_inference_component(kind: EndpointKind, min_capacity: int) -> bool:
    """True when an endpoint is hosted through an inference component: a real-time endpoint with minimum 0.

    Real-time endpoints reach zero instances only through an inference component with managed instance scaling
    (https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-zero-instances.html); async endpoints
    scale their variant to zero on the backlog.
    """
    return kind is EndpointKind.REALTIME and min_capacity == 0


def _through_component(kind: EndpointKind, min_capacity: int, decided: bool | None) -> bool:
    """The hosting plan's decision when given, else :func:`uses_inference_component`."""
    return uses_inference_component(kind, min_capacity) if decided is None else decided


@dataclass(frozen=True)
class MetricRef:
    """A CloudWatch metric by namespace, name, dimension names and statistic."""

    namespace: str
    metric_name: str
    dimensions: tuple[Dimension, ...]
    statistic: str


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


# --------------------------------------------------------------------------------------------
# Defaults (documented in docs/scaling.md)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cooldowns:
    """Scale-out and scale-in cooldowns, in seconds."""

    scale_out_seconds: int
    scale_in_seconds: int


COOLDOWNS: dict[str, Cooldowns] = {
    # ConcurrentRequestsPerModel arrives every 10 s: react fast; capacity already being added
    # counts towards the next decision during the scale-out cooldown, so a short one does not
    # overshoot.
    "concurrency": Cooldowns(scale_out_seconds=60, scale_in_seconds=600),
    # One-minute metrics: wait for two data points before adding more.
    "invocations": Cooldowns(scale_out_seconds=120, scale_in_seconds=600),
    "gpu_memory": Cooldowns(scale_out_seconds=120, scale_in_seconds=600),
    "backlog": Cooldowns(scale_out_seconds=120, scale_in_seconds=600),
    # Provisioned concurrency warms in seconds to minutes, not an instance start.
    "provisioned_concurrency": Cooldowns(scale_out_seconds=60, scale_in_seconds=300),
}
"""Default cooldowns per policy. Scale-in waits 10 minutes everywhere an instance is removed,
because an LLM instance takes 5–10 minutes to come back (instance start, image pull, weight
download and load), twice Application Auto Scaling's own 300 s default for SageMaker variants."""

ASYNC_WAKE_UP_COOLDOWN_SECONDS = 300
"""Cooldown of the async scale-from-zero step policy (SageMaker async auto scaling guide)."""

INFERENCE_COMPONENT_WAKE_UP_COOLDOWN_SECONDS = 60
"""Cooldown of the inference-component wake-up step policy (SageMaker scale-to-zero guide)."""

DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION = 0.7
"""Default target of ``SageMakerVariantProvisionedConcurrencyUtilization`` (a 0–1 ratio)."""

DEFAULT_BACKLOG_PER_INSTANCE = 5.0
"""Default async backlog per instance (the value in the SageMaker async auto scaling guide)."""

# Bounds written once: these checks (construct props and the plan) and the config schema's ranges use them.
MAX_CONCURRENCY_TARGET = 10_000.0
"""Largest ``scaling.concurrency_per_instance`` target accepted."""
MAX_INVOCATIONS_TARGET = 1_000_000.0
"""Largest ``scaling.invocations_per_instance_per_minute`` target accepted."""
MAX_BACKLOG_TARGET = 100_000.0
"""Largest ``scaling.backlog_per_instance`` target accepted."""
MAX_CAPACITY = 1000
"""Largest ``capacity.max`` (and scheduled ``min``/``max``) accepted."""
MAX_SERVERLESS_CONCURRENCY = 200
"""Largest ``serverless.max_concurrency`` and ``provisioned_concurrency``: MaxConcurrency and ProvisionedConcurrency
are 1-200 (SageMaker API reference,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantServerlessConfig.html)."""

SCALE_TO_ZERO_WARNING = (
    "scales to zero instances through an inference component: after idle, the first requests fail "
    "(NoCapacityInvocationFailures) while an instance starts, which takes several minutes"
)
ASYNC_ZERO_WARNING = (
    "scales to zero instances: after idle, queued requests wait while an instance starts, which takes several minutes"
)

# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def _key(path: str, sub: str) -> str:
    return f"{path}.{sub}" if path else sub


def _a(kind: EndpointKind) -> str:
    return f"an {kind.value}" if kind is EndpointKind.ASYNC else f"a {kind.value}"


def _fmt(value: float) -> str:
    return f"{value:g}"


_CRON = re.compile(r"^cron\((.*)\)$")


def cron_problem(cron: str) -> str | None:
    """Return why ``cron`` is not an Application Auto Scaling cron expression, or None when it is.

    The form is ``cron(minutes hours day-of-month month day-of-week year)`` (6 fields), with
    exactly one of day-of-month and day-of-week set to ``?``.
    """
    match = _CRON.match(cron.strip())
    if not match:
        return f"{cron!r} is not a cron expression; use cron(minutes hours day-of-month month day-of-week year)"
    fields = match.group(1).split()
    if len(fields) != 6:
        return (
            f"{cron!r} has {len(fields)} fields; use 6: cron(minutes hours day-of-month month day-of-week year), "
            "e.g. cron(0 7 ? * MON-FRI *)"
        )
    day_of_month, day_of_week = fields[2], fields[4]
    if (day_of_month == "?") == (day_of_week == "?"):
        return f"{cron!r} must set exactly one of day-of-month and day-of-week to '?', e.g. cron(0 7 ? * MON-FRI *)"
    return None


def check_capacity(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    min_capacity: int,
    max_capacity: int,
    burstable: bool = False,
    instance_type: str | None = None,
    scales: bool = True,
    inference_component_allowed: bool = True,
) -> None:
    """Check instance-count bounds for ``kind`` (rules: min <= max, min 0 only where possible, no burstable).

    The one home of these rules: the hosting checks and the constructs' ``auto_scale_*`` methods call it.

    ``scales`` is False when the endpoint has fixed capacity and no policies (then a burstable host
    is fine). ``inference_component_allowed`` is False when the caller scales variant instances
    directly (``EndpointAutoScaling``), where real-time min 0 is impossible.
    """
    min_key, max_key = _key(path, "capacity.min"), _key(path, "capacity.max")
    if min_capacity < 0:
        problems.add(min_key, f"{min_capacity} is negative", "use 0 or more")
    if max_capacity < 1 or max_capacity > MAX_CAPACITY:
        problems.add(max_key, f"{max_capacity} is out of range", f"use 1..{MAX_CAPACITY}")
    if min_capacity > max_capacity:
        problems.add(
            min_key, f"{min_capacity} is greater than capacity.max {max_capacity}", "set min <= max", code="conflict"
        )
    if min_capacity == 0:
        if kind is EndpointKind.MULTI_MODEL:
            problems.add(
                min_key,
                "0 is not allowed on a multi-model endpoint (only inference components and async endpoints scale "
                "to zero, and an inference component hosts one model)",
                "use 1 or more, or one realtime endpoint per model with min 0",
            )
        elif kind is EndpointKind.REALTIME and not inference_component_allowed:
            problems.add(
                min_key,
                "0 is not allowed when scaling real-time variant instances (real-time scale to zero needs an "
                "inference component)",
                "use 1 or more, or host the model through an inference component (InferenceComponentScaling)",
            )
    if burstable and scales:
        problems.add(
            _key(path, "instance_type"),
            f"{instance_type or 'the host'} is a burstable instance type and cannot be auto scaled",
            "choose a non-burstable instance type (e.g. ml.m5 or ml.c5), or set capacity.min equal to capacity.max "
            "and remove the scaling keys",
        )


def _check_range(
    problems: ProblemCollector, key: str, value: float, low: float, high: float, *, low_inclusive: bool = False
) -> bool:
    too_low = value < low if low_inclusive else value <= low
    if too_low or value > high:
        bound = f"{_fmt(low)} <= value" if low_inclusive else f"{_fmt(low)} < value"
        problems.add(key, f"{_fmt(value)} is out of range", f"use {bound} <= {_fmt(high)}")
        return False
    return True


def _cooldowns(name: str, scale_out: int | None, scale_in: int | None) -> tuple[int, int]:
    default = COOLDOWNS[name]
    return (
        default.scale_out_seconds if scale_out is None else scale_out,
        default.scale_in_seconds if scale_in is None else scale_in,
    )


# --------------------------------------------------------------------------------------------
# Per-policy decisions (also called by the constructs' scale_on_* methods)
# --------------------------------------------------------------------------------------------


def concurrency_policy(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    per_instance: float,
    inference_component: bool = False,
    scale_out_cooldown_seconds: int | None = None,
    scale_in_cooldown_seconds: int | None = None,
) -> TargetTrackingPolicy | None:
    """Target tracking on in-flight requests per instance (or per copy for an inference component)."""
    key = _key(path, "scaling.concurrency_per_instance")
    ok = _check_range(problems, key, per_instance, 0, MAX_CONCURRENCY_TARGET)
    if kind in (EndpointKind.ASYNC, EndpointKind.SERVERLESS):
        fix = "use scaling.backlog_per_instance" if kind is EndpointKind.ASYNC else "remove it"
        problems.add(key, f"concurrency scaling is not available on {_a(kind)} endpoint", fix)
        return None
    if not ok:
        return None
    out_s, in_s = _cooldowns("concurrency", scale_out_cooldown_seconds, scale_in_cooldown_seconds)
    if inference_component:
        return TargetTrackingPolicy(
            construct_id="ConcurrencyPerCopy",
            predefined_metric="SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution",
            target_value=per_instance,
            scale_out_cooldown_seconds=out_s,
            scale_in_cooldown_seconds=in_s,
            reason=(
                f"keeps {_fmt(per_instance)} in-flight requests per copy (ConcurrentRequestsPerCopy, 10 s resolution); "
                "one copy fills one instance"
            ),
        )
    return TargetTrackingPolicy(
        construct_id="Concurrency",
        predefined_metric="SageMakerVariantConcurrentRequestsPerModelHighResolution",
        target_value=per_instance,
        scale_out_cooldown_seconds=out_s,
        scale_in_cooldown_seconds=in_s,
        reason=(
            f"keeps {_fmt(per_instance)} in-flight requests per instance (ConcurrentRequestsPerModel, "
            "10 s resolution), the bottleneck of a batching model server"
        ),
    )


def invocations_policy(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    per_instance_per_minute: float,
    inference_component: bool = False,
    scale_out_cooldown_seconds: int | None = None,
    scale_in_cooldown_seconds: int | None = None,
) -> TargetTrackingPolicy | None:
    """Target tracking on invocations per instance per minute (or per copy for an inference component)."""
    key = _key(path, "scaling.invocations_per_instance_per_minute")
    ok = _check_range(problems, key, per_instance_per_minute, 0, MAX_INVOCATIONS_TARGET)
    if kind in (EndpointKind.ASYNC, EndpointKind.SERVERLESS):
        fix = (
            "async endpoints do not publish InvocationsPerInstance; use scaling.backlog_per_instance"
            if kind is EndpointKind.ASYNC
            else "remove it"
        )
        problems.add(key, f"invocation scaling is not available on {_a(kind)} endpoint", fix)
        return None
    if not ok:
        return None
    out_s, in_s = _cooldowns("invocations", scale_out_cooldown_seconds, scale_in_cooldown_seconds)
    if inference_component:
        return TargetTrackingPolicy(
            construct_id="InvocationsPerCopy",
            predefined_metric="SageMakerInferenceComponentInvocationsPerCopy",
            target_value=per_instance_per_minute,
            scale_out_cooldown_seconds=out_s,
            scale_in_cooldown_seconds=in_s,
            reason=f"keeps {_fmt(per_instance_per_minute)} invocations per copy per minute (InvocationsPerCopy)",
        )
    return TargetTrackingPolicy(
        construct_id="Invocations",
        predefined_metric="SageMakerVariantInvocationsPerInstance",
        target_value=per_instance_per_minute,
        scale_out_cooldown_seconds=out_s,
        scale_in_cooldown_seconds=in_s,
        reason=f"keeps {_fmt(per_instance_per_minute)} invocations per instance per minute (InvocationsPerInstance)",
    )


def gpu_memory_policy(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    percent_per_gpu: float,
    gpu_count: int,
    instance_type: str | None = None,
    inference_component: bool = False,
    serving: Serving | None = None,
    scale_out_cooldown_seconds: int | None = None,
    scale_in_cooldown_seconds: int | None = None,
) -> TargetTrackingPolicy | None:
    """Target tracking on ``GPUMemoryUtilization``; the target is ``percent_per_gpu × gpu_count``.

    Refused for a ``serving`` stack whose GPU memory cannot fall with load
    (:data:`~inference_constructs.containers.memory.GPU_MEMORY_BEHAVIOUR`): the policy would scale out to the
    maximum and never back in.
    """
    key = _key(path, "scaling.gpu_memory_percent")
    ok = _check_range(problems, key, percent_per_gpu, 0, 100)
    if kind is EndpointKind.SERVERLESS:
        problems.add(key, "gpu memory scaling is not available on a serverless endpoint (cpu only)", "remove it")
        return None
    if gpu_count < 1:
        problems.add(
            key,
            f"{instance_type or 'the host'} has no gpu, so GPUMemoryUtilization is never published",
            "choose a gpu instance type, or use scaling.concurrency_per_instance",
        )
        return None
    behaviour = GPU_MEMORY_BEHAVIOUR.get(serving) if serving is not None else None
    if serving is not None and behaviour is not None and behaviour.refuses_gpu_memory_scaling:
        problems.add(
            key,
            f"serving {serving.value} cannot scale in on gpu memory: {behaviour.detail}, so GPUMemoryUtilization "
            "stays high whatever the load and the policy holds capacity.max (with other policies too: capacity is "
            "removed only when every policy agrees)",
            "remove gpu_memory_percent and scale on scaling.concurrency_per_instance (in-flight requests per "
            "instance, e.g. 75% of model.max_concurrent_sequences)",
        )
        return None
    if inference_component:
        problems.add(
            key,
            "gpu memory scaling is not available with capacity.min 0 (an inference component scales copies, "
            "not instances)",
            "use scaling.concurrency_per_instance or scaling.invocations_per_instance_per_minute",
        )
        return None
    if not ok:
        return None
    out_s, in_s = _cooldowns("gpu_memory", scale_out_cooldown_seconds, scale_in_cooldown_seconds)
    target = gpu_metric_target(percent_per_gpu, gpu_count)
    return TargetTrackingPolicy(
        construct_id="GpuMemory",
        custom_metric=MetricRef(
            namespace=ENDPOINT_INSTANCE_NAMESPACE,
            metric_name="GPUMemoryUtilization",
            dimensions=VARIANT_DIMENSIONS,
            statistic="Average",
        ),
        target_value=target,
        scale_out_cooldown_seconds=out_s,
        scale_in_cooldown_seconds=in_s,
        reason=(
            f"keeps GPU memory at {_fmt(percent_per_gpu)}% per GPU; GPUMemoryUtilization runs 0-100 x {gpu_count} "
            f"GPUs, so the target is {_fmt(target)}"
        ),
    )


def backlog_policy(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    per_instance: float,
    scale_out_cooldown_seconds: int | None = None,
    scale_in_cooldown_seconds: int | None = None,
) -> TargetTrackingPolicy | None:
    """Async only: target tracking on ``ApproximateBacklogSizePerInstance`` (dimension ``EndpointName`` only)."""
    key = _key(path, "scaling.backlog_per_instance")
    ok = _check_range(problems, key, per_instance, 0, MAX_BACKLOG_TARGET)
    if kind is not EndpointKind.ASYNC:
        problems.add(
            key,
            f"backlog scaling needs an async endpoint, this one is {kind.value}",
            "remove it, or set type: async",
        )
        return None
    if not ok:
        return None
    out_s, in_s = _cooldowns("backlog", scale_out_cooldown_seconds, scale_in_cooldown_seconds)
    return TargetTrackingPolicy(
        construct_id="Backlog",
        custom_metric=MetricRef(
            namespace=SAGEMAKER_NAMESPACE,
            metric_name="ApproximateBacklogSizePerInstance",
            dimensions=ENDPOINT_ONLY_DIMENSIONS,
            statistic="Average",
        ),
        target_value=per_instance,
        scale_out_cooldown_seconds=out_s,
        scale_in_cooldown_seconds=in_s,
        reason=f"keeps the queue at {_fmt(per_instance)} requests per instance (ApproximateBacklogSizePerInstance)",
    )


def async_wake_up_policy() -> WakeUpPolicy:
    """Step policy +1 instance on ``HasBacklogWithoutCapacity >= 1`` (2 of 2 one-minute periods)."""
    return WakeUpPolicy(
        construct_id="ScaleOutFromZero",
        alarm_metric=MetricRef(
            namespace=SAGEMAKER_NAMESPACE,
            metric_name="HasBacklogWithoutCapacity",
            dimensions=ENDPOINT_ONLY_DIMENSIONS,
            statistic="Average",
        ),
        period_seconds=60,
        evaluation_periods=2,
        datapoints_to_alarm=2,
        metric_aggregation="Average",
        cooldown_seconds=ASYNC_WAKE_UP_COOLDOWN_SECONDS,
        reason=(
            "target tracking cannot leave zero instances; HasBacklogWithoutCapacity is 1 when requests wait and no "
            "instance runs, and adds one instance"
        ),
    )


def inference_component_wake_up_policy() -> WakeUpPolicy:
    """Step policy +1 copy on ``NoCapacityInvocationFailures >= 1`` in one minute."""
    return WakeUpPolicy(
        construct_id="ScaleOutFromZero",
        alarm_metric=MetricRef(
            namespace=SAGEMAKER_NAMESPACE,
            metric_name="NoCapacityInvocationFailures",
            dimensions=COMPONENT_DIMENSIONS,
            statistic="Sum",
        ),
        period_seconds=60,
        evaluation_periods=1,
        datapoints_to_alarm=1,
        metric_aggregation="Maximum",
        cooldown_seconds=INFERENCE_COMPONENT_WAKE_UP_COOLDOWN_SECONDS,
        reason=(
            "target tracking cannot leave zero copies; the first request that finds no capacity fails, raises "
            "NoCapacityInvocationFailures and adds one copy (and its instance)"
        ),
    )


def provisioned_concurrency_policy(
    problems: ProblemCollector,
    path: str,
    *,
    target_utilization: float = DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
    scale_out_cooldown_seconds: int | None = None,
    scale_in_cooldown_seconds: int | None = None,
) -> TargetTrackingPolicy | None:
    """Serverless: target tracking on provisioned-concurrency utilization (a 0–1 ratio)."""
    key = _key(path, "serverless.provisioned_concurrency_utilization")
    if not _check_range(problems, key, target_utilization, 0, 1):
        return None
    out_s, in_s = _cooldowns("provisioned_concurrency", scale_out_cooldown_seconds, scale_in_cooldown_seconds)
    return TargetTrackingPolicy(
        construct_id="ProvisionedConcurrencyUtilization",
        predefined_metric="SageMakerVariantProvisionedConcurrencyUtilization",
        target_value=target_utilization,
        scale_out_cooldown_seconds=out_s,
        scale_in_cooldown_seconds=in_s,
        reason=(
            f"keeps provisioned concurrency {_fmt(target_utilization * 100)}% used "
            "(ServerlessProvisionedConcurrencyUtilization), so warm capacity follows traffic"
        ),
    )


def check_provisioned_concurrency_bounds(
    problems: ProblemCollector, path: str, *, min_capacity: int, max_capacity: int
) -> None:
    """Serverless provisioned concurrency: 0 <= min <= max, 1 <= max <= :data:`MAX_SERVERLESS_CONCURRENCY` (the one
    home of these rules: the hosting checks and ``ServerlessProvisionedConcurrencyScaling`` call it)."""
    most = MAX_SERVERLESS_CONCURRENCY
    if min_capacity < 0:
        problems.add(_key(path, "serverless.provisioned_concurrency"), f"{min_capacity} is negative", f"use 0..{most}")
    if max_capacity < 1 or max_capacity > most:
        problems.add(_key(path, "serverless.max_concurrency"), f"{max_capacity} is out of range", f"use 1..{most}")
    if min_capacity > max_capacity:
        problems.add(
            _key(path, "serverless.provisioned_concurrency"),
            f"{min_capacity} is greater than serverless.max_concurrency {max_capacity}",
            f"use at most {max_capacity} (serverless.max_concurrency)",
            code="conflict",
        )


def schedule_floors(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    schedule: Sequence[ScheduledFloor],
    max_capacity: int,
    zero_allowed: bool,
    start_index: int = 0,
) -> tuple[ScheduledFloor, ...]:
    """Validate scheduled floors: cron syntax, 0 <= min <= max, and min 0 only where capacity can be 0."""
    valid: list[ScheduledFloor] = []
    for offset, floor in enumerate(schedule):
        base = _key(path, f"scaling.schedule[{start_index + offset}]")
        before = len(problems.problems)
        if kind is EndpointKind.SERVERLESS:
            problems.add(base, "scheduled floors are not available on a serverless endpoint", "remove it")
            continue
        problem = cron_problem(floor.cron)
        if problem:
            problems.add(f"{base}.cron", problem)
        effective_max = floor.max_capacity if floor.max_capacity is not None else max_capacity
        if floor.min_capacity < 0:
            problems.add(f"{base}.min", f"{floor.min_capacity} is negative", "use 0 or more")
        elif floor.min_capacity == 0 and not zero_allowed:
            problems.add(
                f"{base}.min",
                f"0 is not allowed on this {kind.value} endpoint (it cannot scale to zero)",
                "use 1 or more",
            )
        if floor.max_capacity is not None and (floor.max_capacity < 1 or floor.max_capacity > MAX_CAPACITY):
            problems.add(f"{base}.max", f"{floor.max_capacity} is out of range", f"use 1..{MAX_CAPACITY}")
        if floor.min_capacity > effective_max:
            problems.add(
                f"{base}.min",
                f"{floor.min_capacity} is greater than the maximum {effective_max}",
                f"use at most {effective_max} (capacity.max, or this entry's max)",
                code="conflict",
            )
        if len(problems.problems) == before:
            valid.append(floor)
    return tuple(valid)


# --------------------------------------------------------------------------------------------
# The whole plan for one endpoint
# --------------------------------------------------------------------------------------------


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


def plan_scaling(
    path: str,
    *,
    kind: EndpointKind,
    min_capacity: int,
    max_capacity: int,
    intent: ScalingIntent,
    host: HostFacts | None = None,
    serverless: ServerlessFacts | None = None,
    inference_component: bool | None = None,
    serving: Serving | None = None,
) -> ScalingPlan:
    """Decide how one endpoint scales; raise one ``InferenceConfigError`` listing every problem.

    Parameters
    ----------
    path:
        Key path prefix for messages, e.g. ``endpoints[0]``.
    kind:
        Endpoint kind.
    min_capacity, max_capacity:
        ``capacity.min`` and ``capacity.max`` (instances). Ignored for serverless endpoints, which
        have no instances: there the bounds are ``serverless.provisioned_concurrency`` and
        ``serverless.max_concurrency``.
    intent:
        The ``scaling:`` keys.
    host:
        GPU count and burstability of the chosen host. Default: a CPU host that is not burstable.
    serverless:
        Serverless settings. Default: the hosting request's defaults (``ServerlessOptions``): no provisioned
        concurrency, so nothing scales.
    inference_component:
        Whether the hosting plan hosts the model through an inference component (its copies scale, not the
        variant's instances). Default: decided by :func:`uses_inference_component` from ``kind`` and
        ``min_capacity``, as the hosting plan decides it.
    serving:
        The serving stack; a GPU-memory policy is refused on stacks whose GPU memory cannot fall with load.
        Default: unknown, the GPU-memory policy is allowed.

    Returns
    -------
    ScalingPlan
        ``enabled`` False when nothing scales.

    Raises
    ------
    InferenceConfigError
        Every rule broken, one line each.
    """
    host = host or HostFacts()
    problems = ProblemCollector()
    if kind is EndpointKind.SERVERLESS:
        return _plan_serverless(problems, path, intent=intent, serverless=serverless or _default_serverless())

    via_component = _through_component(kind, min_capacity, inference_component)
    scales = min_capacity != max_capacity or intent.has_policies
    check_capacity(
        problems,
        path,
        kind=kind,
        min_capacity=min_capacity,
        max_capacity=max_capacity,
        burstable=host.burstable,
        instance_type=host.instance_type,
        scales=scales,
    )
    policies: list[TargetTrackingPolicy | None] = []
    if intent.concurrency_per_instance is not None:
        policies.append(
            concurrency_policy(
                problems,
                path,
                kind=kind,
                per_instance=intent.concurrency_per_instance,
                inference_component=via_component,
            )
        )
    if intent.invocations_per_instance_per_minute is not None:
        policies.append(
            invocations_policy(
                problems,
                path,
                kind=kind,
                per_instance_per_minute=intent.invocations_per_instance_per_minute,
                inference_component=via_component,
            )
        )
    if intent.gpu_memory_percent is not None:
        policies.append(
            gpu_memory_policy(
                problems,
                path,
                kind=kind,
                percent_per_gpu=intent.gpu_memory_percent,
                gpu_count=host.gpu_count,
                instance_type=host.instance_type,
                inference_component=via_component,
                serving=serving,
            )
        )
    if intent.backlog_per_instance is not None:
        policies.append(backlog_policy(problems, path, kind=kind, per_instance=intent.backlog_per_instance))
    zero_allowed = kind is EndpointKind.ASYNC or via_component
    floors = schedule_floors(
        problems, path, kind=kind, schedule=intent.schedule, max_capacity=max_capacity, zero_allowed=zero_allowed
    )

    warnings = _gpu_memory_warnings(path, intent, serving)
    wake_up: WakeUpPolicy | None = None
    if min_capacity == 0 and kind is EndpointKind.ASYNC:
        if intent.backlog_per_instance is None:
            problems.add(
                _key(path, "capacity.min"),
                "0 on an async endpoint needs backlog scaling to leave and return to zero",
                f"set scaling.backlog_per_instance (e.g. {_fmt(DEFAULT_BACKLOG_PER_INSTANCE)})",
            )
        wake_up = async_wake_up_policy()
        warnings.append(_warning(path, ASYNC_ZERO_WARNING))
    if via_component:
        if intent.concurrency_per_instance is None and intent.invocations_per_instance_per_minute is None:
            problems.add(
                _key(path, "capacity.min"),
                "0 on a real-time endpoint needs copy scaling to return to zero",
                "set scaling.concurrency_per_instance or scaling.invocations_per_instance_per_minute",
            )
        wake_up = inference_component_wake_up_policy()
        warnings.append(_warning(path, SCALE_TO_ZERO_WARNING))
    warnings.extend(_floor_warnings(path, min_capacity, floors))
    problems.raise_if_any()

    tracking = tuple(p for p in policies if p is not None)
    if scales and min_capacity == max_capacity and not floors:
        warnings.append(
            _warning(path, f"capacity.min equals capacity.max ({min_capacity}): scaling policies cannot change it")
        )
    return ScalingPlan(
        kind=kind,
        dimension=(
            ScalableDimension.INFERENCE_COMPONENT_COPIES if via_component else ScalableDimension.VARIANT_INSTANCES
        ),
        min_capacity=min_capacity,
        max_capacity=max_capacity,
        target_tracking=tracking,
        wake_up=wake_up,
        schedules=floors,
        warnings=tuple(warnings),
        managed_instance_max=max_capacity if via_component else None,
        enabled=scales,
        signal=_endpoint_signal(
            scaling_signal(tracking, wake_up, floors, enabled=scales),
            scales=scales,
            gpu_count=host.gpu_count,
            serving=serving,
        ),
    )


def _gpu_memory_warnings(path: str, intent: ScalingIntent, serving: Serving | None) -> list[str]:
    """A warning when GPU-memory scaling depends on whether the server frees memory as load falls."""
    behaviour = GPU_MEMORY_BEHAVIOUR.get(serving) if serving is not None else None
    if intent.gpu_memory_percent is None or behaviour is None or behaviour.use is not GpuMemoryUse.DEPENDS:
        return []
    return [
        _warning(
            path,
            f"scaling.gpu_memory_percent scales in only if the server frees gpu memory when load falls: "
            f"{behaviour.detail}; if it does not, the policy holds capacity.max",
        )
    ]


def _endpoint_signal(signal: str, *, scales: bool, gpu_count: int, serving: Serving | None) -> str:
    """``signal``, plus why gpu memory is not the signal on a GPU host whose server's memory cannot fall."""
    behaviour = GPU_MEMORY_BEHAVIOUR.get(serving) if serving is not None else None
    if scales and gpu_count and serving is not None and behaviour and behaviour.refuses_gpu_memory_scaling:
        signal += f"; not gpu memory, which cannot fall with load on {serving.value}: {behaviour.detail}"
    return signal


_SIGNAL_WHY: dict[str, str] = {
    "SageMakerVariantConcurrentRequestsPerModelHighResolution": "in-flight requests per instance, the load a "
    "batching server holds, every 10 s",
    "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution": "in-flight requests per copy, every 10 s",
    "SageMakerVariantInvocationsPerInstance": "invocations per instance per minute",
    "SageMakerInferenceComponentInvocationsPerCopy": "invocations per copy per minute",
    "GPUMemoryUtilization": "gpu memory, percent per gpu x gpu count",
    "ApproximateBacklogSizePerInstance": "queued requests per instance",
    "HasBacklogWithoutCapacity": "queued requests and no instance: scale from zero",
    "NoCapacityInvocationFailures": "requests that found no copy: scale from zero",
    "SageMakerVariantProvisionedConcurrencyUtilization": "use of the provisioned concurrency",
}


def scaling_signal(
    tracking: Sequence[TargetTrackingPolicy],
    wake_up: WakeUpPolicy | None,
    floors: Sequence[ScheduledFloor] = (),
    *,
    enabled: bool = True,
) -> str:
    """One sentence for the plan: which metrics move capacity, what each measures.

    Every metric named here falls when load falls, so each policy can agree to scale in (Application Auto
    Scaling removes capacity only when every target-tracking policy of a target agrees).
    """
    if not enabled:
        return "fixed capacity: nothing scales"
    parts = []
    for policy in tracking:
        metric = policy.predefined_metric or (policy.custom_metric.metric_name if policy.custom_metric else "")
        parts.append(f"{metric} ({_SIGNAL_WHY.get(metric, 'target tracking')})")
    if wake_up is not None:
        metric = wake_up.alarm_metric.metric_name
        parts.append(f"{metric} ({_SIGNAL_WHY.get(metric, 'step scaling')})")
    if floors:
        parts.append(f"{len(floors)} scheduled floor(s)")
    if not parts:
        return "capacity range without policies: only manual changes move it"
    return "driven by " + "; ".join(parts)


def _default_serverless() -> ServerlessFacts:
    """The facts of a serverless endpoint whose options are all defaults (the hosting request's defaults)."""
    from inference_constructs.hosting.request import ServerlessOptions  # here: hosting imports this module

    options = ServerlessOptions()
    return ServerlessFacts(options.max_concurrency, options.provisioned_concurrency)


def _plan_serverless(
    problems: ProblemCollector, path: str, *, intent: ScalingIntent, serverless: ServerlessFacts
) -> ScalingPlan:
    kind = EndpointKind.SERVERLESS
    for key, value in (
        ("concurrency_per_instance", intent.concurrency_per_instance),
        ("invocations_per_instance_per_minute", intent.invocations_per_instance_per_minute),
        ("gpu_memory_percent", intent.gpu_memory_percent),
        ("backlog_per_instance", intent.backlog_per_instance),
    ):
        if value is not None:
            problems.add(
                _key(path, f"scaling.{key}"),
                "not available on a serverless endpoint (it scales itself; only provisioned concurrency is scaled)",
                "remove it, and set serverless.provisioned_concurrency to keep warm capacity",
            )
    schedule_floors(problems, path, kind=kind, schedule=intent.schedule, max_capacity=1, zero_allowed=False)
    provisioned = serverless.provisioned_concurrency
    policy: TargetTrackingPolicy | None = None
    if provisioned > 0:
        check_provisioned_concurrency_bounds(
            problems, path, min_capacity=provisioned, max_capacity=serverless.max_concurrency
        )
        policy = provisioned_concurrency_policy(problems, path, target_utilization=serverless.target_utilization)
    problems.raise_if_any()
    return ScalingPlan(
        kind=kind,
        dimension=ScalableDimension.PROVISIONED_CONCURRENCY,
        min_capacity=provisioned,
        max_capacity=serverless.max_concurrency,
        target_tracking=(policy,) if policy else (),
        enabled=provisioned > 0,
        signal=scaling_signal((policy,) if policy else (), None, enabled=provisioned > 0),
    )


def _floor_warnings(path: str, min_capacity: int, floors: Sequence[ScheduledFloor]) -> list[str]:
    """A floor that is never lowered again, and a raised floor that a scalable-target update lowers."""
    warnings: list[str] = []
    if any(f.min_capacity > min_capacity for f in floors) and not any(f.min_capacity <= min_capacity for f in floors):
        warnings.append(
            _warning(
                path,
                f"scheduled floors only raise the minimum above capacity.min {min_capacity}; add an entry that "
                "lowers it again, or the raised floor stays",
            )
        )
    raised = max((f.min_capacity for f in floors), default=min_capacity)
    if raised > min_capacity:
        warnings.append(_warning(path, floor_reset_warning(min_capacity, raised)))
    return warnings


def floor_reset_warning(min_capacity: int, raised: int) -> str:
    """Why deploying during a scheduled floor can lower it, and when to deploy instead.

    Application Auto Scaling, RegisterScalableTarget: it "registers or updates a scalable target", and the
    capacity it is given becomes the target's range; a scheduled action raised the minimum by updating that same
    range. CloudFormation updates an ``AWS::ApplicationAutoScaling::ScalableTarget`` (new capacity, schedule, role
    or tags) through it with the template's ``MinCapacity``, so the raised floor is back at ``capacity.min`` until
    the next scheduled action runs. Whether an update that changes only the tags sends ``MinCapacity`` is
    UNCONFIRMED (the resource handler's calls are not documented); the library assumes it does, keeps its own
    changing tags (the capacity tags) off the target, and says when to deploy.
    """
    return (
        f"scheduled floors raise the minimum to {raised}, but an update of the scalable target (its capacity, "
        f"schedule or tags) registers it again with capacity.min {min_capacity}: deployed while a raised floor is "
        "in effect, the minimum is back at capacity.min until the next scheduled action; deploy such changes "
        "outside the floor hours"
    )


def _warning(path: str, text: str) -> str:
    return f"{path}: {text}" if path else text


def bottleneck_intent(
    kind: EndpointKind, *, max_concurrent_sequences: int = ModelSpec.max_concurrent_sequences, llm: bool = True
) -> ScalingIntent:
    """A default scaling intent that targets the endpoint's real bottleneck, for endpoints with no ``scaling:`` keys.

    - real-time and multi-model: in-flight requests per instance at 75% of the batch the server keeps in
      flight (``max_concurrent_sequences``), so instances are added before requests queue; for classical
      (non-LLM) servers, 4 in-flight requests per instance;
    - async: a backlog of 5 requests per instance;
    - serverless: nothing (provisioned concurrency, when configured, is scaled on its utilization).
    """
    if kind is EndpointKind.ASYNC:
        return ScalingIntent(backlog_per_instance=DEFAULT_BACKLOG_PER_INSTANCE)
    if kind is EndpointKind.SERVERLESS:
        return ScalingIntent()
    per_instance = max(1.0, float(round(0.75 * max_concurrent_sequences))) if llm else 4.0
    return ScalingIntent(concurrency_per_instance=per_instance)
