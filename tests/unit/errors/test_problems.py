"""Structured problems: each carries path, what, fix and a stable code, and renders as the one-line format."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from inference_constructs.__main__ import main
from inference_constructs.errors import CODES, InferenceConfigError, Problem, ProblemCollector


def test_problem_is_its_line_and_carries_its_parts() -> None:
    # GIVEN a problem WHEN rendered THEN it reads `<path>: <what>; <fix>` and keeps each part
    p = Problem("endpoints[0].name", "'X' is not allowed", "use lowercase", "pattern")
    assert p == "endpoints[0].name: 'X' is not allowed; use lowercase"
    assert (p.path, p.what, p.fix, p.code) == ("endpoints[0].name", "'X' is not allowed", "use lowercase", "pattern")
    assert pickle.loads(pickle.dumps(p)).code == "pattern"


def test_fails_on_unknown_code() -> None:
    with pytest.raises(ValueError, match="unknown problem code"):
        Problem("a", "b", None, "no-such-code")


def test_lines_from_older_callers_are_parsed_into_problems() -> None:
    # GIVEN an error raised with a plain line WHEN read back THEN path, what and fix are split out
    err = InferenceConfigError("cost.budget.notify_email: is required; set an address")
    (p,) = err.problems
    assert (p.path, p.what, p.fix, p.code) == ("cost.budget.notify_email", "is required", "set an address", "invalid")


def test_error_json_document_lists_every_problem() -> None:
    collector = ProblemCollector()
    collector.add("name", "'X' is not allowed", "use lowercase", code="pattern")
    collector.add("tags.Team", "differs from tags.team only by case", "keep one", code="tag_case")
    with pytest.raises(InferenceConfigError) as info:
        collector.raise_if_any()
    doc = info.value.to_json()
    assert doc["error"].startswith("invalid inference configuration (2 problems)")
    assert [(p["path"], p["code"]) for p in doc["problems"]] == [("name", "pattern"), ("tags.Team", "tag_case")]
    assert set(CODES) >= {p["code"] for p in doc["problems"]}


def test_plan_json_on_an_invalid_file_prints_the_error_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a file with two mistakes
    path = tmp_path / "bad.yaml"
    path.write_text("name: X\nendpoints: [{name: a, servng: lmi, model: {id: org/m}}]\n")
    # WHEN planned with --json THEN exit 2 and stdout holds one JSON document naming both key paths
    assert main(["plan", str(path), "--json"]) == 2
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert {(p["path"], p["code"]) for p in doc["problems"]} == {
        ("name", "pattern"),
        ("endpoints[0].servng", "unknown_key"),
    }
    assert out.err == ""


def test_plan_text_mode_prints_the_message_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: X\n")
    assert main(["plan", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.startswith("invalid inference configuration: name: 'X' is not allowed")
