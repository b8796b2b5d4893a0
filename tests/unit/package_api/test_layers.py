"""The library's import layers point one way (``docs/architecture.md``): every module has a layer, no import runs
up to a higher layer (but the one allowed below, with its reason), and no module imports itself back through
others.

Every import statement counts, wherever it is: at module level, under ``if TYPE_CHECKING:``, inside a function,
and each name a package's lazy ``__getattr__`` resolves (``lazy_exports``): each is a dependency a reader has to
follow, and a cycle of them is two modules that cannot be understood (or moved) apart.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LIBRARY = "inference_constructs"

#: The layers, from ground to top: a module may import modules of its own layer and of the layers before it.
#: An entry names one module (``inference_constructs.spec``, a package's ``__init__`` by the package's name) or,
#: ending in ``.*``, every module under a package; a module takes the layer of its own entry, else that of the
#: nearest ``.*`` entry above it. A package's ``__init__`` sits at the layer of the highest thing it re-exports.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        # Helpers and value types every layer uses; they import nothing of the library above them.
        "ground",
        (
            "inference_constructs.errors",
            "inference_constructs._tokens",
            "inference_constructs._coerce",
            "inference_constructs._plan_dict",
            "inference_constructs._ids",
            "inference_constructs._lazy",
            "inference_constructs.aws_limits",
            "inference_constructs.interfaces",
            "inference_constructs.units",
            "inference_constructs.stats",
        ),
    ),
    (
        # The validated, typed inputs the decisions take (construct props and the config's conversion target).
        "spec",
        ("inference_constructs.spec", "inference_constructs.hf_token"),
    ),
    (
        # Pure decisions (no aws_cdk): what to build, each with its reason.
        "decisions",
        (
            "inference_constructs.catalog",
            "inference_constructs.catalog.*",
            "inference_constructs.sizing",
            "inference_constructs.sizing.*",
            "inference_constructs.isolation",
            "inference_constructs.layout",
            "inference_constructs.regions",
            "inference_constructs.updates",
            "inference_constructs.containers",
            "inference_constructs.containers.*",
            "inference_constructs.hosting.*",
            "inference_constructs.scaling.*",
            "inference_constructs.bedrock.*",
            "inference_constructs.cost.*",
            "inference_constructs.observability.*",
            "inference_constructs.agents.*",
        ),
    ),
    (
        # The config file: pydantic models whose fields take the decision types, the loader and its rules.
        "config",
        ("inference_constructs.config", "inference_constructs.config.*"),
    ),
    (
        # Config to decisions: every adapter from a config block to a decision's input, and the platform plan.
        "plan",
        (
            "inference_constructs.plan",
            "inference_constructs.plan.*",
            # The old paths of two config adapters, kept as re-exports of the plan package.
            "inference_constructs.scaling.from_config",
            "inference_constructs.bedrock.governance_config",
        ),
    ),
    (
        # Decisions to resources: the constructs, their aws_cdk helpers, and the packages that re-export them.
        "constructs",
        (
            "inference_constructs._arns",
            "inference_constructs._buckets",
            "inference_constructs._synth_checks",
            "inference_constructs._grants",
            "inference_constructs._kms",
            "inference_constructs._policy",
            "inference_constructs._assets",
            "inference_constructs._handler",
            "inference_constructs.compliance",
            "inference_constructs.guard_rules",
            "inference_constructs.guard_plugin",
            "inference_constructs.region_rules",
            "inference_constructs.hosting",
            "inference_constructs.hosting._shared",
            "inference_constructs.hosting.components",
            "inference_constructs.hosting.endpoint",
            "inference_constructs.hosting.imported",
            "inference_constructs.hosting.kinds",
            "inference_constructs.hosting.metrics",
            "inference_constructs.hosting.network",
            "inference_constructs.hosting.outputs",
            "inference_constructs.hosting.properties",
            "inference_constructs.hosting.role",
            "inference_constructs.hosting.rollback",
            "inference_constructs.hosting.scaling_hooks",
            "inference_constructs.hosting.staging",
            "inference_constructs.scaling",
            "inference_constructs.scaling._base",
            "inference_constructs.scaling._render",
            "inference_constructs.scaling.autoscaling",
            "inference_constructs.scaling.inference_component",
            "inference_constructs.bedrock",
            "inference_constructs.bedrock.guardrail",
            "inference_constructs.bedrock.inference_profile",
            "inference_constructs.bedrock.invocation_logging",
            "inference_constructs.bedrock.metrics",
            "inference_constructs.bedrock.router",
            "inference_constructs.cost",
            "inference_constructs.cost.anomaly",
            "inference_constructs.cost.budget",
            "inference_constructs.cost.tag_activation",
            "inference_constructs.cost.tags",
            "inference_constructs.agents",
            "inference_constructs.agents.runtime",
            "inference_constructs.observability",
            "inference_constructs.observability.alarm_resources",
            "inference_constructs.observability.alarms",
            "inference_constructs.observability.bedrock_governance",
            "inference_constructs.observability.cross_account",
            "inference_constructs.observability.dashboard",
            "inference_constructs.observability.dashboard_sections",
            "inference_constructs.observability.metric_factory",
            "inference_constructs.observability.metrics",
            "inference_constructs.observability.tracing",
            "inference_constructs.observability.transaction_search",
        ),
    ),
    (
        # Thin stacks that build the plan's constructs; they read only the plan.
        "stacks",
        ("inference_constructs.stacks", "inference_constructs.stacks.*"),
    ),
    (
        # What a user runs: the front door, the command line and its tools.
        "app",
        (
            "inference_constructs",
            "inference_constructs.__main__",
            "inference_constructs.diff",
            "inference_constructs.diff.*",
            # the deprecated alias of the load tester, a distribution of its own
            "inference_constructs.loadtest",
        ),
    ),
]

#: The imports allowed to run up a layer, ``(importer, imported): reason``; at most one.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    """One module's import of another: where it is written and what it names."""

    importer: str
    imported: str
    line: int


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of the module at ``path`` (a package by its own name)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def library_sources(root: Path = ROOT) -> dict[str, tuple[str, bool]]:
    """``module -> (source, is a package)`` for every module of the library."""
    return {
        module_name(p, root): (p.read_text(encoding="utf-8"), p.name == "__init__.py")
        for p in sorted((root / LIBRARY).rglob("*.py"))
    }


