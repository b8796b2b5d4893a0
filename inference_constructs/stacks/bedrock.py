"""Bedrock stack: one application inference profile per team with invoke grants for its roles, the guardrail
each profile enforces, the account's model invocation logging, and the alarms of those two.

The governance alarms live here, on this stack's own alarm topic, rather than in the observability stack: a
guardrail's version changes with its policy, and CloudFormation refuses to change an export another stack
imports, so an alarm elsewhere on the version would block the next policy change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from inference_constructs.bedrock import (
    ApplicationInferenceProfile,
    Guardrail,
    GuardrailReference,
    InvocationLoggingSpec,
    ModelInvocationLogging,
    ProfileSpec,
)
from inference_constructs.bedrock.router import IntelligentPromptRouter
from inference_constructs.bedrock.router_plan import RouterSpec
from inference_constructs.observability import InferenceAlarms
from inference_constructs.observability.bedrock_governance import (
    BedrockGovernanceMonitoring,
    MonitoredGuardrail,
    MonitoredInvocationLogging,
)
from inference_constructs.region_rules import add_region_rules
from inference_constructs.regions import AccountRequirement, RegionRequirement
from inference_constructs.stacks._handoff import keeps_exports


class BedrockStack(Stack):
    """Application inference profiles, prompt routers and the account's invocation logging, as the plan decided
    them. Composition only; ``alarm_email`` and ``dashboard`` come from the plan's ``observability`` section."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        profiles: Sequence[ProfileSpec],
        routers: Sequence[RouterSpec] = (),
        invocation_logging: InvocationLoggingSpec | None = None,
        alarm_email: str | None = None,
        dashboard: bool = False,
        region_requirements: Sequence[RegionRequirement] = (),
        account_requirements: Sequence[AccountRequirement] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        # the plan's requirements first, so the rules' descriptions name config keys (the constructs add theirs too)
        add_region_rules(self, region_requirements, account_requirements)
        self.invocation_logging: ModelInvocationLogging | None = None
        if invocation_logging is not None:
            self.invocation_logging = ModelInvocationLogging(self, "InvocationLogging", spec=invocation_logging)
        self.guardrails: dict[str, GuardrailReference] = {}
        self.profiles: dict[str, ApplicationInferenceProfile] = {}
        monitored: list[MonitoredGuardrail] = []
        for i, spec in enumerate(profiles):
            guardrail: GuardrailReference | None = None
            if spec.guardrail is not None:
                if spec.guardrail.is_existing:
                    guardrail = GuardrailReference.existing(
                        str(spec.guardrail.existing_id), str(spec.guardrail.existing_version)
                    )
                else:
                    path = f"bedrock.profiles[{i}].guardrail"
                    guardrail = Guardrail(self, f"{spec.name}Guardrail", spec=spec.guardrail, path=path).reference
                self.guardrails[spec.name] = guardrail
                monitored.append(
                    MonitoredGuardrail(
                        spec.name, guardrail.arn, guardrail.version, spec.guardrail.intervention_alarm_percent
                    )
                )
                # What callers send: guardrailIdentifier (the ARN) and guardrailVersion (the number).
                CfnOutput(self, f"{spec.name}GuardrailArn", value=guardrail.arn)
                CfnOutput(self, f"{spec.name}GuardrailVersion", value=guardrail.version)
            self.profiles[spec.name] = ApplicationInferenceProfile(
                self,
                spec.name,
                # changes with the model (a model bump replaces the profile); the old name for the one migration
                # deploy that keeps the exports the observability stack imported until now
                name=spec.name if keeps_exports(self) else spec.physical_name,
                model=spec.model,
                tags=dict(spec.tags),
                residency=spec.residency,
                invoke_role_arns=spec.invoke_role_arns,
                guardrail=guardrail,
            )
        self.governance: BedrockGovernanceMonitoring | None = None
        if monitored or invocation_logging is not None:
            alarms = InferenceAlarms(self, "GovernanceAlarms", alarm_email=alarm_email)
            paths = tuple(invocation_logging.delivery_paths) if invocation_logging else ()
            logging = MonitoredInvocationLogging(paths) if invocation_logging else None
            self.governance = BedrockGovernanceMonitoring(
                self,
                "Governance",
                topic=alarms.topic,
                guardrails=monitored,
                invocation_logging=logging,
                dashboard=dashboard,
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
