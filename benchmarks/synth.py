"""Synth cost of the library at scale, against a hand-written baseline of plain L1 resources.

Run ``python -m benchmarks.synth [--quick]`` (or ``python -m benchmarks.run`` for every benchmark).

What is measured
----------------
- A platform config with N endpoints is generated (:func:`platform_config`): a mix of realtime GPU
  LLMs, async LLMs, serverless CPU models and CPU multi-model endpoints, validated with
  ``validate_config`` and written to a temporary YAML file.
- **library**: ``stacks.platform.synthesize(App(outdir=...), config)``: what ``cdk synth`` does (load,
  plan, build the stacks, cdk-nag packs and Control Tower controls, CloudFormation validation, synth, write
  the plan); **library-nogates**: the same platform with ``compliance_gates=False``. The time spent in the
  Control Tower plugin's validation is reported as the guard's share, with the rule files it ran.
- **baseline**: the same resources written by hand with plain L1 constructs (:func:`reemit`): every
  resource of the library's templates re-created with the same logical id, type, properties and
  attributes in the same stacks, the same acknowledged nag findings, the same cross-stack outputs, and no
  library construct, decision, aspect or tag logic. Three re-emitters (``--baseline``):

  - ``python`` (default, :func:`reemit_python`): what a hand-written Python app of plain typed L1
    constructs does. Each resource is its typed L1 class (``CfnRole``, ``CfnEndpointConfig``, ...;
    ``CfnResource`` for custom resources) instantiated from Python with keyword arguments, nested values as
    jsii struct instances (``CfnEndpointConfig.ProductionVariantProperty(...)``, ``CfnTag(...)``),
    intrinsics in typed positions as ``Fn`` tokens (``Fn.ref``, ``Fn.get_att(...).to_string()``,
    ``Fn.join``, ...), JSON documents (IAM policies) as dicts; ``DependsOn`` as
    ``add_resource_dependency``, policies and conditions through ``cfn_options``. The reflection that
    writes this code (which class, which keywords, which struct types: :func:`python_recipes`) is done
    before the timer; building the structs, tokens and constructs is timed, one jsii call at a time, as
    the hand-written app pays it.
  - ``typed`` (:func:`reemit_typed`): ``cloudformation_include.CfnInclude`` of each stack's template,
    which instantiates the same typed L1 classes inside Node from one file: the same nag rule work, but
    far fewer Python -> Node round trips than hand-written Python code makes (a favourable baseline).
  - ``generic`` (:func:`reemit_generic`, the first baseline): ``CfnResource`` for every resource. cdk-nag
    rules select resources by ``instanceof`` on the typed L1 classes, so most rules skip these: the packs
    do less work than on the library (kept for comparison).

  Both sides synthesize with the same validation settings: the three cdk-nag packs and the Control Tower
  proactive controls (``add_compliance_gates``), CDK's built-in CloudFormation validation and the project's ``cdk.json``
  context. The benchmark checks that both sides emit the same resources (types and counts per stack)
  and reports whether the templates are byte-identical (python and generic, when the library renders
  each type with the same class), equal up to key order (typed: ``CfnInclude`` keeps its own key order) or
  where they differ.
- Every measurement runs in a FRESH subprocess. In it, each side first imports what its app imports (the
  library: the library and the aws-cdk-lib modules it imports; the hand-written app: aws-cdk-lib's modules of
  its resource types and the gates), then a one-resource app is synthesized with the same validation plugins:
  that is the one-time plugin initialisation (``init``), paid equally by both sides; ``synth`` is the time of
  the measured synth after it. The report adds, per N, where ``synth`` differs (before ``app.synth()`` and in
  it) and the whole process (imports + init + synth, less the interpreter's start): what one ``cdk synth``
  costs. Each side runs
  ``--repeat`` times (the sides interleaved); the report gives the median and the spread. Peak memory is the
  largest resident set of the child's whole process tree (Python + the jsii Node process), sampled every
  20 ms from /proc, and the resident set of the largest single process (the Node process), both sampled.
- ``plan`` timing: ``python -m inference_constructs plan CONFIG`` for 300 endpoints in a fresh process
  (wall time), and ``plan_platform(load_config(path))`` in-process.

The numbers are RATIOS measured in one run on a shared, noisy machine: never assert them in tests.
"""

from __future__ import annotations

import argparse
import collections.abc
import contextlib
import functools
import importlib
import inspect
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import typing
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CDK_JSON = ROOT / "cdk.json"

#: Goal for library time / baseline time (both with the compliance gates).
RATIO_GOAL = 1.1
#: Goal for library time with the gates / without them (at N = 30).
GATES_GOAL = 1.3
#: Goal for the library's synth of 300 endpoints with the gates, in seconds.
SYNTH_300_GOAL_S = 60.0
#: Goal for ``plan`` of 300 endpoints, in seconds.
PLAN_GOAL_S = 1.0

_ENV = {
    "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION": "1",
    "CDK_DISABLE_CLI_TELEMETRY": "true",
    "CDK_DISABLE_VERSION_CHECK": "true",
}


def child_env(pycache: Path | None) -> dict[str, str]:
    """The environment of a measured child: this one's, quiet, with the repository on the path, and (``pycache``)
    Python's bytecode cache in that folder (``PYTHONPYCACHEPREFIX``) even where the shell turned caching off
    (``PYTHONDONTWRITEBYTECODE``): a user's ``cdk synth`` loads the compiled modules it wrote the first time, so
    compiling the library's modules from source in every run would charge the library for what users pay once."""
    env = {**os.environ, **_ENV, "PYTHONPATH": str(ROOT)}
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


# --------------------------------------------------------------------------------------------- config


