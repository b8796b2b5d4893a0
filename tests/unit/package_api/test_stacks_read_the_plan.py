"""The stacks read only the plan: no stack module imports the config package (its schema, its loader, anything in
it) or reads a ``config`` attribute (the plan's or an endpoint decision's raw config), so every value a stack passes
on is a plan field. A config path becomes a plan in the plan package (``inference_constructs.plan.platform_plan``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
STACKS = ROOT / "inference_constructs" / "stacks"
CONFIG = "inference_constructs.config"


def _is_config(name: str) -> bool:
    return name == CONFIG or name.startswith(f"{CONFIG}.")


def raw_config_reads(module: str, source: str) -> list[str]:
    """``<module>:<line>: <what>`` for each import of the config package or one of its modules (anywhere in the
    module, functions included) and each ``.config`` attribute read."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{module}:{node.lineno}: imports {a.name}" for a in node.names if _is_config(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if _is_config(node.module) or any(_is_config(f"{node.module}.{a.name}") for a in node.names):
                found.append(f"{module}:{node.lineno}: imports {node.module}")
        elif isinstance(node, ast.Attribute) and node.attr == "config":
            found.append(f"{module}:{node.lineno}: reads .config")
    return sorted(found, key=lambda hit: int(hit.split(":")[1]))


def test_no_stack_module_reads_raw_config() -> None:
    # GIVEN every module of the stacks package
    files = sorted(STACKS.glob("*.py"))
    assert len(files) >= 5
    # WHEN their imports and attribute reads are listed
    found = [hit for path in files for hit in raw_config_reads(path.stem, path.read_text(encoding="utf-8"))]
    # THEN none imports the config package or reads a raw config
    assert found == []


def test_the_check_finds_each_kind_of_raw_config_read() -> None:
    # GIVEN a stack module importing the config package five ways (one in a function) and reading the plan's config
    source = (
        "from inference_constructs.config.schema import Observability\n"
        "from inference_constructs.config import schema\n"
        "import inference_constructs.config.schema\n"
        "def build(plan):\n"
        "    return plan.config.observability\n"
        "def load(path):\n"
        "    from inference_constructs.config import load_config\n"
        "    from inference_constructs import config\n"
        "    return load_config(path)\n"
    )
    # WHEN the check reads it
    found = raw_config_reads("bad", source)
    # THEN each is reported with its line
    assert found == [
        "bad:1: imports inference_constructs.config.schema",
        "bad:2: imports inference_constructs.config",
        "bad:3: imports inference_constructs.config.schema",
        "bad:5: reads .config",
        "bad:7: imports inference_constructs.config",
        "bad:8: imports inference_constructs",
    ]
