"""The observability tests' fixtures (a stack, a synth that runs the three nag packs), for the agent runtime."""

from __future__ import annotations

from tests.unit.observability.conftest import app, stack, synth

__all__ = ["app", "stack", "synth"]
