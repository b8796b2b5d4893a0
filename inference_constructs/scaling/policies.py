"""Per-policy decisions: one target-tracking or step policy each, with its reason. The constructs'
``scale_on_*`` methods call these, so a Python user and a config file get the same rules and messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from inference_constructs.containers.memory import GPU_MEMORY_BEHAVIOUR, no_gpu_fix
from inference_constructs.errors import ProblemCollector
from inference_constructs.observability import metric_table
from inference_constructs.observability.metric_definitions import (
    COMPONENT_DIMENSIONS,
    ENDPOINT_ONLY_DIMENSIONS,
    VARIANT_DIMENSIONS,
    Dimension,
    gpu_metric_target,
)
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.scaling.checks import _a, _check_range, _fmt, _key
from inference_constructs.scaling.defaults import (
    ASYNC_WAKE_UP_COOLDOWN_SECONDS,
    COOLDOWNS,
    DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
    INFERENCE_COMPONENT_WAKE_UP_COOLDOWN_SECONDS,
    MAX_BACKLOG_TARGET,
    MAX_CONCURRENCY_TARGET,
    MAX_INVOCATIONS_TARGET,
)
from inference_constructs.scaling.types import MetricRef, TargetTrackingPolicy, WakeUpPolicy
from inference_constructs.spec import EndpointKind, Serving

__all__ = [
    "async_wake_up_policy",
    "backlog_policy",
    "concurrency_policy",
    "gpu_memory_policy",
    "inference_component_wake_up_policy",
    "invocations_policy",
    "provisioned_concurrency_policy",
]


@dataclass(frozen=True)
class _Tracked:
    """A predefined target-tracking metric: the policy's construct id, the metric and what it keeps, in words."""

    construct_id: str
    predefined_metric: str
    keeps: str


#: The predefined metrics of the concurrency and invocation signals, for a variant and for an inference
#: component's copies (Application Auto Scaling ``PredefinedMetricType``).
_PREDEFINED: dict[tuple[str, bool], _Tracked] = {
    ("concurrency", False): _Tracked(
        "Concurrency",
        "SageMakerVariantConcurrentRequestsPerModelHighResolution",
        "in-flight requests per instance (ConcurrentRequestsPerModel, 10 s resolution), the bottleneck of a "
        "batching model server",
    ),
    ("concurrency", True): _Tracked(
        "ConcurrencyPerCopy",
        "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution",
        "in-flight requests per copy (ConcurrentRequestsPerCopy, 10 s resolution)",
    ),
    ("invocations", False): _Tracked(
        metric_table.INVOCATIONS.name,
        "SageMakerVariantInvocationsPerInstance",
        "invocations per instance per minute (InvocationsPerInstance)",
    ),
    ("invocations", True): _Tracked(
        metric_table.INVOCATIONS_PER_COPY.name,
        "SageMakerInferenceComponentInvocationsPerCopy",
        "invocations per copy per minute (InvocationsPerCopy)",
    ),
}


def _tracking(
    signal: str,
    construct_id: str,
    target: float,
    cooldowns: tuple[int | None, int | None],
    reason: str,
    *,
    predefined_metric: str | None = None,
    custom_metric: MetricRef | None = None,
) -> TargetTrackingPolicy:
    """A target-tracking policy on ``signal``'s metric, its cooldowns (scale-out, scale-in) over the signal's
    defaults in :data:`COOLDOWNS`."""
    default = COOLDOWNS[signal]
    scale_out, scale_in = cooldowns
    return TargetTrackingPolicy(
        construct_id=construct_id,
        predefined_metric=predefined_metric,
        custom_metric=custom_metric,
        target_value=target,
        scale_out_cooldown_seconds=default.scale_out_seconds if scale_out is None else scale_out,
        scale_in_cooldown_seconds=default.scale_in_seconds if scale_in is None else scale_in,
        reason=reason,
    )


@dataclass(frozen=True)
class _PerUnitSignal:
    """A signal kept per instance (or per copy): its ``scaling:`` key, its highest target, its name in messages and
    the fix offered on an async endpoint."""

    key: str
    maximum: float
    what: str
    async_fix: str


#: The two per-instance signals with a predefined metric; their policies differ only by these rows.
_PER_UNIT: dict[str, _PerUnitSignal] = {
    "concurrency": _PerUnitSignal(
        "scaling.concurrency_per_instance", MAX_CONCURRENCY_TARGET, "concurrency", "use scaling.backlog_per_instance"
    ),
    "invocations": _PerUnitSignal(
        "scaling.invocations_per_instance_per_minute",
        MAX_INVOCATIONS_TARGET,
        "invocation",
        "async endpoints do not publish InvocationsPerInstance; use scaling.backlog_per_instance",
    ),
}


