"""The load-generator benchmark computes its figures correctly (tiny run; no timing asserted)."""

from __future__ import annotations

import pytest

from benchmarks import loadtest


@pytest.mark.parametrize("engine", ["async", "threads"])
def test_one_run_reports_every_figure(engine: str) -> None:
    # GIVEN 2 streams against a fast local server WHEN one run is measured
    row = loadtest.one_run(streams=2, requests=2, engine=engine, ttft_ms=5, itl_ms=1)
    # THEN it measured 2 requests of 64 tokens with the engine asked for, and CPU per token is positive
    assert (row["engine"], row["requests"], row["errors"]) == (engine, 2, 0)
    assert row["ttft_overhead_ms"] > -1
    assert row["client_cpu_us_per_token"] > 0
    assert row["server_cpu_us_per_token"] > 0


def test_summary_is_median_min_max() -> None:
    runs = [dict.fromkeys(loadtest._KEYS, v) for v in (3.0, 1.0, 2.0)]
    summary = loadtest.summarize(runs)
    assert summary["tokens_per_s"] == {"median": 2.0, "min": 1.0, "max": 3.0}
