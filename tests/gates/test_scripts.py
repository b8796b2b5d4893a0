"""scripts/synth.sh and deploy.sh as a user runs them from their own folder: relative config and output paths
mean that folder, a missing config names the path tried, each synth leaves only its own stacks, and no script
changes the calling shell. The scripts run with INFERENCE_NO_INSTALL=1: they never install anything here."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.gates.synth import ROOT
from tests.handlers._models import floor_version
from tests.outside import PYTHON, run_from

SYNTH = ROOT / "scripts" / "synth.sh"
PROFILE = "bedrock:\n  profiles:\n    - {name: chat, model: anthropic.claude-3-haiku-20240307-v1:0}\n"
#: Three stacks: bedrock, observability and cost (the tag activation).
WITH_COST = f"name: small\ntags: {{owner: ml}}\n{PROFILE}cost:\n  activate_cost_allocation_tags: [owner]\n"
#: Two stacks: the same platform without the cost stack.
WITHOUT_COST = f"name: small\n{PROFILE}"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("INFERENCE_CONFIG", "VIRTUAL_ENV")}
    return {**env, "CI": "true", "INFERENCE_NO_INSTALL": "1", **extra}


def _bash(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", *args], cwd=cwd, env=_env(**extra), capture_output=True, text=True, timeout=900, check=False
    )


@pytest.fixture
def caller(tmp_path: Path) -> Path:
    """The user's own folder, outside the repository, holding two configs of one platform."""
    folder = tmp_path / "work"
    (folder / "configs").mkdir(parents=True)
    (folder / "configs" / "with-cost.yaml").write_text(WITH_COST)
    (folder / "configs" / "without-cost.yaml").write_text(WITHOUT_COST)
    return folder


def test_synth_reads_relative_paths_from_the_callers_folder_and_keeps_only_the_current_stacks(caller: Path) -> None:
    # GIVEN a synth of the config with three stacks, run from the user's folder with a relative config path
    first = _bash([str(SYNTH), "-c", "config=configs/with-cost.yaml"], caller)
    assert first.returncode == 0, first.stderr[-3000:]
    out = caller / "cdk.out"  # no -o: ./cdk.out of the folder it was run from, not the repository's
    assert sorted(p.name for p in out.glob("*.template.json")) == [
        "small-bedrock.template.json",
        "small-cost.template.json",
        "small-observability.template.json",
    ]
    # WHEN the config without the cost stack is synthesized into the same folder (from the environment)
    second = _bash([str(SYNTH)], caller, INFERENCE_CONFIG="configs/without-cost.yaml")
    # THEN the earlier config's extra template is gone, and the plan is the new one
    assert second.returncode == 0, second.stderr[-3000:]
    assert sorted(p.name for p in out.glob("*.template.json")) == [
        "small-bedrock.template.json",
        "small-observability.template.json",
    ]
    manifest = json.loads((out / "manifest.json").read_text())
    assert "small-cost" not in manifest["artifacts"]
    assert json.loads((out / "inference-plan.json").read_text())["name"] == "small"
    assert not [p for p in out.iterdir() if p.name.startswith((".", "synth.lock"))]


@pytest.mark.parametrize(
    "args", [["-c", "config=configs/nope.yaml"], ["--context", "config=configs/nope.yaml"]], ids=["-c", "--context"]
)
def test_synth_of_a_missing_config_names_the_path_it_tried(caller: Path, args: list[str]) -> None:
    # GIVEN an output folder holding an earlier synth's file, and a relative path to no file
    out = caller / "out"
    out.mkdir()
    (out / "earlier.template.json").write_text("{}")
    # WHEN synthesized from the user's folder into a relative output folder
    result = _bash([str(SYNTH), *args, "-o", "out"], caller)
    # THEN it fails naming the absolute path it tried (the user's folder, not the repository), no traceback,
    # and the output folder is as it was
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"{caller}/configs/nope.yaml: cannot read the config file" in output
    assert "Traceback" not in output
    assert sorted(p.name for p in out.iterdir()) == ["earlier.template.json"]


@pytest.mark.parametrize("script", ["synth.sh", "deploy.sh"])
def test_sourcing_a_script_refuses_and_leaves_the_shell_as_it_was(tmp_path: Path, script: str) -> None:
    # GIVEN a shell in the user's folder WHEN it sources the script (as an old README said)
    shell = f'source "{ROOT / "scripts" / script}"; echo "status=$? flags=$- cwd=$PWD"'
    result = _bash(["-c", shell], tmp_path)
    # THEN the script refuses, and the shell goes on: no set -e, same folder, nothing run
    assert result.returncode == 0, result.stderr
    assert f"run scripts/{script} with bash" in result.stderr
    status, flags, cwd = result.stdout.strip().split(" ")
    assert status == "status=1"
    assert "e" not in flags.removeprefix("flags=")
    assert cwd == f"cwd={tmp_path}"


