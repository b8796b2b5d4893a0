"""Bedrock stack: one application inference profile per team, with invoke grants for its roles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs.bedrock import ApplicationInferenceProfile, ProfileSpec
from inference_constructs.bedrock.router import IntelligentPromptRouter
from inference_constructs.bedrock.routing import RouterSpec


class BedrockStack(Stack):
    """Application inference profiles from ``bedrock.profiles`` and prompt routers from
    ``bedrock.routers``. Composition only."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        profiles: Sequence[ProfileSpec],
        routers: Sequence[RouterSpec] = (),
        **kwargs: Any,
    ) -> None:
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
        self.routers: dict[str, IntelligentPromptRouter] = {}
        for router in routers:
            self.routers[router.name] = IntelligentPromptRouter(
                self,
                f"Router{router.name}",
                name=router.name,
                models=router.models,
                fallback_model=router.fallback_model,
                response_quality_difference=router.response_quality_difference,
                description=router.description,
                tags=dict(router.tags),
                invoke_role_arns=router.invoke_role_arns,
            )
