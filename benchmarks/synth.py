"""Synth cost of the library at scale, against a hand-written baseline of plain L1 resources.

Run ``python -m benchmarks.synth [--quick]`` (or ``python -m benchmarks.run`` for every benchmark).

What is measured
----------------
- A platform config with N endpoints is generated (:func:`platform_config`): a mix of realtime GPU
  LLMs, async LLMs, serverless CPU models and CPU multi-model endpoints, validated with
  ``validate_config`` and written to a temporary YAML file.
- **library**: ``stacks.platform.synthesize(App(outdir=...), config)``: what ``cdk synth`` does (load,
  plan, build the stacks, cdk-nag packs, CloudFormation validation, synth, write the plan).
- **baseline**: the same resources written by hand with plain L1 constructs (:func:`reemit`): every
  resource of the library's templates re-created with the same logical id, type, properties and
  attributes in the same stacks, the same acknowledged nag findings, the same cross-stack outputs, and no
  library construct, decision, aspect or tag logic. ``--baseline typed`` (default, :func:`reemit_typed`)
  re-emits each stack's template with ``cloudformation_include.CfnInclude``, which instantiates the TYPED
  L1 class of every resource (``CfnRole``, ``CfnAlarm``, ...): cdk-nag rules select resources by
  ``instanceof`` on those classes, so the packs do the same rule work on both sides. ``--baseline
  generic`` (:func:`reemit_generic`, the first baseline) uses ``CfnResource``, which most rules skip.
  Both sides synthesize with the same validation settings: the three cdk-nag packs
  (``add_compliance_gates``), CDK's built-in CloudFormation validation and the project's ``cdk.json``
  context. The benchmark checks that both sides emit the same resources (types and counts per stack)
  and reports whether the templates are byte-identical (generic), equal up to key order (typed: typed
  L1s render their properties in their own order) or where they differ.
- Every measurement runs in a FRESH subprocess. In it, a one-resource app is synthesized first with the
  same validation plugins: that is the one-time plugin initialisation (``init``), paid equally by both
  sides and reported separately; ``synth`` is the time of the measured synth after it. Peak memory is the
  largest resident set of the child's whole process tree (Python + the jsii Node process), sampled every
  20 ms from /proc, and the resident set of the largest single process (the Node process), both sampled.
- ``plan`` timing: ``python -m inference_constructs plan CONFIG`` for 300 endpoints in a fresh process
  (wall time), and ``plan_platform(load_config(path))`` in-process.

The numbers are RATIOS measured in one run on a shared, noisy machine: never assert them in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
CDK_JSON = ROOT / "cdk.json"

#: Goal for library time / baseline time (issue 9).
RATIO_GOAL = 1.3
#: Goal for ``plan`` of 300 endpoints, in seconds.
PLAN_GOAL_S = 1.0

_ENV = {
    "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION": "1",
    "CDK_DISABLE_CLI_TELEMETRY": "true",
    "CDK_DISABLE_VERSION_CHECK": "true",
}


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
                "id": "meta-llama/Llama-3.1-8B-Instruct",
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


def platform_config(n: int, *, name: str = "bench") -> dict[str, Any]:
    """A platform config with ``n`` generated endpoints (no Bedrock profiles, default cost settings)."""
    return {
        "name": name,
        "tags": {"team": "bench", "cost-center": "0000"},
        "endpoints": [endpoint(i) for i in range(n)],
    }


def write_config(n: int, directory: Path) -> Path:
    """Validate the ``n``-endpoint config and write it as YAML into ``directory``; returns the path."""
    from inference_constructs.config import validate_config

    data = platform_config(n)
    validate_config(json.loads(json.dumps(data)), source=f"bench-{n}")
    path = directory / f"bench-{n}.yaml"
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
    raise NotImplementedError(f"condition expression not supported by the re-emitter: {expr!r}")


def reemit_generic(app: Any, sources: Sequence[StackSource]) -> dict[str, Any]:
    """The ``generic`` baseline (the first one published): re-create every stack of ``sources`` in ``app``
    with ``CfnResource`` (same logical ids, types, properties, DependsOn and policies), ``CfnMapping``,
    ``CfnParameter``, ``CfnCondition`` and ``CfnOutput``, the same stack dependencies and the same
    acknowledged findings. Returns the stacks by name.

    cdk-nag rules select resources by ``instanceof`` on typed L1 classes, so most rules skip these
    generic resources: this baseline does less validation work than the library (kept for comparison)."""
    from aws_cdk import (
        Acknowledgment,
        CfnCondition,
        CfnMapping,
        CfnOutput,
        CfnParameter,
        CfnResource,
        Stack,
        Token,
        Validations,
    )

    stacks: dict[str, Stack] = {}
    for src in sources:
        stack = Stack(app, src.name)
        stacks[src.name] = stack
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
            elif section == "Mappings":
                for lid, mapping in body.items():
                    CfnMapping(stack, lid, mapping=mapping)
            elif section == "Parameters":
                for lid, p in body.items():
                    if lid not in _SYNTHESIZER_PARAMETERS:
                        CfnParameter(
                            stack, lid, type=p.get("Type"), default=p.get("Default"), description=p.get("Description")
                        )
            elif section == "Conditions":
                for lid, expr in body.items():
                    CfnCondition(stack, lid, expression=_condition(expr))
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
                if set(body) - _SYNTHESIZER_RULES:
                    raise NotImplementedError(f"{src.name}: template Rules are not supported: {sorted(body)}")
            else:
                raise NotImplementedError(f"{src.name}: template section {section} is not supported")
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


BASELINES = ("typed", "generic")
"""``typed``: :func:`reemit_typed` (default, same cdk-nag rule work as the library); ``generic``:
:func:`reemit_generic` (plain ``CfnResource``, most nag rules skip it)."""
BASELINE_TITLES = {
    "typed": "baseline 'typed' (typed L1 classes via CfnInclude)",
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
            if set(body) - _SYNTHESIZER_RULES:
                raise NotImplementedError(f"{src.name}: template Rules are not supported: {sorted(body)}")
            kept = {}
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


def reemit(
    app: Any, sources: Sequence[StackSource], *, baseline: str = "typed", workdir: Path | None = None
) -> dict[str, Any]:
    """Re-emit ``sources`` in ``app`` with the ``baseline`` re-emitter (:data:`BASELINES`); the typed one
    writes its include templates into ``workdir`` (a temporary directory if None). Returns the stacks."""
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


def templates(outdir: Path) -> dict[str, str]:
    """The template files of an assembly, by stack name."""
    return {
        p.name.removesuffix(".template.json"): p.read_text(encoding="utf-8")
        for p in sorted(outdir.glob("*.template.json"))
    }


# --------------------------------------------------------------------------------------------- child process


def _warm_up(context: Mapping[str, Any], tmp: Path) -> None:
    """Synthesize a one-resource app with the same validation plugins: the one-time initialisation."""
    from aws_cdk import App, CfnResource, Stack

    from inference_constructs.compliance import add_compliance_gates

    app = App(outdir=str(tmp / "warmup"), context=dict(context))
    CfnResource(Stack(app, "Warmup"), "Handle", type="AWS::CloudFormation::WaitConditionHandle")
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


def child(mode: str, config: Path, outdir: Path, source: Path | None, baseline: str = "typed") -> dict[str, Any]:
    """One measurement in this (fresh) process: import, warm-up, then the measured synth (``baseline``
    names the re-emitter of the ``baseline`` mode, see :data:`BASELINES`)."""
    t0 = time.perf_counter()
    from aws_cdk import App

    from inference_constructs.compliance import add_compliance_gates
    from stacks.platform import synthesize

    t1 = time.perf_counter()
    context = cdk_context()
    _warm_up(context, outdir.parent)
    calls = _count_jsii_calls()
    t2 = time.perf_counter()
    if mode == "library":
        synthesize(App(outdir=str(outdir), context=dict(context)), config)
    elif mode == "baseline":
        assert source is not None
        sources = read_assembly(source)
        files = (
            write_include_templates(sources, outdir.parent / f"{outdir.name}-include") if baseline == "typed" else {}
        )
        t2 = time.perf_counter()  # reading the library's JSON is not part of hand-written code
        app = App(outdir=str(outdir), context=dict(context))
        if baseline == "typed":
            reemit_typed(app, sources, files)  # CfnInclude parsing its template file is measured
        else:
            reemit(app, sources, baseline=baseline)
        add_compliance_gates(app)
        app.synth()
    else:
        raise ValueError(mode)
    t3 = time.perf_counter()
    return {
        "import_s": t1 - t0,
        "init_s": t2 - t1,
        "synth_s": t3 - t2,
        "jsii_calls": calls[0],
        "self_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
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


def measure(
    mode: str, n: int, config: Path, outdir: Path, source: Path | None = None, *, baseline: str = "typed"
) -> Measurement:
    """Run one measurement in a fresh subprocess, sampling its process tree's memory."""
    cmd = [sys.executable, "-m", "benchmarks.synth", "--child", mode, str(config), str(outdir)]
    if source is not None:
        cmd += ["--source", str(source), "--baseline", baseline]
    env = {**os.environ, **_ENV, "PYTHONPATH": str(ROOT)}
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
        mode, n, wall, r["init_s"], r["synth_s"], peak / 1024, largest / 1024, outdir, jsii_calls=r["jsii_calls"]
    )


