"""The load generator: fixed-concurrency sweeps, open-loop arrivals (Poisson, gamma, constant, a trace) and a rate
search, through boto3.

Two engines, one set of results. Above :data:`THREADS_UP_TO` concurrent streams, streaming calls
(``InvokeEndpointWithResponseStream``, ``ConverseStream``) run on the asyncio engine
(:mod:`inference_loadtest.aio`): one thread, boto3 for building, signing and retry decisions,
botocore's event-stream parser for the frames. Up to it (and for every ``InvokeEndpoint`` call) one thread
runs per in-flight request (each one request of :mod:`inference_loadtest.calls`), all sharing one boto3 client
(botocore clients are thread-safe) whose pool holds as many connections as the highest concurrency. Either
way every request goes through boto3's standard configuration (credentials, region, ``endpoint_url`` and the
``AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME`` / ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME`` variables) and botocore's
``standard`` retry conditions, which back off on throttling; retries and throttled requests are counted apart.

Clock: ``time.perf_counter``. A request's times start when its first attempt's signed request goes to the
HTTP layer, so TTFT, inter-token gaps and end-to-end latency measure the service and the network, not the
SDK's request building; the benchmark in ``benchmarks/`` measures what remains of the generator's overhead.
"""

from __future__ import annotations

import itertools
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TextIO

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.arrivals import SCHEDULE_EPSILON_S
from inference_loadtest.calls import Calls, make_client
from inference_loadtest.measure import Record, Take
from inference_loadtest.options import LoadOptions
from inference_loadtest.prompts import Prompt
from inference_loadtest.stats import RequestResult, Slo, holds_slo, level_summary
from inference_loadtest.target import Api, Target

__all__ = [
    "THREADS_UP_TO",
    "UNREACHABLE_ERRORS",
    "LoadOptions",
    "LoadTest",
    "ProgressBar",
    "TargetUnreachable",
    "make_client",
]

UNREACHABLE_ERRORS = frozenset(
    {
        "EndpointConnectionError",
        "ConnectTimeoutError",
        "ConnectionRefusedError",
        "ConnectionResetError",
        "ProxyConnectionError",
        "SSLError",
        "gaierror",
        "NoCredentialsError",
        "PartialCredentialsError",
        "UnauthorizedSSOTokenError",
        "TokenRetrievalError",
    }
)
"""Error kinds that mean the target cannot be reached or signed for at all (after botocore's own retries)."""


class TargetUnreachable(Exception):  # noqa: N818 - the name says what happened
    """The run's first finished request failed to reach the target (network, TLS, credentials): the run stops."""


THREADS_UP_TO = 64
"""``engine="auto"`` runs up to this many concurrent streams on threads, more on the asyncio engine: threads add
less latency at low concurrency (each stream reads in its own thread), asyncio costs about 3x less CPU per token
(``benchmarks/loadtest.py``; docs/benchmarks.md)."""


