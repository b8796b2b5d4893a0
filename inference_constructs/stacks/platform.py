"""Composes the platform's stacks from a plan (no decisions here: they are all in the plan), the
:class:`InferencePlatform` construct that does it inside any App or Stage, and :func:`synthesize`, the CDK app's
whole synth (a fresh output directory, the construct, the synth, the checks)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import cast

from aws_cdk import App, AspectPriority, Aspects, Environment, Stack, Stage, Token, cx_api
from constructs import Construct

from inference_constructs.compliance import add_compliance_gates
from inference_constructs.cost import RequireCostTags, apply_cost_tags
from inference_constructs.errors import InferenceConfigError, Problem
from inference_constructs.layout import MAX_RESOURCES_PER_STACK
from inference_constructs.observability import MonitoredProfile
from inference_constructs.plan import PlanSource, PlatformPlan, platform_plan
from inference_constructs.stacks.agents import AgentsStack
from inference_constructs.stacks.bedrock import BedrockStack
from inference_constructs.stacks.cost import CostStack
from inference_constructs.stacks.hosting import HostingStack, monitored
from inference_constructs.stacks.link import LinkStack
from inference_constructs.stacks.observability import ObservabilityStack

PLAN_FILE = "inference-plan.json"


def build_platform(scope: Construct, plan: PlatformPlan, *, env: Environment | None = None) -> dict[str, Stack]:
    """Add every stack the plan needs to ``scope`` (an App or a Stage), tag every taggable resource of those
    stacks, and require the cost-allocation keys on each of them (a missing key is a synth error).

    Each stack's construct id and CloudFormation stack name are ``<name>-<role>`` (``acme-genai-hosting-1``)
    wherever ``scope`` sits. ``env`` defaults to the config's ``account``/``region`` (none: the stacks take the
    Stage's environment, or stay environment-agnostic). Returns the stacks by role (``bedrock``,
    ``observability``, ``link-<account>``..., ``agents``, ``hosting-1``..., ``cost``); a link stack is bound to its
    source account and the sink's Region whatever ``env`` says.
    """
    name = plan.name
    if env is None and (plan.account or plan.region):
        env = Environment(account=plan.account, region=plan.region)
    obs = plan.observability
    stacks: dict[str, Stack] = {}
    profiles: list[MonitoredProfile] = []
    if plan.needs_bedrock_stack:
        bedrock = BedrockStack(
            scope,
            f"{name}-bedrock",
            profiles=list(plan.profiles),
            routers=list(plan.routers),
            invocation_logging=plan.invocation_logging,
            alarm_email=obs.alarm_email,
            dashboard=obs.governance_dashboard,
            region_requirements=plan.region_requirements("bedrock"),
            account_requirements=plan.account_requirements("bedrock"),
            stack_name=f"{name}-bedrock",
            env=env,
        )
        stacks["bedrock"] = bedrock
        profiles = [
            MonitoredProfile(name=p.name, profile_id=construct.profile_id, model=p.model)
            for p, construct in zip(plan.profiles, bedrock.profiles.values(), strict=True)
        ]
    # A dashboard that graphs inference components is made once the hosting stacks exist, since they name the
    # components; any other is made with its stack.
    deferred = obs.dashboard is not None and bool(obs.dashboard.components)
    observability = ObservabilityStack(
        scope,
        f"{name}-observability",
        observability=obs,
        endpoints=None if deferred else [monitored(name, e) for e in plan.endpoints],
        profiles=profiles,
        region_requirements=plan.region_requirements("observability"),
        stack_name=f"{name}-observability",
        env=env,
    )
    stacks["observability"] = observability
    for link in obs.cross_account.links if obs.cross_account is not None else ():
        if link.sink_arn is None:
            continue
        stacks[link.stack.removeprefix(f"{name}-")] = LinkStack(
            scope,
            link.stack,
            link=link,
            transaction_search=obs.transaction_search,
            region_requirements=plan.region_requirements(link.stack),
            stack_name=link.stack,
            env=Environment(account=link.account, region=link.region),
        )
    if any(a.deployed for a in plan.agents):
        stacks["agents"] = AgentsStack(
            scope,
            f"{name}-agents",
            agents=plan.agents,
            region_requirements=plan.region_requirements("agents"),
            stack_name=f"{name}-agents",
            env=env,
        )
    for stack_name, endpoints in plan.endpoints_by_stack().items():
        stacks[stack_name.removeprefix(f"{name}-")] = HostingStack(
            scope,
            stack_name,
            platform=name,
            endpoints=endpoints,
            alarm_topic=observability.alarms.topic,
            alarm_settings=obs.settings,
            capacity_tagging=plan.cost.capacity_tags,
            region_requirements=plan.region_requirements(stack_name),
            stack_name=stack_name,
            env=env,
        )
    if deferred:
        watched = {n: m for s in stacks.values() if isinstance(s, HostingStack) for n, m in s.monitored.items()}
        observability.add_dashboard([m for e in plan.endpoints for m in watched[e.name]])
    if plan.cost.needs_stack:
        cost = CostStack(
            scope,
            f"{name}-cost",
            decisions=plan.cost,
            alarm_topic=observability.alarms.topic,
            region_requirements=plan.region_requirements("cost"),
            account_requirements=plan.account_requirements("cost"),
            stack_name=f"{name}-cost",
            env=env,
        )
        stacks["cost"] = cost
    # Tags and the required-tag check go on the platform's stacks, not on ``scope``: a Stage may hold other stacks.
    required = list(plan.cost.required_tag_keys)
    for stack in stacks.values():
        apply_cost_tags(stack, dict(plan.tags))
        if required:
            Aspects.of(stack).add(RequireCostTags(required), priority=AspectPriority.READONLY)
    return stacks


def write_plan(plan: PlatformPlan, assembly_dir: str | Path, file_name: str = PLAN_FILE) -> Path:
    """Write the plan document (``inference-plan.json``) into a cloud assembly directory; returns its path."""
    path = Path(assembly_dir) / file_name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(plan.to_json_text(), encoding="utf-8")
    return path


class InferencePlatform(Construct):
    """The platform a config file describes, as a construct: its stacks (Bedrock, observability, hosting shards,
    cost), tagged, with the compliance gates, inside any CDK ``App`` or ``Stage`` (a CDK Pipelines stage too).

    The stacks are created in the enclosing Stage (the App when there is none), beside this construct, so their
    construct ids, CloudFormation stack names and cloud assembly artifact ids are ``<name>-<role>``
    (``acme-genai-hosting-1``) exactly as the CDK app (``app.py``) makes them: an existing deployment keeps its
    stacks when it moves into a pipeline, and ``cdk deploy acme-genai-hosting-1`` selects a stack in an App. A
    Stack nested in a plain construct would get a path-based artifact id instead. The config's ``name`` is what
    keeps two platforms apart: two stages that deploy to the same account and region need configs with
    different names (the name is in every stack name and in the names of Bedrock profiles and alarms). Tags and
    Aspects added to this construct do not reach the stacks; use the config's ``tags`` or :attr:`stacks`.

    Parameters
    ----------
    scope:
        An App, a Stage, or any construct inside one (the stacks go into its nearest Stage).
    construct_id:
        This construct's id; it does not appear in any template or stack name.
    config:
        A config file path (``docs/config.md``; relative paths against the working directory), a loaded
        ``PlatformConfig`` (``load_config``/``parse_config``/``validate_config``), or a ``PlatformPlan``.
    env:
        Account and region for every stack. Default: the config's ``account``/``region``; when the config sets
        neither, the Stage's environment (environment-agnostic stacks in an App without one). A value the config
        also sets must be the same: the plan was made for the config's region.
    compliance_gates:
        Register the validation plugins (cdk-nag AwsSolutions, NIST 800-53 rev 5, HIPAA Security, the Control
        Tower proactive controls) on the enclosing Stage, as the CDK app does; a finding fails the synth.
        Default: on. The plugins check every stack of that Stage, not only the platform's; a Stage gets them
        once however many platforms it holds.
    plan_file:
        File name the plan document is written to, in the Stage's cloud assembly directory (``cdk.out/`` for an
        App, ``cdk.out/assembly-<stage path>/`` for a Stage, e.g. ``cdk.out/assembly-Pipeline-Prod/``), when this
        construct is created. ``None`` writes nothing. Default: ``inference-plan.json``.
    max_resources_per_stack:
        Resource budget per hosting stack the plan shards endpoints into. Default: CloudFormation's 500
        (``layout.MAX_RESOURCES_PER_STACK``).

    Raises
    ------
    InferenceConfigError
        For a config mistake, an ``env`` that contradicts the config, or a ``plan_file`` that is not a plain file
        name or that another platform in the same Stage writes; always before any construct exists.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: PlanSource,
        env: Environment | None = None,
        compliance_gates: bool = True,
        plan_file: str | None = PLAN_FILE,
        max_resources_per_stack: int = MAX_RESOURCES_PER_STACK,
    ) -> None:
        plan = platform_plan(config, max_resources_per_stack=max_resources_per_stack)
        stage = cast(Stage, scope) if Stage.is_stage(scope) else Stage.of(scope)
        if stage is None:
            raise InferenceConfigError(
                Problem(
                    "scope", f"{scope.node.path!r} is in no App or Stage", "pass an App, a Stage or a construct in one"
                )
            )
        neighbours = [p for p in stage.node.find_all() if isinstance(p, InferencePlatform) and p._stage is stage]
        problems = _env_problems(plan, env)
        plan_path = None if plan_file is None else Path(stage.outdir) / plan_file
        if plan_file is not None:
            problems += _plan_file_problems(plan_file, plan_path, neighbours)
        if problems:
            raise InferenceConfigError(*problems)
        super().__init__(scope, construct_id)
        self._stage: Stage = stage
        # one set of validation plugins per stage, however many platforms it holds
        self._adds_gates: bool = compliance_gates and not any(p._adds_gates for p in neighbours)
        self.plan: PlatformPlan = plan
        """Every decision behind the stacks (what ``inference-plan.json`` holds)."""
        self.plan_path: Path | None = plan_path
        """Where the plan document was written (None when ``plan_file`` is None)."""
        self.stacks: Mapping[str, Stack] = MappingProxyType(build_platform(stage, plan, env=env))
        """The platform's stacks by role: ``bedrock`` (when the config has Bedrock profiles, routers or invocation
        logging), ``observability``, ``link-<account>`` (one per source account once
        ``observability.cross_account.sink_arn`` is set), ``agents`` (when the config deploys an AgentCore runtime),
        ``hosting-1``, ``hosting-2``..., ``cost`` (when the config asks for any)."""
        if self._adds_gates:
            add_compliance_gates(stage)
        if plan_path is not None:
            write_plan(plan, plan_path.parent, plan_path.name)


