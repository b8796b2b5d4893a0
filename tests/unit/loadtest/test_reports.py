"""Reports people read: one JSON line per request, input and output token statistics, the run's options and seed
saved with the results, and a warning when the warm-up does not cover the concurrency."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inference_constructs.__main__ import main
from inference_loadtest.server import LocalServer
from inference_loadtest.stats import Pricing, RequestResult, Slo, level_summary, token_stats

NO_PRICE = Pricing(None, None, "none")


def test_per_request_lines_options_seed_and_token_statistics(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN prompts of 16 +- 4 words asking for 8 +- 2 tokens (the server generates what is asked for)
    per_request, md = tmp_path / "r.jsonl", tmp_path / "r.md"
    options = "--concurrency 1,2 --requests 3 --warmup 1 --input-tokens 16:4 --output-tokens 8:2 --seed 7 --json"
    outputs = ["--requests-out", str(per_request), "--markdown", str(md), "--no-progress"]
    code = main(["loadtest", "--endpoint", "e", "--endpoint-url", server.url, *options.split(), *outputs])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0
    # THEN one line per request of every level, warm-up marked, with its own figures
    lines = [json.loads(line) for line in per_request.read_text().splitlines()]
    assert [ln["level"] for ln in lines] == ["concurrency 1"] * 4 + ["concurrency 2"] * 4
    assert sorted(ln["index"] for ln in lines[:4]) == [0, 1, 2, 3]
    assert [ln["warmup"] for ln in sorted(lines[:4], key=lambda ln: ln["index"])] == [True, False, False, False]
    assert all(ln["ok"] and ln["ttft_ms"] >= 20 and ln["e2e_ms"] >= ln["ttft_ms"] for ln in lines)
    assert all(ln["lag_ms"] == 0 and ln["scheduled_s"] is None for ln in lines)  # a closed loop has no schedule
    # AND the level's token statistics are those of its measured (non-warm-up) lines
    level = report["levels"][0]
    measured = [ln for ln in lines[:4] if not ln["warmup"]]
    inputs = sorted(ln["input_tokens"] for ln in measured)
    outputs = sorted(ln["output_tokens"] for ln in measured)
    assert level["input_tokens"] == {
        "count": 3,
        "total": sum(inputs),
        "mean": round(sum(inputs) / 3, 2),
        "p50": inputs[1],
        "p90": pytest.approx(inputs[1] + 0.8 * (inputs[2] - inputs[1])),
        "p99": pytest.approx(inputs[1] + 0.98 * (inputs[2] - inputs[1])),
    }
    assert level["output_tokens_per_request"]["total"] == sum(outputs) == level["output_tokens"]
    assert len(set(inputs)) > 1  # the stddev drew different lengths
    # AND the run's options and seed are saved with the results, and the Markdown states them
    run = report["run"]
    assert run["seed"] == 7
    assert run["options"]["input_tokens"] == "16:4"
    assert run["options"]["concurrency"] == "1,2"
    assert run["load"]["warmup"] == 1
    assert run["workload"] == {"kind": "synthetic", "input_tokens": "16:4", "output_tokens": "8:2"}
    assert "- seed: 7 (prompts and arrival process)" in md.read_text()
    assert "- workload: synthetic (input_tokens 16:4, output_tokens 8:2)" in md.read_text()
    # AND a warm-up below the concurrency was warned about, before the run and in the report
    warning = "warm-up 1 is below the concurrency of level(s) 2"
    assert warning in captured.err
    assert any(warning in note for note in report["notes"])


def test_a_warmup_covering_the_concurrency_gives_no_warning(
    server: LocalServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--concurrency", "1,2"]
    code = main([*argv, "--requests", "2", "--warmup", "2", "--json", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0
    assert "is below the concurrency" not in captured.err
    assert not any("is below the concurrency" in note for note in json.loads(captured.out)["notes"])


def test_token_statistics_arithmetic() -> None:
    # GIVEN four requests of known lengths, one failed, one warm-up
    results = [
        RequestResult(ok=True, e2e_s=1.0, ttft_s=0.1, output_tokens=10, input_tokens=100, started=0.0, ended=1.0),
        RequestResult(ok=True, e2e_s=1.0, ttft_s=0.1, output_tokens=20, input_tokens=200, started=0.0, ended=1.0),
        RequestResult(ok=False, e2e_s=1.0, error="X", input_tokens=300, started=0.0, ended=1.0),
        RequestResult(ok=True, e2e_s=1.0, ttft_s=0.1, output_tokens=99, input_tokens=999, warmup=True),
    ]
    level = level_summary(results, concurrency=1, rate_rps=None, slo=Slo(), pricing=NO_PRICE)
    # THEN input tokens count every measured request (the failed one too), output tokens the successful ones
    assert level["input_tokens"] == {"count": 3, "total": 600, "mean": 200.0, "p50": 200, "p90": 280.0, "p99": 298.0}
    assert level["output_tokens_per_request"] == token_stats([10, 20])
    assert token_stats([10, 20]) == {"count": 2, "total": 30, "mean": 15.0, "p50": 15.0, "p90": 19.0, "p99": 19.9}
    assert token_stats([])["mean"] is None
