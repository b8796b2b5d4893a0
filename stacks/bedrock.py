"""Bedrock stack: one application inference profile per team with invoke grants for its roles, the guardrail
each profile enforces, and the account's model invocation logging."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs.bedrock import (
    ApplicationInferenceProfile,
    Guardrail,
    GuardrailReference,
    InvocationLoggingSpec,
    ModelInvocationLogging,
    ProfileSpec,
)


class BedrockStack(Stack):
    """Application inference profiles from ``bedrock.profiles`` and ``bedrock.invocation_logging``. Composition
    only."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        profiles: Sequence[ProfileSpec],
        invocation_logging: InvocationLoggingSpec | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.invocation_logging: ModelInvocationLogging | None = None
        if invocation_logging is not None:
            self.invocation_logging = ModelInvocationLogging(self, "InvocationLogging", spec=invocation_logging)
        self.guardrails: dict[str, GuardrailReference] = {}
        self.profiles: dict[str, ApplicationInferenceProfile] = {}
        for i, spec in enumerate(profiles):
            guardrail: GuardrailReference | None = None
            if spec.guardrail is not None and spec.guardrail.is_existing:
                guardrail = GuardrailReference.existing(
                    str(spec.guardrail.existing_id), str(spec.guardrail.existing_version)
                )
            elif spec.guardrail is not None:
                path = f"bedrock.profiles[{i}].guardrail"
                guardrail = Guardrail(self, f"{spec.name}Guardrail", spec=spec.guardrail, path=path).reference
            if guardrail is not None:
                self.guardrails[spec.name] = guardrail
            self.profiles[spec.name] = ApplicationInferenceProfile(
                self,
                spec.name,
                name=spec.name,
                model=spec.model,
                tags=dict(spec.tags),
                residency=spec.residency,
                invoke_role_arns=spec.invoke_role_arns,
                guardrail=guardrail,
            )