def _env_problems(plan: PlatformPlan, env: Environment | None) -> list[Problem]:
    """An ``env`` value that contradicts what the config sets (the plan was made for the config's region)."""
    if env is None:
        return []
    problems = []
    for key, ours in (("account", plan.account), ("region", plan.region)):
        theirs = getattr(env, key)
        if ours and theirs is not None and not Token.is_unresolved(theirs) and theirs != ours:
            problems.append(
                Problem(
                    f"env.{key}",
                    f"{theirs!r} contradicts the config's {key} {ours!r}",
                    f"pass {ours!r}, or drop {key} from the config (the plan is made for the config's {key})",
                    "conflict",
                )
            )
    return problems


def _plan_file_problems(plan_file: str, path: Path | None, neighbours: list[InferencePlatform]) -> list[Problem]:
    if not plan_file or Path(plan_file).name != plan_file or plan_file in (".", ".."):
        return [
            Problem(
                "plan_file",
                f"{plan_file!r} is not a file name",
                "pass a name without a folder, e.g. inference-plan.json",
                "pattern",
            )
        ]
    taken = [p for p in neighbours if p.plan_path == path]
    if taken:
        return [
            Problem(
                "plan_file",
                f"{plan_file!r} is written by {taken[0].node.path} in the same stage",
                "pass another file name for one of the two platforms",
                "duplicate",
            )
        ]
    return []


