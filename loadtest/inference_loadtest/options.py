"""How much load a test puts on its target, for how long: :class:`LoadOptions`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
        Open-loop levels: Poisson arrivals at these mean rates (requests/s), after the concurrency levels.
        Default: none.
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

    def levels(self) -> list[tuple[int | None, float | None]]:
        return [(c, None) for c in self.concurrency] + [(None, r) for r in self.rates_rps]

    def estimated_requests(self) -> int | None:
        """Requests the run sends at most, warm-up included; None when only a duration bounds it."""
        if self.requests is None:
            return None
        return len(self.levels()) * (self.requests + self.warmup)