class LoadTest(Calls):
    """Runs the levels of :class:`LoadOptions` against a :class:`Target` and summarizes each.

    Parameters
    ----------
    target
        What to call (see :func:`~inference_loadtest.target.resolve_target`).
    options
        The load.
    client
        A boto3 ``sagemaker-runtime`` or ``bedrock-runtime`` client matching ``target.api``. Default: built
        by :func:`make_client` from the standard configuration.
    slo
        For goodput and the knee. Default: no SLO (goodput counts successful requests).
    progress
        Called as ``progress(done, total, label)`` after each request. Default: nothing.
    engine
        ``auto``, ``async`` or ``threads``. Default: ``auto``, asyncio above :data:`THREADS_UP_TO` streams.
    s3
        Async endpoints: the S3 client for the inputs and the output polling. Default: the standard chain.
    async_input_s3_uri
        Async endpoints: ``s3://bucket/prefix/`` where each distinct request body is uploaded once before it
        is used. Default: none (an async target then fails with that message).
    async_poll_s
        Async endpoints: seconds between polls of the output and failure locations (the e2e resolution).
        Default: 1 second.
    async_timeout_s
        Async endpoints: seconds after which a missing output counts as ``AsyncOutputTimeout``. Default: 900.
    """

    def __init__(
        self,
        target: Target,
        options: LoadOptions,
        *,
        client: Any | None = None,
        slo: Slo | None = None,
        progress: Callable[[int, int | None, str], None] | None = None,
        engine: str = "auto",
        s3: Any | None = None,
        async_input_s3_uri: str | None = None,
        async_poll_s: float = 1.0,
        async_timeout_s: float = 900.0,
    ) -> None:
        super().__init__(
            target,
            options,
            client=client,
            s3=s3,
            async_input_s3_uri=async_input_s3_uri,
            async_poll_s=async_poll_s,
            async_timeout_s=async_timeout_s,
        )
        self.slo = slo or Slo()
        self._progress = progress
        streaming = target.api in (Api.STREAM, Api.CONVERSE_STREAM)
        if engine not in ("auto", "async", "threads") or (engine == "async" and not streaming):
            raise InferenceConfigError(f"--engine: {engine!r} is not allowed; use auto, threads, or async (streaming)")
        peak = max([*options.concurrency, options.max_in_flight if options.open_loop() else 1])
        auto_async = streaming and peak > THREADS_UP_TO
        self.engine = "async" if engine == "async" or (engine == "auto" and auto_async) else "threads"
        self._engine: Any = None
        self.interrupted = False
        self.unreachable: str | None = None
        """The error kind that stopped the run because no request could reach the target (else None)."""
        self._reached = False
        self.grace_s = 5.0
        self.rate_search: dict[str, Any] | None = None
        """After :meth:`run` with ``find_rate``: the search's rates, what held, and the answer."""
        self.results: list[list[RequestResult]] = []
        """After :meth:`run`: every request of each level, in the order they finished (warm-up included)."""
        self.labels: list[str] = []
        """After :meth:`run`: each level's label (``concurrency 4``, ``rate 2/s``, ``trace``), as ``results``."""

    # ------------------------------------------------------------------------------------------ levels
    def _bounds(self) -> tuple[int | None, float | None]:
        o = self.options
        total = None if o.requests is None else o.requests + o.warmup
        return total, None if o.duration_s is None else time.perf_counter() + o.duration_s

    def _finish(
        self, results: list[RequestResult], index: int, r: RequestResult, label: str, total: int | None
    ) -> None:
        """Label a finished request with what the workload knows of it and keep it."""
        prompt = self.options.prompts[index % len(self.options.prompts)]
        r.index = index
        r.warmup = index < self.options.warmup
        r.input_tokens = prompt.input_tokens
        r.group = prompt.group
        if r.ok:
            self._reached = True
        elif not self._reached and r.error in UNREACHABLE_ERRORS and self.unreachable is None:
            self.unreachable = r.error  # nothing got through: every further request would fail the same way
            self._stop.set()
        results.append(r)
        if self._progress:
            self._progress(len(results), total, label)

    def _record(
        self, results: list[RequestResult], index: int, label: str, total: int | None, scheduled: float | None = None
    ) -> None:
        prompt = self.options.prompts[index % len(self.options.prompts)]
        r = self.invoke(prompt)
        r.scheduled = scheduled
        self._finish(results, index, r, label, total)

    def _async_engine(self) -> Any:
        from inference_loadtest.aio import AsyncEngine

        if self._engine is not None:
            return self._engine  # one per client: it hooks the client's before-send event
        retries = getattr(self.client.meta.config, "retries", None) or {}
        attempts = retries.get("total_max_attempts") or (retries.get("max_attempts", 3) + 1)
        engine = AsyncEngine(self.client, self._operation, self.target.identifier, self.target.format, attempts)
        self._engine = engine
        return engine

    def _taker(self, label: str, results: list[RequestResult]) -> tuple[Take, Record]:
        total, deadline = self._bounds()
        counter = itertools.count()
        prompts = self.options.prompts

        def take() -> tuple[int, Prompt] | None:
            if self._stop.is_set():
                return None
            i = next(counter)
            if (total is not None and i >= total) or (deadline is not None and time.perf_counter() >= deadline):
                return None
            return i, prompts[i % len(prompts)]

        def record(index: int, r: RequestResult) -> None:
            self._finish(results, index, r, label, total)

        return take, record

    def _gaps(self, rate: float | None) -> Iterator[float]:
        """The open-loop level's gaps: the arrival process at ``rate``, or the trace's (``rate`` None)."""
        if rate is not None:
            return self.options.process(rate).gaps(self.options.seed)
        offsets = self.options.trace_offsets_s or ()
        return iter([b - a for a, b in itertools.pairwise(offsets)])  # ends after the last entry

    def _level_async(
        self, concurrency: int | None, rate: float | None, results: list[RequestResult], label: str
    ) -> None:

        from inference_loadtest import aio, timing

        take, record = self._taker(label, results)
        engine = self._async_engine()
        try:
            if concurrency:
                timing.run(aio.run_fixed(engine, concurrency, take, record))
            else:
                gaps = self._gaps(rate)
                timing.run(
                    aio.run_open_loop(
                        engine,
                        lambda: next(gaps, None),
                        take,
                        record,
                        self.options.max_in_flight,
                        duration_s=self._deadline(),
                    )
                )
        finally:
            self.detected_format = engine.detected_format or self.detected_format

    def _deadline(self) -> float | None:
        return None if self.options.duration_s is None else self.options.duration_s

    def _fixed(self, concurrency: int, results: list[RequestResult], label: str) -> None:
        if self.engine == "async":
            self._level_async(concurrency, None, results, label)
            return
        total, deadline = self._bounds()
        counter = itertools.count()

        def worker() -> None:
            while not self._stop.is_set():
                i = next(counter)
                if (total is not None and i >= total) or (deadline is not None and time.perf_counter() >= deadline):
                    return
                self._record(results, i, label, total)

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.1)
        except KeyboardInterrupt:
            self._stop.set()
            self._grace(threads)
            raise

    def _grace(self, threads: Sequence[threading.Thread]) -> None:
        """After Ctrl-C: give requests in flight ``grace_s`` to finish (a second Ctrl-C stops waiting)."""
        deadline = time.perf_counter() + self.grace_s
        for t in threads:
            t.join(max(0.0, deadline - time.perf_counter()))

    def _open_loop(self, rate: float | None, results: list[RequestResult], label: str) -> None:
        """Send request ``i`` at its scheduled time; a request that waits for a free slot keeps its schedule.

        ``rate`` None replays the trace's offsets. The duration bound counts scheduled times: no request is
        scheduled after it.
        """
        if self.engine == "async":
            self._level_async(None, rate, results, label)
            return
        total, _ = self._bounds()
        gaps = self._gaps(rate)
        limit = self._deadline()
        futures: list[Future[None]] = []
        with ThreadPoolExecutor(self.options.max_in_flight) as pool:
            start = at = time.perf_counter()
            for i in itertools.count():
                if self._stop.is_set() or (total is not None and i >= total):
                    break
                if limit is not None and at - start >= limit - SCHEDULE_EPSILON_S:
                    break
                delay = at - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                futures.append(pool.submit(self._record, results, i, label, total, at))
                gap = next(gaps, None)
                if gap is None:
                    break
                at += gap
            for f in futures:
                while not f.done():
                    time.sleep(0.05)

    def run_level(self, concurrency: int | None, rate: float | None) -> dict[str, Any] | None:
        """One level (``concurrency``, else open loop at ``rate``, else the trace); its summary, or None when
        Ctrl-C stopped it before any request finished. Raises :class:`TargetUnreachable` when no request of the
        run so far reached the target."""
        results: list[RequestResult] = []
        self.results.append(results)
        label = f"concurrency {concurrency}" if concurrency else ("trace" if rate is None else f"rate {rate:g}/s")
        self.labels.append(label)
        try:
            if concurrency:
                self._fixed(concurrency, results, label)
            else:
                self._open_loop(rate, results, label)
        except KeyboardInterrupt:
            self._stop.set()
            self.interrupted = True
        if self.unreachable is not None:
            url = getattr(self.client.meta, "endpoint_url", None)
            raise TargetUnreachable(
                f"cannot reach {self.target.identifier} ({self._operation} at {url}): {self.unreachable}, and no "
                "request got through; check the network, the region, the credentials and --endpoint-url"
            )
        snapshot = list(results)  # requests still in flight after the grace period are left out
        if not snapshot and self.interrupted:
            return None
        summary = level_summary(
            snapshot,
            concurrency=concurrency,
            rate_rps=rate,
            slo=self.slo,
            pricing=self.target.pricing,
            interrupted=self.interrupted,
        )
        if concurrency is None:
            summary["arrival_process"] = (
                {"process": "trace", "requests": len(self.options.trace_offsets_s or ())}
                if rate is None
                else self.options.process(rate).to_dict()
            )
        if rate is None and concurrency is None:
            summary["trace"] = True
        return summary

    def run(self) -> list[dict[str, Any]]:
        """Every level in order, then the rate search; on Ctrl-C stop starting requests and return what was
        measured so far."""
        levels: list[dict[str, Any]] = []
        self.results = []
        self.labels = []
        self.rate_search = None
        for concurrency, rate in self.options.levels():
            summary = self.run_level(concurrency, rate)
            if summary is not None:
                levels.append(summary)
            if self.interrupted:
                return levels
        if self.options.find_rate:
            self.rate_search = self._find_rate(levels)
        return levels

    def _find_rate(self, levels: list[dict[str, Any]]) -> dict[str, Any]:
        """The highest open-loop rate whose p90 TTFT and ITL hold the SLO, between ``find_rate``'s bounds.

        The low rate first (if it breaks, nothing does better), then the high one (if it holds, the answer is
        at least that), then the geometric middle of the last rate that held and the first that broke, until
        ``find_rate_steps`` levels ran. The answer is known to the ratio ``breaks / holds``.
        """
        assert self.options.find_rate is not None
        if self.slo.ttft_ms is None and self.slo.itl_ms is None:
            raise InferenceConfigError("--find-rate: needs an SLO; use --slo-ttft-ms and/or --slo-itl-ms")
        low, high = self.options.find_rate
        holds: float | None = None
        breaks: float | None = None
        tested: list[dict[str, Any]] = []
        rate: float | None = low
        for _ in range(self.options.find_rate_steps):
            assert rate is not None
            summary = self.run_level(None, round(rate, 4))
            if summary is None:
                break
            summary["rate_search"] = True
            levels.append(summary)
            ok = holds_slo(summary, self.slo)
            tested.append({"rate_rps": summary["rate_rps"], "holds": ok})
            if ok:
                holds = summary["rate_rps"]
            else:
                breaks = summary["rate_rps"]
            if self.interrupted or breaks == low or holds == high:
                break
            rate = high if breaks is None else math.sqrt((holds or low) * breaks) if holds else None
            if rate is None:
                break
        out: dict[str, Any] = {
            "low_rps": low,
            "high_rps": high,
            "tested": tested,
            "highest_rate_holding_rps": holds,
            "lowest_rate_breaking_rps": breaks,
            "resolution": None if holds is None or breaks is None else round(breaks / holds, 4),
        }
        if holds is None:
            out["message"] = f"p90 breaks the SLO already at {low:g} requests/s"
        elif breaks is None:
            out["message"] = f"p90 holds the SLO up to {holds:g} requests/s, the highest tested; raise HIGH"
        else:
            out["message"] = (
                f"p90 holds the SLO up to {holds:g} requests/s and breaks at {breaks:g} "
                f"(known to x{breaks / holds:.3g})"
            )
        return out


class ProgressBar:
    """A one-line progress bar on a terminal stream (stderr by default), redrawn at most 10 times a second."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self._lock = threading.Lock()
        self._drawn = 0.0

    def __call__(self, done: int, total: int | None, label: str) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._drawn < 0.1 and done != total:
                return
            self._drawn = now
            if total:
                filled = min(self.width, self.width * done // total)
                bar = "#" * filled + "-" * (self.width - filled)
                self.stream.write(f"\r{label:<18} [{bar}] {done}/{total}")
            else:
                self.stream.write(f"\r{label:<18} {done} requests")
            if done == total:
                self.stream.write("\n")
            self.stream.flush()
