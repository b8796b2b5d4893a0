"""Composes the platform's stacks from a plan (no decisions here: they are all in the plan)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aws_cdk import App, Environment, Tags, cx_api

from inference_constructs.compliance import add_compliance_gates
from inference_constructs.config import load_config
from inference_constructs.plan import PlatformPlan, plan_platform, profile_specs
from stacks.bedrock import BedrockStack
from stacks.hosting import HostingStack

PLAN_FILE = "inference-plan.json"


def build_platform(app: App, plan: PlatformPlan) -> None:
    """Add every stack the plan needs to ``app`` and tag every taggable resource."""
    config = plan.config
    env = Environment(account=config.account, region=config.region) if config.account or config.region else None
    if plan.endpoints:
        HostingStack(app, f"{config.name}-hosting-1", platform=config.name, endpoints=plan.endpoints, env=env)
    if config.bedrock.profiles:
        BedrockStack(app, f"{config.name}-bedrock", profiles=profile_specs(config), env=env)
    Tags.of(app).add("inference:platform", config.name)
    for key, value in sorted(config.tags.items()):
        Tags.of(app).add(key, value)


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


def synthesize(app: App, config_path: str | Path) -> Synthesis:
    """Load and plan ``config_path`` (raising InferenceConfigError before anything exists), compose the
    stacks into ``app`` with the compliance gates on, synthesize, and write the plan into the assembly."""
    plan = plan_platform(load_config(config_path))
    build_platform(app, plan)
    add_compliance_gates(app)
    assembly = app.synth()
    write_plan(plan, assembly.directory)
    return Synthesis(plan=plan, assembly=assembly)
