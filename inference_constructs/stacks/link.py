"""Link stack: one source account's CloudWatch cross-account observability link to the monitoring account's sink,
and Transaction Search in that account when the plan turns it on there. Deployed with the source account's
credentials (``cdk deploy <name>-link-<account>``) or as a wave of a CDK pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs.observability import ObservabilityLink
from inference_constructs.observability.cross_account_plan import LinkDecision, TransactionSearchDecision
from inference_constructs.observability.transaction_search import transaction_search_for
from inference_constructs.region_rules import add_region_rules
from inference_constructs.regions import RegionRequirement


class LinkStack(Stack):
    """Composition of one entry of the plan's ``observability.cross_account.links`` (with a sink ARN)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        link: LinkDecision,
        transaction_search: TransactionSearchDecision | None = None,
        region_requirements: Sequence[RegionRequirement] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        add_region_rules(self, region_requirements)
        assert link.sink_arn is not None, "the plan deploys a link only with a sink arn"
        self.link = ObservabilityLink(
            self,
            "Link",
            sink_arn=link.sink_arn,
            resource_types=link.resource_types,
            label_template=link.label_template,
        )
        self.transaction_search = transaction_search_for(self, transaction_search, link.account)
