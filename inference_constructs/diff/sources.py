"""Where ``diff`` finds a side's plan and templates.

- A plan document in a cloud assembly (``cdk.out/inference-plan.json``): the templates are the stack templates the
  assembly's ``manifest.json`` lists beside it.
- A plan document elsewhere (``plan --json`` output): the plan only; no templates, so no replacement report.
- A platform config (YAML): planned, then (unless ``synthesize=False``) synthesized into a temporary cloud
  assembly through the same entry ``cdk synth`` uses, with the feature flags of the ``cdk.json`` in the working
  directory when there is one. ``aws_cdk`` is imported only then.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError, Problem

__all__ = ["Side", "load_side", "read_assembly"]

MANIFEST = "manifest.json"
_STACK_ARTIFACT = "aws:cloudformation:stack"


@dataclass(frozen=True)
class Side:
    """One side of a diff: its plan document, and its templates by stack name (None when unavailable, with why)."""

    plan: dict[str, Any]
    templates: dict[str, dict[str, Any]] | None
    why_no_templates: str = ""


def read_assembly(directory: Path) -> dict[str, dict[str, Any]]:
    """Stack name -> template of every stack the cloud assembly in ``directory`` lists in ``manifest.json``.

    Raises
    ------
    InferenceConfigError
        A manifest that is not JSON or names a template that cannot be read.
    """
    manifest_path = directory / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        out: dict[str, dict[str, Any]] = {}
        for artifact_id, artifact in (manifest.get("artifacts") or {}).items():
            if not isinstance(artifact, Mapping) or artifact.get("type") != _STACK_ARTIFACT:
                continue
            props = artifact.get("properties") or {}
            name = str(props.get("stackName", artifact_id))
            out[name] = json.loads((directory / str(props["templateFile"])).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        raise InferenceConfigError(
            [f"{manifest_path}: not a readable cloud assembly manifest ({exc}); synthesize again"]
        ) from exc
    return out


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InferenceConfigError([f"{path}: cannot read ({exc.strerror}); give a config or plan JSON file"]) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InferenceConfigError([f"{path}: not JSON ({exc.msg} at line {exc.lineno})"]) from exc


def _synthesize(config: Path) -> dict[str, dict[str, Any]]:
    """Synthesize ``config`` into a temporary cloud assembly and return its templates."""
    # Before aws_cdk starts its Node process: no end-of-life banner for the Node version in use (as app.py).
    for var in ("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
    from aws_cdk import App

    from inference_constructs.stacks.platform import synthesize

    cdk_json = Path("cdk.json")
    context = json.loads(cdk_json.read_text(encoding="utf-8")).get("context", {}) if cdk_json.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="inference-diff-") as outdir:
        try:
            synthesize(App(outdir=outdir, context=context), config)
        except RuntimeError as exc:  # a compliance gate refused the synth
            raise InferenceConfigError(
                [f"{config}: synth refused ({exc}); run `cdk synth` to see the findings"]
            ) from exc
        return read_assembly(Path(outdir))


def _in_file(exc: InferenceConfigError, path: Path) -> InferenceConfigError:
    """``exc`` with each problem's key path prefixed by ``path`` (``new.yaml: endpoints[0].serving: ...``), so a
    diff of two configs says which one is wrong; a problem that already names the file is kept as it is."""
    name = str(path)

    def located(problem: Problem) -> Problem:
        if problem.path == name or problem.path.startswith(f"{name}:"):
            return problem
        where = f"{name}: {problem.path}" if problem.path else name
        return Problem(where, problem.what, problem.fix or None, problem.code)

    return InferenceConfigError(located(p) for p in exc.problems)


def load_side(path: str | Path, *, synthesize: bool = True) -> Side:
    """The plan and templates of ``path`` (a plan JSON file, ideally inside a cloud assembly, or a config).

    Raises
    ------
    InferenceConfigError
        An unreadable file, an invalid plan document or config (with the tried path), or a refused synth.
    """
    p = Path(path)
    if p.suffix == ".json":
        doc = _read_json(p)
        if isinstance(doc, dict) and "endpoints" in doc:
            if (p.parent / MANIFEST).is_file():
                return Side(doc, read_assembly(p.parent))
            return Side(doc, None, f"{p}: no {MANIFEST} beside it (not in a cloud assembly)")
    from inference_constructs.config import load_config
    from inference_constructs.plan import plan_platform

    try:
        plan: dict[str, Any] = plan_platform(load_config(p)).to_json()
    except InferenceConfigError as exc:
        raise _in_file(exc, p) from None
    if not synthesize:
        return Side(plan, None, "--no-synth: configs were planned, not synthesized")
    return Side(plan, _synthesize(p))
