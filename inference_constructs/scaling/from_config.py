"""The adapter from one config-file endpoint to a :class:`~inference_constructs.scaling.decisions.ScalingPlan`,
re-exported from its home in the plan package, :mod:`inference_constructs.plan.scaling` (config adapters live in
the plan, above the decisions they feed: ``docs/architecture.md``).
"""

from __future__ import annotations

from inference_constructs.plan.scaling import intent_from_config, plan_from_config

__all__ = ["intent_from_config", "plan_from_config"]
