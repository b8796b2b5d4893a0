"""From the config file's ``guardrail:`` and ``invocation_logging:`` blocks to the decision specs, re-exported
from their home in the plan package, :mod:`inference_constructs.plan.bedrock` (config adapters live in the plan,
above the decisions they feed: ``docs/architecture.md``).
"""

from __future__ import annotations

from inference_constructs.plan.bedrock import guardrail_spec, invocation_logging_spec

__all__ = ["guardrail_spec", "invocation_logging_spec"]