@dataclass(frozen=True)
class Synthesis:
    """What one synth produced."""

    plan: PlatformPlan
    assembly: cx_api.CloudAssembly
    platform: InferencePlatform


def synthesize(
    app: App,
    config: PlanSource,
    *,
    max_resources_per_stack: int = MAX_RESOURCES_PER_STACK,
) -> Synthesis:
    """The CDK app's synth: plan ``config`` (raising InferenceConfigError before anything is written), empty the
    output directory, add an :class:`InferencePlatform` (compliance gates on) to ``app``, synthesize, and check
    every stack's resource count.

    The output directory holds only this synth (no template of a stack an earlier config had). A failed synth
    leaves it as it was before (the earlier synth's files, no ``inference-plan.json`` of this one).

    Raises
    ------
    InferenceConfigError
        For any config mistake, before anything is written (the same message ``plan`` prints).
    RuntimeError
        When a cdk-nag pack reports a finding (``ValidationFailed``), or when a stack holds more
        resources than ``max_resources_per_stack`` (the sharding estimate fell short: a library bug).
    """
    plan = platform_plan(config, max_resources_per_stack=max_resources_per_stack)
    with _fresh_output(Path(app.outdir)):
        # The construct stages assets (Lambda code) and writes the plan into the output directory already.
        platform = InferencePlatform(app, "Platform", config=plan, max_resources_per_stack=max_resources_per_stack)
        assembly = app.synth()
        check_stack_sizes(assembly.directory, max_resources_per_stack)
    return Synthesis(plan=plan, assembly=assembly, platform=platform)


