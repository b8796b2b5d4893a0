"""Token-aware validation helpers (private). Values that are CDK tokens are unknown at synth
time, so checks on them are skipped rather than failed."""

from __future__ import annotations

from typing import Any


def is_unresolved(value: Any) -> bool:
    """True when ``value`` is a CDK token (string, number or list) whose value is not known yet.

    Imports aws_cdk lazily so pure decision modules can call this without loading CDK when
    the value is a plain Python literal.
    """
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, str) and "${Token[" not in value and "#{Token[" not in value:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < 1e12:
        return False
    from aws_cdk import Token

    return bool(Token.is_unresolved(value))
