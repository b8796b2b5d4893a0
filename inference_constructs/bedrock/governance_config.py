"""Deprecated old path of the adapters from the config file's ``guardrail:`` and ``invocation_logging:`` blocks to
the decision specs; their home is the plan package, :mod:`inference_constructs.plan.bedrock` (config adapters live
in the plan, above the decisions they feed: ``docs/architecture.md``). Each name resolves on first use, with a
warning naming the new path; this module is removed in the next release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports

if TYPE_CHECKING:
    from inference_constructs.plan.bedrock import guardrail_spec, invocation_logging_spec

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "guardrail_spec": "inference_constructs.plan.bedrock",
        "invocation_logging_spec": "inference_constructs.plan.bedrock",
    },
    deprecated=True,
)

__all__ = ["guardrail_spec", "invocation_logging_spec"]
