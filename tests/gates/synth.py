"""Shared helpers for the gate tests: synthesize a config in-process, read what the assembly holds,
and run cfn-lint on a template."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aws_cdk import App

from inference_constructs.stacks.platform import PLAN_FILE, synthesize

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = [ROOT / "config" / "default.yaml", *sorted((ROOT / "config" / "examples").glob("*.yaml"))]
#: Regions each region-agnostic template is linted for (instance types and services must exist there).
LINT_REGIONS = ["us-east-1", "us-west-2"]
#: cfn-lint findings a project cannot fix: CDK's own provider singletons put a DependsOn next to a GetAtt.
LINT_IGNORED = {"W3005"}


@dataclass
class Assembly:
    """One synthesized cloud assembly on disk."""

    outdir: Path
    error: str | None = None
    templates: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def files(self) -> dict[str, bytes]:
        """Every file of the assembly by relative path (for byte comparison)."""
        return {str(p.relative_to(self.outdir)): p.read_bytes() for p in sorted(self.outdir.rglob("*")) if p.is_file()}

    @property
    def report(self) -> dict[str, Any]:
        """The policy validation report (cdk-nag packs), or an empty one when no plugin reported."""
        path = self.outdir / "validation-report.json"
        return json.loads(path.read_text()) if path.exists() else {"pluginReports": []}

    @property
    def error_annotations(self) -> list[str]:
        """``<construct path>: <message>`` for every error annotation (e.g. a missing cost-allocation tag):
        the CLI refuses to synthesize an app that has any."""
        sources = [json.loads((self.outdir / "manifest.json").read_text())]
        metadata: list[dict[str, Any]] = [a.get("metadata", {}) for a in sources[0].get("artifacts", {}).values()]
        metadata += [json.loads(p.read_text()) for p in sorted(self.outdir.glob("*.metadata.json"))]
        return [
            f"{path}: {entry.get('data')}"
            for by_path in metadata
            for path, entries in by_path.items()
            for entry in entries
            if entry.get("type") == "aws:cdk:error"
        ]

    @property
    def plan(self) -> dict[str, Any]:
        """The plan document written beside the templates."""
        return dict(json.loads((self.outdir / PLAN_FILE).read_text()))


def cli_context() -> dict[str, Any]:
    """The context (feature flags) ``cdk.json`` gives the app under the CDK CLI."""
    return dict(json.loads((ROOT / "cdk.json").read_text())["context"])


def synth_config(config: Path, outdir: Path) -> Assembly:
    """Synthesize ``config`` into ``outdir`` as ``cdk synth`` does (same feature flags from cdk.json); a
    failed gate is recorded, not raised."""
    error = None
    try:
        synthesize(App(outdir=str(outdir), context=cli_context()), config)
    except RuntimeError as exc:  # cdk-nag findings: ValidationFailed
        error = str(exc)
    return read_assembly(outdir, error)


def read_assembly(outdir: Path, error: str | None = None) -> Assembly:
    """The assembly in ``outdir`` with its templates read, and the synth's ``error`` (None when it passed)."""
    result = Assembly(outdir=outdir, error=error)
    for path in sorted(outdir.glob("*.template.json")):
        result.templates[path.name.removesuffix(".template.json")] = json.loads(path.read_text())
    return result


def violations(report: dict[str, Any]) -> list[str]:
    """``<plugin>: <rule> at <construct path>`` for every violation in a validation report."""
    found = []
    for plugin in report.get("pluginReports", []):
        for v in plugin.get("violations", []):
            for c in v.get("violatingConstructs", []):
                found.append(f"{plugin['pluginName']}: {v['ruleName']} at {c.get('constructPath')}")
    return found


def lint(template: dict[str, Any], regions: list[str] | None = None) -> list[str]:
    """cfn-lint errors and warnings (not informational) for ``template``, as ``<rule> <path>: <message>``."""
    from cfnlint.api import ManualArgs
    from cfnlint.api import lint as cfn_lint

    matches = cfn_lint(json.dumps(template), config=ManualArgs(regions=regions or LINT_REGIONS))
    return [
        f"{m.rule.id} {'/'.join(str(p) for p in m.path or [])}: {m.message}"
        for m in matches
        if m.rule.id[0] in "EW" and m.rule.id not in LINT_IGNORED
    ]


def synth_templates(config: Path, outdir: Path) -> Assembly:
    """Plan ``config`` and synthesize its stacks into ``outdir`` without the compliance gates (the gate tests
    cover those): for tests that only read templates and the plan. Raises InferenceConfigError for a bad config."""
    from inference_constructs.config import load_config
    from inference_constructs.plan import plan_platform
    from inference_constructs.stacks.platform import build_platform, write_plan

    plan = plan_platform(load_config(config))
    app = App(outdir=str(outdir), context=cli_context())
    build_platform(app, plan)
    write_plan(plan, app.synth().directory)
    return read_assembly(outdir)
