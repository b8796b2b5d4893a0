"""From the config file's ``cost:`` block to the :class:`CostPlan`: what the cost controls watch, so they share an
account safely (the rules are in :mod:`inference_constructs.cost.decisions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inference_constructs.config.schema import PlatformConfig
from inference_constructs.cost.capacity_tags import CAPACITY_TAG, CAPACITY_TAG_KEYS, PLATFORM_TAG
from inference_constructs.cost.decisions import (
    BUDGET_METRIC,
    AnomalySubscriptionPlan,
    BudgetPlan,
    CostPlan,
    account_of,
    monitor_expression,
    platform_expression,
)
from inference_constructs.observability.decisions import pending_keys_alarm
from inference_constructs.plan.endpoint import EndpointDecisions
from inference_constructs.spec import EndpointKind

__all__ = ["budget_warnings", "decide_cost"]

_DRIVERS_NAMED = 5
"""How many of the costliest endpoints a budget warning names (the rest are counted)."""


def decide_cost(config: PlatformConfig) -> tuple[CostPlan, list[str]]:
    """The cost plan of ``config`` and every problem with it (``<key path>: <what>; <fix>``)."""
    cost = config.cost
    problems: list[str] = []
    warnings: list[str] = []
    budget = cost.budget
    monitor = cost.anomaly_monitor
    has_budget = budget.monthly_limit_usd is not None
    budget_filter = platform_expression(config.name) if has_budget and budget.scope == "platform" else None

    kind: str | None = None
    specification: dict[str, Any] | None = None
    if monitor.notify_email:
        kind = "existing" if monitor.existing_monitor_arn else "custom"
        specification = monitor_expression(config.name) if kind == "custom" else None
    if monitor.existing_monitor_arn:
        monitor_account = account_of(monitor.existing_monitor_arn)
        if config.account and monitor_account and monitor_account != config.account:
            problems.append(
                f"cost.anomaly_monitor.existing_monitor_arn: the monitor is in account {monitor_account}, not the "
                f"deploy account {config.account}; a subscription can only use monitors of its own account"
            )

    deny_account = _deny_account(config)
    keys = list(dict.fromkeys(cost.activate_cost_allocation_tags))
    if (budget_filter or specification) and PLATFORM_TAG not in keys:
        keys.append(PLATFORM_TAG)
    if _tags_capacity(config) and CAPACITY_TAG not in keys:
        # The Cost Explorer view the capacity tags exist for (group by inference:capacity) is empty until the key
        # is an active cost allocation tag.
        keys.append(CAPACITY_TAG)
    scoped = [what for what, on in (("budget", budget_filter), ("anomaly monitor", specification)) if on]
    if scoped:
        warnings.append(
            f"cost: the {' and '.join(scoped)} count only spend tagged {PLATFORM_TAG}={config.name}, and only "
            f"once {PLATFORM_TAG} is an active cost allocation tag (the cost stack activates it; up to 24 hours "
            "after first use; in a member account only the management account can activate it)"
        )
    plan = CostPlan(
        activation_keys=tuple(keys),
        budget_filter=budget_filter,
        monitor=kind,
        monitor_specification=specification,
        existing_monitor_arn=monitor.existing_monitor_arn if kind == "existing" else None,
        deny_account=deny_account,
        warnings=tuple(warnings),
        budget=None
        if budget.monthly_limit_usd is None
        else BudgetPlan(
            monthly_limit_usd=budget.monthly_limit_usd,
            notify_emails=(budget.notify_email,) if budget.notify_email else (),
            deny_role_arns=tuple(budget.deny_role_arns),
            deny_at_percent=budget.deny_new_endpoints_at_percent,
            metrics=(BUDGET_METRIC,) if budget_filter else (),
        ),
        subscription=AnomalySubscriptionPlan(monitor.notify_email, monitor.threshold_usd)
        if kind is not None and monitor.notify_email
        else None,
        capacity_tags=cost.capacity_tags,
        required_tag_keys=tuple(k for k in cost.activate_cost_allocation_tags if k not in CAPACITY_TAG_KEYS),
        tag_activation_alarm=pending_keys_alarm() if keys else None,
    )
    return plan, problems


def budget_warnings(config: PlatformConfig, endpoints: Sequence[EndpointDecisions]) -> list[str]:
    """A warning when the endpoints at minimum capacity already cost more a month (on demand, the plan's
    ``monthly_usd_at_min``) than ``cost.budget.monthly_limit_usd``: the budget then alerts (and denies, with
    ``deny_role_arns``) every month whatever the load. Names the costliest endpoints; none without a budget."""
    limit = config.cost.budget.monthly_limit_usd
    costs = sorted(((e.monthly_usd_at_min or 0.0, e) for e in endpoints if e.monthly_usd_at_min), key=lambda c: -c[0])
    total = sum(c for c, _ in costs)
    if limit is None or total <= limit:
        return []
    named = [
        f"{e.name} ${cost:,.0f} ({e.config.capacity.min} x {e.host.instance.name if e.host else '?'})"
        for cost, e in costs[:_DRIVERS_NAMED]
    ]
    if len(costs) > _DRIVERS_NAMED:
        named.append(f"{len(costs) - _DRIVERS_NAMED} more")
    return [
        f"cost.budget.monthly_limit_usd: the endpoints at minimum capacity alone cost ${total:,.0f}/month on "
        f"demand, above the ${limit:,.0f} budget, so it is exceeded every month whatever the load: "
        + ", ".join(named)
        + "; raise monthly_limit_usd, lower those endpoints' capacity.min (0 scales to zero where the endpoint "
        "kind allows it) or pick cheaper hosts"
    ]


def _tags_capacity(config: PlatformConfig) -> bool:
    """True when the hosting stacks put the capacity tags on some endpoint (``cost.capacity_tags`` and an
    instance-backed endpoint; serverless endpoints have no instances to describe)."""
    return config.cost.capacity_tags and any(e.type is not EndpointKind.SERVERLESS for e in config.endpoints)


def _deny_account(config: PlatformConfig) -> str | None:
    """The account of the deny roles. That every role is in the deploy account (or, without ``account``, in one
    account) is a config rule (``aws_limits.ARNS["deny_role_arns"]``), checked before any decision; here
    the plan names the account, which the cost stack asserts when the templates are environment-agnostic."""
    roles = config.cost.budget.deny_role_arns
    if not roles:
        return None
    # Environment-agnostic templates: the cost stack's ``InferenceAccount`` rule refuses a deploy to another account
    # before any resource exists (``regions.AccountRequirement``).
    return config.account or account_of(roles[0])
