"""A small IAM evaluator for identity-based policy statements, to test what a synthesized policy allows.

What it evaluates (IAM User Guide, "Policy evaluation logic" for a principal in the same account with no
SCP, permissions boundary, session policy or resource policy involved):

* an explicit ``Deny`` in any statement that matches the request wins;
* otherwise any matching ``Allow`` allows; otherwise the request is implicitly denied.

A statement matches when one of its ``Action`` patterns matches the action (case-insensitive, ``*`` and
``?`` wildcards), one of its ``Resource`` patterns matches the ARN (case-sensitive wildcards), and every
condition holds (AND across operators and keys, OR across a key's values). Condition operators:
``StringEquals``, ``StringNotEquals``, ``StringLike``, ``ArnLike``, ``ArnEquals``. A key absent from the
request makes a positive operator false and a negated one (``StringNotEquals``) true, as the IAM User
Guide's "Condition operators" page states. ``NotAction``, ``NotResource``, ``...IfExists`` and
multi-valued keys are not supported and raise.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from typing import Any

ALLOW, DENY, IMPLICIT_DENY = "Allow", "Deny", "ImplicitDeny"


def as_list(value: Any) -> list[str]:
    """A policy element that may be one string or a list, as a list."""
    return [value] if isinstance(value, str) else list(value)


def _glob(pattern: str, value: str, *, case: bool) -> bool:
    regex = fnmatch.translate(pattern)
    return re.match(regex, value, 0 if case else re.IGNORECASE) is not None


def _condition_holds(operator: str, key: str, values: list[str], context: Mapping[str, str]) -> bool:
    present = key in context
    actual = context.get(key, "")
    if operator in {"StringEquals", "ArnEquals"}:
        return present and actual in values
    if operator == "StringNotEquals":
        return not present or actual not in values
    if operator in ("StringLike", "ArnLike"):
        return present and any(_glob(v, actual, case=True) for v in values)
    raise NotImplementedError(f"condition operator {operator} is not evaluated by this helper")


def _matches(statement: Mapping[str, Any], action: str, resource: str, context: Mapping[str, str]) -> bool:
    if "NotAction" in statement or "NotResource" in statement:
        raise NotImplementedError("NotAction/NotResource are not evaluated by this helper")
    if not any(_glob(p, action, case=False) for p in as_list(statement["Action"])):
        return False
    if not any(_glob(p, resource, case=True) for p in as_list(statement["Resource"])):
        return False
    for operator, keys in statement.get("Condition", {}).items():
        for key, values in keys.items():
            if not _condition_holds(operator, key, as_list(values), context):
                return False
    return True


def evaluate(
    statements: Iterable[Mapping[str, Any]], action: str, resource: str, context: Mapping[str, str] | None = None
) -> str:
    """``Allow``, ``Deny`` (explicit) or ``ImplicitDeny`` for one request against ``statements``."""
    ctx = context or {}
    matching = [s for s in statements if _matches(s, action, resource, ctx)]
    if any(s["Effect"] == "Deny" for s in matching):
        return DENY
    if any(s["Effect"] == "Allow" for s in matching):
        return ALLOW
    return IMPLICIT_DENY


def concrete(value: Any, substitutions: Mapping[str, str]) -> Any:
    """Replace rendered ``${...}`` tokens (see ``_helpers.render``) with concrete values, recursively."""
    if isinstance(value, str):
        for token, replacement in substitutions.items():
            value = value.replace(token, replacement)
        if "${" in value:
            raise KeyError(f"no concrete value for a token in {value!r}")
        return value
    if isinstance(value, list):
        return [concrete(v, substitutions) for v in value]
    if isinstance(value, dict):
        return {k: concrete(v, substitutions) for k, v in value.items()}
    return value
