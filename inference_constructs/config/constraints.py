"""AWS constraints on the whole validated config (names after prefixing, tags per resource, ARNs, buckets,
duplicates, construct ids), checked before any construct exists so that ``plan`` refuses what synth or
CloudFormation would."""

from __future__ import annotations

from inference_constructs.config.schema import PlatformConfig
from inference_constructs.errors import Problem


def platform_problems(config: PlatformConfig) -> list[Problem]:
    """Every AWS constraint the validated ``config`` breaks."""
    return []
