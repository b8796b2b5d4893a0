"""From one config-file endpoint (``capacity:``, ``scaling:``, ``serverless:``) to a :class:`ScalingPlan`.

The planner calls :func:`plan_from_config` once the host is chosen (the GPU count and burstability come from it).
"""

from __future__ import annotations

from dataclasses import replace

from inference_constructs.config.schema import Endpoint
from inference_constructs.scaling.decisions import (
    HostFacts,
    ScalingIntent,
    ScalingPlan,
    ScheduledFloor,
    ServerlessFacts,
    bottleneck_intent,
    plan_scaling,
)
from inference_constructs.spec import EndpointKind

__all__ = ["intent_from_config", "plan_from_config"]


def intent_from_config(endpoint: Endpoint) -> ScalingIntent:
    """The ``scaling:`` keys of ``endpoint`` as a :class:`ScalingIntent` (schedule entries in order)."""
    scaling = endpoint.scaling
    return ScalingIntent(
        concurrency_per_instance=scaling.concurrency_per_instance,
        invocations_per_instance_per_minute=scaling.invocations_per_instance_per_minute,
        gpu_memory_percent=scaling.gpu_memory_percent,
        backlog_per_instance=scaling.backlog_per_instance,
        schedule=tuple(ScheduledFloor(cron=s.cron, min_capacity=s.min, max_capacity=s.max) for s in scaling.schedule),
    )


def plan_from_config(
    path: str,
    endpoint: Endpoint,
    *,
    gpu_count: int = 0,
    burstable: bool = False,
    instance_type: str | None = None,
    default_to_bottleneck: bool = True,
    inference_component: bool | None = None,
) -> ScalingPlan:
    """Plan the scaling of one config endpoint.

    Parameters
    ----------
    path:
        Key path of the endpoint, e.g. ``endpoints[0]``.
    endpoint:
        The validated config endpoint.
    gpu_count:
        GPUs on the chosen host (the hosting plan's ``gpu_count``). Default: 0, no GPUs.
    burstable:
        True when the chosen host is burstable (``InstanceType.burstable``). Default: not burstable.
    instance_type:
        Chosen instance type, for messages. Default: messages say "the host".
    default_to_bottleneck:
        When the endpoint has no scaling keys but a capacity range (max > min, or min 0), scale it on
        its bottleneck (:func:`bottleneck_intent`: concurrency at 75% of ``max_concurrent_sequences``
        for real-time and multi-model, a backlog of 5 for async). Default: True.
    inference_component:
        The hosting plan's decision to host the model through an inference component. Default: decided from
        the endpoint's type and ``capacity.min`` (see :func:`~inference_constructs.scaling.decisions.plan_scaling`).

    Raises
    ------
    InferenceConfigError
        Every broken scaling rule, one line each.
    """
    kind = endpoint.type
    intent = intent_from_config(endpoint)
    lo, hi = endpoint.capacity.min, endpoint.capacity.max
    ranged = hi > lo or lo == 0
    missing_target = (
        intent.concurrency_per_instance is None
        and intent.invocations_per_instance_per_minute is None
        and intent.gpu_memory_percent is None
        and intent.backlog_per_instance is None
    )
    defaulted = (
        default_to_bottleneck and missing_target and ranged and kind is not EndpointKind.SERVERLESS and not burstable
    )
    if defaulted:
        default = bottleneck_intent(
            kind,
            max_concurrent_sequences=endpoint.model.max_concurrent_sequences,
            llm=endpoint.serving.is_llm,
        )
        intent = ScalingIntent(
            concurrency_per_instance=default.concurrency_per_instance,
            backlog_per_instance=default.backlog_per_instance,
            schedule=intent.schedule,
        )
    serverless = None
    if kind is EndpointKind.SERVERLESS and endpoint.serverless is not None:
        serverless = ServerlessFacts(
            max_concurrency=endpoint.serverless.max_concurrency,
            provisioned_concurrency=endpoint.serverless.provisioned_concurrency,
        )
    plan = plan_scaling(
        path,
        kind=kind,
        min_capacity=lo,
        max_capacity=hi,
        intent=intent,
        host=HostFacts(gpu_count=gpu_count, burstable=burstable, instance_type=instance_type),
        serverless=serverless,
        inference_component=inference_component,
        serving=endpoint.serving,
    )
    if defaulted:
        plan = replace(plan, signal=f"no scaling keys, so the bottleneck: {plan.signal}")
    return plan
