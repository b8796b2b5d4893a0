"""The planner: every decision for a platform config, made before any construct exists (:func:`plan_platform`).

Each endpoint is planned (host, then scaling), then the Bedrock profiles and routers, the Savings Plan, the cost
controls, the stack each endpoint goes to, its alarms, and what the regions and accounts must offer. All problems
across the whole file are collected and raised as one :class:`InferenceConfigError`.
"""

from __future__ import annotations

from dataclasses import replace

from inference_constructs.agents.runtime_plan import AgentRuntimeSpec
from inference_constructs.bedrock.inference_profile_plan import check_profile_specs, check_router_roles, plan_entries
from inference_constructs.bedrock.invocation_logging_plan import check_invocation_logging
from inference_constructs.bedrock.invocation_logging_plan import plan_entry as logging_plan_entry
from inference_constructs.bedrock.model_source import ModelSource, Residency
from inference_constructs.bedrock.pricing import token_economics
from inference_constructs.bedrock.router_plan import router_plan
from inference_constructs.catalog import Catalog, load_catalog
from inference_constructs.config.constraints import dashboard_problems
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.cost.capacity_tags import PLATFORM_TAG
from inference_constructs.cost.commitment import CommitmentRecommendation, recommend_commitment
from inference_constructs.errors import InferenceConfigError
from inference_constructs.layout import MAX_RESOURCES_PER_STACK, assign_stacks
from inference_constructs.observability.decisions import (
    AlarmSettings,
    component_widgets,
    endpoint_alarm_prefix,
    endpoint_alarms,
    enhanced_widgets,
)
from inference_constructs.plan.agents import agent_specs
from inference_constructs.plan.bedrock import bedrock_workload, invocation_logging_spec, profile_specs, router_specs
from inference_constructs.plan.cost import budget_warnings, decide_cost
from inference_constructs.plan.endpoint import EndpointDecisions, capacity_schedule, decide_endpoint
from inference_constructs.plan.observability import (
    cross_account_problems,
    decide_cross_account,
    decide_observability,
    graphed_components,
    has_enhanced_widgets,
)
from inference_constructs.plan.platform import PlatformPlan
from inference_constructs.plan.regions import account_requirements, region_requirements
from inference_constructs.regions import RegionRequirement, region_problems
from inference_constructs.spec import EndpointKind

__all__ = ["hosting_stack_name", "plan_platform"]


