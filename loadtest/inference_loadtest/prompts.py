"""Prompts for a load test: synthetic ones with token lengths drawn from a distribution, or a JSONL file."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from inference_constructs.errors import InferenceConfigError

_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


@dataclass(frozen=True)
class Prompt:
    """One request's input text and the number of output tokens it asks for."""

    text: str
    max_tokens: int


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
        out.append(Prompt(text=words, max_tokens=output_tokens.draw(rng)))
    return out


def jsonl_prompts(path: str | Path, *, output_tokens: Lengths, seed: int = 0) -> list[Prompt]:
    """Prompts from a JSONL file: one object a line with ``prompt`` (or ``text``), optional ``max_tokens``."""
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
        out.append(Prompt(text, wanted))
    if not out:
        raise InferenceConfigError(f"--prompts: {path} holds no prompts; use one JSON object a line")
    return out
