"""Open-loop arrival processes: when each request of a level is due.

An open-loop level sends request ``i`` at its scheduled offset whatever happened to the earlier ones, and its
latencies count from that scheduled time (:attr:`~inference_loadtest.stats.RequestResult.scheduled`), so a
server that stalls shows as latency instead of as fewer requests sent (no coordinated omission).

- ``poisson``: exponential gaps of mean ``1 / rate`` (coefficient of variation 1);
- ``gamma``: gaps drawn from a gamma distribution of shape ``burstiness`` and scale
  ``1 / (rate * burstiness)``: the mean gap stays ``1 / rate``, the coefficient of variation is
  ``1 / sqrt(burstiness)``; 1 is Poisson, below 1 burstier, above 1 more regular (the definition of vLLM's
  ``vllm bench serve --burstiness``, ``vllm/benchmarks/serve.py`` ``get_request``);
- ``constant``: gaps of exactly ``1 / rate``;
- a trace (:func:`read_trace`): the offsets and token lengths of recorded traffic, replayed as they were.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError

PROCESSES = ("poisson", "gamma", "constant")

SCHEDULE_EPSILON_S = 1e-9
"""Offsets summed from gaps carry float rounding: a request due at the duration bound (20/s for 0.5 s: the 11th
at 0.4999999...) is not sent."""


@dataclass(frozen=True)
class Arrivals:
    """An arrival process of ``rate_rps`` mean requests per second.

    Parameters
    ----------
    rate_rps
        Mean arrivals per second (> 0).
    process
        ``poisson``, ``gamma`` or ``constant``. Default: ``poisson``.
    burstiness
        ``gamma`` only: the shape; the gaps' coefficient of variation is ``1 / sqrt(burstiness)``. Default: 1
        (the Poisson process).
    """

    rate_rps: float
    process: str = "poisson"
    burstiness: float = 1.0

    def __post_init__(self) -> None:
        if self.process not in PROCESSES:
            raise InferenceConfigError(f"--arrivals: {self.process!r} is not allowed; use {', '.join(PROCESSES)}")
        if not self.rate_rps > 0 or not math.isfinite(self.rate_rps):
            raise InferenceConfigError(f"--rate: {self.rate_rps!r} is not allowed; use a positive number")
        if not self.burstiness > 0 or not math.isfinite(self.burstiness):
            raise InferenceConfigError(f"--burstiness: {self.burstiness!r} is not allowed; use a positive number")

    def gaps(self, seed: int) -> Iterator[float]:
        """The gaps between consecutive arrivals, seconds, forever; the same ones for the same seed."""
        rng = random.Random(seed)
        mean = 1 / self.rate_rps
        while True:
            if self.process == "constant":
                yield mean
            elif self.process == "poisson":
                yield rng.expovariate(self.rate_rps)
            else:
                yield rng.gammavariate(self.burstiness, mean / self.burstiness)

    def offsets(self, count: int, seed: int) -> list[float]:
        """The first ``count`` scheduled offsets from the level's start: 0 for the first request."""
        out: list[float] = []
        at = 0.0
        gaps = self.gaps(seed)
        for _ in range(count):
            out.append(at)
            at += next(gaps)
        return out

    def expected_cv(self) -> float:
        """The coefficient of variation (stddev / mean) of this process's gaps."""
        return {"poisson": 1.0, "constant": 0.0}.get(self.process, 1 / math.sqrt(self.burstiness))

    def to_dict(self) -> dict[str, Any]:
        return {"process": self.process, "rate_rps": self.rate_rps, "burstiness": self.burstiness}


def dispersion(offsets: Sequence[float]) -> dict[str, float | None]:
    """Achieved rate and the gaps' coefficient of variation of a schedule (or of actual send times).

    ``rate_rps`` is (arrivals - 1) / (last - first), the rate over the span the gaps cover; ``cv`` is the
    gaps' population standard deviation over their mean; ``index_of_dispersion`` is ``cv**2`` (1 for Poisson).
    """
    ordered = sorted(offsets)
    gaps = [b - a for a, b in itertools.pairwise(ordered)]
    if not gaps or ordered[-1] == ordered[0]:
        return {"rate_rps": None, "cv": None, "index_of_dispersion": None}
    mean = sum(gaps) / len(gaps)
    var = sum((g - mean) ** 2 for g in gaps) / len(gaps)
    cv = math.sqrt(var) / mean
    return {
        "rate_rps": round(len(gaps) / (ordered[-1] - ordered[0]), 4),
        "cv": round(cv, 4),
        "index_of_dispersion": round(cv * cv, 4),
    }


@dataclass(frozen=True)
class TraceEntry:
    """One recorded request: when it arrived and how long its input and output were."""

    offset_s: float
    input_tokens: int
    output_tokens: int
    prompt: str | None = None


def read_trace(path: str | Path) -> list[TraceEntry]:
    """A JSONL trace: one ``{"offset_s": ..., "input_tokens": ..., "output_tokens": ...}`` a line.

    ``offset_s`` is seconds from the trace's start (``timestamp_ms``, milliseconds, is read too: the field of
    published traces such as Mooncake's); ``prompt`` (optional) is sent as it is, else a synthetic prompt of
    ``input_tokens`` words. Entries are replayed in offset order, shifted so the first is due at 0.
    """
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise InferenceConfigError(f"--trace: cannot read {path}: {exc.strerror}") from None
    entries: list[TraceEntry] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            offset = obj["offset_s"] if "offset_s" in obj else obj["timestamp_ms"] / 1000
            entry = TraceEntry(float(offset), int(obj["input_tokens"]), int(obj["output_tokens"]), obj.get("prompt"))
        except (ValueError, KeyError, TypeError, AttributeError):
            entry = None
        if entry is None or entry.offset_s < 0 or entry.input_tokens < 1 or entry.output_tokens < 1:
            raise InferenceConfigError(
                f"--trace: {path} line {number} is not allowed; use a JSON object with offset_s (or timestamp_ms) "
                ">= 0, input_tokens >= 1 and output_tokens >= 1"
            )
        entries.append(entry)
    if not entries:
        raise InferenceConfigError(f"--trace: {path} holds no requests; use one JSON object a line")
    entries.sort(key=lambda e: e.offset_s)
    start = entries[0].offset_s
    return [TraceEntry(e.offset_s - start, e.input_tokens, e.output_tokens, e.prompt) for e in entries]
