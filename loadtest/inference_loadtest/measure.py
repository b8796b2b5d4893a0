"""What both engines share to measure a level: a streaming response's arrival times (:class:`StreamTimes`), and
the two callables a level hands an engine, :data:`Take` (the next request, or None to stop) and :data:`Record`
(a finished request's result).

The threaded calls (:mod:`inference_loadtest.calls`) and the asyncio engine (:mod:`inference_loadtest.aio`) both
import it; neither imports the other's module for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from inference_loadtest.formats import Observation
from inference_loadtest.prompts import Prompt
from inference_loadtest.stats import RequestResult

Take = Callable[[], tuple[int, Prompt] | None]
"""The next request of a level as (index, prompt), or None when the level's bound is reached or it was stopped."""

Record = Callable[[int, RequestResult], None]
"""Called with a request's index and its result when it finished."""


@dataclass
class StreamTimes:
    """Arrival times of content events and the server's count, while a response streams."""

    start: float
    first: float | None = None
    last: float | None = None
    itls: list[float] = field(default_factory=list)
    events: int = 0
    server_tokens: int | None = None
    error: str | None = None
    text: list[str] = field(default_factory=list)

    def observe(self, obs: Observation, now: float) -> None:
        """Count what one decoded piece of the stream carried, arrived at ``now``."""
        if obs.content_events:
            if self.last is None:
                self.first = now
            else:
                self.itls.append(now - self.last)
            self.itls.extend([0.0] * (obs.content_events - 1))  # arrived together in one event
            self.last = now
            self.events += obs.content_events
        if obs.text:
            self.text.append(obs.text)
        if obs.server_output_tokens is not None:
            self.server_tokens = obs.server_output_tokens
        self.error = self.error or obs.error

    def result(self, end: float, retries: int) -> RequestResult:
        """The request's result, the stream having ended at ``end``."""
        tokens = self.server_tokens if self.server_tokens is not None else self.events
        return RequestResult(
            ok=self.error is None and self.first is not None,
            e2e_s=end - self.start,
            ttft_s=None if self.first is None else self.first - self.start,
            itls_s=self.itls,
            output_tokens=tokens,
            output_tokens_from_server=self.server_tokens is not None,
            error=self.error or (None if self.first is not None else "no output in the stream"),
            retries=retries,
            started=self.start,
            ended=end,
            text="".join(self.text),
        )
