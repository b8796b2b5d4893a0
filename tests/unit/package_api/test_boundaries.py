"""The layering a tool enforces: decision modules never load aws_cdk, and no package imports another
package's private (``_``-prefixed) module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.fresh_interpreter import loaded_packages

ROOT = Path(__file__).resolve().parents[3]

#: Modules that decide (or describe decisions) and must import without aws_cdk: the plan command, the config
#: loader and the template validator run without it, and the constructs only translate what these decide.
DECISION_MODULES = [
    "inference_constructs",
    "inference_constructs.plan",
    "inference_constructs.plan.bedrock",
    "inference_constructs.plan.cost",
    "inference_constructs.plan.endpoint",
    "inference_constructs.plan.endpoint_entry",
    "inference_constructs.plan.endpoint_request",
    "inference_constructs.plan.load",
    "inference_constructs.plan.observability",
    "inference_constructs.plan.planner",
    "inference_constructs.plan.platform",
    "inference_constructs.plan.regions",
    "inference_constructs.plan.scaling",
    "inference_constructs.plan.table",
    "inference_constructs.sizing",
    "inference_constructs.spec",
    "inference_constructs.units",
    "inference_constructs.errors",
    "inference_constructs.interfaces",
    "inference_constructs.hf_token",
    "inference_constructs.layout",
    "inference_constructs.catalog",
    "inference_constructs.config",
    "inference_constructs.config.load",
    "inference_constructs.config.rules",
    "inference_constructs.config.schema",
    "inference_constructs.containers",
    "inference_constructs.containers.images",
    "inference_constructs.containers.environment",
    "inference_constructs.containers.model_access",
    "inference_constructs.regions",
    "inference_constructs.hosting",
    "inference_constructs.hosting.request",
    "inference_constructs.hosting.interface",
    "inference_constructs.hosting.checks",
    "inference_constructs.hosting.deployment",
    "inference_constructs.hosting.endpoint_plan",
    "inference_constructs.hosting.decisions",
    "inference_constructs.hosting.serving_rules",
    "inference_constructs.scaling",
    "inference_constructs.scaling.decisions",
    "inference_constructs.scaling.from_config",
    "inference_constructs.bedrock",
    "inference_constructs.bedrock.model_source",
    "inference_constructs.bedrock.governance_config",
    "inference_constructs.bedrock.inference_profile_plan",
    "inference_constructs.bedrock.regions",
    "inference_constructs.bedrock.guidance",
    "inference_constructs.bedrock.pricing",
    "inference_constructs.bedrock.router_plan",
    "inference_constructs.cost",
    "inference_constructs.cost.commitment",
    "inference_constructs.cost.capacity_tags",
    "inference_constructs.cost.decisions",
    "inference_constructs.observability",
    "inference_constructs.agents",
    "inference_constructs.agents.runtime_plan",
    "inference_constructs.observability.cross_account_plan",
    "inference_constructs.observability.decisions",
    "inference_constructs.observability.graph_data",
    "inference_constructs.observability.metric_definitions",
    "inference_constructs.observability.metric_table",
    "inference_constructs.observability.targets",
    "inference_constructs.observability.validate",
]


@pytest.mark.parametrize("module", DECISION_MODULES)
def test_decision_module_imports_without_aws_cdk(module: str) -> None:
    # GIVEN a fresh interpreter
    # WHEN only the decision module is imported
    out = loaded_packages(f"import {module}")
    # THEN neither aws_cdk nor the jsii runtime was loaded
    assert out.strip() == "[]"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(package: str, name: str) -> bool:
    """True when ``package.name`` is a module or package of the repo (not a name defined in a module)."""
    base = ROOT.joinpath(*package.split("."), name)
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _imported(tree: ast.AST) -> list[str]:
    """Every module name an import statement names (``from a import _b`` also names ``a._b``)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(
                f"{node.module}.{a.name}"
                for a in node.names
                if a.name.startswith("_") and _is_module(node.module, a.name)
            )
    return names


def private_imports(importer: str, package: str, source: str) -> list[str]:
    """``<importer>: <private module>`` for each private module ``source`` imports from a package that is not
    ``package`` (the importer's own) or one of its parents."""
    found = []
    for name in _imported(ast.parse(source)):
        parts = name.split(".")
        if parts[0] != "inference_constructs":
            continue
        for i, part in enumerate(parts):
            if part.startswith("_") and not part.startswith("__"):
                owner = ".".join(parts[:i])
                if package != owner and not package.startswith(f"{owner}."):
                    found.append(f"{importer}: {name}")
                break
    return found


def test_no_package_imports_another_packages_private_module() -> None:
    # GIVEN every module of the library, the stacks and the app
    files = sorted((ROOT / "inference_constructs").rglob("*.py"))
    files.append(ROOT / "app.py")
    # WHEN their imports are read
    found = []
    for path in files:
        importer = _module_name(path)
        package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
        found += private_imports(importer, package, path.read_text(encoding="utf-8"))
    # THEN none reaches into a private module of a package it is not part of
    assert found == []


def test_the_private_import_check_finds_a_violation() -> None:
    # GIVEN a hosting module importing the scaling package's private renderer, its own package's private
    # module and the root package's private helpers
    source = (
        "from inference_constructs.scaling import _render\n"
        "from inference_constructs.hosting._shared import InferenceStorage\n"
        "from inference_constructs import _tokens\n"
    )
    # WHEN the check reads it
    found = private_imports("inference_constructs.hosting.endpoint", "inference_constructs.hosting", source)
    # THEN only the other package's private module is reported
    assert found == ["inference_constructs.hosting.endpoint: inference_constructs.scaling._render"]
