"""From the config file's ``guardrail:`` and ``invocation_logging:`` blocks to the decision specs.

Pure Python; the config models are only used for typing, so the decision layer does not depend on the
config package at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs.bedrock.guardrails import (
    DEFAULT_BLOCKED_MESSAGE,
    ContentFilter,
    DeniedTopic,
    GuardrailSpec,
    PiiEntity,
    default_guardrail_name,
)
from inference_constructs.bedrock.logging_spec import InvocationLoggingSpec

if TYPE_CHECKING:
    from inference_constructs.config.schema import BedrockGuardrail, InvocationLogging


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
