"""Agents on Amazon Bedrock AgentCore Runtime: ``AgentRuntime`` (a runtime with a cost-aware session lifecycle)
and its pure decisions (``runtime_plan``). See docs/observability.md, "Agents"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports
from inference_constructs.agents.runtime_plan import AgentRuntimeSpec, CodeArtifact, LifecycleDecision, decide_lifecycle

if TYPE_CHECKING:
    from inference_constructs.agents.runtime import AgentRuntime

# The construct loads aws_cdk on first use, so the decisions import without it.
__getattr__, __dir__ = lazy_exports(__name__, {"AgentRuntime": "inference_constructs.agents.runtime"})

__all__ = ["AgentRuntime", "AgentRuntimeSpec", "CodeArtifact", "LifecycleDecision", "decide_lifecycle"]