def _known(name: str, modules: Mapping[str, object]) -> str | None:
    """``name`` or its nearest parent that is a module of the library (``a.b.C`` names ``a.b``)."""
    parts = name.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts) or None


def _lazy_targets(call: ast.Call) -> list[str]:
    """The module names of a ``lazy_exports(package, {name: module})`` call's table."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "lazy_exports" and len(call.args) == 2):
        return []
    table = call.args[1]
    if not isinstance(table, ast.Dict):
        return []
    found = [v.value for v in table.values if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value]
    for spread in (v for k, v in zip(table.keys, table.values, strict=True) if k is None):
        # ``**dict.fromkeys((names...), "module")``
        if isinstance(spread, ast.Call) and len(spread.args) == 2 and isinstance(spread.args[1], ast.Constant):
            found.append(str(spread.args[1].value))
    return found


def imports(modules: Mapping[str, tuple[str, bool]]) -> list[Import]:
    """Every import between modules of ``modules`` (``module -> (source, is a package)``), anywhere in a module:
    ``from a import b`` names the module ``a.b`` when there is one, else ``a``; relative imports are resolved."""
    found: list[Import] = []
    for importer, (source, is_package) in modules.items():
        package = importer if is_package else importer.rpartition(".")[0]
        for node in ast.walk(ast.parse(source)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Call):
                names = _lazy_targets(node)
            for name in names:
                target = _known(name, modules)
                if target is not None and target != importer:
                    found.append(Import(importer, target, getattr(node, "lineno", 0)))
    return found


def layer_of(module: str, layers: list[tuple[str, tuple[str, ...]]] = LAYERS) -> int | None:
    """The index of ``module``'s layer in ``layers``: its own entry, else the nearest ``package.*`` above it."""
    exact = {entry: i for i, (_, entries) in enumerate(layers) for entry in entries if not entry.endswith(".*")}
    under = {entry[:-2]: i for i, (_, entries) in enumerate(layers) for entry in entries if entry.endswith(".*")}
    if module in exact:
        return exact[module]
    parts = module.split(".")[:-1]
    while parts:
        if ".".join(parts) in under:
            return under[".".join(parts)]
        parts.pop()
    return None