def test_sourcing_bootstrap_in_an_interactive_shell_refuses(tmp_path: Path) -> None:
    # GIVEN an interactive shell WHEN it sources bootstrap.sh THEN it refuses and stays in its folder
    shell = f'source "{ROOT / "scripts" / "bootstrap.sh"}"; echo "status=$? cwd=$PWD"'
    result = _bash(["--norc", "-i", "-c", shell], tmp_path)
    assert "bootstrap.sh is for the scripts" in result.stderr
    assert result.stdout.strip().splitlines()[-1] == f"status=1 cwd={tmp_path}"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["deploy", "--all"], ["deploy", "--all", "--output", "{caller}/cdk.out"]),
        (["-c", "config=a.yaml", "-o", "out"], ["-c", "config={caller}/a.yaml", "-o", "{caller}/out"]),
        (["--context=config=/abs/a.yaml", "--output=o"], ["--context=config=/abs/a.yaml", "--output={caller}/o"]),
        (["-c", "team=x", "--output", "/abs/out"], ["-c", "team=x", "--output", "/abs/out"]),
    ],
    ids=["defaults", "short", "equals", "other-context"],
)
def test_cdk_arguments_resolve_against_the_callers_folder(caller: Path, args: list[str], expected: list[str]) -> None:
    # GIVEN the argument rewriting synth.sh and deploy.sh share, with a relative INFERENCE_CONFIG
    shell = (
        f'source "{ROOT / "scripts" / "_cdk_args.sh"}"; caller_cdk_args "$@"; '
        'printf "%s\\n" "${CDK_ARGS[@]}" "INFERENCE_CONFIG=$INFERENCE_CONFIG"'
    )
    # WHEN run from the user's folder
    result = _bash(["-c", shell, "bash", *args], caller, INFERENCE_CONFIG="configs/x.yaml")
    # THEN relative config and output paths are absolute against that folder, everything else untouched
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        *(e.format(caller=caller) for e in expected),
        f"INFERENCE_CONFIG={caller}/configs/x.yaml",
    ]


def test_fails_on_an_option_without_its_value(caller: Path) -> None:
    shell = f'source "{ROOT / "scripts" / "_cdk_args.sh"}"; caller_cdk_args "$@"'
    result = _bash(["-c", shell, "bash", "-o"], caller)
    assert result.returncode == 2
    assert "-o needs a value" in result.stderr


def test_bootstrap_needs_the_sdk_floor_botocore_and_finds_it_once_installed(tmp_path: Path) -> None:
    # GIVEN a checkout whose .venv and CDK CLI are there but not the SDK floor's botocore (requirements-sdk-floor.txt)
    copy = tmp_path / "repo"
    (copy / "scripts").mkdir(parents=True)
    (copy / "scripts" / "bootstrap.sh").write_text((ROOT / "scripts" / "bootstrap.sh").read_text())
    for name in ("requirements.txt", "requirements-dev.txt", "requirements-sdk-floor.txt", "pyproject.toml"):
        (copy / name).write_text((ROOT / name).read_text())
    (copy / ".venv" / "bin").mkdir(parents=True)
    (copy / ".venv" / "bin" / "python").symlink_to(ROOT / ".venv" / "bin" / "python")
    (copy / "node_modules" / ".bin").mkdir(parents=True)
    (copy / "node_modules" / ".bin" / "cdk").symlink_to(ROOT / "node_modules" / ".bin" / "cdk")
    script = ["-c", 'source scripts/bootstrap.sh && echo "bootstrapped"']
    # WHEN bootstrap runs without installing THEN it stops and names the folder and the version it needs
    missing = _bash(script, copy)
    assert missing.returncode == 1
    version = floor_version()
    assert f"botocore-{version} is missing (botocore {version} for the handler tests)" in missing.stderr
    # AND once the floor's bedrock model is there, it goes on
    model = copy / ".venv" / f"botocore-{version}" / "botocore" / "data" / "bedrock" / "2023-04-20" / "service-2.json"
    model.parent.mkdir(parents=True)
    model.write_text("{}")
    present = _bash(script, copy)
    assert present.returncode == 0, present.stderr
    assert present.stdout.strip() == "bootstrapped"


#: An environment in which the AWS SDK's credential chain finds nothing, and asks no metadata endpoint.
NO_CREDENTIALS = {
    "AWS_CONFIG_FILE": "/nonexistent/config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials",
    "AWS_EC2_METADATA_DISABLED": "true",
    "CI": "true",
    "INFERENCE_NO_INSTALL": "1",
}
#: The variables that carry credentials or a profile: none is left for these tests.
AWS_KEYS = ("AWS_ACCESS_KEY", "AWS_SECRET", "AWS_SESSION", "AWS_PROFILE")


def test_deploy_help_is_its_own_and_runs_nothing(tmp_path: Path) -> None:
    # GIVEN a user's folder WHEN they ask deploy.sh for help
    result = _bash([str(ROOT / "scripts" / "deploy.sh"), "--help"], tmp_path)
    # THEN it prints its own usage (config, profile, where cdk's options and the docs are), not cdk's, and runs nothing
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: bash scripts/deploy.sh")
    assert "-c config=PATH" in result.stdout and "docs/deploy.md" in result.stdout
    assert "cdk deploy --help" in result.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("profile", [[], ["--profile", "nope"], ["--profile=nope"]])
def test_deploy_without_credentials_stops_before_the_synth(tmp_path: Path, profile: list[str]) -> None:
    # GIVEN no AWS credentials anywhere the SDK looks (and, for some, a profile that does not exist)
    # WHEN deploy.sh runs
    result = run_from(
        tmp_path, ["bash", str(ROOT / "scripts" / "deploy.sh"), "--all", *profile], drop=AWS_KEYS, **NO_CREDENTIALS
    )
    # THEN it stops with exit 2 and a pointer to the credentials section, no traceback, and synthesized nothing
    assert result.returncode == 2, result.stdout + result.stderr
    assert "docs/deploy.md, section 1 'Credentials'" in result.stderr
    assert ("nope" in result.stderr) is bool(profile)
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "cdk.out").exists()


def test_the_credentials_check_names_where_found_credentials_come_from(tmp_path: Path) -> None:
    # GIVEN credentials in the environment only
    keys = {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "x"}
    # WHEN the check deploy.sh runs first is run
    check = [PYTHON, str(ROOT / "scripts" / "check_credentials.py")]
    result = run_from(tmp_path, check, drop=AWS_KEYS, **NO_CREDENTIALS, **keys)
    # THEN it passes and says the environment is the source
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "deploy.sh: AWS credentials from env"
