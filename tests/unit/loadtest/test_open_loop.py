"""Open-loop load beyond Poisson: the arrival processes' statistics (seeded, exact), trace replay, the duration
bound on scheduled times, latency counted from the scheduled send time while the server stalls, and the search
for the highest rate that holds the SLO."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.__main__ import main
from inference_constructs.errors import InferenceConfigError
from inference_loadtest.arrivals import Arrivals, dispersion, read_trace
from inference_loadtest.formats import StreamFormat
from inference_loadtest.prompts import Lengths, synthetic_prompts, trace_prompts
from inference_loadtest.runner import LoadOptions, LoadTest
from inference_loadtest.server import LocalServer
from inference_loadtest.stats import Pricing, Slo
from inference_loadtest.target import Api, Target

PROMPTS = synthetic_prompts(8, input_tokens=Lengths(4), output_tokens=Lengths(4))
TARGET = Target(api=Api.STREAM, identifier="e", format=StreamFormat.AUTO, pricing=Pricing(None, None, "none"))
ENGINES = pytest.mark.parametrize("engine", ["async", "threads"])

N = 100_000
"""Arrivals per statistics check. Tolerance: the achieved rate within 2% and the gaps' coefficient of variation
within 3% of the process's (3 standard errors or more at this count for every process below; seeded, so the
check is exact and repeatable, not timed)."""


@pytest.mark.parametrize(
    ("process", "burstiness", "cv"),
    [("poisson", 1.0, 1.0), ("gamma", 0.25, 2.0), ("gamma", 4.0, 0.5), ("gamma", 1.0, 1.0), ("constant", 1.0, 0.0)],
)
def test_schedule_rate_and_dispersion_match_the_process(process: str, burstiness: float, cv: float) -> None:
    arrivals = Arrivals(8.0, process, burstiness)
    assert arrivals.expected_cv() == cv
    stats = dispersion(arrivals.offsets(N, seed=11))
    assert stats["rate_rps"] == pytest.approx(8.0, rel=0.02)
    assert stats["cv"] == pytest.approx(cv, rel=0.03, abs=1e-9)
    assert stats["index_of_dispersion"] == pytest.approx(cv * cv, rel=0.07, abs=1e-9)
    # the same seed, the same schedule; another seed, another one (except the constant process)
    assert arrivals.offsets(50, seed=11) == arrivals.offsets(50, seed=11)
    assert (arrivals.offsets(50, seed=11) == arrivals.offsets(50, seed=12)) == (process == "constant")


def test_burstier_gamma_clusters_arrivals() -> None:
    # WHEN the same mean rate is drawn three ways, windows of 1 s hold the requests more unevenly as burstiness drops
    def window_spread(burstiness: float) -> float:
        offsets = Arrivals(8.0, "gamma", burstiness).offsets(N, seed=5)
        counts = [0] * (math.ceil(offsets[-1]) + 1)
        for t in offsets:
            counts[int(t)] += 1
        mean = sum(counts) / len(counts)
        return sum((c - mean) ** 2 for c in counts) / len(counts) / mean  # 1 for Poisson counts

    assert window_spread(0.25) > window_spread(1.0) * 2 > window_spread(4.0) * 2
    assert window_spread(1.0) == pytest.approx(1.0, rel=0.05)


@pytest.mark.parametrize(
    ("process", "burstiness", "message"),
    [("weibull", 1.0, "--arrivals: 'weibull' is not allowed"), ("gamma", 0.0, "--burstiness: 0.0 is not allowed")],
)
def test_bad_process_is_refused(process: str, burstiness: float, message: str) -> None:
    with pytest.raises(InferenceConfigError, match=message):
        Arrivals(1.0, process, burstiness)


@ENGINES
def test_a_run_sends_on_the_generators_schedule(engine: str, server: LocalServer, sagemaker_runtime: Any) -> None:
    # WHEN a gamma level runs 12 requests at 40/s
    options = LoadOptions(prompts=PROMPTS, rates_rps=(40.0,), arrivals="gamma", burstiness=0.5, requests=12, seed=4)
    test = LoadTest(TARGET, options, client=sagemaker_runtime, engine=engine)
    [level] = test.run()
    # THEN every request was scheduled at the generator's offset for that seed, whatever the machine's load
    expected = Arrivals(40.0, "gamma", 0.5).offsets(12, seed=4)
    results = sorted(test.results[0], key=lambda r: r.index)
    assert all(r.scheduled is not None for r in results)
    first = results[0].scheduled
    assert [r.scheduled - first for r in results] == pytest.approx(expected, abs=1e-9)  # type: ignore[operator]
    # AND the level reports the schedule's dispersion (and the actual sends' next to it)
    assert level["arrivals"]["scheduled"] == dispersion(expected)
    assert level["arrival_process"] == {"process": "gamma", "rate_rps": 40.0, "burstiness": 0.5}
    assert level["latency_from"] == "scheduled send time"


@ENGINES
def test_duration_bounds_the_scheduled_times(engine: str, server: LocalServer, sagemaker_runtime: Any) -> None:
    # GIVEN arrivals exactly every 0.1 s and a 0.35 s level: requests are due at 0, 0.1, 0.2 and 0.3 s
    options = LoadOptions(prompts=PROMPTS, rates_rps=(10.0,), arrivals="constant", duration_s=0.35)
    [level] = LoadTest(TARGET, options, client=sagemaker_runtime, engine=engine).run()
    # THEN exactly those four were sent, however late the machine ran them
    assert level["requests"] == 4


@ENGINES
def test_latency_counts_from_the_scheduled_time_while_the_server_stalls(
    engine: str, server: LocalServer, sagemaker_runtime: Any
) -> None:
    # GIVEN one request in flight at most, arrivals every 50 ms, and the server stalling its 2nd request for 0.6 s
    server.configure(stall_request=2, stall_ms=600.0)
    options = LoadOptions(prompts=PROMPTS, rates_rps=(20.0,), arrivals="constant", requests=6, max_in_flight=1)
    test = LoadTest(TARGET, options, client=sagemaker_runtime, engine=engine)
    [level] = test.run()
    results = sorted(test.results[0], key=lambda r: r.index)
    # THEN the requests due during the stall were sent late, and their TTFT counts the wait: a closed loop (or a
    # tool timing from the send) would report them as fast as the others
    for r in results:
        assert r.ttft_s is not None and r.scheduled is not None
        assert r.ttft_from_schedule_s == pytest.approx(r.ttft_s + (r.started - r.scheduled), abs=1e-9)
    for r in results[2:]:  # due at 100..250 ms; the slot frees after 50 + 620 ms at the earliest
        assert r.lag_s >= 0.4
        assert r.ttft_from_schedule_s is not None and r.ttft_from_schedule_s >= 0.4 + r.ttft_s
    # AND the level's percentiles count it: 5 of the 6 requests waited 0.4 s or more (the stalled one included)
    assert level["ttft_ms"]["p50"] >= 400
    assert level["schedule_lag_ms"]["max"] >= 400


def test_trace_is_read_sorted_and_shifted(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(
        '{"offset_s": 2.5, "input_tokens": 30, "output_tokens": 5}\n'
        '{"timestamp_ms": 2000, "input_tokens": 10, "output_tokens": 3, "prompt": "hello there"}\n\n'
        '{"offset_s": 3.0, "input_tokens": 7, "output_tokens": 2}\n'
    )
    entries = read_trace(trace)
    assert [(e.offset_s, e.input_tokens, e.output_tokens) for e in entries] == [(0.0, 10, 3), (0.5, 30, 5), (1.0, 7, 2)]
    prompts = trace_prompts(entries)
    assert prompts[0].text == "hello there"
    assert [len(p.text.split()) for p in prompts[1:]] == [30, 7]
    assert [p.max_tokens for p in prompts] == [3, 5, 2]
    trace.write_text('{"offset_s": -1, "input_tokens": 3, "output_tokens": 2}\n')
    with pytest.raises(InferenceConfigError, match=r"--trace: .* line 1 is not allowed"):
        read_trace(trace)


def test_trace_replay_through_the_command_line(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a recorded trace of 4 requests over 0.3 s
    trace = tmp_path / "t.jsonl"
    rows = [(0.0, 12, 3), (0.05, 40, 6), (0.2, 8, 2), (0.3, 20, 4)]
    trace.write_text(
        "".join(json.dumps({"offset_s": t, "input_tokens": i, "output_tokens": o}) + "\n" for t, i, o in rows)
    )
    per_request = tmp_path / "r.jsonl"
    # WHEN it is replayed (no other bound needed: the trace is one)
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--trace", str(trace), "--json"]
    code = main([*argv, "--requests-out", str(per_request), "--no-progress"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0
    assert "1 level(s), the trace's 4 requests" in captured.err
    # THEN each request was due at its offset, asked for its output length, and carried its input length
    [level] = report["levels"]
    assert level["concurrency"] is None and level["rate_rps"] is None and level["trace"] is True
    lines = sorted((json.loads(ln) for ln in per_request.read_text().splitlines()), key=lambda ln: ln["index"])
    assert [ln["scheduled_s"] for ln in lines] == pytest.approx([t for t, _, _ in rows], abs=1e-6)
    assert sorted(json.loads(b)["parameters"]["max_new_tokens"] for b in server.counters.bodies) == [2, 3, 4, 6]
    assert level["input_tokens"]["total"] == 12 + 40 + 8 + 20
    assert level["output_tokens"] == 3 + 6 + 2 + 4


def _fake_level(p90_of_rate: Any) -> Any:
    def run_level(self: LoadTest, concurrency: int | None, rate: float | None) -> dict[str, Any]:
        assert rate is not None
        p90 = p90_of_rate(rate)
        return {"concurrency": None, "rate_rps": rate, "requests": 10, "errors": 0,
                "ttft_ms": {"p50": p90, "p90": p90, "p99": p90}, "itl_ms": {"p50": 1, "p90": 1, "p99": 1}}  # fmt: skip

    return run_level


@pytest.mark.parametrize(
    ("threshold", "tested", "holds", "breaks"),
    [
        (5.0, [(1.0, True), (16.0, False), (4.0, True), (8.0, False), (5.6569, False), (4.7568, True)], 4.7568, 5.6569),
        (100.0, [(1.0, True), (16.0, True)], 16.0, None),
        (0.5, [(1.0, False)], None, 1.0),
    ],
)
def test_rate_search_bisects_between_holding_and_breaking(
    threshold: float,
    tested: list[tuple[float, bool]],
    holds: float | None,
    breaks: float | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # GIVEN a target whose p90 TTFT is 100 ms below `threshold` requests/s and 900 ms above it (SLO 500 ms)
    monkeypatch.setattr(LoadTest, "run_level", _fake_level(lambda rate: 100.0 if rate <= threshold else 900.0))
    options = LoadOptions(prompts=PROMPTS, requests=10, find_rate=(1.0, 16.0), find_rate_steps=6)
    test = LoadTest(TARGET, options, client=_Client(), slo=Slo(ttft_ms=500))
    levels = test.run()
    # THEN it tried low, high, then the geometric middles, and reports the bracket
    search = test.rate_search
    assert search is not None
    assert [(t["rate_rps"], t["holds"]) for t in search["tested"]] == tested
    assert (search["highest_rate_holding_rps"], search["lowest_rate_breaking_rps"]) == (holds, breaks)
    assert [lv["rate_rps"] for lv in levels] == [r for r, _ in tested]
    assert all(lv["rate_search"] for lv in levels)


class _Client:
    """Enough of a boto3 client for a LoadTest whose levels are faked."""

    class meta:  # noqa: N801 - boto3's attribute name
        class events:  # noqa: N801
            @staticmethod
            def register(*_: Any) -> None:
                return None


def test_rate_search_through_the_command_line(server: LocalServer, capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN an SLO the local server always holds
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--find-rate", "5:20", "--requests", "4"]
    code = main([*argv, "--slo-ttft-ms", "5000", "--json", "--no-progress"])
    report = json.loads(capsys.readouterr().out)
    # THEN it tested the low and the high rate and says to raise the high one
    assert code == 0
    assert [t["rate_rps"] for t in report["rate_search"]["tested"]] == [5.0, 20.0]
    assert report["rate_search"]["message"] == "p90 holds the SLO up to 20 requests/s, the highest tested; raise HIGH"
    # AND without an SLO it is refused before any request
    assert main([*argv, "--no-progress"]) == 2
    assert "--find-rate: needs an SLO" in capsys.readouterr().err
