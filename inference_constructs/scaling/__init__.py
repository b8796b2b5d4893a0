"""Auto scaling on the real bottleneck: concurrency, GPU memory, queue backlog, schedules, scale to zero.

Decisions (pure Python) live in :mod:`inference_constructs.scaling.decisions`; the constructs
translate them into Application Auto Scaling resources. See ``docs/scaling.md``.
"""

from __future__ import annotations

from inference_constructs.scaling.autoscaling import EndpointAutoScaling, ServerlessProvisionedConcurrencyScaling
from inference_constructs.scaling.decisions import (
    COOLDOWNS,
    HostFacts,
    ScalableDimension,
    ScalingIntent,
    ScalingPlan,
    ScheduledFloor,
    ServerlessFacts,
    TargetTrackingPolicy,
    WakeUpPolicy,
    bottleneck_intent,
    plan_scaling,
)
from inference_constructs.scaling.from_config import intent_from_config, plan_from_config
from inference_constructs.scaling.inference_component import (
    InferenceComponentScaling,
    ModelInferenceComponent,
    managed_instance_scaling,
    scale_to_zero_variant,
)

__all__ = [
    "COOLDOWNS",
    "EndpointAutoScaling",
    "HostFacts",
    "InferenceComponentScaling",
    "ModelInferenceComponent",
    "ScalableDimension",
    "ScalingIntent",
    "ScalingPlan",
    "ScheduledFloor",
    "ServerlessFacts",
    "ServerlessProvisionedConcurrencyScaling",
    "TargetTrackingPolicy",
    "WakeUpPolicy",
    "bottleneck_intent",
    "intent_from_config",
    "managed_instance_scaling",
    "plan_from_config",
    "plan_scaling",
    "scale_to_zero_variant",
]
