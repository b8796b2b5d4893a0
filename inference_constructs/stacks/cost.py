"""Cost stack: cost-allocation tag activation, the budget guardrail and cost anomaly monitoring."""

from __future__ import annotations

from typing import Any

from aws_cdk import Stack, aws_sns
from constructs import Construct

from inference_constructs.config.schema import Cost
from inference_constructs.cost import BudgetGuardrail, CostAllocationTagActivation, CostAnomalyMonitor
from inference_constructs.cost.scope import CostPlan
from inference_constructs.stacks._handoff import local_topic


def needs_cost_stack(cost: Cost, decisions: CostPlan) -> bool:
    """True when the ``cost:`` block asks for any resource (activation, budget or anomaly monitor)."""
    return bool(decisions.activation_keys or cost.budget.monthly_limit_usd or decisions.monitor)


class CostStack(Stack):
    """Composition of the ``cost:`` block's resources as the plan decided them (the commitment is a plan figure,
    not a resource)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cost: Cost,
        decisions: CostPlan,
        alarm_topic: aws_sns.ITopic,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        alarm_topic = local_topic(self, alarm_topic)  # through SSM, not an export
        if decisions.activation_keys:
            CostAllocationTagActivation(
                self, "TagActivation", tag_keys=decisions.activation_keys, alarm_topic=alarm_topic
            )
        budget = cost.budget
        if budget.monthly_limit_usd:
            BudgetGuardrail(
                self,
                "Budget",
                monthly_limit_usd=budget.monthly_limit_usd,
                notify_emails=[budget.notify_email] if budget.notify_email else [],
                deny_role_arns=budget.deny_role_arns,
                deny_at_percent=budget.deny_new_endpoints_at_percent,
                filter_expression=decisions.budget_filter,
            )
        if decisions.monitor and cost.anomaly_monitor.notify_email:
            CostAnomalyMonitor(
                self,
                "AnomalyMonitor",
                notify_email=cost.anomaly_monitor.notify_email,
                threshold_usd=cost.anomaly_monitor.threshold_usd,
                monitor_specification=decisions.monitor_specification,
                existing_monitor_arn=decisions.existing_monitor_arn,
            )