def upward_imports(
    found: list[Import],
    layers: list[tuple[str, tuple[str, ...]]] = LAYERS,
    allowed: Mapping[tuple[str, str], str] = ALLOWED_UPWARD,
) -> list[str]:
    """``<importer>:<line> (<layer>) imports <imported> (<layer>)`` for each import of a higher layer."""
    out = []
    for imp in found:
        low, high = layer_of(imp.importer, layers), layer_of(imp.imported, layers)
        if low is None or high is None or high <= low or (imp.importer, imp.imported) in allowed:
            continue
        out.append(f"{imp.importer}:{imp.line} ({layers[low][0]}) imports {imp.imported} ({layers[high][0]})")
    return sorted(set(out))


def cycles(found: list[Import]) -> list[list[str]]:
    """Each group of modules that import one another (a strongly connected component of more than one module),
    as one cycle through it: ``[a, b, ..., a]``."""
    graph: dict[str, set[str]] = {}
    for imp in found:
        graph.setdefault(imp.importer, set()).add(imp.imported)
        graph.setdefault(imp.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_cycle_through(sorted(group)[0], group, graph) for group in groups]


def _cycle_through(start: str, group: set[str], graph: Mapping[str, set[str]]) -> list[str]:
    """The shortest import path from ``start`` back to itself inside ``group``."""
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & group):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"{start} is in no cycle")


def _file(module: str, modules: Mapping[str, tuple[str, bool]]) -> str:
    path = module.replace(".", "/")
    return f"{path}/__init__.py" if modules[module][1] else f"{path}.py"


def test_every_module_has_a_layer() -> None:
    # GIVEN every module of the library
    modules = library_sources()
    # WHEN each is looked up in the layer table
    unplaced = [m for m in modules if layer_of(m) is None]
    # THEN each has a layer (a new module gets its own entry or sits under a package's ``.*`` entry)
    assert unplaced == []


def test_no_import_runs_up_a_layer() -> None:
    # GIVEN every import of the library, module-level, under TYPE_CHECKING, in functions and lazy re-exports
    found = imports(library_sources())
    # WHEN each importer's layer is compared with the imported module's
    upward = upward_imports(found)
    # THEN none imports a higher layer but the allowed exceptions, which are few and still needed
    assert upward == []
    assert len(ALLOWED_UPWARD) <= 1
    assert set(ALLOWED_UPWARD) <= {(i.importer, i.imported) for i in found}


def test_the_module_graph_has_no_cycle() -> None:
    # GIVEN every import of the library
    modules = library_sources()
    # WHEN the graph of modules is searched for modules that import one another
    found = [" -> ".join(_file(m, modules) for m in cycle) for cycle in cycles(imports(modules))]
    # THEN there is none
    assert found == []


def _planted(sources: Mapping[str, str]) -> dict[str, tuple[str, bool]]:
    """The library's modules with ``sources`` planted over them (or added)."""
    modules = library_sources()
    modules.update({name: (text, modules.get(name, ("", False))[1]) for name, text in sources.items()})
    return modules


def test_the_layer_check_finds_a_planted_upward_import() -> None:
    # GIVEN a ground helper importing the plan inside a function, and a decision importing the config for typing
    modules = _planted(
        {
            "inference_constructs.errors": "def f():\n    from inference_constructs.plan import plan_platform\n",
            "inference_constructs.layout": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from inference_constructs.config.schema import Endpoint\n",
        }
    )
    # WHEN the layer check reads them
    upward = upward_imports(imports(modules))
    # THEN both are reported with their line and layers
    assert upward == [
        "inference_constructs.errors:2 (ground) imports inference_constructs.plan (plan)",
        "inference_constructs.layout:3 (decisions) imports inference_constructs.config.schema (config)",
    ]


