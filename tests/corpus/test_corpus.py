"""plan == synth on the hostile-input corpus: every case is planned (the CLI's ``main``, as ``--json``) and
synthesized (``stacks.platform.synthesize``, the CDK app's code path, in this one process so CDK starts
once); the verdicts, key paths and messages agree, nothing raises but InferenceConfigError, and a refused
synth leaves no output behind."""

from __future__ import annotations

import contextlib
import io
import json
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App

from inference_constructs.__main__ import main
from inference_constructs.errors import CODES, InferenceConfigError
from inference_constructs.stacks.platform import PLAN_FILE, synthesize
from tests.corpus.cases import CASES, CATEGORIES, FILE, Case
from tests.gates.guard_equivalence import compare
from tests.gates.synth import Assembly, cli_context


@dataclass
class Outcome:
    """What plan and synth made of one case."""

    config: Path
    plan_exit: int = -1
    plan_doc: dict[str, Any] = field(default_factory=dict)
    plan_stderr: str = ""
    plan_crash: str = ""
    synth_problems: list[dict[str, str]] | None = None
    synth_crash: str = ""
    synth_errors: list[str] = field(default_factory=list)
    left_behind: list[str] = field(default_factory=list)
    templates: int = 0


def _plan(outcome: Outcome) -> None:
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            outcome.plan_exit = main(["plan", str(outcome.config), "--json"])
    except BaseException:  # a traceback: recorded, the test fails on it
        outcome.plan_crash = traceback.format_exc()
        return
    outcome.plan_doc = json.loads(out.getvalue()) if out.getvalue().strip() else {}
    outcome.plan_stderr = err.getvalue()


def _synth(outcome: Outcome, outdir: Path) -> None:
    try:
        synthesize(App(outdir=str(outdir), context=cli_context()), outcome.config)
    except InferenceConfigError as exc:
        outcome.synth_problems = exc.to_json()["problems"]
        outcome.left_behind = sorted(p.name for p in outdir.iterdir()) if outdir.exists() else []
        return
    except BaseException:
        outcome.synth_crash = traceback.format_exc()
        outcome.left_behind = sorted(p.name for p in outdir.iterdir()) if outdir.exists() else []
        return
    outcome.synth_errors = Assembly(outdir=outdir).error_annotations
    outcome.templates = len(list(outdir.glob("*.template.json")))
    if not (outdir / PLAN_FILE).exists():
        outcome.synth_errors.append(f"no {PLAN_FILE}")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Plan and synthesize every case once (one process, CDK started once)."""
    root = tmp_path_factory.mktemp("corpus")
    results: dict[str, Outcome] = {}
    for case in CASES:
        config = root / f"{case.id}.yaml"
        config.write_bytes(case.text if isinstance(case.text, bytes) else case.text.encode("utf-8"))
        outcome = Outcome(config=config)
        _plan(outcome)
        _synth(outcome, root / f"{case.id}.out")
        results[case.id] = outcome
    return results


def test_corpus_covers_every_category() -> None:
    # GIVEN the corpus WHEN counted THEN at least 150 cases, 10 in each category, ids unique, known codes
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)
    for category in CATEGORIES:
        assert sum(1 for c in CASES if c.category == category) >= 10, category
    assert {c.category for c in CASES} == set(CATEGORIES)
    assert {c.code for c in CASES if c.code} <= set(CODES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_plan_gives_the_expected_verdict_and_key_path(case: Case, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[case.id]
    # THEN no traceback, and exit 0 with a plan or exit 2 with the JSON error document
    assert outcome.plan_crash == ""
    assert "Traceback" not in outcome.plan_stderr
    if case.accepted:
        assert outcome.plan_exit == 0, outcome.plan_doc.get("error")
        assert "endpoints" in outcome.plan_doc
        return
    assert outcome.plan_exit == 2
    problems = outcome.plan_doc["problems"]
    assert outcome.plan_doc["error"].startswith("invalid inference configuration")
    # AND a problem of the expected kind names the expected key path (the file itself for file problems)
    matching = [p for p in problems if p["code"] == case.code]
    assert matching, problems
    if case.path == FILE:
        assert any(p["path"].startswith(str(outcome.config)) for p in matching), matching
    elif case.path is not None:
        assert any(p["path"] == case.path for p in matching), matching
    # AND every message stays short, whatever the input's size
    assert len(outcome.plan_doc["error"]) < 4000


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_synth_agrees_with_plan(case: Case, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[case.id]
    # THEN synth never fails otherwise than with the InferenceConfigError plan gave
    assert outcome.synth_crash == ""
    if case.accepted:
        # AND an accepted config synthesizes: templates and plan written, no error annotation
        assert outcome.synth_problems is None
        assert outcome.synth_errors == []
        assert outcome.templates >= 1
        return
    assert outcome.synth_problems == outcome.plan_doc["problems"]
    # AND a refused synth leaves nothing behind
    assert outcome.left_behind == []


def test_selected_control_tower_rules_find_what_the_full_set_finds(
    outcomes: dict[str, Outcome], tmp_path: Path
) -> None:
    # GIVEN the templates of every accepted case, each case as one synth validates them
    out = {c.id: outcomes[c.id].config.parent / f"{c.id}.out" for c in CASES if c.accepted}
    configs = {case: sorted(outdir.glob("*.template.json")) for case, outdir in out.items()}
    assert configs and all(configs.values())
    # WHEN cfn-guard runs the full bundled set and the selection THEN they fail the same rules everywhere, and
    # every rule left out was skipped by the full run
    problems, counts, _ = compare(configs, tmp_path)
    assert problems == []
    assert all(counts.values()), counts