# One synth, one output directory. CDK writes the assembly in place and never removes a file (a template of a
# stack the previous config had stays, and `cdk deploy` of the folder would see it). The caller fixed the
# directory when it made the App (``-o``, ``CDK_OUTDIR`` or ``App(outdir=...)``), so the synth cannot go elsewhere:
# the earlier output moves aside into a folder inside the directory (same file system: renames only), the synth
# writes into the emptied directory, and then the earlier output is deleted (success) or moved back after this
# attempt's files are removed (failure). The CDK CLI's own files stay where they are while the app runs.
#
#: Files the CDK CLI (aws-cdk 2.1148) owns in the output directory while it runs the app: its write lock
#: (``synth.lock``; readers take ``read.<pid>.<n>.lock``), the app's error file (``CDK_ERROR_FILE``) and its
#: performance counters (``CDK_PERF_COUNTERS_FILE``).
CLI_OWNED_FILES = frozenset({"synth.lock", "error.txt", "performance-counters.json"})
_ASIDE_PREFIX = ".earlier-synth-"


def _movable(entry: Path) -> bool:
    name = entry.name
    cli_lock = name.startswith("read.") and name.endswith(".lock")
    return name not in CLI_OWNED_FILES and not cli_lock and not name.startswith(_ASIDE_PREFIX)


def _remove(entry: Path) -> None:
    shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()


@contextmanager
def _fresh_output(outdir: Path) -> Iterator[None]:
    """Run the block on an emptied ``outdir``; keep its output on success, put the earlier output back on failure."""
    existed = outdir.is_dir()
    aside = Path(tempfile.mkdtemp(prefix=_ASIDE_PREFIX, dir=outdir)) if existed else None
    if aside is not None:
        for entry in sorted(outdir.iterdir()):
            if _movable(entry):
                entry.rename(aside / entry.name)
    try:
        yield
    except BaseException:
        if outdir.is_dir() and not existed:
            shutil.rmtree(outdir)
        elif aside is not None:
            for entry in outdir.iterdir():
                if _movable(entry):
                    _remove(entry)
            for entry in aside.iterdir():
                entry.rename(outdir / entry.name)
            aside.rmdir()
        raise
    # this synth's earlier output, and any a killed synth left behind
    for entry in outdir.glob(f"{_ASIDE_PREFIX}*"):
        shutil.rmtree(entry)


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
