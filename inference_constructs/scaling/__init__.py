"""Auto scaling on the real bottleneck: concurrency, GPU memory, queue backlog, schedules, scale to zero.

Decisions (pure Python) live in :mod:`inference_constructs.scaling.decisions`; the constructs
translate them into Application Auto Scaling resources. See ``docs/scaling.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports
from inference_constructs.scaling.decisions import (
    HostFacts,
    ScalableDimension,
    ScalingIntent,
    ScalingPlan,
    ScheduledFloor,
    ServerlessFacts,
    TargetTrackingPolicy,
    WakeUpPolicy,
    plan_scaling,
)

if TYPE_CHECKING:
    from inference_constructs.scaling.autoscaling import EndpointScaling, ServerlessScaling
    from inference_constructs.scaling.inference_component import (
        InferenceComponentScaling,
        ModelInferenceComponent,
    )

# The constructs load aws_cdk on first use, so the pure decisions import without it (the plan needs that). The
# config adapters' home is the plan package, above the decisions: their old names here are deprecated, resolved on
# first use (so that importing a scaling decision never loads the plan) and warn.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(("intent_from_config", "plan_from_config"), "inference_constructs.plan.scaling"),
        "EndpointScaling": "inference_constructs.scaling.autoscaling",
        "ServerlessScaling": "inference_constructs.scaling.autoscaling",
        # the old names (deprecated, removed in the next release): they warn on use
        "EndpointAutoScaling": "inference_constructs.scaling.autoscaling",
        "ServerlessProvisionedConcurrencyScaling": "inference_constructs.scaling.autoscaling",
        "InferenceComponentScaling": "inference_constructs.scaling.inference_component",
        "ModelInferenceComponent": "inference_constructs.scaling.inference_component",
    },
    deprecated=("intent_from_config", "plan_from_config"),
)

__all__ = [
    "EndpointScaling",
    "HostFacts",
    "InferenceComponentScaling",
    "ModelInferenceComponent",
    "ScalableDimension",
    "ScalingIntent",
    "ScalingPlan",
    "ScheduledFloor",
    "ServerlessFacts",
    "ServerlessScaling",
    "TargetTrackingPolicy",
    "WakeUpPolicy",
    "plan_scaling",
]
