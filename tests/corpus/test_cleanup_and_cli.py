"""A failed synth leaves the output directory as it was (in process and through the CDK CLI)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import App

import inference_constructs.stacks.platform
from inference_constructs.stacks.platform import synthesize
from tests.corpus.cases import CASES
from tests.gates.synth import ROOT, cli_context

BEDROCK_ONLY = ROOT / "config" / "examples" / "bedrock-only.yaml"


def _late_failure(*_: object, **__: object) -> None:
    raise RuntimeError("a check after CDK wrote the assembly failed")


@pytest.mark.parametrize("existing", [True, False], ids=["earlier-output", "no-outdir"])
def test_failed_synth_restores_the_output_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    # GIVEN an output directory holding an earlier synth (or none), and a check that fails after CDK wrote
    out = tmp_path / "cdk.out"
    if existing:
        out.mkdir()
        (out / "earlier.template.json").write_text("{}")
        (out / "manifest.json").write_text('{"earlier": true}')
    before = {p.name: p.read_bytes() for p in out.iterdir()} if existing else None
    monkeypatch.setattr(inference_constructs.stacks.platform, "check_stack_sizes", _late_failure)
    # WHEN synthesized THEN it fails, and the directory is exactly as before (or empty: App makes it)
    with pytest.raises(RuntimeError, match="after CDK wrote"):
        synthesize(App(outdir=str(out), context=cli_context()), BEDROCK_ONLY)
    if existing:
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    else:
        assert not out.exists() or list(out.iterdir()) == []


CLI_CASES = ["keys-differ-by-case", "same-role-twice", "hyphen-runs", "billion-laughs"]


@pytest.mark.parametrize("case_id", CLI_CASES)
def test_cdk_cli_on_a_corpus_file(tmp_path: Path, case_id: str) -> None:
    # GIVEN a corpus file and an output directory holding an earlier synth
    case = next(c for c in CASES if c.id == case_id)
    config = tmp_path / f"{case_id}.yaml"
    config.write_bytes(case.text if isinstance(case.text, bytes) else case.text.encode())
    out = tmp_path / "cdk.out"
    out.mkdir()
    (out / "earlier.template.json").write_text("{}")
    # the CLI runs `python3 app.py`: this interpreter's environment first on PATH
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path, "CI": "true", "CDK_DISABLE_CLI_TELEMETRY": "true"}
    env.pop("INFERENCE_CONFIG", None)
    # WHEN the real CDK CLI synthesizes it
    result = subprocess.run(
        [
            str(ROOT / "node_modules" / ".bin" / "cdk"),
            "synth",
            "--no-notices",
            "-q",
            "-o",
            str(out),
            "-c",
            f"config={config}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    if case.accepted:
        # THEN an accepted file synthesizes
        assert result.returncode == 0, output[-2000:]
        assert (out / "inference-plan.json").exists()
    else:
        # THEN a refused one exits non-zero naming the key path, and the directory is as it was
        assert result.returncode != 0
        assert f"{case.path}:" in output or case.path is None
        assert sorted(p.name for p in out.iterdir()) == ["earlier.template.json"]
