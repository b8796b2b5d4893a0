"""The README's commands, end to end: the CDK CLI synthesizes the default platform and writes the plan;
a config mistake prints one message (no traceback), exits non-zero and leaves cdk.out as it was; the
plan command (docs/config.md) answers without synthesizing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gates.synth import ROOT, Assembly
from tests.outside import PYTHON, run_from

BAD = "name: X\nendpoints:\n  - {name: chat, servng: lmi, model: {id: org/m, parameters_billion: 3}}\n"


def _synth(tmp_path: Path, *args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": "true"}
    env.pop("INFERENCE_CONFIG", None)
    if config is not None:
        env["INFERENCE_CONFIG"] = str(config)
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "synth.sh"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_cli_synth_of_the_default_platform_writes_templates_and_plan(
    tmp_path: Path, assemblies: dict[str, tuple[Assembly, Assembly]]
) -> None:
    # GIVEN the README's synth command with an output directory
    out = tmp_path / "cdk.out"
    # WHEN run THEN it succeeds, leaves templates and the plan, and prints no traceback
    result = _synth(tmp_path, "-o", str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    assert list(out.glob("*.template.json"))
    plan = json.loads((out / "inference-plan.json").read_text())
    assert plan["name"] == "acme-genai"
    assert "Traceback" not in result.stdout + result.stderr
    # AND, from another process, the templates and plan are byte-identical to the gates' in-process synth
    gated = assemblies["default"][0].outdir
    names = [*sorted(p.name for p in out.glob("*.template.json")), "inference-plan.json"]
    assert names == [*sorted(p.name for p in gated.glob("*.template.json")), "inference-plan.json"]
    assert [n for n in names if (out / n).read_bytes() != (gated / n).read_bytes()] == []


@pytest.mark.parametrize("how", ["env", "context"])
def test_cli_config_mistake_prints_one_message_and_leaves_cdk_out_untouched(tmp_path: Path, how: str) -> None:
    # GIVEN an output directory holding an earlier synth, and a config with three mistakes
    out = tmp_path / "cdk.out"
    out.mkdir()
    (out / "earlier.template.json").write_text("{}")
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    # WHEN synthesized through the CLI (config from the environment, or -c config=PATH)
    if how == "env":
        result = _synth(tmp_path, "-o", str(out), config=bad)
    else:
        result = _synth(tmp_path, "-o", str(out), "-c", f"config={bad}")
    # THEN it exits non-zero with every problem and its key path, no traceback, nothing written
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "invalid inference configuration (2 problems)" in output
    assert "name: 'X' is not allowed" in output
    assert "endpoints[0].servng: unknown key; did you mean 'serving'?" in output
    assert "Traceback" not in output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def _plan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inference_constructs", "plan", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_plan_command_prints_json_for_the_default_config() -> None:
    result = _plan("config/default.yaml", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["prices_region"] == "us-east-1"
    assert isinstance(doc["baseline_usd_per_hour"], float | int)


def test_plan_command_exits_2_with_the_message_on_a_bad_config(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD)
    result = _plan(str(bad))
    assert result.returncode == 2
    assert "endpoints[0].servng: unknown key; did you mean 'serving'?" in result.stderr
    assert "Traceback" not in result.stderr


def test_plan_command_does_not_import_aws_cdk() -> None:
    # GIVEN the plan is computed in a fresh interpreter THEN aws_cdk never got imported (it stays fast)
    code = (
        "import sys; from inference_constructs.__main__ import main; import io, contextlib;"
        "buf = io.StringIO();\n"
        "with contextlib.redirect_stdout(buf): main(['plan', 'config/default.yaml'])\n"
        "print('aws_cdk' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "False"


def test_the_cli_runs_from_another_folder_and_its_help_is_plain_text(tmp_path: Path) -> None:
    # GIVEN a folder outside the repository and the project's venv as the README sets it up
    # WHEN the top-level help and the plan of the default config are asked for from there
    usage = run_from(tmp_path, [PYTHON, "-m", "inference_constructs", "--help"])
    plan = run_from(
        tmp_path, [PYTHON, "-m", "inference_constructs", "plan", str(ROOT / "config" / "default.yaml"), "--json"]
    )
    # THEN both work: the help names the commands in plain text (no Sphinx roles or double backquotes) and the plan
    # is the default platform's
    assert usage.returncode == 0, usage.stderr
    assert "plan CONFIG [--json]" in usage.stdout and "docs/config.md" in usage.stdout
    assert not [marker for marker in (":mod:", ":class:", "``") if marker in usage.stdout]
    assert plan.returncode == 0, plan.stderr
    assert json.loads(plan.stdout)["name"] == "acme-genai"
