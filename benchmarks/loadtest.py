"""The load generator's own overhead: ``python -m benchmarks.loadtest [--runs K] [--engine E] [--output-tokens L]``,
and in an open loop, ``python -m benchmarks.loadtest --rates 25,50,100 [--duration S]`` (:func:`rate_run`).

Against the local wire-protocol server in its own process (50 ms to the first token, 40 ms between tokens,
LMI JSON lines over SageMaker event stream frames), one fixed-concurrency level of ``--streams`` concurrent
streams runs ``--requests`` measured requests after a warm-up of one request per stream, in two variants of
output length (``--output-tokens``): 64 tokens on average with a standard deviation of 16 (streams drift
apart as real ones do, so first tokens are due at different instants), then exactly 64 (the streams stay
in step: every first token of a wave is due at the same instant, the harder case). Per run it reports:

- TTFT overhead: the client's p50 time to first token minus the injected 50 ms (target: < 1 ms), and where
  it goes (medians over the streams, from the server's record of each first frame, :func:`ttft_split`): the
  request's way to the server, the server's lateness against the deadline, the client's stamp after the write;
- streamed output tokens/s over the level (target: >= 5,000 at 256 streams);
- client and server CPU microseconds per token (process CPU time, independent of what else the machine runs);
- the machine's 1-minute load average at the start (on a shared machine it explains most of the spread).

It prints each run and the median, min and max over runs. Nothing is asserted: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from inference_loadtest.prompts import Lengths, synthetic_prompts
from inference_loadtest.runner import LoadOptions, LoadTest, make_client
from inference_loadtest.server import Behaviour, FirstFrame, ServerProcess
from inference_loadtest.stats import RequestResult
from inference_loadtest.target import resolve_target

TTFT_MS = 50.0
ITL_MS = 40.0
TOKENS = 64
SPREAD = Lengths(TOKENS, 16)
"""Output lengths of the default variant: 64 tokens on average, standard deviation 16 (so streams that start
together finish apart, as with real traffic, and first tokens are due at different instants)."""
HERD = Lengths(TOKENS)
"""Every response exactly 64 tokens: 256 streams that start together stay in step, so every first token
(and every later token) of a wave is due at the same instant: the harder variant."""


def _spec(lengths: Lengths) -> str:
    return f"{lengths.mean}:{lengths.stddev}" if lengths.stddev else str(lengths.mean)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def one_run(
    *,
    streams: int,
    requests: int,
    engine: str,
    output_tokens: Lengths = SPREAD,
    ttft_ms: float = TTFT_MS,
    itl_ms: float = ITL_MS,
) -> dict[str, Any]:
    """One measured level; returns the figures of one table row."""
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "benchmark")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "benchmark")
    load = os.getloadavg()[0]
    server_cpu = _children_cpu()
    with ServerProcess(Behaviour(ttft_ms=ttft_ms, itl_ms=itl_ms, output_tokens=TOKENS, format="lmi")) as server:
        client = make_client("sagemaker-runtime", pool=streams, region="us-east-1", endpoint_url=server.url)
        count = max(64, requests + streams)  # one length drawn per request
        prompts = synthetic_prompts(count, input_tokens=Lengths(32), output_tokens=output_tokens)
        options = LoadOptions(prompts=prompts, concurrency=(streams,), requests=requests, warmup=streams)
        test = LoadTest(resolve_target(endpoint="bench", profile=None), options, client=client, engine=engine)
        cpu = time.process_time()
        [level] = test.run()
        cpu = time.process_time() - cpu
        split = ttft_split(test.results[0], server.first_frames())
    server_cpu = _children_cpu() - server_cpu
    tokens = max(1, sum(r.output_tokens for r in test.results[0]))
    return {
        "engine": test.engine,
        "lengths": _spec(output_tokens),
        "streams": streams,
        "requests": level["requests"],
        "errors": level["errors"],
        "ttft_overhead_ms": round(level["ttft_ms"]["p50"] - ttft_ms, 2),
        **split,
        "itl_p50_ms": level["itl_ms"]["p50"],
        "tokens_per_s": level["output_tokens_per_s"],
        "client_cpu_us_per_token": round(cpu / tokens * 1e6, 1),
        "server_cpu_us_per_token": round(server_cpu / tokens * 1e6, 1),
        "load_avg_1m": round(load, 1),
    }


OPEN_TOKENS = 16
"""Output tokens per request of the open-loop variant (short responses: the rate, not the stream length, loads
the generator)."""


def rate_run(
    *, rate_rps: float, duration_s: float, engine: str, ttft_ms: float = TTFT_MS, itl_ms: float = 20.0
) -> dict[str, Any]:
    """One open-loop level at ``rate_rps`` constant arrivals for ``duration_s``; the generator's lag and overhead.

    ``sent_rps``: the rate the requests actually went out at; ``lag_*_ms``: send - scheduled; overhead: the
    client's p50 TTFT (from the scheduled time, and from the send) minus the injected TTFT. The generator
    sustains a rate when ``sent_rps`` is within 2% of it and the lag's p50 stays at a few milliseconds.
    """
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "benchmark")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "benchmark")
    load = os.getloadavg()[0]
    with ServerProcess(Behaviour(ttft_ms=ttft_ms, itl_ms=itl_ms, output_tokens=OPEN_TOKENS, format="lmi")) as server:
        client = make_client("sagemaker-runtime", pool=1024, region="us-east-1", endpoint_url=server.url)
        prompts = synthetic_prompts(256, input_tokens=Lengths(32), output_tokens=Lengths(OPEN_TOKENS))
        options = LoadOptions(
            prompts=prompts, rates_rps=(rate_rps,), arrivals="constant", duration_s=duration_s, max_in_flight=1024
        )
        test = LoadTest(resolve_target(endpoint="bench", profile=None), options, client=client, engine=engine)
        cpu = time.process_time()
        [level] = test.run()
        cpu = time.process_time() - cpu
    return {
        "engine": test.engine,
        "rate_rps": rate_rps,
        "requests": level["requests"],
        "errors": level["errors"],
        "sent_rps": level["arrivals"]["sent"]["rate_rps"],
        "lag_p50_ms": level["schedule_lag_ms"]["p50"],
        "lag_p99_ms": level["schedule_lag_ms"]["p99"],
        "overhead_from_schedule_ms": round(level["ttft_ms"]["p50"] - ttft_ms, 2),
        "overhead_from_send_ms": round(level["ttft_from_send_ms"]["p50"] - ttft_ms, 2),
        "client_cpu_per_s": round(cpu / duration_s, 3),
        "load_avg_1m": round(load, 1),
    }


_RATE_KEYS = (
    "sent_rps",
    "lag_p50_ms",
    "lag_p99_ms",
    "overhead_from_schedule_ms",
    "overhead_from_send_ms",
    "client_cpu_per_s",
)


def ttft_split(results: Sequence[RequestResult], frames: Sequence[FirstFrame]) -> dict[str, float]:
    """Medians over the measured streams of where TTFT overhead goes, in ms (both processes stamp on
    ``CLOCK_MONOTONIC``, so their times compare directly):

    - ``request_ms``: client send -> the request's last byte reaching the server (the injected TTFT starts here);
    - ``server_late_ms``: server first-frame write -> when it was due (``arrived`` + injected TTFT);
    - ``client_late_ms``: server write -> the client's first-token stamp.

    Their sum per stream is that stream's client TTFT minus the injected TTFT.
    """
    by_id = {f.request_id: f for f in frames}
    request, server, client = [], [], []
    for r in results:
        f = by_id.get(r.request_id or "")
        if r.warmup or r.ttft_s is None or f is None:
            continue
        request.append((f.arrived - r.started) * 1000)
        server.append((f.written - f.due) * 1000)
        client.append((r.started + r.ttft_s - f.written) * 1000)
    if not request:
        return {"request_ms": math.nan, "server_late_ms": math.nan, "client_late_ms": math.nan}
    return {
        "request_ms": round(statistics.median(request), 2),
        "server_late_ms": round(statistics.median(server), 2),
        "client_late_ms": round(statistics.median(client), 2),
    }


_HEADINGS = (
    "TTFT over ms",
    "request ms",
    "server ms",
    "client ms",
    "ITL p50 ms",
    "tok/s",
    "client us/t",
    "server us/t",
)
_KEYS = (
    "ttft_overhead_ms",
    "request_ms",
    "server_late_ms",
    "client_late_ms",
    "itl_p50_ms",
    "tokens_per_s",
    "client_cpu_us_per_token",
    "server_cpu_us_per_token",
)


def summarize(runs: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Median, min and max of each figure over runs."""
    return {
        key: {
            "median": round(statistics.median(r[key] for r in runs), 2),
            "min": min(r[key] for r in runs),
            "max": max(r[key] for r in runs),
        }
        for key in _KEYS
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.loadtest", description=__doc__)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--streams", type=int, default=256)
    p.add_argument("--requests", type=int, default=512, help="measured requests per run (default 512)")
    p.add_argument("--engine", default="async,threads")
    p.add_argument(
        "--output-tokens",
        default=f"{_spec(SPREAD)},{_spec(HERD)}",
        help="output-length variants, MEAN or MEAN:STDDEV each (default: 64:16 spread, then 64 in step)",
    )
    p.add_argument("--rates", help="open-loop variant instead: constant arrivals at these requests/s, e.g. 25,50,100")
    p.add_argument("--duration", type=float, default=5.0, help="open-loop variant: seconds per rate (default 5)")
    args = p.parse_args(argv)
    if args.rates:
        return _rates(args)
    variants = [Lengths.parse(v, option="--output-tokens") for v in args.output_tokens.split(",")]
    print(f"cores {os.cpu_count()}, python {sys.version.split()[0]}; server: {TTFT_MS:g} ms TTFT, {ITL_MS:g} ms ITL")
    header = ("engine", "tokens", "run", "load", *_HEADINGS, "errors")
    print("  ".join(f"{h:>12}" for h in header))
    for engine in args.engine.split(","):
        for lengths in variants:
            runs = []
            for n in range(args.runs):
                r = one_run(streams=args.streams, requests=args.requests, engine=engine, output_tokens=lengths)
                runs.append(r)
                cells = (r["engine"], r["lengths"], n + 1, r["load_avg_1m"], *(r[k] for k in _KEYS), r["errors"])
                print("  ".join(f"{c!s:>12}" for c in cells), flush=True)
            s = summarize(runs)
            for stat in ("median", "min", "max"):
                cells = (engine, _spec(lengths), stat, "", *(s[k][stat] for k in _KEYS), "")
                print("  ".join(f"{c!s:>12}" for c in cells), flush=True)
    return 0


