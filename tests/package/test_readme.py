"""The plan table the docs show is what the plan command prints (the examples run in test_examples.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def test_docs_plan_table_is_the_current_plan_of_the_default_config(capsys: Any) -> None:
    # GIVEN the plan table shown in docs/config.md WHEN the plan command runs on config/default.yaml
    from inference_constructs.__main__ import main

    text = (ROOT / "docs" / "config.md").read_text()
    shown = text.split("## The plan", 1)[1].split("```\n", 2)[1]
    assert main(["plan", str(ROOT / "config" / "default.yaml")]) == 0
    # THEN the docs show exactly what it prints
    assert capsys.readouterr().out == shown


def test_the_install_line_names_every_dependency_the_wheel_pulls() -> None:
    # GIVEN the library's dependencies and the README's install line for the wheel
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    names = [re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0] for d in dependencies]
    (line,) = [ln for ln in (ROOT / "README.md").read_text(encoding="utf-8").splitlines() if "pip install dist/" in ln]
    # THEN it names each one (a user sees what lands in their environment, the Control Tower validator included)
    assert [n for n in names if n not in line.split("pulls", 1)[1]] == []
