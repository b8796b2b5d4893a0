"""Repeated runs: every figure's median over the runs and its 95% Student t interval, the knee's spread."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from inference_constructs.__main__ import main
from inference_loadtest.repeats import T_975, combine, interval, knee_spread, t_quantile_975
from inference_loadtest.server import LocalServer


def _t_cdf(x: float, df: int) -> float:
    """Student's t CDF by Simpson's rule on its density (for checking the table, not used by the tool)."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    steps = 20_000
    h = x / steps
    total = 0.0
    for i in range(steps + 1):
        t = i * h
        w = 1 if i in (0, steps) else (4 if i % 2 else 2)
        total += w * c * (1 + t * t / df) ** (-(df + 1) / 2)
    return 0.5 + total * h / 3


@pytest.mark.parametrize("df", range(1, len(T_975) + 1))
def test_t_table_is_the_975_quantile(df: int) -> None:
    assert _t_cdf(t_quantile_975(df), df) == pytest.approx(0.975, abs=2e-4)


def test_interval_arithmetic() -> None:
    # GIVEN 4 runs' p90 TTFT
    f = interval([100.0, 110.0, 90.0, 120.0])
    # THEN median 105, mean 105, s = 12.91, half-width t(0.975, 3) x s / 2 = 3.182 x 6.455
    half = 3.182 * math.sqrt(((5**2) + (5**2) + (15**2) + (15**2)) / 3) / 2
    assert (f["median"], f["mean"], f["min"], f["max"]) == (105.0, 105.0, 90.0, 120.0)
    assert f["ci95"] == [round(105 - half, 4), round(105 + half, 4)]
    assert interval([5.0])["ci95"] is None


def test_combine_takes_each_figures_median_and_keeps_the_level_keys() -> None:
    runs = [
        [{"concurrency": 4, "rate_rps": None, "requests": 8, "ttft_ms": {"p90": v}, "interrupted": False}]
        for v in (30.0, 10.0, 20.0)
    ]
    [level], [figures] = combine(runs)
    assert level == {"concurrency": 4, "rate_rps": None, "requests": 8, "ttft_ms": {"p90": 20.0}, "interrupted": False}
    assert figures["concurrency"] == 4
    assert figures["figures"]["ttft_ms.p90"]["values"] == [30.0, 10.0, 20.0]
    assert "interrupted" not in figures["figures"]  # booleans are not figures


def test_knee_spread() -> None:
    knees = [
        {"per_instance": 8, "suggested": {"k": 8}},
        {"per_instance": 4, "suggested": {"k": 4}},
        {"per_instance": 8, "suggested": None},
    ]
    spread = knee_spread(knees)
    assert spread is not None
    assert spread["per_run"] == [8, 4, 8]
    assert (spread["per_instance"]["median"], spread["per_instance"]["min"]) == (8, 4)
    assert spread["suggested"]["values"] == [8, 4]


def test_runs_through_the_command_line(server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # WHEN a 2-level sweep with an SLO runs 3 times
    per_request = tmp_path / "r.jsonl"
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--concurrency", "1,2", "--requests", "3"]
    code = main([*argv, "--runs", "3", "--slo-ttft-ms", "5000", "--requests-out", str(per_request), "--json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0
    assert "at most 6 requests (2 level(s) x (3 + 0 warm-up)), 3 times" in captured.err
    # THEN every figure of the report's levels is the median of the three runs' values, with its interval
    runs = report["runs"]
    assert runs["count"] == 3
    assert runs["interval"] == "95% Student t interval of the mean over the runs"
    for i, level in enumerate(report["levels"]):
        values = [r[i]["ttft_ms"]["p90"] for r in runs["per_run_levels"]]
        figure = runs["figures"][i]["figures"]["ttft_ms.p90"]
        assert figure["values"] == values
        assert level["ttft_ms"]["p90"] == pytest.approx(sorted(values)[1], abs=1e-4)
        assert figure["ci95"][0] <= figure["mean"] <= figure["ci95"][1]
    # AND the knee carries its spread over the runs
    assert report["knee"]["runs"]["per_run"] == [k["per_instance"] for k in runs["knees"]]
    assert "medians of 3 runs" in report["knee"]["message"]
    # AND the per-request lines say which run they belong to
    lines = [json.loads(line) for line in per_request.read_text().splitlines()]
    assert [ln["run"] for ln in lines] == [1] * 6 + [2] * 6 + [3] * 6
