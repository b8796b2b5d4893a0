"""From the config file's ``bedrock:`` block to the Bedrock decision specs: each profile's :class:`ProfileSpec`
(with its ``guardrail:`` as a :class:`GuardrailSpec`), each prompt router's :class:`RouterSpec` (with its priced
workload), and the account's :class:`InvocationLoggingSpec`.
"""

from __future__ import annotations

from inference_constructs.bedrock.guardrail_plan import (
    DEFAULT_BLOCKED_MESSAGE,
    ContentFilter,
    DeniedTopic,
    GuardrailSpec,
    PiiEntity,
    default_guardrail_name,
)
from inference_constructs.bedrock.inference_profile_plan import ProfileSpec
from inference_constructs.bedrock.invocation_logging_plan import InvocationLoggingSpec
from inference_constructs.bedrock.model_source import Residency
from inference_constructs.bedrock.pricing import Workload, workload_from_counts
from inference_constructs.bedrock.router_plan import RouterSpec, check_router_specs
from inference_constructs.config.schema import BedrockGuardrail, BedrockWorkload, InvocationLogging, PlatformConfig

__all__ = ["bedrock_workload", "guardrail_spec", "invocation_logging_spec", "profile_specs", "router_specs"]


def guardrail_spec(platform: str, profile: str, block: BedrockGuardrail | None) -> GuardrailSpec | None:
    """The :class:`GuardrailSpec` of one profile's ``guardrail:`` block (None without one).

    The guardrail's name defaults to ``<platform>-<profile>`` (see :func:`default_guardrail_name`).
    """
    if block is None:
        return None
    grounding = block.contextual_grounding
    return GuardrailSpec(
        name=block.name or default_guardrail_name(platform, profile),
        description=block.description,
        content_filters=tuple(
            ContentFilter(f.type, f.input_strength, f.output_strength) for f in block.content_filters
        ),
        denied_topics=tuple(DeniedTopic(t.name, t.definition, tuple(t.examples)) for t in block.denied_topics),
        pii_entities=tuple(PiiEntity(e.type, e.action) for e in block.pii_entities),
        grounding_threshold=grounding.grounding_threshold if grounding else None,
        relevance_threshold=grounding.relevance_threshold if grounding else None,
        blocked_input_messaging=block.blocked_input_messaging or DEFAULT_BLOCKED_MESSAGE,
        blocked_outputs_messaging=block.blocked_outputs_messaging or DEFAULT_BLOCKED_MESSAGE,
        existing_id=block.id,
        existing_version=None if block.version is None else str(block.version),
        intervention_alarm_percent=block.intervention_alarm_percent,
    )


def invocation_logging_spec(block: InvocationLogging | None) -> InvocationLoggingSpec | None:
    """The :class:`InvocationLoggingSpec` of ``bedrock.invocation_logging`` (None when absent)."""
    if block is None:
        return None
    return InvocationLoggingSpec(**block.model_dump())  # the same keys, by design


def profile_specs(config: PlatformConfig) -> list[ProfileSpec]:
    """The Bedrock profile specs of a config, in config order."""
    return [
        ProfileSpec(
            name=p.name,
            model=p.model,
            tags=dict(p.tags),
            invoke_role_arns=tuple(p.invoke_role_arns),
            max_output_tokens=p.max_output_tokens,
            residency=Residency(p.residency),
            guardrail=guardrail_spec(config.name, p.name, p.guardrail),
        )
        for p in config.bedrock.profiles
    ]


def bedrock_workload(workload: BedrockWorkload | None, path: str) -> tuple[Workload | None, list[str]]:
    """The priced :class:`Workload` of a profile's or router's ``workload`` block, and its problems."""
    if workload is None:
        return None, []
    return workload_from_counts(path=path, **workload.model_dump())


def router_specs(config: PlatformConfig) -> tuple[list[RouterSpec], list[str]]:
    """The prompt router specs of a config, in config order, and the problems of their workloads."""
    specs: list[RouterSpec] = []
    problems: list[str] = []
    for i, r in enumerate(config.bedrock.routers):
        workload, found = bedrock_workload(r.workload, f"bedrock.routers[{i}].workload")
        problems += found
        specs.append(
            RouterSpec(
                name=r.name,
                models=tuple(r.models),
                fallback_model=r.fallback_model,
                response_quality_difference=r.response_quality_difference,
                description=r.description,
                tags=dict(r.tags),
                invoke_role_arns=tuple(r.invoke_role_arns),
                workload=workload,
            )
        )
    return specs, problems + check_router_specs(specs)
