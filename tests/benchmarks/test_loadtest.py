"""The load-generator benchmark computes its figures correctly (tiny run; no timing asserted)."""

from __future__ import annotations

import pytest

from benchmarks import loadtest
from inference_loadtest.server import FirstFrame
from inference_loadtest.stats import RequestResult


@pytest.mark.parametrize("engine", ["async", "threads"])
def test_one_run_reports_every_figure(engine: str) -> None:
    # GIVEN 2 streams against a fast local server WHEN one run is measured
    row = loadtest.one_run(streams=2, requests=2, engine=engine, ttft_ms=5, itl_ms=1)
    # THEN it measured 2 requests with the engine asked for, and CPU per token is positive
    assert (row["engine"], row["requests"], row["errors"]) == (engine, 2, 0)
    assert row["ttft_overhead_ms"] > -1
    # AND the split of the overhead adds up to it: the server wrote no frame early and the client stamped none
    # before the write (one clock for both processes)
    assert row["server_late_ms"] >= 0
    assert row["client_late_ms"] >= 0
    assert row["request_ms"] >= 0
    assert row["client_cpu_us_per_token"] > 0
    assert row["server_cpu_us_per_token"] > 0


def test_summary_is_median_min_max() -> None:
    runs = [dict.fromkeys(loadtest._KEYS, v) for v in (3.0, 1.0, 2.0)]
    summary = loadtest.summarize(runs)
    assert summary["tokens_per_s"] == {"median": 2.0, "min": 1.0, "max": 3.0}


def test_ttft_split_adds_up_to_the_overhead_per_stream() -> None:
    # GIVEN a stream sent at t=10.000 s, its request reaching the server 0.5 ms later, its first frame due 50 ms
    # after that and written 1.5 ms late, and the client stamping the first token 0.25 ms after the write
    result = RequestResult(ok=True, e2e_s=1.0, ttft_s=0.05225, started=10.0, request_id="r1")
    frame = FirstFrame(request_id="r1", arrived=10.0005, due=10.0505, written=10.052)
    unmatched = RequestResult(ok=True, e2e_s=1.0, ttft_s=0.9, started=10.0, request_id="other")
    warmup = RequestResult(ok=True, e2e_s=1.0, ttft_s=0.9, started=10.0, request_id="r1", warmup=True)
    # WHEN the overhead is split
    split = loadtest.ttft_split([result, unmatched, warmup], [frame])
    # THEN each side is what it took, and the warm-up and the stream the server has no record of are left out
    assert split == {"request_ms": 0.5, "server_late_ms": 1.5, "client_late_ms": 0.25}


def test_rate_run_reports_every_figure() -> None:
    # GIVEN a fast local server WHEN half a second of 20 requests/s runs open-loop (no timing asserted)
    row = loadtest.rate_run(rate_rps=20.0, duration_s=0.5, engine="async", ttft_ms=5, itl_ms=1)
    # THEN the 10 scheduled requests ran and every figure is there
    assert (row["engine"], row["requests"], row["errors"]) == ("async", 10, 0)
    assert row["lag_p50_ms"] >= 0
    assert row["overhead_from_schedule_ms"] >= row["overhead_from_send_ms"] - 0.01
    assert row["client_cpu_per_s"] > 0
