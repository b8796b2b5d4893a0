"""examples/pipeline: the CDK Pipelines app synthesizes from the repository with the compliance gates on (every
acknowledgment on the pipeline's generated resources has its reason), its synth step runs the diff gate on the
stage's plan with flags the ``diff`` command has, and its stage deploys InferencePlatform under the stack names
the CDK app uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gates.synth import ROOT

EXAMPLE = ROOT / "examples" / "pipeline"
PIPELINE_STACK = "InferencePipeline"
STAGE_ASSEMBLY = "assembly-InferencePipeline-Prod"


def _env(out: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("INFERENCE_CONFIG", "VIRTUAL_ENV")}
    # the project from this checkout (a pipeline installs it with pip), this interpreter first on PATH for the CLI
    path = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return {**env, "PYTHONPATH": str(ROOT), "PATH": path, "CI": "true", "CDK_OUTDIR": str(out)}


def _example_context(**overrides: str) -> dict[str, Any]:
    return {**json.loads((EXAMPLE / "cdk.json").read_text())["context"], **overrides}


def _resources(template: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in template["Resources"].values() if r["Type"] == kind]


@pytest.fixture(scope="module")
def cli_synth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``cdk synth`` of the example through the pinned CDK CLI, from its folder (its cdk.json, CodeStar source)."""
    out = tmp_path_factory.mktemp("pipeline") / "cdk.out"
    result = subprocess.run(
        [str(ROOT / "node_modules" / ".bin" / "cdk"), "synth", "--no-notices", "-q", "-o", str(out)],
        cwd=EXAMPLE,
        env=_env(out),
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return out


def test_pipeline_synthesizes_with_the_gates_on_and_every_acknowledgment_has_a_reason(cli_synth: Path) -> None:
    # GIVEN the example synthesized by the CDK CLI (a finding without an acknowledgment would have failed it)
    report = json.loads((cli_synth / "validation-report.json").read_text())
    # THEN every acknowledged finding carries a specific reason
    suppressed = [s for p in report["pluginReports"] for s in p.get("suppressedViolations", [])]
    assert suppressed
    assert all(len(str(s.get("reason", s)).strip()) >= 20 for s in suppressed)
    assert not [v for p in report["pluginReports"] for v in p.get("violations", [])]


def test_synth_step_installs_the_project_and_runs_the_diff_gate_on_the_stages_plan(cli_synth: Path) -> None:
    # GIVEN the pipeline stack's template
    template = json.loads((cli_synth / f"{PIPELINE_STACK}.template.json").read_text())
    specs = [
        json.loads(p["Properties"]["Source"]["BuildSpec"]) for p in _resources(template, "AWS::CodeBuild::Project")
    ]
    (synth,) = [s for s in specs if any("cdk synth" in c for c in s["phases"]["build"]["commands"])]
    # THEN the synth step installs the pinned requirements and the project, then synthesizes and runs the gate
    assert "pip install -r requirements.txt" in synth["phases"]["install"]["commands"]
    assert "pip install --no-deps ." in synth["phases"]["install"]["commands"]
    commands = synth["phases"]["build"]["commands"]
    (gate,) = [c for c in commands if "python -m inference_constructs diff" in c]
    assert f"cdk.out/{STAGE_ASSEMBLY}/inference-plan.json" in gate
    assert "--fail-over-usd 500" in gate
    assert synth["artifacts"]["base-directory"] == "examples/pipeline/cdk.out"
    # AND every flag of the gate is one the diff command accepts
    usage = subprocess.run(
        [sys.executable, "-m", "inference_constructs", "diff", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    flags = [word for word in gate.split("; else")[0].split() if word.startswith("--")]
    assert flags and [f for f in flags if f not in usage] == []
    # AND before the first deployment (no deployed plan in the repository yet) the gate passes with a note that
    # says how to create the baseline, instead of failing on a missing file
    first_run = subprocess.run(["bash", "-c", gate], cwd=cli_synth, capture_output=True, text=True, check=False)
    assert first_run.returncode == 0, first_run.stderr
    assert "no deployed plan at examples/pipeline/deployed-plan.json yet" in first_run.stdout
    assert "python -m inference_constructs plan config/default.yaml --json > examples/pipeline/deployed-plan.json" in (
        first_run.stdout
    )


def test_stage_deploys_the_platform_under_the_apps_stack_names_with_its_plan(cli_synth: Path) -> None:
    # GIVEN the stage's nested cloud assembly
    nested = cli_synth / STAGE_ASSEMBLY
    manifest = json.loads((nested / "manifest.json").read_text())
    stacks = {a["properties"]["stackName"]: a for a in manifest["artifacts"].values() if a["type"].endswith(":stack")}
    # THEN the default platform's stacks keep the names app.py gives them, in the context's environment
    assert sorted(stacks) == [
        "acme-genai-bedrock",
        "acme-genai-cost",
        "acme-genai-hosting-1",
        "acme-genai-observability",
    ]
    assert {a["environment"] for a in stacks.values()} == {"aws://111122223333/us-east-1"}
    # AND the plan the diff gate reads is there
    assert json.loads((nested / "inference-plan.json").read_text())["name"] == "acme-genai"


def test_pipeline_sources_from_codecommit_by_context(tmp_path: Path) -> None:
    # GIVEN the example with -c source=codecommit (the app run directly, as the CLI runs it)
    out = tmp_path / "cdk.out"
    env = {**_env(out), "CDK_CONTEXT_JSON": json.dumps(_example_context(source="codecommit", branch="release"))}
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=1200, check=False
    )
    assert result.returncode == 0, result.stderr[-4000:]
    # THEN the pipeline's source action is CodeCommit on that branch
    template = json.loads((out / f"{PIPELINE_STACK}.template.json").read_text())
    (pipeline,) = _resources(template, "AWS::CodePipeline::Pipeline")
    source = pipeline["Properties"]["Stages"][0]["Actions"][0]
    assert source["ActionTypeId"]["Provider"] == "CodeCommit"
    assert source["Configuration"]["RepositoryName"] == "inference-platform"
    assert source["Configuration"]["BranchName"] == "release"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"connectionArn": ""}, "context.connectionArn: missing; pass -c connectionArn=VALUE"),
        ({"source": "github"}, "context.source: 'github' is not allowed; use one of connection, codecommit"),
    ],
    ids=["missing", "unknown-source"],
)
def test_fails_on_a_bad_context_value_with_one_message(tmp_path: Path, overrides: dict[str, str], message: str) -> None:
    out = tmp_path / "cdk.out"
    env = {**_env(out), "CDK_CONTEXT_JSON": json.dumps(_example_context(**overrides))}
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=EXAMPLE, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr
