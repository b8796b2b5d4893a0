"""Two runs side by side: the comparison's figures, its Markdown, and the chart's data read back from the drawn
figure (series, axes, labels), from two real runs against the local server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inference_constructs.errors import InferenceConfigError
from inference_loadtest import cli
from inference_loadtest.compare import compare, read_report
from inference_loadtest.server import LocalServer


def _run(server: LocalServer, out: Path, dataset: Path, *extra: str) -> dict[str, object]:
    argv = ["run", "--endpoint", "e", "--endpoint-url", server.url, "--concurrency", "1,2", "--requests", "4"]
    code = cli.main([*argv, "--dataset", str(dataset), "--out", str(out), "--no-progress", *extra])
    assert code == 0
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_two_runs_side_by_side(server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN a fast endpoint (20 ms TTFT) and a slower one (60 ms), each scored on the same dataset
    dataset = tmp_path / "d.jsonl"
    dataset.write_text('{"prompt": "count", "max_tokens": 8, "regex": "t0"}\n{"prompt": "x", "reference": "no"}\n')
    a = _run(server, tmp_path / "a.json", dataset, "--price-per-hour", "1", "--instances", "1")
    server.configure(ttft_ms=60)
    b = _run(server, tmp_path / "b.json", dataset, "--price-per-hour", "2", "--instances", "1")
    capsys.readouterr()
    md, png, out = tmp_path / "c.md", tmp_path / "c.png", tmp_path / "c.json"
    # WHEN they are compared
    argv = ["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--label-a", "small", "--label-b", "big"]
    code = cli.main([*argv, "--markdown", str(md), "--chart", str(png), "--out", str(out)])
    assert code == 0
    result = json.loads(out.read_text())
    # THEN each level's figures are the two reports' own, with B - A
    assert [row["level"] for row in result["levels"]] == ["1", "2"]
    for row, la, lb in zip(result["levels"], a["levels"], b["levels"], strict=True):  # type: ignore[arg-type]
        ttft = row["figures"]["ttft_ms.p90"]
        assert (ttft["a"], ttft["b"]) == (la["ttft_ms"]["p90"], lb["ttft_ms"]["p90"])
        assert ttft["delta"] == pytest.approx(lb["ttft_ms"]["p90"] - la["ttft_ms"]["p90"], abs=1e-6)
        success = row["figures"]["quality.success_rate"]
        assert (success["a"], success["b"]) == (0.5, 0.5)
        cost = row["figures"]["quality.cost_per_successful_task_usd"]
        assert cost["a"] == la["quality"]["cost_per_successful_task_usd"]
    # AND the Markdown shows both targets and one table per level
    text = md.read_text()
    assert text.startswith("### Load test comparison: small vs big\n")
    assert "| figure | small | big | big - small |" in text
    assert "#### Level 2" in text and "![small vs big](c.png)" in text
    # AND the chart holds what the figures say: its panels, axes, labels and data, read back from the drawing
    drawn = result["chart"]
    assert [p["title"] for p in drawn] == ["p90 TTFT against throughput", "goodput per level", "success rate per level"]
    assert [(p["xlabel"], p["ylabel"]) for p in drawn] == [
        ("output tokens/s (all requests)", "TTFT p90 ms"),
        ("level", "goodput %"),
        ("level", "success %"),
    ]
    assert all(p["legend"] == ["small", "big"] for p in drawn)
    small, big = drawn[0]["lines"]
    assert small["label"] == "small"
    assert small["x"] == [lv["output_tokens_per_s"] for lv in a["levels"]]  # type: ignore[union-attr]
    assert big["y"] == [lv["ttft_ms"]["p90"] for lv in b["levels"]]  # type: ignore[union-attr]
    assert [bar["y"] for bar in drawn[1]["bars"]] == [
        [lv["goodput_fraction"] * 100 for lv in r["levels"]]  # type: ignore[union-attr]
        for r in (a, b)
    ]
    assert drawn[1]["xticks"] == ["1", "2"]
    assert [bar["y"] for bar in drawn[2]["bars"]] == [[50.0, 50.0], [50.0, 50.0]]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_levels_in_one_report_only() -> None:
    a = {"levels": [{"concurrency": 1, "rate_rps": None, "ttft_ms": {"p90": 10}}], "target": {"identifier": "x"}}
    b = {"levels": [{"concurrency": 4, "rate_rps": None, "ttft_ms": {"p90": 30}}], "target": {"identifier": "y"}}
    rows = compare(a, b)["levels"]
    assert [(r["level"], r["in"], r["figures"]["ttft_ms.p90"]) for r in rows] == [
        ("1", ["A"], {"a": 10.0, "b": None, "delta": None}),
        ("4", ["B"], {"a": None, "b": 30.0, "delta": None}),
    ]


def test_not_a_report_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"a": 1}')
    with pytest.raises(InferenceConfigError, match="is not a load-test report"):
        read_report(bad)