def test_the_layer_check_allows_a_listed_exception() -> None:
    # GIVEN a planted upward import that the allowlist names
    modules = _planted({"inference_constructs.layout": "import inference_constructs.plan\n"})
    allowed = {("inference_constructs.layout", "inference_constructs.plan"): "a reason"}
    # WHEN the layer check reads it with that allowlist
    upward = upward_imports(imports(modules), allowed=allowed)
    # THEN it is not reported
    assert upward == []


def test_the_cycle_check_finds_a_planted_cycle() -> None:
    # GIVEN two modules of one layer that import each other, one of them through a relative import in a function
    modules = _planted(
        {
            "inference_constructs.cost.alpha": "from inference_constructs.cost.beta import B\n",
            "inference_constructs.cost.beta": "def f():\n    from .alpha import A\n",
        }
    )
    # WHEN the module graph is searched
    found = cycles(imports(modules))
    # THEN the cycle is reported through both
    assert found == [
        ["inference_constructs.cost.alpha", "inference_constructs.cost.beta", "inference_constructs.cost.alpha"]
    ]


def test_a_lazy_re_export_counts_as_an_import() -> None:
    # GIVEN a decision package facade whose lazy table names a construct module
    modules = _planted(
        {
            "inference_constructs.containers": "from inference_constructs._lazy import lazy_exports\n"
            "__getattr__, __dir__ = lazy_exports(__name__, {'X': 'inference_constructs.hosting.endpoint',"
            " **dict.fromkeys(('Y',), 'inference_constructs.stacks.platform')})\n"
        }
    )
    # WHEN the layer check reads it
    upward = upward_imports(imports(modules))
    # THEN both lazily named modules are reported
    assert upward == [
        "inference_constructs.containers:2 (decisions) imports inference_constructs.hosting.endpoint (constructs)",
        "inference_constructs.containers:2 (decisions) imports inference_constructs.stacks.platform (stacks)",
    ]


def test_observability_names_no_bedrock_module() -> None:
    # GIVEN every import of the observability package (TYPE_CHECKING ones too)
    found = imports(library_sources())
    # WHEN those of a Bedrock module are picked
    bedrock = [
        f"{i.importer}:{i.line} imports {i.imported}"
        for i in found
        if i.importer.startswith(f"{LIBRARY}.observability") and i.imported.startswith(f"{LIBRARY}.bedrock")
    ]
    # THEN there are none: observability reads what it needs through its own protocols (``targets._InferenceProfile``)
    assert bedrock == []


#: The deprecated alias modules at old paths, and one name each offers.
DEPRECATED_ALIASES = [
    ("inference_constructs.scaling.from_config", "plan_from_config", "inference_constructs.plan.scaling"),
    ("inference_constructs.bedrock.governance_config", "guardrail_spec", "inference_constructs.plan.bedrock"),
    ("inference_constructs.scaling", "plan_from_config", "inference_constructs.plan.scaling"),
]


@pytest.mark.parametrize(("alias", "name", "home"), DEPRECATED_ALIASES)
def test_a_deprecated_alias_module_loads_nothing_above_it_until_a_name_is_used(
    alias: str, name: str, home: str
) -> None:
    # GIVEN a fresh interpreter
    # WHEN the alias module is imported, then one of its names is read
    code = (
        "import sys, warnings\n"
        f"import {alias} as alias\n"
        "before = sorted(m for m in sys.modules if m.startswith('inference_constructs.plan'))\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    getattr(alias, {name!r})\n"
        "print(before, [str(w.message) for w in caught if w.category is DeprecationWarning])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    # THEN importing it loaded no plan module, and the name warned with its new path
    before, messages = result.stdout.strip().split("] ", 1)
    assert before == "["
    assert f"from {home}" in messages
