"""The whole scaling plan for one endpoint (:func:`plan_scaling`), and the default intent for an endpoint with
no ``scaling:`` keys (:func:`bottleneck_intent`).
"""

from __future__ import annotations

from typing import TypedDict, Unpack

from inference_constructs.errors import ProblemCollector
from inference_constructs.scaling.checks import (
    _fmt,
    _key,
    check_capacity,
    check_provisioned_concurrency_bounds,
    schedule_floors,
)
from inference_constructs.scaling.defaults import (
    DEFAULT_BACKLOG_PER_INSTANCE,
    DEFAULT_SERVERLESS_MAX_CONCURRENCY,
    DEFAULT_SERVERLESS_PROVISIONED_CONCURRENCY,
)
from inference_constructs.scaling.explain import (
    ASYNC_ZERO_WARNING,
    SCALE_TO_ZERO_WARNING,
    _endpoint_signal,
    _floor_warnings,
    _gpu_memory_warnings,
    _warning,
    scaling_signal,
)
from inference_constructs.scaling.policies import (
    async_wake_up_policy,
    backlog_policy,
    concurrency_policy,
    gpu_memory_policy,
    inference_component_wake_up_policy,
    invocations_policy,
    provisioned_concurrency_policy,
)
from inference_constructs.scaling.types import (
    HostFacts,
    ScalableDimension,
    ScalingIntent,
    ScalingPlan,
    ServerlessFacts,
    TargetTrackingPolicy,
    WakeUpPolicy,
)
from inference_constructs.spec import EndpointKind, ModelSpec, Serving

__all__ = [
    "bottleneck_intent",
    "plan_scaling",
    "uses_inference_component",
]


class CooldownSeconds(TypedDict, total=False):
    """A policy's cooldowns in seconds, as the policy functions take them; one left out (or None) keeps the
    policy's default."""

    scale_out_cooldown_seconds: int | None
    scale_in_cooldown_seconds: int | None


class _PerUnit(CooldownSeconds):
    """What a per-instance (or per-copy) policy function is told besides its target."""

    kind: EndpointKind
    inference_component: bool


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
    tracking = target_tracking_policies(
        problems, path, kind=kind, intent=intent, host=host, via_component=via_component, serving=serving
    )
    zero_allowed = kind is EndpointKind.ASYNC or via_component
    floors = schedule_floors(
        problems, path, kind=kind, schedule=intent.schedule, max_capacity=max_capacity, zero_allowed=zero_allowed
    )
    wake_up, zero_warnings = _scale_from_zero(
        problems, path, kind=kind, min_capacity=min_capacity, intent=intent, via_component=via_component
    )
    problems.raise_if_any()

    warnings = [
        *_gpu_memory_warnings(path, intent, serving),
        *zero_warnings,
        *_floor_warnings(path, min_capacity, floors),
    ]
    if scales and min_capacity == max_capacity and not floors:
        warnings.append(
            _warning(
                path,
                f"capacity.min equals capacity.max ({min_capacity}): scaling policies cannot change it; raise "
                "capacity.max or remove the scaling keys",
            )
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


def target_tracking_policies(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    intent: ScalingIntent,
    host: HostFacts,
    via_component: bool,
    serving: Serving | None,
    **cooldowns: Unpack[CooldownSeconds],
) -> tuple[TargetTrackingPolicy, ...]:
    """One target-tracking policy per ``scaling:`` key that is set, in the keys' order (refused ones are left out
    and reported to ``problems``).

    The one mapping from intent to policies: :func:`plan_scaling` passes an endpoint's keys, the constructs'
    ``scale_on_*`` methods one key and their ``cooldowns`` (default: each policy's own).
    """
    per_unit = _PerUnit(kind=kind, inference_component=via_component, **cooldowns)
    policies: list[TargetTrackingPolicy | None] = []
    if intent.concurrency_per_instance is not None:
        policies.append(concurrency_policy(problems, path, per_instance=intent.concurrency_per_instance, **per_unit))
    if intent.invocations_per_instance_per_minute is not None:
        policies.append(
            invocations_policy(
                problems, path, per_instance_per_minute=intent.invocations_per_instance_per_minute, **per_unit
            )
        )
    if intent.gpu_memory_percent is not None:
        policies.append(
            gpu_memory_policy(
                problems,
                path,
                percent_per_gpu=intent.gpu_memory_percent,
                gpu_count=host.gpu_count,
                instance_type=host.instance_type,
                serving=serving,
                **per_unit,
            )
        )
    if intent.backlog_per_instance is not None:
        policies.append(
            backlog_policy(problems, path, kind=kind, per_instance=intent.backlog_per_instance, **cooldowns)
        )
    return tuple(p for p in policies if p is not None)


def _scale_from_zero(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    min_capacity: int,
    intent: ScalingIntent,
    via_component: bool,
) -> tuple[WakeUpPolicy | None, list[str]]:
    """The step policy that leaves zero capacity and the warning of what zero costs, when capacity can be zero: an
    async endpoint with minimum 0 (on the backlog), or inference-component hosting (on failed requests)."""
    wake_up: WakeUpPolicy | None = None
    warnings: list[str] = []
    if min_capacity == 0 and kind is EndpointKind.ASYNC:
        if intent.backlog_per_instance is None:
            problems.add(
                _key(path, "capacity.min"),
                "0 on an async endpoint needs backlog scaling to leave and return to zero",
                f"set scaling.backlog_per_instance (e.g. {_fmt(DEFAULT_BACKLOG_PER_INSTANCE)})",
            )
        wake_up = async_wake_up_policy()
        warnings.append(_warning(path, ASYNC_ZERO_WARNING))
    if via_component and min_capacity == 0:  # a component of several may keep warm copies (min 1 or more)
        if intent.concurrency_per_instance is None and intent.invocations_per_instance_per_minute is None:
            problems.add(
                _key(path, "capacity.min"),
                "0 on a real-time endpoint needs copy scaling to return to zero",
                "set scaling.concurrency_per_instance or scaling.invocations_per_instance_per_minute",
            )
        wake_up = inference_component_wake_up_policy()
        warnings.append(_warning(path, SCALE_TO_ZERO_WARNING))
    return wake_up, warnings


def _default_serverless() -> ServerlessFacts:
    """The facts of a serverless endpoint whose options are all defaults (the hosting request's defaults:
    ``ServerlessOptions`` reads the same values)."""
    return ServerlessFacts(DEFAULT_SERVERLESS_MAX_CONCURRENCY, DEFAULT_SERVERLESS_PROVISIONED_CONCURRENCY)


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
