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

The decisions live in one module per concept, re-exported here: :mod:`.types` (the vocabulary and the plan),
:mod:`.defaults` (cooldowns, default targets, bounds), :mod:`.checks` (capacity, ranges, cron, scheduled
floors), :mod:`.policies` (one policy each), :mod:`.explain` (the signal sentence and the warnings) and
:mod:`.plan` (:func:`plan_scaling`, :func:`bottleneck_intent`).
"""

from __future__ import annotations

from inference_constructs.scaling.checks import (
    check_capacity,
    check_provisioned_concurrency_bounds,
    cron_problem,
    schedule_floors,
)
from inference_constructs.scaling.defaults import (
    ASYNC_WAKE_UP_COOLDOWN_SECONDS,
    COOLDOWNS,
    DEFAULT_BACKLOG_PER_INSTANCE,
    DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
    INFERENCE_COMPONENT_WAKE_UP_COOLDOWN_SECONDS,
    MAX_BACKLOG_TARGET,
    MAX_CAPACITY,
    MAX_CONCURRENCY_TARGET,
    MAX_INVOCATIONS_TARGET,
    MAX_SERVERLESS_CONCURRENCY,
    Cooldowns,
)
from inference_constructs.scaling.explain import (
    ASYNC_ZERO_WARNING,
    SCALE_TO_ZERO_WARNING,
    floor_reset_warning,
    scaling_signal,
)
from inference_constructs.scaling.plan import bottleneck_intent, plan_scaling, uses_inference_component
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
    GREATER_THAN_OR_EQUAL,
    HostFacts,
    MetricRef,
    ScalableDimension,
    ScalingIntent,
    ScalingPlan,
    ScheduledFloor,
    ServerlessFacts,
    TargetTrackingPolicy,
    WakeUpPolicy,
)

__all__ = [
    "ASYNC_WAKE_UP_COOLDOWN_SECONDS",
    "ASYNC_ZERO_WARNING",
    "COOLDOWNS",
    "DEFAULT_BACKLOG_PER_INSTANCE",
    "DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION",
    "GREATER_THAN_OR_EQUAL",
    "INFERENCE_COMPONENT_WAKE_UP_COOLDOWN_SECONDS",
    "MAX_BACKLOG_TARGET",
    "MAX_CAPACITY",
    "MAX_CONCURRENCY_TARGET",
    "MAX_INVOCATIONS_TARGET",
    "MAX_SERVERLESS_CONCURRENCY",
    "SCALE_TO_ZERO_WARNING",
    "Cooldowns",
    "HostFacts",
    "MetricRef",
    "ScalableDimension",
    "ScalingIntent",
    "ScalingPlan",
    "ScheduledFloor",
    "ServerlessFacts",
    "TargetTrackingPolicy",
    "WakeUpPolicy",
    "async_wake_up_policy",
    "backlog_policy",
    "bottleneck_intent",
    "check_capacity",
    "check_provisioned_concurrency_bounds",
    "concurrency_policy",
    "cron_problem",
    "floor_reset_warning",
    "gpu_memory_policy",
    "inference_component_wake_up_policy",
    "invocations_policy",
    "plan_scaling",
    "provisioned_concurrency_policy",
    "scaling_signal",
    "schedule_floors",
    "uses_inference_component",
]
