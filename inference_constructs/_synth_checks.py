"""Checks that refuse to synthesize a construct a later call should have completed (private).

A construct that needs a follow-up call (a scale-to-zero endpoint needs the scaling that wakes it) cannot refuse in
its constructor: the call comes after it. The check is read when the app synthesizes, after every call.
"""

from __future__ import annotations

from collections.abc import Callable

import jsii
from constructs import Construct, IValidation

__all__ = ["add_synth_check"]


@jsii.implements(IValidation)
class _SynthCheck:
    def __init__(self, problem: Callable[[], str | None]) -> None:
        self._problem = problem

    def validate(self) -> list[str]:
        found = self._problem()
        return [] if found is None else [found]


def add_synth_check(owner: Construct, problem: Callable[[], str | None]) -> None:
    """Fail the synthesis of ``owner`` with the message ``problem()`` returns at synth time, if any
    (``node.add_validation``)."""
    owner.node.add_validation(_SynthCheck(problem))
