"""Token-aware validation helpers (private). Values that are CDK tokens are unknown at synth
time, so checks on them are skipped rather than failed."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aws_cdk import Duration


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


# Constant CDK values, read from the jsii kernel once per process instead of at every use (each read is a round
# trip to Node; a synth used them thousands of times). Durations are immutable, the pseudo parameters are constant
# token strings, so sharing them changes nothing in the templates.


@functools.cache
def minutes(amount: int) -> Duration:
    """``Duration.minutes(amount)``, created once."""
    from aws_cdk import Duration

    return Duration.minutes(amount)


@functools.cache
def seconds(amount: int) -> Duration:
    """``Duration.seconds(amount)``, created once."""
    from aws_cdk import Duration

    return Duration.seconds(amount)


@functools.cache
def aws_partition() -> str:
    """``Aws.PARTITION``, read once."""
    from aws_cdk import Aws

    return Aws.PARTITION


@functools.cache
def aws_region() -> str:
    """``Aws.REGION``, read once."""
    from aws_cdk import Aws

    return Aws.REGION
