"""Run code in a fresh Python interpreter at the repository root, to see which packages an import loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def loaded_packages(statement: str, packages: tuple[str, ...] = ("aws_cdk", "jsii")) -> str:
    """The printed sorted list of modules of ``packages`` loaded after ``statement`` runs in a fresh interpreter."""
    code = f"import sys\n{statement}\nprint(sorted(m for m in sys.modules if m.split('.')[0] in {packages!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