def best(runs: Sequence[Measurement]) -> Measurement:
    """The fastest of repeated measurements (noise on a shared machine only ever adds time); its peak
    memory is the lowest peak seen."""
    ok = [m for m in runs if not m.error]
    if not ok:
        return runs[0]
    fastest = min(ok, key=lambda m: m.synth_s)
    return replace(
        fastest,
        peak_tree_mb=min(m.peak_tree_mb for m in ok),
        peak_process_mb=min(m.peak_process_mb for m in ok),
    )


def measure_plan(n: int, config: Path) -> tuple[float, float]:
    """(wall seconds of ``python -m inference_constructs plan`` in a fresh process, in-process seconds of
    ``plan_platform(load_config(path))``)."""
    env = {**os.environ, **_ENV, "PYTHONPATH": str(ROOT)}
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
class SynthReport:
    """Everything the synth benchmark measured."""

    comparisons: list[tuple[Measurement, Measurement, str]] = field(default_factory=list)
    """(library, baseline, resource check) per N"""
    scaling: list[Measurement] = field(default_factory=list)
    plan: tuple[int, float, float] | None = None
    stacks: dict[int, dict[str, int]] = field(default_factory=dict)
    """N -> resources per stack of the library's output"""
    baseline: str = "typed"
    """the re-emitter of the baseline (:data:`BASELINES`)"""