def _per_unit_policy(
    problems: ProblemCollector,
    path: str,
    signal: str,
    *,
    kind: EndpointKind,
    target: float,
    inference_component: bool,
    cooldowns: tuple[int | None, int | None],
) -> TargetTrackingPolicy | None:
    """Target tracking on ``signal`` (a row of :data:`_PER_UNIT`) with its predefined metric for a variant or for an
    inference component's copies; None (and a problem) when the target or the endpoint kind is refused."""
    rule = _PER_UNIT[signal]
    key = _key(path, rule.key)
    ok = _check_range(problems, key, target, 0, rule.maximum)
    if kind in (EndpointKind.ASYNC, EndpointKind.SERVERLESS):
        fix = rule.async_fix if kind is EndpointKind.ASYNC else "remove it"
        problems.add(key, f"{rule.what} scaling is not available on {_a(kind)} endpoint", fix)
        return None
    if not ok:
        return None
    row = _PREDEFINED[signal, inference_component]
    return _tracking(
        signal,
        row.construct_id,
        target,
        cooldowns,
        f"keeps {_fmt(target)} {row.keeps}",
        predefined_metric=row.predefined_metric,
    )


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
    return _per_unit_policy(
        problems,
        path,
        "concurrency",
        kind=kind,
        target=per_instance,
        inference_component=inference_component,
        cooldowns=(scale_out_cooldown_seconds, scale_in_cooldown_seconds),
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
    return _per_unit_policy(
        problems,
        path,
        "invocations",
        kind=kind,
        target=per_instance_per_minute,
        inference_component=inference_component,
        cooldowns=(scale_out_cooldown_seconds, scale_in_cooldown_seconds),
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
            no_gpu_fix(serving),
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
    target = gpu_metric_target(percent_per_gpu, gpu_count)
    return _tracking(
        "gpu_memory",
        "GpuMemory",
        target,
        (scale_out_cooldown_seconds, scale_in_cooldown_seconds),
        f"keeps GPU memory at {_fmt(percent_per_gpu)}% per GPU; GPUMemoryUtilization runs 0-100 x {gpu_count} "
        f"GPUs, so the target is {_fmt(target)}",
        custom_metric=_metric_ref(metric_table.GPU_MEMORY_UTILIZATION, VARIANT_DIMENSIONS),
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
    return _tracking(
        "backlog",
        "Backlog",
        per_instance,
        (scale_out_cooldown_seconds, scale_in_cooldown_seconds),
        f"keeps the queue at {_fmt(per_instance)} requests per instance (ApproximateBacklogSizePerInstance)",
        custom_metric=_metric_ref(metric_table.APPROXIMATE_BACKLOG_SIZE_PER_INSTANCE, ENDPOINT_ONLY_DIMENSIONS),
    )


def _metric_ref(metric: MetricDefinition, dimensions: tuple[Dimension, ...]) -> MetricRef:
    """``metric`` of the metric table with these dimension values, read with its default statistic."""
    return MetricRef(
        namespace=metric.namespace, metric_name=metric.name, dimensions=dimensions, statistic=metric.statistic
    )


def _scale_out_from_zero(
    metric: MetricDefinition,
    dimensions: tuple[Dimension, ...],
    *,
    periods: int,
    aggregation: str,
    cooldown_seconds: int,
    reason: str,
) -> WakeUpPolicy:
    """Step policy +1 on ``metric >= 1`` in ``periods`` of ``periods`` one-minute periods: the one way to
    leave zero capacity, which target tracking cannot (its metric has no per-instance value at zero)."""
    return WakeUpPolicy(
        construct_id="ScaleOutFromZero",
        alarm_metric=_metric_ref(metric, dimensions),
        period_seconds=60,
        evaluation_periods=periods,
        datapoints_to_alarm=periods,
        metric_aggregation=aggregation,
        cooldown_seconds=cooldown_seconds,
        reason=reason,
    )


def async_wake_up_policy() -> WakeUpPolicy:
    """Step policy +1 instance on ``HasBacklogWithoutCapacity >= 1`` (2 of 2 one-minute periods)."""
    return _scale_out_from_zero(
        metric_table.HAS_BACKLOG_WITHOUT_CAPACITY,
        ENDPOINT_ONLY_DIMENSIONS,
        periods=2,
        aggregation="Average",
        cooldown_seconds=ASYNC_WAKE_UP_COOLDOWN_SECONDS,
        reason=(
            "target tracking cannot leave zero instances; HasBacklogWithoutCapacity is 1 when requests wait and no "
            "instance runs, and adds one instance"
        ),
    )


def inference_component_wake_up_policy() -> WakeUpPolicy:
    """Step policy +1 copy on ``NoCapacityInvocationFailures >= 1`` in one minute."""
    return _scale_out_from_zero(
        metric_table.NO_CAPACITY_INVOCATION_FAILURES,
        COMPONENT_DIMENSIONS,
        periods=1,
        aggregation="Maximum",
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
    return _tracking(
        "provisioned_concurrency",
        "ProvisionedConcurrencyUtilization",
        target_utilization,
        (scale_out_cooldown_seconds, scale_in_cooldown_seconds),
        f"keeps provisioned concurrency {_fmt(target_utilization * 100)}% used "
        "(ServerlessProvisionedConcurrencyUtilization), so warm capacity follows traffic",
        predefined_metric="SageMakerVariantProvisionedConcurrencyUtilization",
    )
