"""Bedrock application inference profiles: per-team cost and usage for shared models.

Pure decision modules (no ``aws_cdk`` import): :mod:`.regions`, :mod:`.model_source`,
:mod:`.guidance`, :mod:`.profiles`, :mod:`.pricing`, :mod:`.routing`. The constructs
(:mod:`.inference_profile`, :mod:`.router`) and the metric factories (:mod:`.metrics`) import aws_cdk
lazily through this package's attribute access, so ``from inference_constructs.bedrock import
ProfileSpec`` does not load CDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports
from inference_constructs.bedrock.guardrail_plan import (
    ContentFilter,
    DeniedTopic,
    GuardrailSpec,
    PiiEntity,
)
from inference_constructs.bedrock.guidance import (
    cache_checkpoint_min_tokens,
    output_burndown_rate,
    token_guidance,
)
from inference_constructs.bedrock.inference_profile_plan import (
    ProfileSpec,
)
from inference_constructs.bedrock.invocation_logging_plan import InvocationLoggingSpec
from inference_constructs.bedrock.model_source import (
    ModelSource,
    ProfileSourceKind,
    Residency,
)
from inference_constructs.bedrock.pricing import Latency, Workload, token_economics
from inference_constructs.bedrock.regions import GEOGRAPHIES, Geography
from inference_constructs.bedrock.router_plan import RouterSpec

if TYPE_CHECKING:
    from inference_constructs.bedrock.guardrail import Guardrail, GuardrailReference
    from inference_constructs.bedrock.inference_profile import INVOKE_ACTIONS, ApplicationInferenceProfile
    from inference_constructs.bedrock.invocation_logging import ModelInvocationLogging
    from inference_constructs.bedrock.metrics import bedrock_metric, cache_tokens_total
    from inference_constructs.bedrock.router import IntelligentPromptRouter

# The constructs load aws_cdk on first use, so the pure decisions import without it (the plan needs that).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ApplicationInferenceProfile": "inference_constructs.bedrock.inference_profile",
        "Guardrail": "inference_constructs.bedrock.guardrail",
        "GuardrailReference": "inference_constructs.bedrock.guardrail",
        "ModelInvocationLogging": "inference_constructs.bedrock.invocation_logging",
        "INVOKE_ACTIONS": "inference_constructs.bedrock.inference_profile",
        "IntelligentPromptRouter": "inference_constructs.bedrock.router",
        "bedrock_metric": "inference_constructs.bedrock.metrics",
        "cache_tokens_total": "inference_constructs.bedrock.metrics",
        # Deprecated: the old name of ProfileSourceKind (warns on use; removed in the next release).
        "ModelSourceKind": "inference_constructs.bedrock.model_source",
    },
)


__all__ = [
    "GEOGRAPHIES",
    "INVOKE_ACTIONS",
    "ApplicationInferenceProfile",
    "ContentFilter",
    "DeniedTopic",
    "Geography",
    "Guardrail",
    "GuardrailReference",
    "GuardrailSpec",
    "IntelligentPromptRouter",
    "InvocationLoggingSpec",
    "Latency",
    "ModelInvocationLogging",
    "ModelSource",
    "PiiEntity",
    "ProfileSourceKind",
    "ProfileSpec",
    "Residency",
    "RouterSpec",
    "Workload",
    "bedrock_metric",
    "cache_checkpoint_min_tokens",
    "cache_tokens_total",
    "output_burndown_rate",
    "token_economics",
    "token_guidance",
]