def compare_outputs(library: Path, baseline: Path) -> str:
    """'same N resources in K stacks' and how the templates compare: 'identical templates' (byte for
    byte), 'templates equal up to key order' (same JSON) or where they differ; or the first stack whose
    resources (types and counts) differ."""
    a, b = resource_counts(library), resource_counts(baseline)
    if a != b:
        for stack in sorted(set(a) | set(b)):
            if a.get(stack) != b.get(stack):
                return f"DIFFERENT resources in {stack}: library {a.get(stack)} baseline {b.get(stack)}"
    total = sum(sum(c.values()) for c in a.values())
    return f"same {total} resources in {len(a)} stacks, {template_difference(library, baseline)}"


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


def run(
    *,
    compare_ns: Sequence[int] = (10, 50),
    scaling_ns: Sequence[int] = (30, 100, 300),
    plan_n: int = 300,
    repeat: int = 2,
    baseline: str = "typed",
    log: Any = None,
) -> SynthReport:
    """Measure every N in fresh subprocesses, ``repeat`` times (library and baseline interleaved; the
    fastest run of each side counts); ``baseline`` names the re-emitter (:data:`BASELINES`); ``log``
    receives progress lines."""
    if baseline not in BASELINES:
        raise ValueError(f"unknown baseline {baseline!r}; expected one of {BASELINES}")
    report = SynthReport(baseline=baseline)

    def say(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    with tempfile.TemporaryDirectory(prefix="bench-synth-") as tmp_name:
        tmp = Path(tmp_name)
        for n in compare_ns:
            config = write_config(n, tmp)
            libs: list[Measurement] = []
            bases: list[Measurement] = []
            for k in range(repeat):
                say(f"synth N={n}: library {k + 1}/{repeat} ...")
                libs.append(measure("library", n, config, tmp / f"lib-{n}-{k}"))
                if libs[-1].error:
                    break
                say(f"synth N={n}: {baseline} baseline {k + 1}/{repeat} ...")
                bases.append(
                    measure("baseline", n, config, tmp / f"base-{n}-{k}", source=libs[0].outdir, baseline=baseline)
                )
            lib = best(libs)
            if lib.error:
                report.comparisons.append((lib, lib, f"library failed: {lib.error}"))
                continue
            report.stacks[n] = _stack_sizes(lib.outdir)
            base = best(bases)
            check = f"baseline failed: {base.error}" if base.error else compare_outputs(libs[0].outdir, base.outdir)
            report.comparisons.append((lib, base, check))
        for n in scaling_ns:
            config = write_config(n, tmp)
            runs = []
            for k in range(repeat):
                say(f"synth N={n}: library {k + 1}/{repeat} ...")
                runs.append(measure("library", n, config, tmp / f"scale-{n}-{k}"))
                if runs[-1].error:
                    break
            m = best(runs)
            if not m.error:
                report.stacks[n] = _stack_sizes(m.outdir)
            report.scaling.append(m)
        if plan_n:
            config = write_config(plan_n, tmp)
            say(f"plan N={plan_n} ...")
            wall, inproc = measure_plan(plan_n, config)
            report.plan = (plan_n, wall, inproc)
    return report


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_report(report: SynthReport) -> str:
    """The synth tables as printed text."""
    lines = []
    if report.comparisons:
        rows = [
            [
                "N",
                "library synth s",
                "baseline synth s",
                "time ratio",
                "library peak MB",
                "baseline peak MB",
                "mem ratio",
                "init s (lib/base)",
                "jsii calls (lib/base)",
                "resources",
            ]
        ]
        for lib, base, check in report.comparisons:
            if lib.error or base.error:
                rows.append([str(lib.n), "-", "-", "-", "-", "-", "-", "-", "-", check])
                continue
            rows.append(
                [
                    str(lib.n),
                    f"{lib.synth_s:.2f}",
                    f"{base.synth_s:.2f}",
                    f"{lib.synth_s / base.synth_s:.2f}",
                    f"{lib.peak_tree_mb:.0f}",
                    f"{base.peak_tree_mb:.0f}",
                    f"{lib.peak_tree_mb / base.peak_tree_mb:.2f}",
                    f"{lib.init_s:.1f}/{base.init_s:.1f}",
                    f"{lib.jsii_calls}/{base.jsii_calls} ({lib.jsii_calls / max(1, base.jsii_calls):.2f})",
                    check,
                ]
            )
        lines += [
            f"Synth: library vs hand-written plain L1, {BASELINE_TITLES.get(report.baseline, report.baseline)} "
            f"(same resources, nag packs + CFN validation on both; goal: time ratio <= {RATIO_GOAL})",
            _table(rows),
            "",
        ]
    if report.scaling:
        base_m = next((m for m in report.scaling if not m.error), None)
        rows = [
            [
                "N",
                "synth s",
                "t(N)/t(first)",
                "ideal N/first",
                "peak MB",
                "process MB",
                "jsii calls",
                "stacks (max resources)",
            ]
        ]
        for m in report.scaling:
            if m.error:
                rows.append(
                    [str(m.n), "FAILED", "-", "-", f"{m.peak_tree_mb:.0f}", "-", "-", m.error.replace("\n", " ")]
                )
                continue
            assert base_m is not None
            sizes = report.stacks.get(m.n, {})
            rows.append(
                [
                    str(m.n),
                    f"{m.synth_s:.2f}",
                    f"{m.synth_s / base_m.synth_s:.2f}",
                    f"{m.n / base_m.n:.2f}",
                    f"{m.peak_tree_mb:.0f}",
                    f"{m.peak_process_mb:.0f}",
                    str(m.jsii_calls),
                    f"{len(sizes)} (max {max(sizes.values(), default=0)})",
                ]
            )
        first = base_m.n if base_m else "-"
        lines += [f"Synth scaling: library alone (goal: linear, t(N)/t({first}) ~ N/{first})", _table(rows), ""]
    if report.plan:
        n, wall, inproc = report.plan
        lines.append(
            f"Plan N={n}: `python -m inference_constructs plan` {wall:.2f} s wall (fresh process), "
            f"plan_platform(load_config) {inproc:.2f} s in-process (goal < {PLAN_GOAL_S:.0f} s)"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: the benchmark, or (``--child``) one measurement inside a fresh process."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.synth", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="N=10 comparison and N=10/30 scaling only")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement; the fastest counts (default 2)")
    parser.add_argument(
        "--baseline",
        choices=BASELINES,
        default="typed",
        help="re-emitter of the plain-L1 baseline: typed L1 classes via CfnInclude (default) or generic CfnResource",
    )
    parser.add_argument("--child", nargs=3, metavar=("MODE", "CONFIG", "OUTDIR"), help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, config, outdir = args.child
        result = child(mode, Path(config), Path(outdir), Path(args.source) if args.source else None, args.baseline)
        print(json.dumps(result))
        return 0
    if args.quick:
        report = run(
            compare_ns=(10,),
            scaling_ns=(10, 30),
            plan_n=300,
            repeat=args.repeat,
            baseline=args.baseline,
            log=sys.stderr,
        )
    else:
        report = run(repeat=args.repeat, baseline=args.baseline, log=sys.stderr)
    sys.stdout.write(format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
