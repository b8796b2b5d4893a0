"""Cost stack: cost-allocation tag activation, the budget guardrail and cost anomaly monitoring."""

from __future__ import annotations

from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs.config.schema import Cost
from inference_constructs.cost import BudgetGuardrail, CostAllocationTagActivation, CostAnomalyMonitor


def needs_cost_stack(cost: Cost) -> bool:
    """True when the ``cost:`` block asks for any resource (activation, budget or anomaly monitor)."""
    return bool(
        cost.activate_cost_allocation_tags or cost.budget.monthly_limit_usd or cost.anomaly_monitor.notify_email
    )


class CostStack(Stack):
    """Composition of the ``cost:`` block's resources (the commitment is a plan figure, not a resource)."""

    def __init__(self, scope: Construct, construct_id: str, *, cost: Cost, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        if cost.activate_cost_allocation_tags:
            CostAllocationTagActivation(self, "TagActivation", tag_keys=cost.activate_cost_allocation_tags)
        budget = cost.budget
        if budget.monthly_limit_usd:
            BudgetGuardrail(
                self,
                "Budget",
                monthly_limit_usd=budget.monthly_limit_usd,
                notify_emails=[budget.notify_email] if budget.notify_email else [],
                deny_role_arns=budget.deny_role_arns,
                deny_at_percent=budget.deny_new_endpoints_at_percent,
            )
        if cost.anomaly_monitor.notify_email:
            CostAnomalyMonitor(
                self,
                "AnomalyMonitor",
                notify_email=cost.anomaly_monitor.notify_email,
                threshold_usd=cost.anomaly_monitor.threshold_usd,
            )
