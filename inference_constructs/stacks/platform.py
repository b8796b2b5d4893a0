"""Composes the platform's stacks from a plan (no decisions here: they are all in the plan)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from aws_cdk import App, AspectPriority, Aspects, Environment, cx_api

from inference_constructs.bedrock.governance_config import invocation_logging_spec
from inference_constructs.compliance import add_compliance_gates
from inference_constructs.config import load_config
from inference_constructs.cost import CAPACITY_TAG_KEYS, RequireCostTags, apply_cost_tags
from inference_constructs.cost.capacity_tags import PLATFORM_TAG
from inference_constructs.layout import MAX_RESOURCES_PER_STACK
from inference_constructs.observability import MonitoredProfile
from inference_constructs.plan import PlatformPlan, plan_platform
from inference_constructs.region_rules import add_region_rules
from inference_constructs.stacks.bedrock import BedrockStack
from inference_constructs.stacks.cost import CostStack, needs_cost_stack
from inference_constructs.stacks.hosting import HostingStack, monitored
from inference_constructs.stacks.observability import ObservabilityStack

PLAN_FILE = "inference-plan.json"


def build_platform(app: App, plan: PlatformPlan) -> None:
    """Add every stack the plan needs to ``app``, tag every taggable resource, and require the
    cost-allocation keys on each of them (a missing key is a synth error)."""
    config = plan.config
    name = config.name
    env = Environment(account=config.account, region=config.region) if config.account or config.region else None
    profiles: list[MonitoredProfile] = []
    logging = invocation_logging_spec(config.bedrock.invocation_logging)
    if config.bedrock.profiles or config.bedrock.routers or logging is not None:
        bedrock = BedrockStack(
            app,
            f"{name}-bedrock",
            profiles=list(plan.profiles),
            routers=list(plan.routers),
            invocation_logging=logging,
            alarm_email=config.observability.alarm_email,
            dashboard=config.observability.dashboard,
            env=env,
        )
        add_region_rules(bedrock, plan.region_requirements("bedrock"))
        profiles = [
            MonitoredProfile(name=p.name, profile_id=construct.profile_id, model=p.model)
            for p, construct in zip(plan.profiles, bedrock.profiles.values(), strict=True)
        ]
    observability = ObservabilityStack(
        app,
        f"{name}-observability",
        settings=config.observability,
        endpoints=[monitored(name, e) for e in plan.endpoints],
        profiles=profiles,
        env=env,
    )
    for stack_name, endpoints in plan.endpoints_by_stack().items():
        HostingStack(
            app,
            stack_name,
            platform=name,
            endpoints=endpoints,
            alarm_topic=observability.alarms.topic,
            anomaly_std_devs=config.observability.anomaly_std_devs,
            capacity_tagging=config.cost.capacity_tags,
            region_requirements=plan.region_requirements(stack_name),
            env=env,
        )
    if needs_cost_stack(config.cost, plan.cost):
        cost = CostStack(
            app,
            f"{name}-cost",
            cost=config.cost,
            decisions=plan.cost,
            alarm_topic=observability.alarms.topic,
            env=env,
        )
        add_region_rules(cost, plan.region_requirements("cost"))
    apply_cost_tags(app, {PLATFORM_TAG: name, **config.tags})
    required = [k for k in config.cost.activate_cost_allocation_tags if k not in CAPACITY_TAG_KEYS]
    if required:
        Aspects.of(app).add(RequireCostTags(required), priority=AspectPriority.READONLY)


def write_plan(plan: PlatformPlan, assembly_dir: str) -> Path:
    """Write ``inference-plan.json`` into the cloud assembly directory; returns its path."""
    path = Path(assembly_dir) / PLAN_FILE
    path.write_text(plan.to_json_text(), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Synthesis:
    """What one synth produced."""

    plan: PlatformPlan
    assembly: cx_api.CloudAssembly


def synthesize(
    app: App, config_path: str | Path, *, max_resources_per_stack: int = MAX_RESOURCES_PER_STACK
) -> Synthesis:
    """Load and plan ``config_path`` (raising InferenceConfigError before anything exists), compose the
    stacks into ``app`` with the compliance gates on, synthesize, and write the plan into the assembly.

    A failed synth leaves the output directory as it was before (no template, no ``inference-plan.json``).

    Raises
    ------
    InferenceConfigError
        For any config mistake, before anything is written (the same message ``plan`` prints).
    RuntimeError
        When a cdk-nag pack reports a finding (``ValidationFailed``), or when a stack holds more
        resources than ``max_resources_per_stack`` (the sharding estimate fell short: a library bug).
    """
    plan = plan_platform(load_config(config_path), max_resources_per_stack=max_resources_per_stack)
    outdir = Path(app.outdir)
    before = _snapshot(outdir)
    try:
        build_platform(app, plan)  # stages assets (Lambda code) into the output directory already
        add_compliance_gates(app)
        assembly = app.synth()
        directory = assembly.directory
        check_stack_sizes(directory, max_resources_per_stack)
        write_plan(plan, directory)
    except BaseException:
        _restore(outdir, before)
        raise
    return Synthesis(plan=plan, assembly=assembly)


# A failed synth leaves the output directory as it found it. CDK writes the assembly in place: templates,
# manifest, tree and validation report at the top level, and assets in new content-hashed folders (staged
# while constructs are created). The caller fixed the directory when it made the App (``-o``, ``CDK_OUTDIR``
# or ``App(outdir=...)``), so synthesizing elsewhere and moving is not possible without changing where a
# successful synth writes. Instead the top-level files are remembered (small JSON) and restored on failure,
# and every entry the attempt added is removed.


def _snapshot(outdir: Path) -> dict[str, bytes | None] | None:
    """Top-level entries of ``outdir``: file name -> bytes, or None for a folder; None when it does not exist."""
    if not outdir.is_dir():
        return None
    return {p.name: (p.read_bytes() if p.is_file() else None) for p in outdir.iterdir()}


def _restore(outdir: Path, before: dict[str, bytes | None] | None) -> None:
    """Put ``outdir`` back as :func:`_snapshot` saw it (remove it when it did not exist)."""
    if not outdir.is_dir():
        return
    if before is None:
        shutil.rmtree(outdir)
        return
    for entry in outdir.iterdir():
        if entry.name not in before:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        elif before[entry.name] is not None and entry.read_bytes() != before[entry.name]:
            entry.write_bytes(before[entry.name])  # type: ignore[arg-type]


def check_stack_sizes(assembly_dir: str | Path, max_resources_per_stack: int = MAX_RESOURCES_PER_STACK) -> None:
    """Raise RuntimeError when a stack of the cloud assembly in ``assembly_dir`` holds more resources than
    ``max_resources_per_stack`` (the sharding estimate fell short: a library bug).

    Reads ``manifest.json`` and the template files directly: asking the synthesized ``CloudAssembly`` for its
    stacks' templates moves every template through the jsii kernel, 10% of a 10-endpoint synth."""
    directory = Path(assembly_dir)
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    for artifact_id, artifact in manifest.get("artifacts", {}).items():
        if artifact.get("type") != "aws:cloudformation:stack":
            continue
        properties = artifact.get("properties", {})
        template = json.loads((directory / properties["templateFile"]).read_text(encoding="utf-8"))
        count = len(template.get("Resources", {}))
        if count > max_resources_per_stack:
            raise RuntimeError(
                f"stack {properties.get('stackName', artifact_id)} has {count} resources, over the "
                f"{max_resources_per_stack} allowed; the sharding estimate in inference_constructs/layout.py is "
                "too low for this endpoint mix"
            )
