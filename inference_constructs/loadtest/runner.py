"""The load generator: fixed-concurrency sweeps and open-loop Poisson arrivals through boto3.

Two engines, one set of results. Above :data:`THREADS_UP_TO` concurrent streams, streaming calls
(``InvokeEndpointWithResponseStream``, ``ConverseStream``) run on the asyncio engine
(:mod:`inference_constructs.loadtest.aio`): one thread, boto3 for building, signing and retry decisions,
botocore's event-stream parser for the frames. Up to it (and for every ``InvokeEndpoint`` call) one thread
runs per in-flight request, all sharing one boto3 client
(botocore clients are thread-safe) whose pool holds as many connections as the highest concurrency. Either
way every request goes through boto3's standard configuration (credentials, region, ``endpoint_url`` and the
``AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME`` / ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME`` variables) and botocore's
``standard`` retry conditions, which back off on throttling; retries and throttled requests are counted apart.

Clock: ``time.perf_counter``. A request's times start when its first attempt's signed request goes to the
HTTP layer, so TTFT, inter-token gaps and end-to-end latency measure the service and the network, not the
SDK's request building; the benchmark in ``benchmarks/`` measures what remains of the generator's overhead.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

from inference_constructs.errors import InferenceConfigError
from inference_constructs.loadtest.formats import (
    LineStreamDecoder,
    Observation,
    StreamFormat,
    bedrock_observation,
    request_body,
    response_output_tokens,
)
from inference_constructs.loadtest.prompts import Prompt
from inference_constructs.loadtest.stats import RequestResult, Slo, level_summary
from inference_constructs.loadtest.target import Api, Target

THREADS_UP_TO = 64
"""``engine="auto"`` runs up to this many concurrent streams on threads, more on the asyncio engine: threads add
less latency at low concurrency (each stream reads in its own thread), asyncio costs about 3x less CPU per token
(``benchmarks/loadtest.py``; docs/benchmarks.md)."""

_THROTTLE_CODES = frozenset({"ThrottlingException", "Throttling", "ThrottledException", "TooManyRequestsException"})


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


def make_client(
    service: str,
    *,
    pool: int,
    max_attempts: int = 4,
    read_timeout_s: float = 120.0,
    region: str | None = None,
    endpoint_url: str | None = None,
    aws_profile: str | None = None,
) -> Any:
    """A boto3 client from the standard configuration chain, sized for ``pool`` concurrent requests.

    Parameters
    ----------
    service
        ``sagemaker-runtime``, ``bedrock-runtime``, ``sagemaker``, ``bedrock`` or ``s3``.
    pool
        Connections kept (at least 10).
    max_attempts
        Attempts per request in botocore's ``standard`` retry mode. Default: 4 (3 retries with backoff).
    read_timeout_s
        Default: 120 seconds between bytes of a response.
    region, endpoint_url, aws_profile
        Default: what the environment and the shared config say (``AWS_REGION``, ``AWS_ENDPOINT_URL_*``,
        ``AWS_PROFILE``), as for any boto3 client.
    """
    import boto3
    from botocore.config import Config

    session = boto3.session.Session(profile_name=aws_profile, region_name=region)
    config = Config(
        max_pool_connections=max(pool, 10),
        retries={"mode": "standard", "total_max_attempts": max_attempts},
        read_timeout=read_timeout_s,
        connect_timeout=10,
        tcp_keepalive=True,
    )
    make: Any = session.client  # the service name is a runtime value, not one of the stubs' literals
    return make(service, endpoint_url=endpoint_url, config=config)


@dataclass
class _Stream:
    """Arrival times of content events and the server's count, while a response streams."""

    start: float
    first: float | None = None
    last: float | None = None
    itls: list[float] = field(default_factory=list)
    events: int = 0
    server_tokens: int | None = None
    error: str | None = None

    def observe(self, obs: Observation, now: float) -> None:
        if obs.content_events:
            if self.last is None:
                self.first = now
            else:
                self.itls.append(now - self.last)
            self.itls.extend([0.0] * (obs.content_events - 1))  # arrived together in one event
            self.last = now
            self.events += obs.content_events
        if obs.server_output_tokens is not None:
            self.server_tokens = obs.server_output_tokens
        self.error = self.error or obs.error

    def result(self, end: float, retries: int) -> RequestResult:
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
        )


