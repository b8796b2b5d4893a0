"""Run a command of the project's venv from a user's own folder, as the README sets it up: the library installed in
``.venv`` (editable), no PYTHONPATH, no INFERENCE_CONFIG left over from the test run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = str(ROOT / ".venv" / "bin" / "python")


def run_from(
    folder: Path, args: list[str], *, drop: tuple[str, ...] = (), **extra: str
) -> subprocess.CompletedProcess[str]:
    """``args`` run in ``folder`` with the environment minus PYTHONPATH, INFERENCE_CONFIG and the variables whose
    names start with one of ``drop``, plus ``extra``; never raises on the exit code (the test reads it)."""
    removed = ("PYTHONPATH", "INFERENCE_CONFIG", *drop)
    env = {k: v for k, v in os.environ.items() if not k.startswith(removed)}
    return subprocess.run(
        args, cwd=folder, env={**env, **extra}, capture_output=True, text=True, timeout=300, check=False
    )
