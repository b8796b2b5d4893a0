"""Observability stack: the alarm topic (shared by every alarm of the platform), Bedrock profile alarms,
the fleet dashboard and the optional X-Ray sampling rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs.config.schema import Observability
from inference_constructs.observability import (
    InferenceAlarms,
    InferenceDashboard,
    MonitoredEndpoint,
    MonitoredProfile,
    XRaySamplingRule,
)


class ObservabilityStack(Stack):
    """Composition of the ``observability:`` block. Endpoint alarms live in the hosting stacks and notify
    :attr:`alarms` ``.topic``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: Observability,
        endpoints: Sequence[MonitoredEndpoint],
        profiles: Sequence[MonitoredProfile],
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.alarms = InferenceAlarms(
            self,
            "Alarms",
            profiles=profiles,
            anomaly_std_devs=settings.anomaly_std_devs,
            alarm_email=settings.alarm_email,
        )
        self.dashboard: InferenceDashboard | None = None
        if settings.dashboard:
            self.dashboard = InferenceDashboard(
                self,
                "Dashboard",
                endpoints=endpoints,
                profiles=profiles,
                source_account_ids=settings.source_account_ids,
            )
        self.sampling_rule: XRaySamplingRule | None = None
        if settings.xray_sampling is not None:
            x = settings.xray_sampling
            self.sampling_rule = XRaySamplingRule(
                self,
                "SamplingRule",
                service_name=x.service_name,
                url_path=x.url_path,
                fixed_rate=x.fixed_rate,
                priority=x.priority,
                reservoir_size=x.reservoir_size,
            )
