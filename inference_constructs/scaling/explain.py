"""What a scaling plan says about itself: the one-sentence signal (which metrics move capacity) and the warnings."""

from __future__ import annotations

from collections.abc import Sequence

from inference_constructs.containers.memory import GPU_MEMORY_BEHAVIOUR, GpuMemoryUse
from inference_constructs.observability import metric_table
from inference_constructs.scaling.types import ScalingIntent, ScheduledFloor, TargetTrackingPolicy, WakeUpPolicy
from inference_constructs.spec import Serving

__all__ = [
    "ASYNC_ZERO_WARNING",
    "SCALE_TO_ZERO_WARNING",
    "floor_reset_warning",
    "scaling_signal",
]

SCALE_TO_ZERO_WARNING = (
    "scales to zero instances through an inference component: after idle, the first requests fail "
    "(NoCapacityInvocationFailures) while an instance starts, which takes several minutes; set capacity.min 1 to "
    "keep one warm (billed around the clock)"
)
ASYNC_ZERO_WARNING = (
    "scales to zero instances: after idle, queued requests wait while an instance starts, which takes several "
    "minutes; set capacity.min 1 to keep one warm (billed around the clock)"
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
            f"{behaviour.detail}; if it does not, the policy holds capacity.max; where unsure, scale on "
            "scaling.concurrency_per_instance instead",
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
    metric_table.GPU_MEMORY_UTILIZATION.name: "gpu memory, percent per gpu x gpu count",
    metric_table.APPROXIMATE_BACKLOG_SIZE_PER_INSTANCE.name: "queued requests per instance",
    metric_table.HAS_BACKLOG_WITHOUT_CAPACITY.name: "queued requests and no instance: scale from zero",
    metric_table.NO_CAPACITY_INVOCATION_FAILURES.name: "requests that found no copy: scale from zero",
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
