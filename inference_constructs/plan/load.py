"""The plan of whatever a caller holds: a config file's path, a loaded config, or a plan (:func:`platform_plan`).

The stacks take any of them and call this, so they read only the plan and never the config package.
"""

from __future__ import annotations

import os
from typing import TypeAlias

from inference_constructs.config.load import load_config
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.layout import MAX_RESOURCES_PER_STACK
from inference_constructs.plan.planner import plan_platform
from inference_constructs.plan.platform import PlatformPlan

__all__ = ["PlanSource", "platform_plan"]

#: What the platform construct and the synth take: a config file's path (``docs/config.md``), a loaded
#: ``PlatformConfig`` (``load_config``/``parse_config``/``validate_config``), or a ``PlatformPlan``.
PlanSource: TypeAlias = str | os.PathLike[str] | PlatformConfig | PlatformPlan


def platform_plan(config: PlanSource, *, max_resources_per_stack: int = MAX_RESOURCES_PER_STACK) -> PlatformPlan:
    """The plan of ``config``: a config file's path, a loaded config, or a plan (returned as it is).

    Raises
    ------
    InferenceConfigError
        For any config mistake (the same message ``python -m inference_constructs plan`` prints).
    """
    if isinstance(config, PlatformPlan):
        return config
    if not isinstance(config, PlatformConfig):
        config = load_config(config)
    return plan_platform(config, max_resources_per_stack=max_resources_per_stack)
