"""A separate CDK app (tests/package/consumer_app) against the installed wheel in a clean venv: each construct used
the way the README shows, with the compliance gates on, plus the natural mistakes; both files type-check with mypy
--strict against the wheel's own type information (py.typed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

APP_DIR = Path(__file__).resolve().parent / "consumer_app"
REPO_MYPY_CACHE = Path(__file__).resolve().parents[2] / ".mypy_cache"


@pytest.fixture(scope="module")
def consumer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the consumer app outside the repository."""
    target = tmp_path_factory.mktemp("consumer") / "app"
    shutil.copytree(APP_DIR, target)
    return target


def _run(python: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "MYPYPATH")}
    env["CDK_OUTDIR"] = str(cwd / "cdk.out")
    return subprocess.run(
        [str(python), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )


def test_the_consumer_app_synthesizes_with_the_gates_on(clean_python: Path, consumer: Path) -> None:
    # GIVEN the consumer app in a clean venv with the wheel installed
    # WHEN it runs (the compliance gates fail its synth on any finding)
    result = _run(clean_python, ["app.py"], consumer)
    assert result.returncode == 0, result.stderr[-4000:]
    info = json.loads(result.stdout.strip().splitlines()[-1])
    template = json.loads((consumer / "cdk.out" / "Consumer.template.json").read_text())
    types = [r["Type"] for r in template["Resources"].values()]
    # THEN strings and a tuple were accepted, the options reached the metrics, grants are managed policies only,
    # and the dashboard, the alarms and the imported endpoint are there
    assert info["instance_type"].startswith("ml.")
    assert info == {
        **info,
        "capacity": [1, 3],
        "monitored": "team-b-chat",
        "latency": "p50",
        "tokens_period_minutes": 60,
        # an imported endpoint, typed IInferenceEndpoint, offers the invocation metrics of every endpoint
        "team_b_errors": ["Invocation5XXErrors", "team-b-chat"],
    }
    assert "AWS::IAM::Policy" not in types
    assert {"AWS::IAM::ManagedPolicy", "AWS::CloudWatch::Dashboard", "AWS::CloudWatch::Alarm"} <= set(types)


EXPECTED_MISTAKES: list[tuple[str, str, str]] = [
    ("unknown_serving", "InferenceConfigError", "serving: 'vlm' is not allowed; use one of 'lmi'"),
    ("unknown_accelerator", "InferenceConfigError", "accelerator: 'tpu' is not allowed; use one of 'auto'"),
    ("capacity_backwards", "InferenceConfigError", "capacity.min: 3 is greater than capacity.max 1"),
    ("capacity_missing_key", "InferenceConfigError", "capacity.minimum: is not a capacity key; use min and max"),
    ("capacity_a_string", "TypeError", "capacity: 'big' (str) is not accepted"),
    ("model_a_dict", "TypeError", "model: {'id': 'Qwen/Qwen2.5-7B-Instruct'} (dict) is not accepted; use a ModelSpec"),
    ("serving_a_number", "TypeError", "serving: 3 (int) is not accepted"),
    ("memory_off_the_grid", "InferenceConfigError", "1500 is not allowed; use 1024..6144 in steps of 1024"),
]


@pytest.fixture(scope="module")
def mistakes(clean_python: Path, consumer: Path) -> dict[str, dict[str, Any]]:
    result = _run(clean_python, ["mistakes.py"], consumer)
    assert result.returncode == 0, result.stderr[-4000:]
    return {c["case"]: c for c in json.loads(result.stdout.strip().splitlines()[-1])}


@pytest.mark.parametrize(("case", "error_type", "message"), EXPECTED_MISTAKES, ids=[m[0] for m in EXPECTED_MISTAKES])
def test_a_natural_mistake_is_one_clean_error(
    mistakes: dict[str, dict[str, Any]], case: str, error_type: str, message: str
) -> None:
    # GIVEN the mistake WHEN the construct is built THEN one library error names the prop, the value and what is allowed
    seen = mistakes[case]
    assert error_type in seen["types"].split()
    assert message in seen["message"]


def _wait_for_the_suites_mypy(timeout_s: float = 900.0) -> None:
    """``scripts/test.sh`` runs the project's mypy beside pytest and names the file its exit status goes to, once
    its cache is written, in ``INFERENCE_MYPY_DONE``: wait for that file (no variable: nothing to wait for)."""
    done = os.environ.get("INFERENCE_MYPY_DONE")
    deadline = time.monotonic() + timeout_s
    while done and not Path(done).exists() and time.monotonic() < deadline:
        time.sleep(0.5)


def test_the_consumer_app_type_checks_with_mypy_strict(clean_python: Path, consumer: Path, tmp_path: Path) -> None:
    # GIVEN the consumer app and its mistakes, against the installed wheel's types; mypy starts from a copy of the
    # project's own cache when the suite's mypy step left one (aws-cdk-lib's modules then load from it; mypy
    # re-checks every module whose file or options differ, so the installed wheel's modules are checked afresh)
    cache = tmp_path / "mypy-cache"
    _wait_for_the_suites_mypy()
    if REPO_MYPY_CACHE.is_dir():
        shutil.copytree(REPO_MYPY_CACHE, cache)
    # WHEN mypy --strict checks them (unused "type: ignore" are errors: each mistake mypy must refuse is asserted)
    result = _run(
        clean_python,
        ["-m", "mypy", "--strict", "--cache-dir", str(cache), "--config-file", os.devnull, "app.py", "mistakes.py"],
        consumer,
    )
    # THEN there is no error
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
