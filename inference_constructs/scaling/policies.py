"""Per-policy decisions: one target-tracking or step policy each, with its reason. The constructs'
``scale_on_*`` methods call these, so a Python user and a config file get the same rules and messages.
"""

from __future__ import annotations

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


def _cooldowns(name: str, scale_out: int | None, scale_in: int | None) -> tuple[int, int]:
    default = COOLDOWNS[name]
    return (
        default.scale_out_seconds if scale_out is None else scale_out,
        default.scale_in_seconds if scale_in is None else scale_in,
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
            construct_id=metric_table.INVOCATIONS_PER_COPY.name,
            predefined_metric="SageMakerInferenceComponentInvocationsPerCopy",
            target_value=per_instance_per_minute,
            scale_out_cooldown_seconds=out_s,
            scale_in_cooldown_seconds=in_s,
            reason=f"keeps {_fmt(per_instance_per_minute)} invocations per copy per minute (InvocationsPerCopy)",
        )
    return TargetTrackingPolicy(
        construct_id=metric_table.INVOCATIONS.name,
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
    out_s, in_s = _cooldowns("gpu_memory", scale_out_cooldown_seconds, scale_in_cooldown_seconds)
    target = gpu_metric_target(percent_per_gpu, gpu_count)
    return TargetTrackingPolicy(
        construct_id="GpuMemory",
        custom_metric=_metric_ref(metric_table.GPU_MEMORY_UTILIZATION, VARIANT_DIMENSIONS),
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
        custom_metric=_metric_ref(metric_table.APPROXIMATE_BACKLOG_SIZE_PER_INSTANCE, ENDPOINT_ONLY_DIMENSIONS),
        target_value=per_instance,
        scale_out_cooldown_seconds=out_s,
        scale_in_cooldown_seconds=in_s,
        reason=f"keeps the queue at {_fmt(per_instance)} requests per instance (ApproximateBacklogSizePerInstance)",
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
