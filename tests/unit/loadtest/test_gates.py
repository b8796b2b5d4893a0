"""Gates for pipelines: thresholds on any reported figure exit 1 when crossed, with a Markdown summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inference_constructs.__main__ import main
from inference_constructs.errors import InferenceConfigError
from inference_loadtest import cli
from inference_loadtest.gates import Gate, crossed, evaluate, markdown
from inference_loadtest.server import LocalServer

REPORT = {
    "levels": [
        {"concurrency": 1, "rate_rps": None, "ttft_ms": {"p90": 40.0}, "goodput_fraction": 1.0, "cost": None},
        {"concurrency": 8, "rate_rps": None, "ttft_ms": {"p90": 130.0}, "goodput_fraction": 0.6},
        {"concurrency": None, "rate_rps": 2.0, "ttft_ms": {"p90": 90.0}, "goodput_fraction": 0.95},
    ],
    "knee": {"per_instance": 4},
    "cost_per_million_output_tokens_usd": None,
}


def test_a_gate_on_every_level_and_on_one() -> None:
    rows = evaluate([Gate.parse("ttft_ms.p90 <= 100"), Gate.parse("8:goodput_fraction>=0.5")], REPORT)
    assert [(r["level"], r["value"], r["passed"]) for r in rows] == [
        ("1", 40.0, True),
        ("8", 130.0, False),
        ("2/s", 90.0, True),
        ("8", 0.6, True),
    ]
    assert crossed(rows) == ["ttft_ms.p90 <= 100 at level 8: 130"]


def test_missing_values_and_levels_cross_the_gate() -> None:
    rows = evaluate([Gate.parse("1:cost_per_million_output_tokens_usd<=2"), Gate.parse("16:ttft_ms.p90<500")], REPORT)
    assert [(r["level"], r["value"], r["passed"]) for r in rows] == [("1", None, False), ("16", None, False)]


def test_run_figures() -> None:
    [row] = evaluate([Gate.parse("knee.per_instance>=8")], REPORT)
    assert (row["level"], row["value"], row["passed"]) == (None, 4, False)
    assert markdown([row]) == [
        "### Load test gates",
        "",
        "- **Gate crossed:** knee.per_instance>=8: 4",
        "",
        "| gate | level | value | result |",
        "|---|---|---:|---|",
        "| `knee.per_instance>=8` | run | 4 | crossed |",
        "",
    ]


@pytest.mark.parametrize("text", ["ttft_ms.p90 = 5", "latency<=5", "ttft_ms.p90<=fast", "4:knee.per_instance>=2"])
def test_bad_gates_are_refused(text: str) -> None:
    with pytest.raises(InferenceConfigError, match="--gate: "):
        Gate.parse(text)


def test_gates_through_the_command_line(
    server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md = tmp_path / "r.md"
    argv = ["loadtest", "--endpoint", "e", "--endpoint-url", server.url, "--concurrency", "1,2", "--requests", "2"]
    # WHEN one gate holds (the server's 20 ms TTFT is above 1 ms) and one cannot (below 1 ms)
    code = main([*argv, "--gate", "ttft_ms.p50>=1", "--gate", "2:ttft_ms.p90<1", "--markdown", str(md), "--json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    # THEN the run exits 1, names the crossed gate on stderr, and the report and its Markdown say so
    assert code == cli.EXIT_GATE == 1
    assert [g["passed"] for g in report["gates"]] == [True, True, False]
    assert "gate crossed: 2:ttft_ms.p90<1 at level 2: " in captured.err
    text = md.read_text()
    assert "### Load test gates" in text and "- **Gate crossed:** 2:ttft_ms.p90<1 at level 2: " in text
    # AND with only gates that hold it exits 0; a bad gate is refused before any request
    assert main([*argv, "--gate", "goodput_fraction>=1", "--no-progress"]) == 0
    requests = server.counters.requests
    assert main([*argv, "--gate", "speed>=1"]) == cli.EXIT_CONFIG_ERROR
    assert server.counters.requests == requests