def endpoint(i: int) -> dict[str, Any]:
    """Endpoint ``i`` of a generated platform: kinds cycle realtime GPU LLM, async LLM, serverless CPU,
    multi-model CPU; model sizes vary so the decisions vary."""
    kind = i % 4
    if kind == 0:
        size = (1, 3, 8)[(i // 4) % 3]
        return {
            "name": f"chat-{i}",
            "type": "realtime",
            "model": {
                "source": "huggingface",
                "id": "NousResearch/Meta-Llama-3.1-8B-Instruct",
                "parameters_billion": size,
                "max_context_tokens": 4096,
                "max_concurrent_sequences": 8,
            },
            "serving": "lmi",
            "accelerator": "gpu",
            "capacity": {"min": 1, "max": 3},
        }
    if kind == 1:
        return {
            "name": f"batch-{i}",
            "type": "async",
            "model": {"source": "s3", "s3_uri": f"s3://bench-models/llm-{i}/", "parameters_billion": 8},
            "serving": "lmi",
            "accelerator": "gpu",
            "capacity": {"min": 0, "max": 2},
            "async": {},
        }
    if kind == 2:
        return {
            "name": f"tabular-{i}",
            "type": "serverless",
            "model": {"source": "s3", "s3_uri": f"s3://bench-models/tabular-{i}/model.tar.gz"},
            "serving": "sklearn",
            "serverless": {"memory_mb": 2048, "max_concurrency": 10},
        }
    return {
        "name": f"tenants-{i}",
        "type": "multi-model",
        "model": {"source": "s3"},
        "serving": "sklearn",
        "multi_model": {"model_data_prefix": f"s3://bench-models/tenants-{i}/"},
        "capacity": {"min": 1, "max": 2},
    }


ENDPOINTS_PER_STACK = 25
"""Endpoints the generated platforms place in each hosting stack (``stack: i // 25 + 1``)."""


def platform_config(n: int, *, name: str = "bench") -> dict[str, Any]:
    """A platform config with ``n`` generated endpoints (no Bedrock profiles, default cost settings)."""
    return {
        "name": name,
        "tags": {"team": "bench", "cost-center": "0000"},
        # Hosting stacks are chosen by the config (``stack:``), never by config order: 25 endpoints a stack keeps
        # every stack under the resource limit for this mix.
        "endpoints": [{**endpoint(i), "stack": i // ENDPOINTS_PER_STACK + 1} for i in range(n)],
    }


def write_config(n: int, directory: Path) -> Path:
    """Validate the ``n``-endpoint config and write it as YAML into ``directory``; returns the path."""
    from inference_constructs.config import validate_config

    data = platform_config(n)
    validate_config(json.loads(json.dumps(data)), source=f"bench-{n}")
    path = directory / f"bench-{n}.yaml"
    import yaml  # here, not at the top: a measured child imports it only as part of the library's imports

    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def cdk_context() -> dict[str, Any]:
    """The project's feature flags (``cdk.json`` context), as ``cdk synth`` passes them."""
    if not CDK_JSON.exists():
        return {}
    context: dict[str, Any] = json.loads(CDK_JSON.read_text(encoding="utf-8")).get("context", {})
    return context


# --------------------------------------------------------------------------------------------- baseline


@dataclass
class StackSource:
    """One synthesized stack of the library: template, dependencies and acknowledged nag findings."""

    name: str
    template: dict[str, Any]
    dependencies: list[str] = field(default_factory=list)
    logical_paths: dict[str, str] = field(default_factory=dict)
    """logical id -> construct path"""
    acknowledgments: list[tuple[str, str, str]] = field(default_factory=list)
    """(construct path, rule id, reason)"""
    file_assets: list[tuple[str, Path]] = field(default_factory=list)
    """(display name, staged directory) of every file asset the stack ships besides its template (the Lambda
    code): a hand-written app stages the same files"""


def read_assembly(outdir: Path) -> list[StackSource]:
    """The stacks of a cloud assembly directory, in manifest order."""
    manifest = json.loads((outdir / "manifest.json").read_text(encoding="utf-8"))
    artifacts: dict[str, Any] = manifest["artifacts"]
    stacks = {k for k, a in artifacts.items() if a["type"] == "aws:cloudformation:stack"}
    out = []
    for name in stacks_in_order(artifacts, stacks):
        art = artifacts[name]
        template = json.loads((outdir / art["properties"]["templateFile"]).read_text(encoding="utf-8"))
        src = StackSource(name, template, [d for d in art.get("dependencies", []) if d in stacks])
        assets_file = outdir / f"{name}.assets.json"
        if assets_file.exists():
            for asset in json.loads(assets_file.read_text(encoding="utf-8")).get("files", {}).values():
                if asset["source"].get("packaging") == "zip":
                    src.file_assets.append((asset["displayName"], _code_folder(outdir / asset["source"]["path"])))
        metadata: dict[str, list[dict[str, Any]]] = dict(art.get("metadata", {}))
        meta_file = outdir / f"{name}.metadata.json"
        if meta_file.exists():
            metadata.update(json.loads(meta_file.read_text(encoding="utf-8")))
        for path, entries in metadata.items():
            for entry in entries:
                if entry["type"] == "aws:cdk:logicalId":
                    src.logical_paths[entry["data"]] = path
                elif entry["type"] == "aws:cdk:acknowledged-rules":
                    for rule, reason in entry["data"].items():
                        src.acknowledgments.append((path, rule.removeprefix("Annotation::"), reason))
        out.append(src)
    return out


def _code_folder(staged: Path) -> Path:
    """A copy of the staged asset folder ``staged`` (``asset.<hash>``) under a name without a dot, as a
    hand-written app keeps its code (``lambda/<name>``): CDK names a staged copy ``asset.<hash><extension>``,
    and the dot of ``asset.<hash>`` would be taken for an extension. The content, and so the hash, is the same."""
    folder = staged.parent.with_name(f"{staged.parent.name}-code") / staged.name.removeprefix("asset.") / "code"
    if not folder.is_dir():
        shutil.copytree(staged, folder)
    return folder


def stacks_in_order(artifacts: Mapping[str, Any], stacks: set[str]) -> list[str]:
    """Stack names with every dependency before its dependents (manifest order otherwise)."""
    done: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        for dep in artifacts[name].get("dependencies", []):
            if dep in stacks:
                visit(dep)
        done.append(name)

    for name in artifacts:
        if name in stacks:
            visit(name)
    return done


_SYNTHESIZER_PARAMETERS = {"BootstrapVersion"}
_SYNTHESIZER_RULES = {"CheckBootstrapVersion"}


def _scalar(value: Any) -> str:
    """A template value as a hand-written app writes it: the pseudo parameter ``AWS::Region`` as ``Aws.REGION``,
    any other intrinsic as a token of itself."""
    from aws_cdk import Aws, Token

    if value == {"Ref": "AWS::Region"}:
        return str(Aws.REGION)
    return value if isinstance(value, str) else str(Token.as_string(value))


def _condition(expr: Any) -> Any:
    """A CloudFormation condition expression as a CDK ICfnConditionExpression."""
    from aws_cdk import Fn

    if isinstance(expr, dict) and len(expr) == 1:
        ((op, args),) = expr.items()
        if op == "Fn::Equals":
            return Fn.condition_equals(args[0], args[1])
        if op == "Fn::And":
            return Fn.condition_and(*(_condition(a) for a in args))
        if op == "Fn::Or":
            return Fn.condition_or(*(_condition(a) for a in args))
        if op == "Fn::Not":
            return Fn.condition_not(_condition(args[0]))
        if op == "Fn::Contains":
            return Fn.condition_contains([str(item) for item in args[0]], _scalar(args[1]))
    raise NotImplementedError(f"condition expression not supported by the re-emitter: {expr!r}")


def emit_section(  # noqa: C901, PLR0912 - one branch per template section kind
    stack: Any, stack_name: str, section: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    """Re-create one non-resource template section in ``stack`` as hand-written code does: ``CfnMapping``,
    ``CfnParameter`` (not the synthesizer's ``BootstrapVersion``), ``CfnCondition``, ``CfnOutput`` (with its
    export) and ``CfnRule`` (not the synthesizer's own ``CheckBootstrapVersion``). Returns the conditions
    created, by logical id (for resources' ``Condition`` attribute). Shared by :func:`reemit_generic` and
    :func:`reemit_python`."""
    from aws_cdk import CfnCondition, CfnMapping, CfnOutput, CfnParameter, CfnRule, CfnRuleAssertion, Token

    conditions: dict[str, Any] = {}
    if section == "Mappings":
        for lid, mapping in body.items():
            CfnMapping(stack, lid, mapping=mapping)
    elif section == "Parameters":
        for lid, p in body.items():
            if lid not in _SYNTHESIZER_PARAMETERS:
                CfnParameter(stack, lid, type=p.get("Type"), default=p.get("Default"), description=p.get("Description"))
    elif section == "Conditions":
        for lid, expr in body.items():
            conditions[lid] = CfnCondition(stack, lid, expression=_condition(expr))
    elif section == "Outputs":
        for lid, out in body.items():
            CfnOutput(
                stack,
                lid,
                value=Token.as_string(out["Value"]),
                export_name=out.get("Export", {}).get("Name"),
                description=out.get("Description"),
            )
    elif section == "Rules":
        for lid, rule in body.items():
            if lid in _SYNTHESIZER_RULES:
                continue
            if set(rule) - {"Assertions", "RuleCondition"}:
                raise NotImplementedError(f"{stack_name}: rule {lid} has keys the re-emitter lacks: {sorted(rule)}")
            CfnRule(
                stack,
                lid,
                rule_condition=_condition(rule["RuleCondition"]) if "RuleCondition" in rule else None,
                assertions=[
                    CfnRuleAssertion(assert_=_condition(a["Assert"]), assert_description=a["AssertDescription"])
                    for a in rule.get("Assertions", [])
                ],
            )
    else:
        raise NotImplementedError(f"{stack_name}: template section {section} is not supported")
    return conditions


def stage_file_assets(stack: Any, src: StackSource) -> None:
    """Stage the files ``src`` ships besides its template (the Lambda code) in ``stack``, as a hand-written app
    must for ``cdk deploy`` to publish them: one ``aws_s3_assets.Asset`` each (hashing and copying into the
    assembly, the asset manifest's entry). The function's ``Code`` property already names the asset's bucket
    and key, so the templates are unchanged."""
    from aws_cdk import aws_s3_assets as s3_assets

    for i, (display_name, directory) in enumerate(src.file_assets):
        s3_assets.Asset(stack, f"FileAsset{i}", path=str(directory), display_name=display_name)


def reemit_generic(app: Any, sources: Sequence[StackSource]) -> dict[str, Any]:
    """The ``generic`` baseline (the first one published): re-create every stack of ``sources`` in ``app``
    with ``CfnResource`` (same logical ids, types, properties, DependsOn and policies), ``CfnMapping``,
    ``CfnParameter``, ``CfnCondition`` and ``CfnOutput``, the same stack dependencies and the same
    acknowledged findings. Returns the stacks by name.

    cdk-nag rules select resources by ``instanceof`` on typed L1 classes, so most rules skip these
    generic resources: this baseline does less validation work than the library (kept for comparison)."""
    from aws_cdk import Acknowledgment, CfnResource, Stack, Validations

    stacks: dict[str, Stack] = {}
    for src in sources:
        stack = Stack(app, src.name)
        stacks[src.name] = stack
        stage_file_assets(stack, src)
        for dep in src.dependencies:
            stack.add_stack_dependency(stacks[dep])
        t = src.template
        resources: dict[str, CfnResource] = {}
        # Sections in the library's order, so that equal content gives byte-identical templates.
        for section, body in t.items():
            if section == "Resources":
                for lid, res in body.items():
                    r = CfnResource(stack, lid, type=res["Type"], properties=res.get("Properties"))
                    for key, value in res.items():
                        if key not in ("Type", "Properties"):
                            r.add_override(key, value)
                    resources[lid] = r
            else:
                emit_section(stack, src.name, section, body)
        # The library's acknowledgments, on the same resources (a construct's acknowledgment covers its children).
        for path, rule, reason in src.acknowledgments:
            targets: list[Any] = [stack] if path == f"/{src.name}" else []
            if not targets:
                targets = [
                    resources[lid]
                    for lid, p in src.logical_paths.items()
                    if lid in resources and (p == path or p.startswith(path + "/"))
                ]
            for target in targets:
                Validations.of(target).acknowledge(Acknowledgment(id=rule, reason=reason))
    return stacks


BASELINES = ("python", "typed", "generic")
"""``python``: :func:`reemit_python` (default: typed L1 classes instantiated from Python with struct instances
and ``Fn`` tokens, as a hand-written app does); ``typed``: :func:`reemit_typed` (the typed L1 classes built
inside Node by ``CfnInclude``: the same nag rule work, fewer jsii round trips than hand-written Python);
``generic``: :func:`reemit_generic` (plain ``CfnResource``, most nag rules skip it)."""
BASELINE_TITLES = {
    "python": "baseline 'python' (typed L1 classes instantiated from Python, as hand-written)",
    "typed": "baseline 'typed' (typed L1 classes via CfnInclude; fewer jsii calls than hand-written)",
    "generic": "baseline 'generic' (CfnResource; most nag rules skip it)",
}


def include_template(src: StackSource) -> dict[str, Any]:
    """The template ``CfnInclude`` reads for ``src``: the library's template without the synthesizer's
    ``BootstrapVersion`` parameter and ``CheckBootstrapVersion`` rule (the baseline stack's synthesizer adds
    them again, as it does for the library)."""
    out: dict[str, Any] = {}
    for section, body in src.template.items():
        kept = body
        if section == "Parameters":
            kept = {k: v for k, v in body.items() if k not in _SYNTHESIZER_PARAMETERS}
        elif section == "Rules":
            kept = {k: v for k, v in body.items() if k not in _SYNTHESIZER_RULES}
        if kept:
            out[section] = kept
    return out


def write_include_templates(sources: Sequence[StackSource], directory: Path) -> dict[str, Path]:
    """Write :func:`include_template` of every stack into ``directory``; returns the paths by stack name.
    (A hand-written app has these resources in code; writing the files is not part of its synth.)"""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for src in sources:
        path = directory / f"{src.name}.include.json"
        path.write_text(json.dumps(include_template(src)), encoding="utf-8")
        paths[src.name] = path
    return paths


def reemit_typed(app: Any, sources: Sequence[StackSource], template_files: Mapping[str, Path]) -> dict[str, Any]:
    """Hand-written TYPED L1: re-create every stack of ``sources`` in ``app`` with
    ``cloudformation_include.CfnInclude`` of its template (``template_files``, from
    :func:`write_include_templates`), which instantiates the typed L1 class of each resource type
    (``CfnRole``, ``CfnAlarm``, ``CfnEndpoint``, ...; ``CfnResource`` only for unknown types) with the same
    logical ids, properties, DependsOn, conditions, mappings and outputs; the same stack dependencies and
    the same acknowledged findings on the same resources (``get_resource``). cdk-nag rules select resources
    by ``instanceof`` on the typed classes, so its packs do the same rule work as on the library.
    Returns the stacks by name."""
    from aws_cdk import Acknowledgment, Stack, Validations
    from aws_cdk.cloudformation_include import CfnInclude

    stacks: dict[str, Stack] = {}
    for src in sources:
        stack = Stack(app, src.name)
        stacks[src.name] = stack
        stage_file_assets(stack, src)
        for dep in src.dependencies:
            stack.add_stack_dependency(stacks[dep])
        included = CfnInclude(stack, "Template", template_file=str(template_files[src.name]))
        lids = set(src.template.get("Resources", {}))
        # The library's acknowledgments, on the same resources (a construct's acknowledgment covers its
        # children), batched per resource as the library batches them per construct.
        per_target: dict[str, list[Any]] = {}
        for path, rule, reason in src.acknowledgments:
            if path == f"/{src.name}":
                targets = [""]
            else:
                targets = [
                    lid
                    for lid, p in src.logical_paths.items()
                    if lid in lids and (p == path or p.startswith(path + "/"))
                ]
            for lid in targets:
                per_target.setdefault(lid, []).append(Acknowledgment(id=rule, reason=reason))
        for lid, acks in per_target.items():
            target = stack if lid == "" else included.get_resource(lid)
            Validations.of(target).acknowledge(*acks)
    return stacks


# ----------------------------------------------------------------------------- baseline 'python'
#
# A hand-written Python CDK app of plain typed L1 constructs, generated from the library's templates in two
# steps: the REFLECTION (which L1 class, which keyword arguments, which struct classes, which token for
# which intrinsic: :func:`python_recipes`) is done before the timer, as a programmer does it while writing
# the code; the CONSTRUCTION (struct instances, ``Fn`` tokens, the L1 constructs, their attributes and
# acknowledgments: :func:`reemit_python`) is what the app does when it runs, and is timed.

#: Resource types that hand-written code creates with ``CfnResource`` (custom resources).
_CUSTOM_TYPES = ("AWS::CloudFormation::CustomResource",)
#: CloudFormation deletion / update-replace policy -> ``CfnDeletionPolicy`` member name.
_POLICIES = {
    "Delete": "DELETE",
    "Retain": "RETAIN",
    "RetainExceptOnCreate": "RETAIN_EXCEPT_ON_CREATE",
    "Snapshot": "SNAPSHOT",
}


class _Node:
    """One value of a recipe; :meth:`build` makes it (inside the timer)."""

    __slots__ = ()

    def build(self) -> Any:
        """The Python value the hand-written code passes."""
        raise NotImplementedError


class _Literal(_Node):
    """A literal: a string, number, boolean, or a list / dict / JSON document written inline."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def build(self) -> Any:
        return self.value


class _List(_Node):
    """A list with at least one non-literal item."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[_Node]) -> None:
        self.items = tuple(items)

    def build(self) -> Any:
        return [item.build() for item in self.items]


class _Map(_Node):
    """A ``Mapping[str, ...]`` with at least one non-literal value."""

    __slots__ = ("items",)

    def __init__(self, items: Mapping[str, _Node]) -> None:
        self.items = tuple(items.items())

    def build(self) -> Any:
        return {key: value.build() for key, value in self.items}


class _Struct(_Node):
    """A jsii struct instance (``CfnTag(key=..., value=...)``, ``CfnX.YProperty(...)``)."""

    __slots__ = ("cls", "kwargs")

    def __init__(self, cls: Any, kwargs: Mapping[str, _Node]) -> None:
        self.cls = cls
        self.kwargs = tuple(kwargs.items())

    def build(self) -> Any:
        return self.cls(**{name: value.build() for name, value in self.kwargs})


class _Call(_Node):
    """A call that makes a token (``Fn.ref(...)``, ``Token.as_number(...)``), then optionally one method of
    its result without arguments (``Fn.get_att(...).to_string()``)."""

    __slots__ = ("args", "fn", "then")

    def __init__(self, fn: Any, args: Sequence[_Node], then: str = "") -> None:
        self.fn = fn
        self.args = tuple(args)
        self.then = then

    def build(self) -> Any:
        out = self.fn(*(arg.build() for arg in self.args))
        return getattr(out, self.then)() if self.then else out


def _literal(node: _Node) -> bool:
    return type(node) is _Literal


@dataclass
class ResourceRecipe:
    """How hand-written code creates one resource: ``cls(stack, lid, **kwargs)``, then its attributes."""

    lid: str
    cls: Any
    kwargs: dict[str, _Node]
    depends_on: list[str] = field(default_factory=list)
    condition: str | None = None
    deletion_policy: Any = None
    """a ``CfnDeletionPolicy`` member, or None"""
    update_replace_policy: Any = None
    metadata: dict[str, Any] | None = None


@dataclass
class StackRecipe:
    """How hand-written code creates one stack (see :func:`python_recipes`)."""

    source: StackSource
    sections: list[tuple[str, Any]]
    """(section, list of :class:`ResourceRecipe` for Resources, the template's body otherwise), in the
    template's order"""
    acknowledgments: dict[str, list[tuple[str, str]]]
    """logical id ("" for the stack) -> (rule, reason) acknowledged on it"""


def _norm(name: str) -> str:
    """A property or keyword name compared case- and underscore-insensitively (``KmsKeyId`` ~ ``kms_key_id``)."""
    return name.replace("_", "").lower()


def app_modules(sources: Sequence[StackSource]) -> list[str]:
    """The aws-cdk-lib modules a hand-written app of ``sources`` imports: ``aws_cdk.aws_<service>`` of each
    ``AWS::<Service>::*`` resource type (:func:`l1_class` finds the class there), and ``aws_cdk.aws_s3_assets``
    when a stack ships files."""
    modules = {
        f"aws_cdk.aws_{parts[1].lower()}"
        for src in sources
        for resource in src.template.get("Resources", {}).values()
        if len(parts := str(resource.get("Type", "")).split("::")) == 3 and parts[0] == "AWS"
    }
    if any(src.file_assets for src in sources):
        modules.add("aws_cdk.aws_s3_assets")
    return sorted(modules)


@functools.cache
def l1_class(resource_type: str) -> Any:
    """The typed Python L1 class of a CloudFormation resource type: the class of module
    ``aws_cdk.aws_<service>`` whose ``CFN_RESOURCE_TYPE_NAME`` is ``resource_type``; ``CfnResource`` for
    custom resources (``Custom::*``, ``AWS::CloudFormation::CustomResource``), as hand-written code has it."""
    import aws_cdk

    if resource_type.startswith("Custom::") or resource_type in _CUSTOM_TYPES:
        return aws_cdk.CfnResource
    parts = resource_type.split("::")
    if len(parts) != 3 or parts[0] != "AWS":
        raise NotImplementedError(f"resource type {resource_type} has no typed L1 class")
    try:
        module = importlib.import_module(f"aws_cdk.aws_{parts[1].lower()}")
    except ImportError:
        raise NotImplementedError(f"resource type {resource_type}: no module aws_cdk.aws_{parts[1].lower()}") from None
    # Reading CFN_RESOURCE_TYPE_NAME is a jsii call: try the class named after the type first.
    names = sorted(vars(module), key=lambda name: name != f"Cfn{parts[2]}")
    for name in names:
        cls = getattr(module, name)
        if (
            isinstance(cls, type)
            and name.startswith("Cfn")
            and issubclass(cls, aws_cdk.CfnResource)
            and getattr(cls, "CFN_RESOURCE_TYPE_NAME", None) == resource_type
        ):
            return cls
    raise NotImplementedError(f"resource type {resource_type}: no L1 class in {module.__name__}")


@functools.cache
def _keywords(cls: Any) -> dict[str, tuple[str, Any]]:
    """The keyword-only parameters of ``cls.__init__`` (an L1 class or a jsii struct): normalised name
    (:func:`_norm`) -> (Python keyword, type hint)."""
    hints = typing.get_type_hints(cls.__init__)
    return {
        _norm(name): (name, hints[name])
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def _is_struct(hint: Any) -> bool:
    return isinstance(hint, type) and hasattr(hint, "__jsii_struct_bases__")


@functools.cache
def _shapes(hint: Any) -> tuple[tuple[str, Any], ...]:  # noqa: C901, PLR0912 - one branch per jsii hint shape
    """The alternatives of a jsii type hint as (kind, detail): ``("struct", cls)``, ``("list", item hint)``,
    ``("map", value hint)``, ``("str"|"number"|"bool"|"json", None)``. ``None``, ``IResolvable`` (tokens) and
    the ``Dict[str, Any]`` alternative of a struct (a struct written as a dict) and jsii interfaces (resource
    references such as ``IKeyRef``) are left out."""
    import aws_cdk

    alternatives = typing.get_args(hint) if typing.get_origin(hint) is typing.Union else (hint,)
    out: list[tuple[str, Any]] = []
    for alt in alternatives:
        origin, args = typing.get_origin(alt), typing.get_args(alt)
        if alt is type(None) or alt is aws_cdk.IResolvable:
            continue
        if getattr(alt, "_is_protocol", False):
            # A jsii interface: ``IResolvable`` or a resource reference (``IKeyRef``, ``IRoleRef``: the L1
            # object itself). The templates hold strings and intrinsics, written as strings and tokens.
            continue
        if alt is Any:
            shape: tuple[str, Any] = ("json", None)
        elif _is_struct(alt):
            shape = ("struct", alt)
        elif origin in (list, collections.abc.Sequence):
            shape = ("list", args[0])
        elif origin in (dict, collections.abc.Mapping):
            if args[0] is not str:
                raise NotImplementedError(f"mapping with {args[0]} keys: {hint}")
            shape = ("json", None) if args[1] is Any else ("map", args[1])
        elif alt is str:
            shape = ("str", None)
        elif alt in (int, float):
            shape = ("number", None)
        elif alt is bool:
            shape = ("bool", None)
        else:
            raise NotImplementedError(f"type hint {alt} in {hint}")
        if shape not in out:
            out.append(shape)
    if any(kind == "struct" for kind, _ in out):  # Dict[str, Any] is the struct written as a dict
        out = [shape for shape in out if shape[0] != "json"]
    return tuple(out)


def _intrinsic_name(value: Any) -> str:
    """``Ref`` / ``Fn::X`` if ``value`` is a CloudFormation intrinsic, else ""."""
    if type(value) is dict and len(value) == 1:
        (key,) = value
        if key == "Ref" or key.startswith("Fn::"):
            return str(key)
    return ""


def _shape_for(value: Any, hint: Any, where: str) -> tuple[str, Any]:
    """The alternative of ``hint`` that ``value`` (a template value) takes."""
    try:
        shapes = _shapes(hint)
    except NotImplementedError as e:
        raise NotImplementedError(f"{where}: {e}") from None
    if _intrinsic_name(value):
        fits = [s for s in shapes if s[0] != "json"] or list(shapes)
    elif isinstance(value, bool):
        fits = [s for s in shapes if s[0] in ("bool", "json")]
    elif isinstance(value, int | float):
        fits = [s for s in shapes if s[0] in ("number", "json")]
    elif isinstance(value, str):
        fits = [s for s in shapes if s[0] in ("str", "json")]
    elif isinstance(value, list):
        fits = [s for s in shapes if s[0] in ("list", "json")]
    elif isinstance(value, dict):
        fits = [s for s in shapes if s[0] in ("struct", "map", "json")]
    else:
        fits = []
    if len(fits) != 1:
        raise NotImplementedError(f"{where}: value {value!r:.80} does not fit exactly one of {hint}")
    return fits[0]


def _value(value: Any, hint: Any, where: str) -> _Node:
    """The recipe of a template value passed where ``hint`` is expected."""
    kind, detail = _shape_for(value, hint, where)
    if kind == "json":
        return _Literal(value)  # JSON documents are written inline; intrinsics in them render unchanged
    if _intrinsic_name(value):
        return _token(value, kind, where)
    if kind == "struct":
        return _Struct(detail, _kwargs(detail, value, where))
    if kind == "list":
        items = [_value(item, detail, f"{where}[{i}]") for i, item in enumerate(value)]
        return _Literal([n.build() for n in items]) if all(map(_literal, items)) else _List(items)
    if kind == "map":
        entries = {k: _value(v, detail, f"{where}.{k}") for k, v in value.items()}
        return (
            _Literal({k: n.build() for k, n in entries.items()})
            if all(map(_literal, entries.values()))
            else _Map(entries)
        )
    return _Literal(value)  # str, number, bool


def _kwargs(cls: Any, properties: Mapping[str, Any], where: str) -> dict[str, _Node]:
    """CloudFormation properties as keyword arguments of ``cls`` (an L1 class or a struct)."""
    keywords = _keywords(cls)
    out: dict[str, _Node] = {}
    for key, value in properties.items():
        found = keywords.get(_norm(key))
        if found is None:
            raise NotImplementedError(f"{where}: {cls.__qualname__} has no keyword for property {key}")
        name, hint = found
        out[name] = _value(value, hint, f"{where}.{key}")
    return out


def _string(value: Any, where: str) -> _Node:
    """A template value in a string position: a literal or a string token."""
    if isinstance(value, str):
        return _Literal(value)
    if not _intrinsic_name(value):
        raise NotImplementedError(f"{where}: expected a string, got {value!r:.80}")
    return _token(value, "str", where)


def _token(value: Mapping[str, Any], kind: str, where: str) -> _Node:  # noqa: C901, PLR0912 - one branch per intrinsic
    """A CloudFormation intrinsic as the CDK token hand-written code writes in a ``kind`` position
    (``str``, ``number`` or ``list``): ``Fn.ref``, ``Fn.get_att``, ``Fn.join``, ``Fn.sub``,
    ``Fn.find_in_map``, ``Fn.import_value``, wrapped in ``Token.as_number`` / ``Token.as_list`` where the
    position needs it. Only the intrinsics the benchmark's templates contain are supported."""
    from aws_cdk import Fn, Token

    ((name, arg),) = value.items()
    if kind not in ("str", "number", "list"):
        raise NotImplementedError(f"{where}: {name} in a {kind} position")
    if name == "Fn::GetAtt":
        lid, attr = arg.split(".", 1) if isinstance(arg, str) else arg
        att = (_Literal(lid), _Literal(attr))
        if kind == "str":
            return _Call(Fn.get_att, att, "to_string")
        return _Call(Token.as_number if kind == "number" else Token.as_list, [_Call(Fn.get_att, att)])
    if name == "Ref":
        string: _Node = _Call(Fn.ref, [_Literal(arg)])
    elif name == "Fn::Join":
        delimiter, items = arg
        if not isinstance(items, list):
            raise NotImplementedError(f"{where}: Fn::Join of {items!r:.80}")
        string = _Call(Fn.join, [_Literal(delimiter), _List([_string(v, where) for v in items])])
    elif name == "Fn::Sub":
        body, variables = (arg, {}) if isinstance(arg, str) else arg
        args: list[_Node] = [_Literal(body)]
        if variables:
            args.append(_Map({k: _string(v, where) for k, v in variables.items()}))
        string = _Call(Fn.sub, args)
    elif name == "Fn::FindInMap":
        if len(arg) != 3:
            raise NotImplementedError(f"{where}: Fn::FindInMap with a default value")
        string = _Call(Fn.find_in_map, [_string(a, where) for a in arg])
    elif name == "Fn::ImportValue":
        string = _Call(Fn.import_value, [_string(arg, where)])
    else:
        raise NotImplementedError(f"{where}: intrinsic {name} is not supported by the python baseline")
    if kind == "number":
        return _Call(Token.as_number, [string])
    if kind == "list":
        return _Call(Token.as_list, [string])
    return string


def resource_recipe(stack_name: str, lid: str, resource: Mapping[str, Any]) -> ResourceRecipe:
    """The recipe of one template resource (see :func:`python_recipes`)."""
    from aws_cdk import CfnDeletionPolicy

    rtype = resource["Type"]
    where = f"{stack_name}/{lid} ({rtype})"
    cls = l1_class(rtype)
    props = resource.get("Properties", {})
    if cls is l1_class("AWS::CloudFormation::CustomResource"):
        kwargs: dict[str, _Node] = {"type": _Literal(rtype)}
        if props:
            kwargs["properties"] = _Literal(props)
    else:
        kwargs = _kwargs(cls, props, where)
    recipe = ResourceRecipe(lid, cls, kwargs)
    for key, value in resource.items():
        if key in ("Type", "Properties"):
            continue
        if key == "DependsOn":
            recipe.depends_on = [value] if isinstance(value, str) else list(value)
        elif key == "Condition":
            recipe.condition = value
        elif key in ("DeletionPolicy", "UpdateReplacePolicy") and value in _POLICIES:
            policy = getattr(CfnDeletionPolicy, _POLICIES[value])
            if key == "DeletionPolicy":
                recipe.deletion_policy = policy
            else:
                recipe.update_replace_policy = policy
        elif key == "Metadata":
            recipe.metadata = value
        else:
            raise NotImplementedError(f"{where}: resource attribute {key}={value!r:.80} is not supported")
    return recipe


def acknowledgment_targets(src: StackSource) -> dict[str, list[tuple[str, str]]]:
    """The library's acknowledged findings of ``src`` by the resource they cover (a construct's
    acknowledgment covers its children's resources; "" is the stack): logical id -> (rule, reason)."""
    lids = set(src.template.get("Resources", {}))
    out: dict[str, list[tuple[str, str]]] = {}
    for path, rule, reason in src.acknowledgments:
        if path == f"/{src.name}":
            targets = [""]
        else:
            targets = [
                lid for lid, p in src.logical_paths.items() if lid in lids and (p == path or p.startswith(path + "/"))
            ]
        for lid in targets:
            out.setdefault(lid, []).append((rule, reason))
    return out


def python_recipes(sources: Sequence[StackSource]) -> list[StackRecipe]:
    """The reflection half of the ``python`` baseline (not timed: a programmer does it while writing the
    app): for every resource, its typed L1 class (:func:`l1_class`), its properties as the class's keyword
    arguments (matched against ``inspect.signature``), nested values as the jsii struct classes of the type
    hints (``typing.get_type_hints``) and intrinsics as the ``Fn`` / ``Token`` calls that make them. Raises
    ``NotImplementedError`` naming the resource for anything it cannot write as typed code."""
    out = []
    for src in sources:
        sections: list[tuple[str, Any]] = []
        for section, body in src.template.items():
            if section == "Resources":
                sections.append((section, [resource_recipe(src.name, lid, res) for lid, res in body.items()]))
            else:
                sections.append((section, body))
        out.append(StackRecipe(src, sections, acknowledgment_targets(src)))
    return out


def reemit_python(  # noqa: C901, PLR0912 - one branch per kind of value the hand-written baseline writes
    app: Any, sources: Sequence[StackSource], recipes: Sequence[StackRecipe] | None = None
) -> dict[str, Any]:
    """Hand-written Python TYPED L1 (the default baseline): re-create every stack of ``sources`` in ``app``
    as a Python app of plain typed L1 constructs does: ``Stack``, ``add_stack_dependency``, then per
    resource its typed L1 class (``CfnRole(stack, lid, policies=[CfnRole.PolicyProperty(...)], ...)``) with
    struct instances and ``Fn`` tokens built in Python, one jsii call at a time; ``add_resource_dependency``
    for ``DependsOn`` (``add_dependency`` is deprecated), ``cfn_options`` for conditions, policies and
    metadata; mappings, parameters, conditions and outputs as :func:`reemit_generic` does; the same
    acknowledged findings on the same resources, batched per resource. ``recipes`` (:func:`python_recipes`,
    computed here if None) hold the reflection, which is not part of the app's run. Returns the stacks by
    name."""
    from aws_cdk import Acknowledgment, Stack, Validations

    if recipes is None:
        recipes = python_recipes(sources)
    stacks: dict[str, Stack] = {}
    for recipe in recipes:
        src = recipe.source
        stack = Stack(app, src.name)
        stacks[src.name] = stack
        stage_file_assets(stack, src)
        for dep in src.dependencies:
            stack.add_stack_dependency(stacks[dep])
        resources: dict[str, Any] = {}
        conditions: dict[str, Any] = {}
        for section, body in recipe.sections:
            if section == "Resources":
                for r in body:
                    resources[r.lid] = r.cls(stack, r.lid, **{k: v.build() for k, v in r.kwargs.items()})
            else:
                conditions.update(emit_section(stack, src.name, section, body))
        # Attributes once every resource and condition of the stack exists.
        for section, body in recipe.sections:
            if section != "Resources":
                continue
            for r in body:
                construct = resources[r.lid]
                for dep in r.depends_on:
                    construct.add_resource_dependency(resources[dep])
                if (
                    r.condition is not None
                    or r.deletion_policy is not None
                    or r.update_replace_policy is not None
                    or r.metadata is not None
                ):
                    options = construct.cfn_options
                    if r.condition is not None:
                        options.condition = conditions[r.condition]
                    if r.deletion_policy is not None:
                        options.deletion_policy = r.deletion_policy
                    if r.update_replace_policy is not None:
                        options.update_replace_policy = r.update_replace_policy
                    if r.metadata is not None:
                        options.metadata = r.metadata
        for lid, acks in recipe.acknowledgments.items():
            target = stack if lid == "" else resources[lid]
            Validations.of(target).acknowledge(*(Acknowledgment(id=rule, reason=reason) for rule, reason in acks))
    return stacks


def reemit(
    app: Any, sources: Sequence[StackSource], *, baseline: str = "python", workdir: Path | None = None
) -> dict[str, Any]:
    """Re-emit ``sources`` in ``app`` with the ``baseline`` re-emitter (:data:`BASELINES`); the typed one
    writes its include templates into ``workdir`` (a temporary directory if None). Returns the stacks."""
    if baseline == "python":
        return reemit_python(app, sources)
    if baseline == "generic":
        return reemit_generic(app, sources)
    if baseline != "typed":
        raise ValueError(f"unknown baseline {baseline!r}; expected one of {BASELINES}")
    if workdir is None:
        workdir = Path(tempfile.mkdtemp(prefix="bench-include-"))
    return reemit_typed(app, sources, write_include_templates(sources, workdir))


def resource_counts(outdir: Path) -> dict[str, dict[str, int]]:
    """Resource types and counts per stack of a synthesized assembly."""
    return {
        s.name: dict(sorted(Counter(r["Type"] for r in s.template["Resources"].values()).items()))
        for s in read_assembly(outdir)
    }


def file_assets(outdir: Path) -> dict[str, list[tuple[str, str, str]]]:
    """The file assets of an assembly besides its templates, by stack: (display name, packaging, object key)."""
    out = {}
    for path in sorted(outdir.glob("*.assets.json")):
        files = json.loads(path.read_text(encoding="utf-8")).get("files", {})
        out[path.name.removesuffix(".assets.json")] = sorted(
            (a["displayName"], a["source"].get("packaging", ""), d["objectKey"])
            for a in files.values()
            if a["source"].get("packaging") != "file"
            for d in a["destinations"].values()
        )
    return out


def templates(outdir: Path) -> dict[str, str]:
    """The template files of an assembly, by stack name."""
    return {
        p.name.removesuffix(".template.json"): p.read_text(encoding="utf-8")
        for p in sorted(outdir.glob("*.template.json"))
    }


# --------------------------------------------------------------------------------------------- child process


def _warm_up(context: Mapping[str, Any], tmp: Path, *, gates: bool = True) -> None:
    """Synthesize a one-resource app (with the validation plugins when ``gates``): the one-time initialisation."""
    from aws_cdk import App, CfnResource, Stack

    from inference_constructs.compliance import add_compliance_gates

    app = App(outdir=str(tmp / "warmup"), context=dict(context))
    CfnResource(Stack(app, "Warmup"), "Handle", type="AWS::CloudFormation::WaitConditionHandle")
    if gates:
        add_compliance_gates(app)
    app.synth()


def _count_jsii_calls() -> list[int]:
    """Count Python -> Node round trips of the jsii kernel from now on (a noise-free measure of work)."""
    from jsii._kernel.providers import process

    calls = [0]
    send = process._NodeProcess.send

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return send(self, *args, **kwargs)

    process._NodeProcess.send = counted  # type: ignore[method-assign]
    return calls


def _waited_cpu_s() -> float:
    """CPU seconds of the processes this process ran and waited for so far: during a synth, the Control Tower
    plugin's Node workers and their cfn-guard runs (jsii's Node process is not waited for until the end)."""
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    return waited.ru_utime + waited.ru_stime


def _cpu_s() -> float:
    """CPU seconds of this process and its descendants so far: Python, the processes it ran and waited for (the
    Control Tower plugin's Node workers and their cfn-guard runs), jsii's Node processes (read from /proc while
    they run) and the processes those ran and waited for (cfn-guard)."""
    own, waited = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    stack = [str(os.getpid())]
    while stack:
        pid = stack.pop()
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                    children = f.read().split()
                stack += children
                for child in children:
                    with open(f"/proc/{child}/stat", encoding="ascii") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                    total += sum(int(v) for v in fields[11:15]) / tick  # utime, stime, cutime, cstime
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def _time_app_synth() -> dict[str, float]:
    """Note when the first ``App.synth()`` from now on starts and ends (``perf_counter``), under ``start`` and
    ``end``."""
    from aws_cdk import App

    seen: dict[str, float] = {}
    synth = App.synth

    def noted(self: Any, *args: Any, **kwargs: Any) -> Any:
        first = "start" not in seen
        seen.setdefault("start", time.perf_counter())
        try:
            return synth(self, *args, **kwargs)
        finally:
            if first:
                seen["end"] = time.perf_counter()

    App.synth = noted  # type: ignore[method-assign]
    return seen


def _time_guard() -> dict[str, Any]:
    """Time the Control Tower plugin's validations from now on: the seconds they hold the synth (their runs start
    during the cdk-nag packs; this is the wait for what is left), rule files of the last one."""
    from inference_constructs.compliance import SelectedControlTowerRules

    seen: dict[str, Any] = {"guard_s": 0.0, "guard_cpu_s": 0.0, "guard_files": 0}
    validate = SelectedControlTowerRules.validate

    def timed(self: SelectedControlTowerRules, context: Any) -> Any:
        start = time.perf_counter()
        try:
            return validate(self, context)
        finally:
            seen["guard_s"] += time.perf_counter() - start
            seen["guard_files"] = len(self.last_selection)

    SelectedControlTowerRules.validate = timed  # type: ignore[method-assign]
    return seen


#: The measured sides: the library with the compliance gates (what ``cdk synth`` of the app does), the library
#: without them (``InferencePlatform(compliance_gates=False)``), and the hand-written baseline with the gates.
MODES = ("library", "library-nogates", "baseline")


def child(mode: str, config: Path, outdir: Path, source: Path | None, baseline: str = "python") -> dict[str, Any]:
    """One measurement in this (fresh) process: import, warm-up, then the measured synth (``mode`` one of
    :data:`MODES`; ``baseline`` names the re-emitter of the ``baseline`` mode, see :data:`BASELINES`)."""
    # The library's output is the hand-written app's source, not its work: read before the clock starts.
    sources = read_assembly(source) if mode == "baseline" and source is not None else []
    t0 = time.perf_counter()
    from aws_cdk import App

    from inference_constructs.compliance import add_compliance_gates

    if mode == "baseline":
        # A hand-written app imports aws-cdk-lib's modules of its resources and the gates, not the library.
        for module in app_modules(sources):
            with contextlib.suppress(ImportError):  # l1_class names a type without a module later
                importlib.import_module(module)
        import_s = time.perf_counter() - t0
    # Both sides hold the library's modules, as every run before the whole-process figure did: importing them makes
    # a few jsii calls (Duration, lambda.Runtime, codebuild.LinuxBuildImage) that load Node code the synth uses
    # later. Untimed for the hand-written app, so its init and synth stay comparable with earlier runs and its whole
    # process is, if anything, a little faster than on its own.
    from inference_constructs.plan import platform_plan
    from inference_constructs.stacks.platform import InferencePlatform, synthesize

    if mode != "baseline":
        import_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    context = cdk_context()
    _warm_up(context, outdir.parent, gates=mode != "library-nogates")
    calls = _count_jsii_calls()
    guard = _time_guard()
    app_synth = _time_app_synth()
    t2, cpu2, waited2 = time.perf_counter(), _cpu_s(), _waited_cpu_s()
    if mode == "library":
        synthesize(App(outdir=str(outdir), context=dict(context)), config)
    elif mode == "library-nogates":
        app = App(outdir=str(outdir), context=dict(context))
        InferencePlatform(app, "Platform", config=platform_plan(config), compliance_gates=False)
        app.synth()
    elif mode == "baseline":
        assert source is not None
        files = (
            write_include_templates(sources, outdir.parent / f"{outdir.name}-include") if baseline == "typed" else {}
        )
        # The python baseline's reflection (classes, keywords, struct types) is writing the code, not running it.
        recipes = python_recipes(sources) if baseline == "python" else None
        t2, cpu2, waited2 = (
            time.perf_counter(),
            _cpu_s(),
            _waited_cpu_s(),
        )  # reading the library's JSON is not hand-written code
        calls[0] = 0  # nor are the jsii calls of the reflection
        app = App(outdir=str(outdir), context=dict(context))
        if baseline == "typed":
            reemit_typed(app, sources, files)  # CfnInclude parsing its template file is measured
        elif baseline == "python":
            reemit_python(app, sources, recipes)  # struct instances, Fn tokens and L1 constructs are measured
        else:
            reemit(app, sources, baseline=baseline)
        add_compliance_gates(app)
        app.synth()
    else:
        raise ValueError(mode)
    t3, cpu3 = time.perf_counter(), _cpu_s()
    guard["guard_cpu_s"] = _waited_cpu_s() - waited2
    return {
        "cpu_s": cpu3 - cpu2,
        "import_s": import_s,
        "init_s": t2 - t1,
        "synth_s": t3 - t2,
        "build_s": app_synth.get("start", t3) - t2,
        "app_synth_s": app_synth.get("end", t3) - app_synth.get("start", t3),
        "jsii_calls": calls[0],
        "self_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        **guard,
    }


# --------------------------------------------------------------------------------------------- parent


def _tree_rss_kb(pid: int) -> tuple[int, int]:
    """(resident memory of a process and all its descendants, of the largest one), in KiB (0 once gone)."""
    total = largest = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1])
                        total += rss
                        largest = max(largest, rss)
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total, largest


@dataclass(frozen=True)
class Measurement:
    """One fresh-process synth."""

    mode: str
    n: int
    wall_s: float
    init_s: float
    synth_s: float
    peak_tree_mb: float
    peak_process_mb: float
    outdir: Path
    jsii_calls: int = 0
    error: str = ""
    guard_s: float = 0.0
    """seconds in the Control Tower plugin's validation (cfn-guard and the selection), part of ``synth_s``"""
    guard_files: int = 0
    """rule files the Control Tower plugin ran"""
    cpu_s: float = 0.0
    """CPU seconds of the measured synth (Python, Node and cfn-guard): what a quiet 1-core machine would take"""
    guard_cpu_s: float = 0.0
    """CPU seconds of the Control Tower plugin's validation, part of ``cpu_s``"""
    import_s: float = 0.0
    """seconds of the imports (library: the library and the aws-cdk-lib modules it imports; baseline: aws-cdk-lib's
    modules of its resources and the gates)"""
    build_s: float = 0.0
    """seconds of the measured synth before ``app.synth()`` starts (library: config, plan and constructs;
    baseline: its constructs); the rest of ``synth_s`` is ``app.synth()`` (aspects, preparation, the gates, the
    template and asset writes)"""

    app_synth_s: float = 0.0
    """seconds of the measured synth in ``app.synth()``; the rest of ``synth_s`` after it is the library's own
    checks of the written assembly (every stack's resource count) and the removal of the earlier output"""

    @property
    def after_app_synth_s(self) -> float:
        """Seconds of the measured synth after ``app.synth()`` (the library's checks; none for the baseline)."""
        return self.synth_s - self.build_s - self.app_synth_s

    @property
    def process_s(self) -> float:
        """Seconds of the process's own work: imports, the first synth in the process, the measured synth (what
        ``cdk synth`` of one app pays, less the interpreter's start)."""
        return self.import_s + self.init_s + self.synth_s


def measure(
    mode: str,
    n: int,
    config: Path,
    outdir: Path,
    source: Path | None = None,
    *,
    baseline: str = "python",
    pycache: Path | None = None,
) -> Measurement:
    """Run one measurement in a fresh subprocess, sampling its process tree's memory (``pycache``: see
    :func:`child_env`)."""
    cmd = [sys.executable, "-m", "benchmarks.synth", "--child", mode, str(config), str(outdir)]
    if source is not None:
        cmd += ["--source", str(source), "--baseline", baseline]
    env = child_env(pycache)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = largest = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak, largest
        while not stop.is_set():
            total, one = _tree_rss_kb(proc.pid)
            peak, largest = max(peak, total), max(largest, one)
            stop.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    stop.set()
    sampler.join()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = "\n".join(err.strip().splitlines()[-3:])
        return Measurement(mode, n, wall, 0.0, 0.0, peak / 1024, 0.0, outdir, error=tail or f"exit {proc.returncode}")
    r = json.loads(out.strip().splitlines()[-1])
    return Measurement(
        mode,
        n,
        wall,
        r["init_s"],
        r["synth_s"],
        peak / 1024,
        largest / 1024,
        outdir,
        jsii_calls=r["jsii_calls"],
        guard_s=r["guard_s"],
        guard_files=r["guard_files"],
        cpu_s=r["cpu_s"],
        guard_cpu_s=r["guard_cpu_s"],
        build_s=r["build_s"],
        app_synth_s=r["app_synth_s"],
        import_s=r["import_s"],
    )


@dataclass(frozen=True)
class Summary:
    """Repeated fresh-process measurements of one side at one N: the median and the spread."""

    runs: tuple[Measurement, ...]

    @property
    def ok(self) -> list[Measurement]:
        """The runs that succeeded."""
        return [m for m in self.runs if not m.error]

    @property
    def error(self) -> str:
        """The first failure, when no run succeeded."""
        return "" if self.ok else (self.runs[0].error if self.runs else "not run")

    def median(self, attr: str = "synth_s") -> float:
        """Median of ``attr`` over the successful runs."""
        return float(statistics.median(getattr(m, attr) for m in self.ok))

    def spread(self, attr: str = "synth_s") -> tuple[float, float]:
        """(lowest, highest) ``attr`` over the successful runs."""
        values = [getattr(m, attr) for m in self.ok]
        return min(values), max(values)

    @property
    def first(self) -> Measurement:
        """The first successful run (its output is compared and reused)."""
        return self.ok[0] if self.ok else self.runs[0]


def paired_ratios(a: Summary, b: Summary, attr: str = "synth_s") -> list[float]:
    """``a``'s run divided by ``b``'s run of the same round, for every round where both succeeded: the sides run
    in turn within a round, so a machine whose speed drifts between rounds moves both sides of a pair alike."""
    return [
        getattr(x, attr) / getattr(y, attr)
        for x, y in zip(a.runs, b.runs, strict=False)
        if not x.error and not y.error and getattr(y, attr)
    ]


def ratio_spread(ratios: Sequence[float]) -> str:
    """Median of ``ratios`` with the lowest and highest: ``1.05 (0.98-1.12)``; ``-`` when there are none."""
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


def measure_plan(n: int, config: Path, pycache: Path | None = None) -> tuple[float, float]:
    """(wall seconds of ``python -m inference_constructs plan`` in a fresh process, in-process seconds of
    ``plan_platform(load_config(path))``; ``pycache``: see :func:`child_env`)."""
    env = child_env(pycache)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "inference_constructs", "plan", str(config)],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    code = (
        "import sys,time\n"
        "from inference_constructs.config import load_config\n"
        "from inference_constructs.plan import plan_platform\n"
        "t=time.perf_counter(); plan_platform(load_config(sys.argv[1])); print(time.perf_counter()-t)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(config)], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return wall, float(done.stdout.strip())


@dataclass
class Comparison:
    """The three sides at one N (:data:`MODES`), and how the baseline's output compares with the library's."""

    n: int
    library: Summary
    nogates: Summary
    baseline: Summary
    check: str


@dataclass
class SynthReport:
    """Everything the synth benchmark measured."""

    comparisons: list[Comparison] = field(default_factory=list)
    scaling: list[Summary] = field(default_factory=list)
    plan: tuple[int, float, float] | None = None
    stacks: dict[int, dict[str, int]] = field(default_factory=dict)
    """N -> resources per stack of the library's output"""
    baseline: str = "python"
    """the re-emitter of the baseline (:data:`BASELINES`)"""
    load: str = ""
    """the machine's load averages before and after the run"""


def compare_outputs(library: Path, baseline: Path) -> str:
    """'same N resources in K stacks and M file assets' (the staged Lambda code, same object keys) and how the
    templates compare: 'identical templates' (byte for
    byte), 'templates equal up to key order' (same JSON) or where they differ; or the first stack whose
    resources (types and counts) differ."""
    a, b = resource_counts(library), resource_counts(baseline)
    if a != b:
        for stack in sorted(set(a) | set(b)):
            if a.get(stack) != b.get(stack):
                return f"DIFFERENT resources in {stack}: library {a.get(stack)} baseline {b.get(stack)}"
    if file_assets(library) != file_assets(baseline):
        return f"DIFFERENT file assets: library {file_assets(library)} baseline {file_assets(baseline)}"
    total = sum(sum(c.values()) for c in a.values())
    shipped = sum(len(v) for v in file_assets(library).values())
    return (
        f"same {total} resources in {len(a)} stacks and {shipped} file asset(s), "
        f"{template_difference(library, baseline)}"
    )


def template_difference(library: Path, baseline: Path) -> str:
    """How the templates of two assemblies compare (see :func:`compare_outputs`)."""
    ta, tb = templates(library), templates(baseline)
    if ta == tb:
        return "identical templates"
    if ta.keys() != tb.keys():
        return f"templates DIFFER: stacks {sorted(ta)} vs {sorted(tb)}"
    diffs = []
    for stack in sorted(ta):
        ja, jb = json.loads(ta[stack]), json.loads(tb[stack])
        if ja == jb:
            continue
        for section in sorted(set(ja) | set(jb)):
            sa, sb = ja.get(section), jb.get(section)
            if sa == sb:
                continue
            if isinstance(sa, dict) and isinstance(sb, dict):
                keys = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
                more = f" +{len(keys) - 3}" if len(keys) > 3 else ""
                diffs.append(f"{stack} {section} {', '.join(keys[:3])}{more}")
            else:
                diffs.append(f"{stack} {section}")
    if not diffs:
        return "templates equal up to key order"
    return "templates DIFFER: " + "; ".join(diffs)


def _stack_sizes(outdir: Path) -> dict[str, int]:
    return {name: sum(c.values()) for name, c in resource_counts(outdir).items()}


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _compile_pass(n: int, tmp: Path, pycache: Path, *, with_baseline: bool, baseline: str, say: Any) -> None:
    """Untimed: one run of the library (and of the hand-written app, ``with_baseline``) at ``n`` that fills
    ``pycache``, so that the measured children load compiled modules, as a user's second synth does
    (:func:`child_env`)."""
    if not n:
        return
    say(f"compiling the modules both sides import (N={n}, untimed) ...")
    compiled = measure("library", n, write_config(n, tmp), tmp / "compile-library", pycache=pycache)
    if compiled.error:
        say(f"compiling failed, the first runs compile their modules themselves: {compiled.error}")
    elif with_baseline:
        measure(
            "baseline",
            n,
            write_config(n, tmp),
            tmp / "compile-baseline",
            compiled.outdir,
            baseline=baseline,
            pycache=pycache,
        )


def run(  # noqa: C901 - the benchmark's sequence of measurements, each optional
    *,
    compare_ns: Sequence[int] = (10, 50, 300),
    scaling_ns: Sequence[int] = (),
    plan_n: int = 300,
    repeat: int = 3,
    baseline: str = "python",
    log: Any = None,
) -> SynthReport:
    """Measure every N in fresh subprocesses, ``repeat`` times, the three sides (:data:`MODES`) interleaved
    (the median counts, the spread is reported); ``scaling_ns`` adds library-only runs; ``baseline`` names the
    re-emitter (:data:`BASELINES`); ``log`` receives progress lines."""
    if baseline not in BASELINES:
        raise ValueError(f"unknown baseline {baseline!r}; expected one of {BASELINES}")
    report = SynthReport(baseline=baseline, load=_load())

    def say(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-synth-") as tmp_name:
        tmp = Path(tmp_name)
        pycache = tmp / "pycache"
        first = (compare_ns or scaling_ns or (plan_n,))[0]
        _compile_pass(first, tmp, pycache, with_baseline=bool(compare_ns), baseline=baseline, say=say)
        for n in compare_ns:
            config = write_config(n, tmp)
            runs: dict[str, list[Measurement]] = {mode: [] for mode in MODES}
            for k in range(repeat):
                for mode in MODES:
                    say(f"synth N={n}: {mode} {k + 1}/{repeat} ...")
                    source = runs["library"][0].outdir if mode == "baseline" and runs["library"] else None
                    if mode == "baseline" and source is None:
                        continue
                    runs[mode].append(
                        measure(
                            mode,
                            n,
                            config,
                            tmp / f"{mode}-{n}-{k}",
                            source=source,
                            baseline=baseline,
                            pycache=pycache,
                        )
                    )
            lib, nogates, base = (Summary(tuple(runs[mode])) for mode in MODES)
            if lib.error:
                report.comparisons.append(Comparison(n, lib, nogates, base, f"library failed: {lib.error}"))
                continue
            report.stacks[n] = _stack_sizes(lib.first.outdir)
            check = (
                f"baseline failed: {base.error}" if base.error else compare_outputs(lib.first.outdir, base.first.outdir)
            )
            report.comparisons.append(Comparison(n, lib, nogates, base, check))
        for n in scaling_ns:
            config = write_config(n, tmp)
            scale = []
            for k in range(repeat):
                say(f"synth N={n}: library {k + 1}/{repeat} ...")
                scale.append(measure("library", n, config, tmp / f"scale-{n}-{k}", pycache=pycache))
            summary = Summary(tuple(scale))
            if not summary.error:
                report.stacks[n] = _stack_sizes(summary.first.outdir)
            report.scaling.append(summary)
        if plan_n:
            config = write_config(plan_n, tmp)
            say(f"plan N={plan_n} ...")
            wall, inproc = measure_plan(plan_n, config, pycache)
            report.plan = (plan_n, wall, inproc)
    report.load += f" -> {_load()}"
    return report


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _median_spread(summary: Summary, attr: str = "synth_s") -> str:
    low, high = summary.spread(attr)
    return f"{summary.median(attr):.1f} ({low:.1f}-{high:.1f})"


def phase_line(c: Comparison) -> str:
    """Where the library's synth and the hand-written app's differ at ``c.n``: the seconds before ``app.synth()``
    (library: config, plan and constructs; baseline: its constructs), in it, and after it (the library's checks of
    the written assembly), each side's median and the median of the rounds' differences (``-`` when no round has
    both sides), with the jsii round trips of each side."""

    def phase(attr: str) -> str:
        lib, base = c.library.median(attr), c.baseline.median(attr)
        diffs = [
            getattr(x, attr) - getattr(y, attr)
            for x, y in zip(c.library.runs, c.baseline.runs, strict=False)
            if not x.error and not y.error
        ]
        by_round = f"{statistics.median(diffs):+.2f} s" if diffs else "-"
        return f"{lib:.2f}/{base:.2f} s, {by_round} round by round"

    return (
        f"N={c.n} library/baseline: before app.synth() {phase('build_s')}; app.synth() {phase('app_synth_s')};"
        f" after it {phase('after_app_synth_s')}; jsii round trips"
        f" {c.library.first.jsii_calls}/{c.baseline.first.jsii_calls}"
    )


def process_line(c: Comparison) -> str:
    """What one ``cdk synth`` of each side's app costs at ``c.n`` as a whole process, less the interpreter's start:
    the imports (the library and the aws-cdk-lib modules it imports; the hand-written app's aws-cdk-lib modules and
    the gates), the first synth in the process and the measured synth. Medians, the ratio taken round by round."""
    ratios = [
        x.process_s / y.process_s
        for x, y in zip(c.library.runs, c.baseline.runs, strict=False)
        if not x.error and not y.error and y.process_s
    ]
    return (
        f"N={c.n} whole process (imports + first synth + measured synth): library"
        f" {c.library.median('process_s'):.1f} s, baseline {c.baseline.median('process_s'):.1f} s,"
        f" library/baseline {ratio_spread(ratios)}; imports {c.library.median('import_s'):.2f}/"
        f"{c.baseline.median('import_s'):.2f} s"
    )


def format_report(report: SynthReport) -> str:
    """The synth tables as printed text."""
    lines = []
    if report.comparisons:
        rows = [
            [
                "N",
                "library+gates s",
                "library s (no gates)",
                "baseline+gates s",
                "gates/no gates",
                "library/baseline",
                "guard s (share)",
                "guard rule files",
                "CPU s lib+gates/no gates/base+gates",
                "CPU ratios gates, lib/base",
                "peak MB (lib/base)",
                "resources",
            ]
        ]
        for c in report.comparisons:
            if c.library.error or c.baseline.error or c.nogates.error:
                rows.append([str(c.n), "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", c.check or c.nogates.error])
                continue
            lib = c.library.median()
            guard = c.library.median("guard_s")
            cpu_lib, cpu_nog, cpu_base = (x.median("cpu_s") for x in (c.library, c.nogates, c.baseline))
            rows.append(
                [
                    str(c.n),
                    _median_spread(c.library),
                    _median_spread(c.nogates),
                    _median_spread(c.baseline),
                    ratio_spread(paired_ratios(c.library, c.nogates)),
                    ratio_spread(paired_ratios(c.library, c.baseline)),
                    f"{guard:.1f} ({guard / lib:.0%})",
                    str(c.library.first.guard_files),
                    f"{cpu_lib:.1f}/{cpu_nog:.1f}/{cpu_base:.1f} (guard workers {c.library.median('guard_cpu_s'):.1f})",
                    f"{statistics.median(paired_ratios(c.library, c.nogates, 'cpu_s') or [0]):.2f}, "
                    f"{statistics.median(paired_ratios(c.library, c.baseline, 'cpu_s') or [0]):.2f}",
                    f"{c.library.median('peak_tree_mb'):.0f}/{c.baseline.median('peak_tree_mb'):.0f}",
                    c.check,
                ]
            )
        runs = max(len(c.library.runs) for c in report.comparisons)
        lines += [
            f"Synth: library with the compliance gates, without them, and the hand-written plain L1 app with the same"
            f" gates ({BASELINE_TITLES.get(report.baseline, report.baseline)}); seconds of the measured synth in a"
            f" fresh process, median (lowest-highest) of {runs} runs; the ratios are taken round by round (the three"
            f" sides run in turn in each round) and given as the median (lowest-highest) of the rounds' ratios;"
            f" guard = how long the Control Tower validation"
            f" holds the synth (share of library+gates; its runs start during the cdk-nag packs), and in the CPU"
            f" column the CPU of its workers. Goals: gates/no gates <= {GATES_GOAL} at N=30, library/baseline <="
            f" {RATIO_GOAL}, N=300 library+gates <= {SYNTH_300_GOAL_S:.0f} s",
            _table(rows),
            *(
                line
                for c in report.comparisons
                if not (c.library.error or c.baseline.error)
                for line in (phase_line(c), process_line(c))
            ),
            f"load average (1/5/15 min) at start -> end: {report.load}",
            "",
        ]
    if report.scaling:
        rows = [["N", "synth s", "guard s", "peak MB", "jsii calls", "stacks (max resources)"]]
        for sm in report.scaling:
            if sm.error:
                rows.append([str(sm.first.n), "FAILED", "-", "-", "-", sm.error.replace("\n", " ")])
                continue
            sizes = report.stacks.get(sm.first.n, {})
            rows.append(
                [
                    str(sm.first.n),
                    _median_spread(sm),
                    f"{sm.median('guard_s'):.1f}",
                    f"{sm.median('peak_tree_mb'):.0f}",
                    str(sm.first.jsii_calls),
                    f"{len(sizes)} (max {max(sizes.values(), default=0)})",
                ]
            )
        lines += ["Synth scaling: library with the gates alone", _table(rows), ""]
    if report.plan:
        n, wall, inproc = report.plan
        lines.append(
            f"Plan N={n}: `python -m inference_constructs plan` {wall:.2f} s wall (fresh process), "
            f"plan_platform(load_config) {inproc:.2f} s in-process (goal < {PLAN_GOAL_S:.0f} s)"
        )
    return "\n".join(lines) + "\n"


def breakdown(n: int, directory: Path, *, top: int = 12) -> str:
    """Where one in-process synth of ``n`` generated endpoints with the gates spends its time: plan, building
    the constructs (Python and its jsii round trips), ``app.synth()`` (CDK's preparation, the cdk-nag packs,
    CloudFormation validation, the file writes, all inside Node) and, within it, the Control Tower plugin; then
    the same synth without the gates, and the ``top`` functions by own time under cProfile (Python side)."""
    import cProfile
    import io
    import pstats

    from aws_cdk import App

    from inference_constructs.plan import platform_plan
    from inference_constructs.stacks.platform import InferencePlatform

    context = cdk_context()
    config = write_config(n, directory)
    _warm_up(context, directory)
    guard = _time_guard()
    calls = _count_jsii_calls()
    rows = [["step", "gates s", "no gates s", "jsii calls (gates)"]]
    times: dict[bool, list[float]] = {}
    profile = cProfile.Profile()
    for gates in (True, False):
        t0 = time.perf_counter()
        plan = platform_plan(config)
        t1 = time.perf_counter()
        calls[0] = 0
        app = App(outdir=str(directory / f"out-{gates}"), context=dict(context))
        if gates:
            profile.enable()
        InferencePlatform(app, "Platform", config=plan, compliance_gates=gates)
        t2 = time.perf_counter()
        build_calls = calls[0]
        app.synth()
        t3 = time.perf_counter()
        profile.disable()
        times[gates] = [t1 - t0, t2 - t1, t3 - t2, guard["guard_s"] if gates else 0.0]
        if gates:
            synth_calls = calls[0] - build_calls
    for k, step in enumerate(["plan", "build constructs", "app.synth()", "  of which Control Tower plugin"]):
        count = {1: str(build_calls), 2: str(synth_calls)}.get(k, "-")
        rows.append([step, f"{times[True][k]:.2f}", f"{times[False][k]:.2f}", count])
    rows.append(["total", f"{sum(times[True][:3]):.2f}", f"{sum(times[False][:3]):.2f}", "-"])
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(top)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    return (
        f"Synth breakdown, N={n}, in one process after the warm-up (load {_load()}); rule files run by the"
        f" Control Tower plugin: {guard['guard_files']}\n"
        + _table(rows)
        + "\n\nPython side of the synth with gates (cProfile, by own time; jsii waits are Node's work):\n"
        + "\n".join(lines[-top - 1 :])
        + "\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: the benchmark, or (``--child``) one measurement inside a fresh process."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.synth", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the three sides at N=10 and N=30 only, and plan")
    parser.add_argument(
        "--n",
        type=int,
        nargs="+",
        metavar="N",
        help="endpoint counts of the side-by-side comparison (default 10 50 300)",
    )
    parser.add_argument("--compare-only", action="store_true", help="only the side-by-side comparison (no plan timing)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per side and N; the median counts (default 3)")
    parser.add_argument(
        "--baseline",
        choices=BASELINES,
        default="python",
        help=(
            "re-emitter of the plain-L1 baseline: python = typed L1 classes instantiated from Python as a"
            " hand-written app does (default); typed = typed L1 classes via CfnInclude of each template (fewer"
            " jsii calls); generic = CfnResource (most cdk-nag rules skip it)"
        ),
    )
    parser.add_argument(
        "--breakdown",
        type=int,
        metavar="N",
        help="profile one in-process synth of N endpoints (with and without the gates) instead of the benchmark",
    )
    parser.add_argument("--child", nargs=3, metavar=("MODE", "CONFIG", "OUTDIR"), help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, config, outdir = args.child
        result = child(mode, Path(config), Path(outdir), Path(args.source) if args.source else None, args.baseline)
        print(json.dumps(result))
        return 0
    if args.breakdown:
        with tempfile.TemporaryDirectory(prefix="bench-breakdown-") as tmp:
            sys.stdout.write(breakdown(args.breakdown, Path(tmp)))
        return 0
    ns = tuple(args.n) if args.n else ((10, 30) if args.quick else (10, 50, 300))
    report = run(
        compare_ns=ns,
        plan_n=0 if args.compare_only else 300,
        repeat=args.repeat,
        baseline=args.baseline,
        log=sys.stderr,
    )
    sys.stdout.write(format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
