"""The production variant's request routing (``ProductionVariant.RoutingConfig``): least outstanding requests,
or prefix-aware routing (``PrefixAwareRoutingConfig``), where requests sharing a prefix reach the instance whose
engine holds it in its prefix cache.

Pure Python: no ``aws_cdk`` import. The ``serving_options.routing`` block of an endpoint; whether the engine caches
prefixes on the chosen host is the serving options' decision (:mod:`.serving_options`), passed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from inference_constructs._coerce import enum_fields
from inference_constructs._plan_dict import plan_dict
from inference_constructs.errors import ProblemCollector
from inference_constructs.spec import EndpointKind, ModelSpec

__all__ = [
    "CONCURRENCY_THRESHOLD_RANGE",
    "PREFIX_LENGTH_RANGE",
    "RoutingDecision",
    "RoutingOptions",
    "RoutingStrategy",
    "decide_routing",
]

PREFIX_LENGTH_RANGE = (1024, 65536)
"""``PrefixAwareRoutingConfig.PrefixLength`` bounds (cfn-lint's bundled AWS::SageMaker::EndpointConfig schema;
SageMaker API reference PrefixAwareRoutingConfig): bytes of the request body (InvokeEndpoint), or characters of the
messages' text (OpenAI-compatible API)."""

CONCURRENCY_THRESHOLD_RANGE = (1, 1024)
"""``PrefixAwareRoutingConfig.ConcurrencyThreshold`` bounds (same sources): in-flight requests on the
prefix-selected instance before the endpoint routes to another one."""


class RoutingStrategy(StrEnum):
    """The production variant's ``RoutingConfig.RoutingStrategy`` the plan writes."""

    LEAST_OUTSTANDING_REQUESTS = "least_outstanding_requests"
    PREFIX_AWARE = "prefix_aware"


@dataclass(frozen=True)
class RoutingOptions:
    """How the endpoint routes requests to its instances (real-time endpoints only).

    Parameters
    ----------
    strategy:
        ``prefix_aware`` (requests sharing a prefix go to the same instance, so its prefix cache hits) or
        ``least_outstanding_requests``. Default: ``prefix_aware``.
    prefix_length:
        ``PrefixLength``, 1,024..65,536 bytes of the request body (characters of the messages' text on the
        OpenAI-compatible API): cover the shared content (system prompt) plus enough unique content to spread
        conversations over the instances. Default: 1,024, the documented minimum.
    concurrency_threshold:
        ``ConcurrencyThreshold``, 1..1,024 in-flight requests on the prefix-selected instance before another one
        is chosen. Default: ``concurrency_per_instance`` rounded up, else ``model.max_concurrent_sequences``.
    concurrency_per_instance:
        The scaling target of in-flight requests per instance (the config copies ``scaling.concurrency_per_instance``
        here). Default: none.
    """

    strategy: RoutingStrategy = RoutingStrategy.PREFIX_AWARE
    prefix_length: int | None = None
    concurrency_threshold: int | None = None
    concurrency_per_instance: float | None = None

    def __post_init__(self) -> None:
        enum_fields(self, "serving_options.routing", strategy=RoutingStrategy)


@dataclass(frozen=True)
class RoutingDecision:
    """The production variant's routing: ``RoutingConfig.RoutingStrategy`` and, for ``PREFIX_AWARE``, the
    ``PrefixAwareRoutingConfig`` values, each with its reason."""

    strategy: str | None
    prefix_length: int | None = None
    concurrency_threshold: int | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, object]:
        """The plan's ``routing`` block."""
        return plan_dict(self, "strategy", "prefix_length", "concurrency_threshold", "reason")


def decide_routing(
    routing: RoutingOptions | None,
    *,
    kind: EndpointKind,
    default_strategy: str | None,
    caches_prefixes: bool,
    inference_component: bool,
    model: ModelSpec,
    problems: ProblemCollector,
    path: str = "",
) -> RoutingDecision | None:
    """The decision for the ``routing`` block, or ``None`` to keep ``default_strategy`` (no routing block given).

    Prefix-aware routing only on real-time endpoints without an inference component, and only where the engine
    caches prefixes on the chosen host (``caches_prefixes``); ``PrefixLength`` defaults to the documented minimum
    and ``ConcurrencyThreshold`` to the scaling target per instance, else the engine's batch.
    """
    if routing is None:
        return None
    key = f"{path}.serving_options.routing" if path else "serving_options.routing"
    if routing.strategy is RoutingStrategy.LEAST_OUTSTANDING_REQUESTS:
        if default_strategy is None:
            problems.add(
                f"{key}.strategy",
                f"least_outstanding_requests is not available for {kind.value} endpoints",
                "remove routing",
            )
        return RoutingDecision(default_strategy, reason="least outstanding requests routing (serving_options.routing)")
    where = None
    if kind is not EndpointKind.REALTIME:
        where = f"{kind.value} endpoints (sagemaker documents prefix-aware routing for real-time endpoints only)"
    elif inference_component:
        where = "an endpoint hosted through an inference component (capacity.min 0)"
    elif not caches_prefixes:
        where = "an engine that does not cache prefixes on this host (see serving_options.prefix_caching)"
    if where is not None:
        problems.add(
            f"{key}.strategy", f"prefix_aware is not available for {where}", "remove routing, or serve where it applies"
        )
        return None
    low, high = PREFIX_LENGTH_RANGE
    length = routing.prefix_length if routing.prefix_length is not None else low
    if not low <= length <= high:
        problems.add(f"{key}.prefix_length", f"{length} is outside {low}..{high}", f"use {low}..{high}")
    tlow, thigh = CONCURRENCY_THRESHOLD_RANGE
    if routing.concurrency_threshold is not None:
        threshold = routing.concurrency_threshold
        why_threshold = "given"
    elif routing.concurrency_per_instance is not None:
        threshold = min(thigh, max(tlow, math.ceil(routing.concurrency_per_instance)))
        why_threshold = (
            f"scaling.concurrency_per_instance {routing.concurrency_per_instance:g} rounded up: above it the instance "
            "is past its scaling target, so a request goes to a less loaded one"
        )
    else:
        threshold = min(thigh, max(tlow, model.max_concurrent_sequences))
        why_threshold = (
            f"model.max_concurrent_sequences {model.max_concurrent_sequences}: beyond the engine's batch a request "
            "would queue on the prefix-selected instance"
        )
    if not tlow <= threshold <= thigh:
        problems.add(f"{key}.concurrency_threshold", f"{threshold} is outside {tlow}..{thigh}", f"use {tlow}..{thigh}")
    why_length = (
        "given"
        if routing.prefix_length is not None
        else f"the documented minimum {low}: set it to the shared system prompt plus enough unique content to spread "
        "conversations over the instances"
    )
    reason = (
        f"prefix-aware routing: requests sharing their first {length:,} bytes (characters on the openai-compatible "
        f"api) go to the same instance, so its prefix cache hits (prefix length: {why_length}); concurrency "
        f"threshold {threshold} ({why_threshold})"
    )
    return RoutingDecision("PREFIX_AWARE", length, threshold, reason)
