"""Test helper: ``plan_scaling`` with the intent keys as keyword arguments, as the scaling tests call it."""

from __future__ import annotations

from typing import Any

from inference_constructs.scaling import HostFacts, ScalingIntent, ScalingPlan, ServerlessFacts, plan_scaling
from inference_constructs.spec import EndpointKind

GPU4 = HostFacts(gpu_count=4, instance_type="ml.g5.12xlarge")
"""A 4-GPU ``ml.g5.12xlarge`` host."""


def scaling_plan(
    kind: EndpointKind = EndpointKind.REALTIME,
    *,
    path: str = "endpoints[0]",
    min_capacity: int = 1,
    max_capacity: int = 4,
    host: HostFacts | None = None,
    serverless: ServerlessFacts | None = None,
    **intent: Any,
) -> ScalingPlan:
    """``plan_scaling(path, ..., intent=ScalingIntent(**intent))``; ``host`` and ``serverless`` default as there."""
    return plan_scaling(
        path,
        kind=kind,
        min_capacity=min_capacity,
        max_capacity=max_capacity,
        intent=ScalingIntent(**intent),
        host=host,
        serverless=serverless,
    )