class LoadTest:
    """Runs the levels of :class:`LoadOptions` against a :class:`Target` and summarizes each.

    Parameters
    ----------
    target
        What to call (see :func:`~inference_constructs.loadtest.target.resolve_target`).
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
        if target.api is Api.ASYNC and not async_input_s3_uri:
            raise InferenceConfigError("--async-input: required for an async endpoint; use s3://bucket/prefix/")
        self.target = target
        self.async_input_s3_uri = async_input_s3_uri
        self.async_poll_s = async_poll_s
        self.async_timeout_s = async_timeout_s
        self._uploaded: set[str] = set()
        self._uploads_lock = threading.Lock()
        self._s3 = s3
        self.options = options
        self.slo = slo or Slo()
        service = "bedrock-runtime" if target.api is Api.CONVERSE_STREAM else "sagemaker-runtime"
        pool = max([*options.concurrency, options.max_in_flight if options.rates_rps else 1])
        self.client = client or make_client(service, pool=pool)
        self._progress = progress
        self._local = threading.local()
        self._stop = threading.Event()
        operation = {
            Api.STREAM: "InvokeEndpointWithResponseStream",
            Api.INVOKE: "InvokeEndpoint",
            Api.CONVERSE_STREAM: "ConverseStream",
            Api.ASYNC: "InvokeEndpointAsync",
        }[target.api]
        self.client.meta.events.register(f"before-send.*.{operation}", self._before_send)
        streaming = target.api in (Api.STREAM, Api.CONVERSE_STREAM)
        if engine not in ("auto", "async", "threads") or (engine == "async" and not streaming):
            raise InferenceConfigError(f"--engine: {engine!r} is not allowed; use auto, threads, or async (streaming)")
        peak = max([*options.concurrency, options.max_in_flight if options.rates_rps else 1])
        auto_async = streaming and peak > THREADS_UP_TO
        self.engine = "async" if engine == "async" or (engine == "auto" and auto_async) else "threads"
        self._operation = operation
        self._engine: Any = None
        self.interrupted = False
        self.grace_s = 5.0
        self.detected_format: StreamFormat | None = None
        self.results: list[list[RequestResult]] = []
        """After :meth:`run`: every request of each level, in the order they finished (warm-up included)."""

    @property
    def s3(self) -> Any:
        """The S3 client of async endpoints (input upload, output polling). Default: the standard chain."""
        if self._s3 is None:
            self._s3 = make_client("s3", pool=max([*self.options.concurrency, 10]))
        return self._s3

    # ------------------------------------------------------------------------------------------ timing
    def _before_send(self, **_: Any) -> None:
        if getattr(self._local, "sent", None) is None:
            self._local.sent = time.perf_counter()

    def _sent(self, fallback: float) -> float:
        sent: float | None = getattr(self._local, "sent", None)
        return sent if sent is not None else fallback

    # ------------------------------------------------------------------------------------------ one request
    def invoke(self, prompt: Prompt) -> RequestResult:
        """Send one request and measure it; never raises for a service or network error."""
        from botocore.exceptions import ClientError

        self._local.sent = None
        called = time.perf_counter()
        try:
            if self.target.api is Api.CONVERSE_STREAM:
                return self._converse(prompt, called)
            if self.target.api is Api.STREAM:
                return self._stream(prompt, called)
            if self.target.api is Api.ASYNC:
                return self._invoke_async(prompt, called)
            return self._invoke(prompt, called)
        except ClientError as exc:
            end = time.perf_counter()
            code = str(exc.response.get("Error", {}).get("Code") or "ClientError")
            retries = int(exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0))
            start = self._sent(called)
            return RequestResult(
                ok=False,
                e2e_s=end - start,
                error=code,
                throttled=code in _THROTTLE_CODES,
                retries=retries,
                started=start,
                ended=end,
            )
        except Exception as exc:  # network, botocore and urllib3 errors (a stream cut mid-way): a failed request
            end = time.perf_counter()
            start = self._sent(called)
            return RequestResult(ok=False, e2e_s=end - start, error=type(exc).__name__, started=start, ended=end)

    def _stream(self, prompt: Prompt, called: float) -> RequestResult:
        body = request_body(self.target.format, prompt.text, prompt.max_tokens)
        resp = self.client.invoke_endpoint_with_response_stream(
            EndpointName=self.target.identifier, Body=body, ContentType="application/json"
        )
        state = _Stream(start=self._sent(called))
        decoder = LineStreamDecoder(self.target.format)
        events = resp["Body"]
        for event in events:
            part = event.get("PayloadPart")
            if part is None:
                continue
            state.observe(decoder.feed(part["Bytes"]), time.perf_counter())
            if state.error:
                events.close()
                break
        else:
            state.observe(decoder.close(), time.perf_counter())
        self.detected_format = decoder.format
        return self._with_id(
            state.result(time.perf_counter(), int(resp["ResponseMetadata"].get("RetryAttempts", 0))), resp
        )

    @staticmethod
    def _with_id(result: RequestResult, resp: dict[str, Any]) -> RequestResult:
        result.request_id = resp["ResponseMetadata"].get("RequestId")
        return result

    def _converse(self, prompt: Prompt, called: float) -> RequestResult:
        resp = self.client.converse_stream(
            modelId=self.target.identifier,
            messages=[{"role": "user", "content": [{"text": prompt.text}]}],
            inferenceConfig={"maxTokens": prompt.max_tokens},
        )
        state = _Stream(start=self._sent(called))
        for event in resp["stream"]:
            state.observe(bedrock_observation(event), time.perf_counter())
        return self._with_id(
            state.result(time.perf_counter(), int(resp["ResponseMetadata"].get("RetryAttempts", 0))), resp
        )

    def _plain_body(self, prompt: Prompt) -> bytes:
        """The body of a non-streaming request: ``options.payload`` as given, else the LLM request JSON."""
        if self.options.payload is not None:
            return self.options.payload
        return request_body(self.target.format, prompt.text, prompt.max_tokens, stream=False)

    def _invoke(self, prompt: Prompt, called: float) -> RequestResult:
        resp = self.client.invoke_endpoint(
            EndpointName=self.target.identifier, Body=self._plain_body(prompt), ContentType=self.options.content_type
        )
        payload = resp["Body"].read()
        end = time.perf_counter()
        start = self._sent(called)
        count = response_output_tokens(payload)
        return RequestResult(
            ok=True,
            e2e_s=end - start,
            ttft_s=end - start,  # without streaming the first token arrives with the whole response
            output_tokens=count or 0,
            output_tokens_from_server=count is not None,
            retries=int(resp["ResponseMetadata"].get("RetryAttempts", 0)),
            started=start,
            ended=end,
        )

    def _input_location(self, prompt: Prompt) -> str:
        """The S3 object holding ``prompt``'s request body, uploaded once per distinct prompt."""
        assert self.async_input_s3_uri is not None  # checked in __init__
        body = self._plain_body(prompt)
        bucket, _, prefix = self.async_input_s3_uri.removeprefix("s3://").partition("/")
        key = f"{prefix.rstrip('/')}/{hashlib.sha256(body).hexdigest()[:16]}.json".lstrip("/")
        with self._uploads_lock:
            if key not in self._uploaded:
                self.s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType=self.options.content_type)
                self._uploaded.add(key)
        return f"s3://{bucket}/{key}"

    def _invoke_async(self, prompt: Prompt, called: float) -> RequestResult:
        """InvokeEndpointAsync, then poll the output (or failure) location: e2e is known to the poll interval."""
        from botocore.exceptions import ClientError

        location = self._input_location(prompt)
        self._local.sent = None
        resp = self.client.invoke_endpoint_async(
            EndpointName=self.target.identifier, InputLocation=location, ContentType=self.options.content_type
        )
        start = self._sent(called)
        deadline = start + self.async_timeout_s
        targets = [("output", resp["OutputLocation"]), ("failure", resp.get("FailureLocation"))]
        while time.perf_counter() < deadline and not self._stop.is_set():
            for kind, uri in targets:
                if not uri:
                    continue
                bucket, _, key = uri.removeprefix("s3://").partition("/")
                try:
                    obj = self.s3.get_object(Bucket=bucket, Key=key)
                except ClientError as exc:
                    if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                        continue
                    raise
                end = time.perf_counter()
                count = response_output_tokens(obj["Body"].read()) if kind == "output" else None
                return RequestResult(
                    ok=kind == "output",
                    e2e_s=end - start,
                    ttft_s=end - start,
                    output_tokens=count or 0,
                    output_tokens_from_server=count is not None,
                    error=None if kind == "output" else "AsyncInferenceFailure",
                    started=start,
                    ended=end,
                )
            time.sleep(self.async_poll_s)
        end = time.perf_counter()
        return RequestResult(ok=False, e2e_s=end - start, error="AsyncOutputTimeout", started=start, ended=end)

    # ------------------------------------------------------------------------------------------ levels
    def _bounds(self) -> tuple[int | None, float | None]:
        o = self.options
        total = None if o.requests is None else o.requests + o.warmup
        return total, None if o.duration_s is None else time.perf_counter() + o.duration_s

    def _record(self, results: list[RequestResult], index: int, label: str, total: int | None) -> None:
        prompt = self.options.prompts[index % len(self.options.prompts)]
        r = self.invoke(prompt)
        r.warmup = index < self.options.warmup
        results.append(r)
        if self._progress:
            self._progress(len(results), total, label)

    def _async_engine(self) -> Any:
        from inference_constructs.loadtest.aio import AsyncEngine

        if self._engine is not None:
            return self._engine  # one per client: it hooks the client's before-send event
        retries = getattr(self.client.meta.config, "retries", None) or {}
        attempts = retries.get("total_max_attempts") or (retries.get("max_attempts", 3) + 1)
        engine = AsyncEngine(self.client, self._operation, self.target.identifier, self.target.format, attempts)
        self._engine = engine
        return engine

    def _taker(self, label: str, results: list[RequestResult]) -> tuple[Any, Any]:
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
            r.warmup = index < self.options.warmup
            results.append(r)
            if self._progress:
                self._progress(len(results), total, label)

        return take, record

    def _level_async(
        self, concurrency: int | None, rate: float | None, results: list[RequestResult], label: str
    ) -> None:

        from inference_constructs.loadtest import aio, timing

        take, record = self._taker(label, results)
        engine = self._async_engine()
        try:
            if concurrency:
                timing.run(aio.run_fixed(engine, concurrency, take, record))
            else:
                assert rate is not None
                rng = random.Random(self.options.seed)
                timing.run(
                    aio.run_open_loop(engine, lambda: rng.expovariate(rate), take, record, self.options.max_in_flight)
                )
        finally:
            self.detected_format = engine.detected_format or self.detected_format

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

    def _open_loop(self, rate: float, results: list[RequestResult], label: str) -> None:
        if self.engine == "async":
            self._level_async(None, rate, results, label)
            return
        total, deadline = self._bounds()
        rng = random.Random(self.options.seed)
        futures: list[Future[None]] = []
        with ThreadPoolExecutor(self.options.max_in_flight) as pool:
            at = time.perf_counter()
            for i in itertools.count():
                if self._stop.is_set() or (total is not None and i >= total):
                    break
                if deadline is not None and at >= deadline:
                    break
                delay = at - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                futures.append(pool.submit(self._record, results, i, label, total))
                at += rng.expovariate(rate)
            for f in futures:
                while not f.done():
                    time.sleep(0.05)

    def run(self) -> list[dict[str, Any]]:
        """Every level in order; on Ctrl-C stop starting requests and return what was measured so far."""
        levels: list[dict[str, Any]] = []
        self.results = []
        for concurrency, rate in self.options.levels():
            results: list[RequestResult] = []
            self.results.append(results)
            label = f"concurrency {concurrency}" if concurrency else f"rate {rate:g}/s"
            try:
                if concurrency:
                    self._fixed(concurrency, results, label)
                else:
                    assert rate is not None
                    self._open_loop(rate, results, label)
            except KeyboardInterrupt:
                self._stop.set()
                self.interrupted = True
            snapshot = list(results)  # requests still in flight after the grace period are left out
            if snapshot or not self.interrupted:
                levels.append(
                    level_summary(
                        snapshot,
                        concurrency=concurrency,
                        rate_rps=rate,
                        slo=self.slo,
                        pricing=self.target.pricing,
                        interrupted=self.interrupted,
                    )
                )
            if self.interrupted:
                break
        return levels


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
