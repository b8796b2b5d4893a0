"""Observability stack: the alarm topic (shared by every alarm of the platform), Bedrock profile alarms,
the fleet dashboard, the optional X-Ray sampling rule and Transaction Search, and (in a monitoring account) the
cross-account observability sink.

Bedrock profile ids arrive through SSM parameters the Bedrock stack writes, not through exports: a model bump
replaces a profile (new id), and CloudFormation refuses to change an export another stack imports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs._coerce import props_of
from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability import (
    InferenceAlarms,
    InferenceDashboard,
    MonitoredEndpoint,
    MonitoredProfile,
    ObservabilitySink,
    XRaySamplingRule,
)
from inference_constructs.observability.decisions import ObservabilityPlan
from inference_constructs.observability.transaction_search import transaction_search_for
from inference_constructs.region_rules import add_region_rules
from inference_constructs.regions import RegionRequirement
from inference_constructs.stacks._handoff import key_segment, local_value


class ObservabilityStack(Stack):
    """Composition of the plan's ``observability`` section. Endpoint alarms live in the hosting stacks and notify
    :attr:`alarms` ``.topic``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        observability: ObservabilityPlan,
        endpoints: Sequence[MonitoredEndpoint] | None,
        profiles: Sequence[MonitoredProfile],
        region_requirements: Sequence[RegionRequirement] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        add_region_rules(self, region_requirements)
        profiles = [
            replace(p, profile_id=local_value(self, p.profile_id, key=f"bedrock-profiles/{key_segment(p.name)}/id"))
            for p in profiles
        ]
        self.alarms = InferenceAlarms(
            self,
            "Alarms",
            profiles=profiles,
            **props_of(observability.settings),
            alarm_email=observability.alarm_email,
        )
        self._observability, self._profiles = observability, profiles
        self.dashboard: InferenceDashboard | None = None
        if endpoints is not None:
            self.add_dashboard(endpoints)
        self.sampling_rule: XRaySamplingRule | None = None
        if observability.xray_sampling is not None:
            self.sampling_rule = XRaySamplingRule(self, "SamplingRule", **props_of(observability.xray_sampling))
        cross = observability.cross_account
        self.sink: ObservabilitySink | None = None
        if cross is not None and cross.sink_name is not None:
            self.sink = ObservabilitySink(
                self,
                "Sink",
                sink_name=cross.sink_name,
                source_account_ids=cross.source_account_ids,
                organization_id=cross.organization_id,
                resource_types=cross.resource_types,
            )
        self.transaction_search = transaction_search_for(self, observability.transaction_search, "this")

    def add_dashboard(self, endpoints: Sequence[MonitoredEndpoint]) -> InferenceDashboard | None:
        """Create the plan's dashboard over ``endpoints`` (and the stack's profiles), once; None when the plan has no
        dashboard. The platform calls it once the hosting stacks exist, so the dashboard knows the name of every
        inference component (``endpoints=None`` at construction leaves it to this call).

        Raises
        ------
        InferenceConfigError
            When the dashboard already exists (one per stack), or its inputs are invalid.
        """
        plan = self._observability.dashboard
        if plan is None:
            return None
        if self.dashboard is not None:
            raise InferenceConfigError(
                "observability.dashboard: the stack already has its dashboard; call add_dashboard once, or pass "
                "endpoints=None to the stack"
            )
        self.dashboard = InferenceDashboard(
            self,
            "Dashboard",
            endpoints=endpoints,
            profiles=self._profiles,
            source_account_ids=plan.source_account_ids,
        )
        return self.dashboard