def plan_platform(
    config: PlatformConfig, *, catalog: Catalog | None = None, max_resources_per_stack: int = MAX_RESOURCES_PER_STACK
) -> PlatformPlan:
    """Make every decision for ``config``.

    Raises
    ------
    InferenceConfigError
        Listing every problem found across all endpoints and profiles.
    """
    cat = catalog or load_catalog()
    problems: list[str] = []
    endpoints: list[EndpointDecisions] = []
    for index, endpoint in enumerate(config.endpoints):
        try:
            endpoints.append(decide_endpoint(index, endpoint, cat))
        except InferenceConfigError as exc:
            problems.extend(exc.problems)
    specs = profile_specs(config)
    problems.extend(check_profile_specs(specs))
    logging = invocation_logging_spec(config.bedrock.invocation_logging)
    if logging is not None:
        problems.extend(check_invocation_logging(logging))
    workloads = []
    for i, profile in enumerate(config.bedrock.profiles):
        workload, found = bedrock_workload(profile.workload, f"bedrock.profiles[{i}].workload")
        workloads.append(workload)
        problems.extend(found)
    routers, router_problems = router_specs(config)
    problems.extend(router_problems)
    problems.extend(check_router_roles(specs, routers))
    savings_plan: CommitmentRecommendation | None = None
    # Prepaid reserved capacity is no on-demand spend a Savings Plan could cover.
    hosted = [e for e in endpoints if e.host is not None and e.hosting.capacity_reservation is None]
    try:
        savings_plan = recommend_commitment(
            [capacity_schedule(e) for e in hosted],
            term_years=config.cost.savings_plan.term_years,
            payment=config.cost.savings_plan.payment,
            paths=[e.path for e in hosted],
        )
    except InferenceConfigError as exc:
        problems.extend(exc.problems)
    cost, cost_problems = decide_cost(config)
    problems.extend(cost_problems)
    gpu_endpoints = sum(1 for e in endpoints if e.hosting.gpu_count > 0 and e.kind is not EndpointKind.SERVERLESS)
    enhanced = sum(enhanced_widgets(e.hosting.gpu_count) for e in endpoints if has_enhanced_widgets(e))
    enhanced += component_widgets(sum(len(graphed_components(e)) for e in endpoints))
    problems.extend(dashboard_problems(config, gpu_endpoints, enhanced))
    agents, extra_problems = _agents_and_links(config)
    problems.extend(extra_problems)
    numbers, stack_problems = assign_stacks(
        [e.footprint for e in endpoints],
        [e.config.stack for e in endpoints],
        [e.path for e in endpoints],
        max_resources=max_resources_per_stack,
        names=[e.name for e in endpoints],
    )
    problems.extend(stack_problems)
    alarm_settings = AlarmSettings(anomaly_std_devs=config.observability.anomaly_std_devs)
    for i, number in enumerate(numbers):
        endpoint_name = f"{config.name}-{endpoints[i].name}"
        hosting = endpoints[i].hosting
        endpoints[i] = replace(
            endpoints[i],
            stack=hosting_stack_name(config.name, number),
            endpoint_name=endpoint_name,
            alarms=tuple(
                alarm
                for component in (
                    None,
                    *(c.name for c in (hosting.components.components[1:] if hosting.components else ())),
                )
                for alarm in endpoint_alarms(
                    endpoints[i].kind,
                    prefix=endpoint_alarm_prefix(endpoint_name, hosting.variant_name, component=component),
                    label=f"endpoint {endpoint_name}" + (f" component {component}" if component else ""),
                    settings=alarm_settings,
                    inference_component=hosting.uses_inference_component,
                )
            ),
        )
    requirements = region_requirements(config, endpoints)
    problems.extend(_region_problems(config, requirements))
    # with ``account`` set, a role of another account is refused by the config constraints (``arn_account``, same
    # reason text); the account requirements become rules of environment-agnostic stacks only
    accounts = account_requirements(config)
    if problems:
        raise InferenceConfigError(problems)
    unpriced = plan_entries(specs, deploy_region=config.region)
    bedrock = [
        entry.priced(
            None
            if workload is None
            else token_economics(
                ModelSource.parse(spec.model),
                workload,
                deploy_region=config.region,
                global_allowed=spec.residency is Residency.ANY,
            )
        )
        for entry, spec, workload in zip(unpriced, specs, workloads, strict=True)
    ]
    logging_entry = logging_plan_entry(logging) if logging is not None else None
    warnings = (
        tuple(w for entry in bedrock for w in entry.warnings)
        + (logging_entry.warnings if logging_entry is not None else ())
        + cost.warnings
        + tuple(budget_warnings(config, endpoints))
    )
    return PlatformPlan(
        config=config,
        endpoints=tuple(endpoints),
        catalog=cat,
        warnings=warnings,
        savings_plan=savings_plan,
        bedrock=tuple(bedrock),
        profiles=tuple(specs),
        bedrock_routers=tuple(router_plan(r) for r in routers),
        routers=tuple(routers),
        regions=requirements,
        accounts=accounts,
        bedrock_invocation_logging=logging_entry,
        cost=cost,
        name=config.name,
        account=config.account,
        region=config.region,
        tags={PLATFORM_TAG: config.name, **config.tags},
        invocation_logging=logging,
        observability=decide_observability(config, endpoints, specs, logging, alarm_settings),
        agents=agents,
    )


def _agents_and_links(config: PlatformConfig) -> tuple[tuple[AgentRuntimeSpec, ...], list[str]]:
    """The agents' specs, and every problem of ``agents`` and ``observability.cross_account``."""
    agents, problems = agent_specs(config)
    return agents, cross_account_problems(config) + problems


def _region_problems(config: PlatformConfig, requirements: dict[str, tuple[RegionRequirement, ...]]) -> list[str]:
    """What the configured region lacks; without one, what each link stack's region (the sink's) lacks."""
    if config.region:
        return region_problems(config.region, requirements)
    cross = decide_cross_account(config)
    return [
        p
        for link in (cross.links if cross is not None else ())
        if link.region and link.stack in requirements
        for p in region_problems(link.region, {link.stack: requirements[link.stack]})
    ]


def hosting_stack_name(platform: str, number: int) -> str:
    """Name of the ``number``-th hosting stack (1-based): ``<platform>-hosting-<number>``."""
    return f"{platform}-hosting-{number}"
