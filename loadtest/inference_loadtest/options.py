"""How much load a test puts on its target, for how long: :class:`LoadOptions`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.arrivals import Arrivals
from inference_loadtest.prompts import Prompt


@dataclass(frozen=True)
class LoadOptions:
    """How much load, for how long.

    Parameters
    ----------
    prompts
        The requests, used in order and cycled.
    concurrency
        Fixed-concurrency levels, run in this order. Default: none.
    rates_rps
        Open-loop levels: arrivals of ``arrivals`` at these mean rates (requests/s), after the concurrency
        levels. Default: none.
    requests
        Measured requests per level (plus ``warmup``). Default: no count bound (``duration_s`` must be set).
    duration_s
        Seconds per level after which no new request starts. Default: no time bound.
    warmup
        Requests per level excluded from the statistics (the first ones started). Default: 0.
    max_in_flight
        Open loop: requests in flight at most (arrivals beyond wait for a free slot). Default: 256.
    seed
        Seed of the arrival process. Default: 0 (repeatable runs).
    payload
        ``InvokeEndpoint`` / async only: this body for every request instead of the LLM request JSON (a CSV
        row for a scikit-learn or XGBoost model, say). Default: the LLM request built from each prompt.
    content_type
        The request's ``ContentType`` with ``payload``. Default: ``application/json``.
    arrivals
        The open-loop process: ``poisson``, ``gamma`` or ``constant`` (:mod:`inference_loadtest.arrivals`).
        Default: ``poisson``.
    burstiness
        ``gamma``: the shape (coefficient of variation ``1 / sqrt(burstiness)``). Default: 1.
    trace_offsets_s
        Trace replay: one open-loop level sending ``prompts[i]`` at ``trace_offsets_s[i]`` seconds (after the
        other levels). Default: none.
    find_rate
        (low, high) requests/s: after the other levels, search for the highest open-loop rate whose p90 TTFT and
        ITL (from the scheduled send time) hold the SLO, in ``find_rate_steps`` levels: low, high, then the
        geometric middle of the last rate that held and the first that broke. Default: no search.
    find_rate_steps
        Levels the search runs at most. Default: 6.
    """

    prompts: Sequence[Prompt]
    concurrency: tuple[int, ...] = ()
    rates_rps: tuple[float, ...] = ()
    requests: int | None = None
    duration_s: float | None = None
    warmup: int = 0
    max_in_flight: int = 256
    seed: int = 0
    payload: bytes | None = None
    content_type: str = "application/json"
    arrivals: str = "poisson"
    burstiness: float = 1.0
    trace_offsets_s: tuple[float, ...] | None = None
    find_rate: tuple[float, float] | None = None
    find_rate_steps: int = 6

    def __post_init__(self) -> None:
        Arrivals(1.0, self.arrivals, self.burstiness)  # refuses an unknown process or a bad burstiness
        if self.find_rate is not None:
            low, high = self.find_rate
            if not 0 < low < high:
                raise InferenceConfigError(
                    f"--find-rate: {low:g}:{high:g} is not allowed; use LOW:HIGH requests/s with 0 < LOW < HIGH"
                )
            if self.find_rate_steps < 2:
                raise InferenceConfigError("--find-rate-steps: must be at least 2 (the low and the high rate)")
        if self.trace_offsets_s is not None and len(self.trace_offsets_s) != len(self.prompts):
            raise InferenceConfigError("trace: one prompt per trace offset")

    def process(self, rate_rps: float) -> Arrivals:
        """The open-loop arrival process at ``rate_rps``."""
        return Arrivals(rate_rps, self.arrivals, self.burstiness)

    def levels(self) -> list[tuple[int | None, float | None]]:
        """The fixed levels in order: (concurrency, None), (None, rate); (None, None) is the trace replay."""
        trace: list[tuple[int | None, float | None]] = [(None, None)] if self.trace_offsets_s is not None else []
        return [(c, None) for c in self.concurrency] + [(None, r) for r in self.rates_rps] + trace

    def open_loop(self) -> bool:
        return bool(self.rates_rps or self.trace_offsets_s is not None or self.find_rate)

    def level_count(self) -> int:
        """Levels the run has at most (the rate search's included)."""
        return len(self.levels()) + (self.find_rate_steps if self.find_rate else 0)

    def estimated_requests(self) -> int | None:
        """Requests the run sends at most, warm-up included; None when only a duration bounds it."""
        if self.requests is None:
            return None
        per_level = self.requests + self.warmup
        trace = 0
        if self.trace_offsets_s is not None:
            trace = min(per_level, len(self.trace_offsets_s))
        return (self.level_count() - (self.trace_offsets_s is not None)) * per_level + trace

    def to_dict(self) -> dict[str, Any]:
        """The options as saved with the results (the prompts as their count)."""
        return {
            "prompts": len(self.prompts),
            "concurrency": list(self.concurrency),
            "rates_rps": list(self.rates_rps),
            "requests": self.requests,
            "duration_s": self.duration_s,
            "warmup": self.warmup,
            "max_in_flight": self.max_in_flight,
            "seed": self.seed,
            "payload_bytes": None if self.payload is None else len(self.payload),
            "content_type": self.content_type,
            "arrivals": self.arrivals,
            "burstiness": self.burstiness,
            "trace_requests": None if self.trace_offsets_s is None else len(self.trace_offsets_s),
            "find_rate": None if self.find_rate is None else list(self.find_rate),
            "find_rate_steps": self.find_rate_steps,
        }
