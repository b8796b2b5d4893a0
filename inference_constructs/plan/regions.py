"""What each part of a config's platform needs that not every region has, and the account each part must be
deployed to (from the roles it names): the plan's ``regions`` and ``accounts``.
"""

from __future__ import annotations

from collections.abc import Sequence

from inference_constructs.aws_limits import ARNS
from inference_constructs.bedrock.model_source import ModelSource, source_region_requirement
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability.cross_account_plan import link_stack_name
from inference_constructs.plan.endpoint import EndpointDecisions
from inference_constructs.regions import (
    AccountRequirement,
    RegionRequirement,
    account_requirement,
    platform_requirements,
)

__all__ = ["account_requirements", "region_requirements"]


def region_requirements(
    config: PlatformConfig, endpoints: Sequence[EndpointDecisions]
) -> dict[str, tuple[RegionRequirement, ...]]:
    """What each part of the platform needs that not every region has (by hosting stack, ``bedrock``, ``cost``)."""
    budget = config.cost.budget
    return platform_requirements(
        [(e.path, e.stack, e.hosting.image, e.hosting.uses_inference_component) for e in endpoints],
        staged=[(e.path, e.stack) for e in endpoints if e.hosting.model_data.staging is not None],
        profiles=len(config.bedrock.profiles),
        routers=len(config.bedrock.routers),
        guardrails=[
            f"bedrock.profiles[{i}].guardrail"
            for i, p in enumerate(config.bedrock.profiles)
            if p.guardrail is not None and p.guardrail.id is None
        ],
        budget=bool(budget.monthly_limit_usd),
        budget_action=bool(budget.monthly_limit_usd and budget.deny_role_arns),
        anomaly_monitor=bool(config.cost.anomaly_monitor.notify_email),
        profile_sources=_profile_sources(config),
        transaction_search=transaction_search_parts(config),
        agents=[f"agents[{i}]" for i, a in enumerate(config.agents) if a.runtime_id is None],
    )


def transaction_search_parts(config: PlatformConfig) -> list[str]:
    """The stacks that turn on Transaction Search: ``observability``, and each link stack when it is on in the
    source accounts (a link stack exists once ``cross_account.sink_arn`` is set)."""
    obs = config.observability
    if obs.transaction_search is None:
        return []
    cross = obs.cross_account
    linked = obs.transaction_search.source_accounts and cross is not None and cross.sink_arn is not None
    return ["observability", *(link_stack_name(config.name, a) for a in obs.source_account_ids if linked)]


def _profile_sources(config: PlatformConfig) -> list[RegionRequirement]:
    """The source-Region requirement of each system profile a profile or router copies (an invalid model is reported
    elsewhere)."""
    found: list[RegionRequirement] = []
    for i, profile in enumerate(config.bedrock.profiles):
        try:
            source = ModelSource.parse(profile.model)
        except InferenceConfigError:
            continue
        requirement = source_region_requirement(source, [f"bedrock.profiles[{i}].model"])
        if requirement is not None:
            found.append(requirement)
    for i, router in enumerate(config.bedrock.routers):
        for j, model in enumerate(router.models):
            try:
                source = ModelSource.parse(model)
            except InferenceConfigError:
                continue
            requirement = source_region_requirement(source, [f"bedrock.routers[{i}].models[{j}]"])
            if requirement is not None:
                found.append(requirement)
    return found


def account_requirements(config: PlatformConfig) -> dict[str, tuple[AccountRequirement, ...]]:
    """The account each part must be deployed to, from the roles it names by ARN: ``bedrock`` attaches a managed
    policy to every ``invoke_role_arns`` role (a policy attaches to roles of its own account only), ``cost`` names
    the budget deny roles (``IamActionDefinition.Roles`` takes names, resolved in the budget's account)."""
    bedrock_roles = [
        (f"bedrock.profiles[{i}].invoke_role_arns[{j}]", arn)
        for i, profile in enumerate(config.bedrock.profiles)
        for j, arn in enumerate(profile.invoke_role_arns)
    ] + [
        (f"bedrock.routers[{i}].invoke_role_arns[{j}]", arn)
        for i, router in enumerate(config.bedrock.routers)
        for j, arn in enumerate(router.invoke_role_arns)
    ]
    budget = config.cost.budget
    deny_roles = (
        [(f"cost.budget.deny_role_arns[{j}]", arn) for j, arn in enumerate(budget.deny_role_arns)]
        if budget.monthly_limit_usd
        else []
    )
    parts = {
        "bedrock": account_requirement(ARNS["invoke_role_arns"].why, bedrock_roles),
        "cost": account_requirement(ARNS["deny_role_arns"].why, deny_roles),
    }
    return {part: tuple(reqs) for part, reqs in parts.items() if reqs}
