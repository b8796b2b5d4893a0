"""Deprecated old path of the adapter from one config-file endpoint to a
:class:`~inference_constructs.scaling.decisions.ScalingPlan`; its home is the plan package,
:mod:`inference_constructs.plan.scaling` (config adapters live in the plan, above the decisions they feed:
``docs/architecture.md``). Each name resolves on first use, with a warning naming the new path; this module is
removed in the next release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports

if TYPE_CHECKING:
    from inference_constructs.plan.scaling import intent_from_config, plan_from_config

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "intent_from_config": "inference_constructs.plan.scaling",
        "plan_from_config": "inference_constructs.plan.scaling",
    },
    deprecated=True,
)

__all__ = ["intent_from_config", "plan_from_config"]
