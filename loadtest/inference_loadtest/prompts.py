"""Prompts for a load test: synthetic ones with token lengths drawn from a distribution, a JSONL file, a trace, and
the two cache workloads: a shared prefix (a share of the requests start with one fixed prefix) and multi-turn
conversations (each turn resends the history).

Synthetic text is common English words, one word per token (about one token each for the tokenizers of the
served models); :attr:`Prompt.input_tokens` is that word count.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.arrivals import TraceEntry

_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


@dataclass(frozen=True)
class Check:
    """How a response is scored (:mod:`inference_loadtest.quality`): ``kind`` ``exact`` (the reference text,
    whitespace around it ignored), ``regex`` (a pattern found in the response), ``json_schema`` (the response
    parses as JSON valid against the schema) or ``judge`` (criteria a judge model grades PASS or FAIL)."""

    kind: str
    value: Any


@dataclass(frozen=True)
class Prompt:
    """One request's input text and the number of output tokens it asks for.

    ``input_tokens``: the input's length in tokens as the workload built it (history included; None when
    unknown, a user's file without ``input_tokens``). ``group``: the report's group of the request (``shared
    prefix``, ``turn 2``, ...; None: no groups). ``history``: earlier turns as (role, text) pairs, sent before
    ``text`` (``user`` and ``assistant`` alternating). ``check``: how its response is scored (a dataset's).
    """

    text: str
    max_tokens: int
    input_tokens: int | None = None
    group: str | None = None
    history: tuple[tuple[str, str], ...] = ()
    check: Check | None = None

    def messages(self) -> list[tuple[str, str]]:
        """Every turn of the request as (role, text): the history, then this turn's user text."""
        return [*self.history, ("user", self.text)]


@dataclass(frozen=True)
class Lengths:
    """A token-length distribution: normal with ``mean`` and ``stddev``, clipped to at least 1.

    ``parse("256")`` is a fixed length; ``parse("256:64")`` draws around 256 with a standard deviation of 64.
    """

    mean: int
    stddev: int = 0

    @classmethod
    def parse(cls, text: str, *, option: str) -> Lengths:
        mean, _, sd = text.partition(":")
        try:
            value = cls(int(mean), int(sd or 0))
        except ValueError:
            value = cls(0, -1)
        if value.mean < 1 or value.stddev < 0:
            raise InferenceConfigError(
                f"{option}: {text!r} is not allowed; use MEAN or MEAN:STDDEV in tokens, MEAN >= 1"
            )
        return value

    def draw(self, rng: random.Random) -> int:
        return self.mean if not self.stddev else max(1, round(rng.gauss(self.mean, self.stddev)))


def synthetic_prompts(count: int, *, input_tokens: Lengths, output_tokens: Lengths, seed: int = 0) -> list[Prompt]:
    """``count`` prompts of about ``input_tokens`` words (one common English word is about one token)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = input_tokens.draw(rng)
        words = " ".join(_WORDS[(i + k) % len(_WORDS)] for k in range(n))
        out.append(Prompt(text=words, max_tokens=output_tokens.draw(rng), input_tokens=n))
    return out


def _words(n: int, tag: str) -> str:
    """``n`` words starting with ``tag`` (a word of its own that makes the text unique from its first token)."""
    return " ".join([tag, *(_WORDS[k % len(_WORDS)] for k in range(n - 1))]) if n > 0 else ""


SHARED = "shared prefix"
UNSHARED = "no shared prefix"


def shared_prefix_prompts(
    count: int,
    *,
    prefix_tokens: int,
    share: float,
    input_tokens: Lengths,
    output_tokens: Lengths,
    seed: int = 0,
) -> list[Prompt]:
    """``count`` prompts of which ``round(share * count)`` start with the same ``prefix_tokens``-token prefix.

    Every prompt's own part (``input_tokens`` long) starts with a word unique to it, so two prompts share at most
    the common prefix; which requests carry the prefix is drawn with ``seed``. Groups: ``shared prefix`` and
    ``no shared prefix``; a shared prompt's ``input_tokens`` counts the prefix and its own part.
    """
    if prefix_tokens < 1:
        raise InferenceConfigError(f"--prefix-tokens: {prefix_tokens!r} is not allowed; use a positive token count")
    if not 0 <= share <= 1:
        raise InferenceConfigError(f"--prefix-share: {share!r} is not allowed; use a fraction from 0 to 1")
    rng = random.Random(seed)
    shared = set(rng.sample(range(count), round(share * count)))
    prefix = _words(prefix_tokens, f"prefix{seed}")
    out = []
    for i in range(count):
        n = input_tokens.draw(rng)
        own = _words(n, f"request{i}")
        if i in shared:
            out.append(Prompt(f"{prefix} {own}", output_tokens.draw(rng), prefix_tokens + n, SHARED))
        else:
            out.append(Prompt(own, output_tokens.draw(rng), n, UNSHARED))
    return out


def multi_turn_prompts(
    conversations: int,
    *,
    turns: int,
    input_tokens: Lengths,
    output_tokens: Lengths,
    seed: int = 0,
) -> list[Prompt]:
    """``conversations`` conversations of ``turns`` turns; turn ``k`` resends turns ``1..k-1`` as its history.

    The history holds each earlier user turn and, as the assistant's answer, a stand-in of the length that turn
    asked for (``max_tokens`` words): the real answer is not fed back, so every body is fixed before the run and
    the same for the same seed. The prompts are in turn-major order (turn 1 of every conversation, then turn
    2, ...), so a conversation's next turn is sent ``conversations`` requests after the previous one. Groups:
    ``turn 1`` ... ``turn N``; ``input_tokens`` counts the whole history.
    """
    if turns < 1 or conversations < 1:
        raise InferenceConfigError("--turns/--conversations: must be at least 1")
    rng = random.Random(seed)
    by_conversation: list[list[Prompt]] = []
    for c in range(conversations):
        history: list[tuple[str, str]] = []
        tokens = 0
        prompts = []
        for k in range(1, turns + 1):
            n = input_tokens.draw(rng)
            wanted = output_tokens.draw(rng)
            text = _words(n, f"conversation{c}turn{k}")
            prompts.append(Prompt(text, wanted, tokens + n, f"turn {k}", tuple(history)))
            history += [("user", text), ("assistant", _words(wanted, f"answer{c}turn{k}"))]
            tokens += n + wanted
        by_conversation.append(prompts)
    return [conv[k] for k in range(turns) for conv in by_conversation]


def jsonl_prompts(path: str | Path, *, output_tokens: Lengths, seed: int = 0) -> list[Prompt]:
    """Prompts from a JSONL file: one object a line with ``prompt`` (or ``text``), optional ``max_tokens``,
    ``input_tokens`` (its length, for the report's input statistics) and ``group`` (the report's TTFT group)."""
    rng = random.Random(seed)
    out: list[Prompt] = []
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise InferenceConfigError(f"--prompts: cannot read {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            text = obj.get("prompt", obj.get("text"))
        except (ValueError, AttributeError):
            text = None
            obj = {}
        if not isinstance(text, str):
            raise InferenceConfigError(
                f"--prompts: {path} line {number} is not allowed; use a JSON object with a string prompt or text"
            )
        max_tokens = obj.get("max_tokens")
        wanted = max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else output_tokens.draw(rng)
        given = obj.get("input_tokens")
        group = obj.get("group")
        out.append(
            Prompt(
                text,
                wanted,
                given if isinstance(given, int) and given > 0 else None,
                group if isinstance(group, str) else None,
            )
        )
    if not out:
        raise InferenceConfigError(f"--prompts: {path} holds no prompts; use one JSON object a line")
    return out


def trace_prompts(entries: Sequence[TraceEntry]) -> list[Prompt]:
    """One prompt per trace entry: its own ``prompt``, else ``input_tokens`` synthetic words; ``output_tokens``
    asked for."""
    return [
        Prompt(
            e.prompt if e.prompt is not None else _words(e.input_tokens, f"trace{i}"), e.output_tokens, e.input_tokens
        )
        for i, e in enumerate(entries)
    ]