def _rates(args: argparse.Namespace) -> int:
    """The open-loop variant: per engine and rate, every run, then median, min and max over the runs."""
    print(f"cores {os.cpu_count()}, python {sys.version.split()[0]}; server: {TTFT_MS:g} ms TTFT, 20 ms ITL, "
          f"{OPEN_TOKENS} tokens; {args.duration:g} s per rate")  # fmt: skip
    print("  ".join(f"{h:>14}" for h in ("engine", "rate", "run", "load", *_RATE_KEYS, "errors")))
    for engine in args.engine.split(","):
        for rate in (float(r) for r in args.rates.split(",")):
            runs = []
            for n in range(args.runs):
                r = rate_run(rate_rps=rate, duration_s=args.duration, engine=engine)
                runs.append(r)
                cells = (r["engine"], f"{rate:g}", n + 1, r["load_avg_1m"], *(r[k] for k in _RATE_KEYS), r["errors"])
                print("  ".join(f"{c!s:>14}" for c in cells), flush=True)
            for stat, pick in (("median", statistics.median), ("min", min), ("max", max)):
                cells = (engine, f"{rate:g}", stat, "", *(round(pick(r[k] for r in runs), 2) for k in _RATE_KEYS), "")
                print("  ".join(f"{c!s:>14}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
