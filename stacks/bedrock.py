"""Bedrock stack: one application inference profile per team, with invoke grants for its roles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs.bedrock import ApplicationInferenceProfile, ProfileSpec


class BedrockStack(Stack):
    """Application inference profiles from ``bedrock.profiles``. Composition only."""

    def __init__(self, scope: Construct, construct_id: str, *, profiles: Sequence[ProfileSpec], **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.profiles: dict[str, ApplicationInferenceProfile] = {}
        for spec in profiles:
            self.profiles[spec.name] = ApplicationInferenceProfile(
                self,
                spec.name,
                name=spec.name,
                model=spec.model,
                tags=dict(spec.tags),
                residency=spec.residency,
                invoke_role_arns=spec.invoke_role_arns,
            )
