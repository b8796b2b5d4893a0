"""Load a Lambda handler module by file path (``lambda`` is a Python keyword, so asset folders are not packages)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

LAMBDA_ROOT = Path(__file__).resolve().parents[2] / "lambda"


def load_handler(folder: str, module_name: str) -> ModuleType:
    """The module ``lambda/<folder>/<folder>.py``, registered as ``module_name``."""
    spec = importlib.util.spec_from_file_location(module_name, LAMBDA_ROOT / folder / f"{folder}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module
