"""Cost stack: cost-allocation tag activation, the budget guardrail and cost anomaly monitoring."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack, aws_sns
from constructs import Construct

from inference_constructs._coerce import props_of
from inference_constructs.cost import BudgetGuardrail, CostAllocationTagActivation, CostAnomalyMonitor
from inference_constructs.cost.decisions import CostPlan
from inference_constructs.region_rules import add_region_rules
from inference_constructs.regions import AccountRequirement, RegionRequirement
from inference_constructs.stacks._handoff import local_topic


class CostStack(Stack):
    """Composition of the ``cost:`` block's resources as the plan decided them (the commitment is a plan figure,
    not a resource)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        decisions: CostPlan,
        alarm_topic: aws_sns.ITopic,
        region_requirements: Sequence[RegionRequirement] = (),
        account_requirements: Sequence[AccountRequirement] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        # the plan's requirements first, so the rules' descriptions name config keys (the budget adds its own too)
        add_region_rules(self, region_requirements, account_requirements)
        alarm_topic = local_topic(self, alarm_topic)  # through SSM, not an export
        if decisions.activation_keys:
            CostAllocationTagActivation(
                self, "TagActivation", tag_keys=decisions.activation_keys, alarm_topic=alarm_topic
            )
        budget = decisions.budget
        if budget is not None:
            BudgetGuardrail(self, "Budget", **props_of(budget), filter_expression=decisions.budget_filter)
        subscription = decisions.subscription
        if subscription is not None:
            CostAnomalyMonitor(
                self,
                "AnomalyMonitor",
                **props_of(subscription),
                monitor_specification=decisions.monitor_specification,
                existing_monitor_arn=decisions.existing_monitor_arn,
            )
