"""Stable codes for the plan's warnings, so a pipeline can compare and gate on them while the prose changes.

The plan document lists its warnings as sentences (``warnings`` in ``plan --json``), each starting with the
subject it is about (``endpoints[2]: ...``, ``bedrock profile team-a: ...``, ``cost: ...``). Each code below
matches the sentence its emitter writes (the module named in the description); a sentence no pattern matches gets
``unclassified`` (a test plans every shipped config and requires a code for each of their warnings).

A warning's identity across two plans is its code and subject (with ``endpoints[N]`` read as the endpoint's name,
so reordering endpoints changes nothing): ``diff`` lists the warnings NEW has and OLD has not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["WARNING_CODES", "PlanWarning", "classify", "plan_warnings"]

#: Warning code -> (regular expression searched in the sentence, what it means and which module writes it).
WARNING_CODES: dict[str, tuple[str, str]] = {
    "scale_to_zero_fails_requests": (
        r"scales to zero instances through an inference component",
        "a real-time endpoint scales to zero: the first requests after idle fail while an instance starts "
        "(inference_constructs.scaling.decisions)",
    ),
    "scale_to_zero_queues": (
        r"scales to zero instances: after idle, queued requests wait",
        "an async endpoint scales to zero: queued requests wait while an instance starts "
        "(inference_constructs.scaling.decisions)",
    ),
    "schedule_floor_stays": (
        r"scheduled floors only raise the minimum",
        "a scheduled floor is never lowered again (inference_constructs.scaling.decisions)",
    ),
    "fixed_capacity": (
        r"capacity\.min equals capacity\.max",
        "scaling policies cannot change a fixed capacity (inference_constructs.scaling.decisions)",
    ),
    "gpu_memory_scale_in": (
        r"scaling\.gpu_memory_percent scales in only if",
        "gpu-memory scaling may never scale in (inference_constructs.scaling.decisions)",
    ),
    "leaves_region": (
        r"requests can leave the deploy Region",
        "a Bedrock profile may serve requests outside the deploy Region"
        " (inference_constructs.bedrock.inference_profile_plan)",
    ),
    "quota_exceeded": (
        r"quota tokens per minute .* exceed the default",
        "the expected Bedrock token rate exceeds the default quota (inference_constructs.bedrock.pricing)",
    ),
    "workload_not_priced": (
        r"workload not priced",
        "a Bedrock workload the price table cannot price (inference_constructs.bedrock.pricing)",
    ),
    "price_region": (
        r"prices are \S+ list prices",
        "Bedrock prices from another Region's list (inference_constructs.bedrock.pricing)",
    ),
    "logging_bucket_unmanaged": (
        r"bedrock invocation logging: bucket .* is not managed here",
        "an invocation-logging bucket whose policy the platform does not manage "
        "(inference_constructs.bedrock.invocation_logging_plan)",
    ),
    "logging_overwrite": (
        r"bedrock invocation logging: overwrite_existing is true",
        "the platform replaces an invocation-logging configuration it did not create "
        "(inference_constructs.bedrock.invocation_logging_plan)",
    ),
    "cost_tag_scope": (
        r"count only spend tagged",
        "the budget or anomaly monitor counts only spend with the platform tag (inference_constructs.cost.decisions)",
    ),
    "deny_role_account": (
        r"cost\.budget\.deny_role_arns: the roles are in account",
        "the budget's deny roles fix the cost stack's account (inference_constructs.cost.decisions)",
    ),
    "schedule_floor_reset_on_update": (
        r"an update of the scalable target .* registers it again with capacity\.min",
        "deploying a scalable-target change during a raised scheduled floor lowers it until the next scheduled action "
        "(inference_constructs.scaling.decisions)",
    ),
    "budget_below_minimum_cost": (
        r"cost\.budget\.monthly_limit_usd: the endpoints at minimum capacity alone cost",
        "the endpoints at minimum capacity cost more a month than the budget (inference_constructs.plan.cost)",
    ),
    "reservation_ends": (
        r"the endpoint runs only on reservation",
        "the endpoint stops serving when its ML capacity reservation ends (inference_constructs.hosting.reservation)",
    ),
}
UNCLASSIFIED = "unclassified"

_COMPILED = [(code, re.compile(pattern)) for code, (pattern, _) in WARNING_CODES.items()]
_ENDPOINT_INDEX = re.compile(r"^endpoints\[(\d+)\]")


def classify(text: str) -> str:
    """The code of a warning sentence (``unclassified`` when no pattern matches)."""
    return next((code for code, pattern in _COMPILED if pattern.search(text)), UNCLASSIFIED)


@dataclass(frozen=True)
class PlanWarning:
    """One plan warning: its code, its subject (``endpoint chat``, ``bedrock profile team-a``, ``cost``) and
    its sentence."""

    code: str
    subject: str
    text: str

    @property
    def key(self) -> tuple[str, str]:
        """The identity compared across plans."""
        return (self.code, self.subject)

    def to_dict(self) -> dict[str, str]:
        """Plain JSON-able form."""
        return {"code": self.code, "subject": self.subject, "text": self.text}


def _subject(text: str, endpoint_names: Sequence[str]) -> str:
    match = _ENDPOINT_INDEX.match(text)
    if match and int(match.group(1)) < len(endpoint_names):
        return f"endpoint {endpoint_names[int(match.group(1))]}"
    head = text.split(": ", 1)[0]
    return head if len(head) < len(text) else ""


def plan_warnings(doc: Mapping[str, Any]) -> tuple[PlanWarning, ...]:
    """The warnings of a plan document (``PlatformPlan.to_json()``), coded."""
    names = [str(e.get("name")) for e in doc.get("endpoints", []) if isinstance(e, Mapping)]
    texts = [str(w) for w in doc.get("warnings", []) or []]
    return tuple(PlanWarning(classify(t), _subject(t, names), t) for t in dict.fromkeys(texts))
