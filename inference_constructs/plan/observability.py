"""From the config file's ``observability:`` block and the planned endpoints and profiles to the plan's
:class:`ObservabilityPlan`.
"""

from __future__ import annotations

from collections.abc import Sequence

from inference_constructs.bedrock.inference_profile_plan import ProfileSpec
from inference_constructs.bedrock.invocation_logging_plan import InvocationLoggingSpec
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.observability.decisions import (
    AlarmSettings,
    DashboardDecision,
    ObservabilityPlan,
    XRaySamplingDecision,
    delivery_failure_alarm,
    intervention_alarm,
    profile_alarms,
)
from inference_constructs.plan.endpoint import EndpointDecisions
from inference_constructs.spec import EndpointKind

__all__ = ["decide_observability"]


def decide_observability(
    config: PlatformConfig,
    endpoints: Sequence[EndpointDecisions],
    profiles: Sequence[ProfileSpec],
    logging: InvocationLoggingSpec | None,
    settings: AlarmSettings,
) -> ObservabilityPlan:
    """The ``observability`` section: topic subscription, dashboard, sampling rule, and the alarms of the
    observability stack (per profile) and of the Bedrock stack (invocation-log delivery, guardrail interventions)."""
    obs = config.observability
    gpu = tuple(e.endpoint_name for e in endpoints if e.hosting.gpu_count > 0 and e.kind is not EndpointKind.SERVERLESS)
    x = obs.xray_sampling
    guarded = [p for p in profiles if p.guardrail is not None]
    governance = tuple(delivery_failure_alarm(d) for d in (logging.delivery_paths if logging else ())) + tuple(
        intervention_alarm(i, p.name, p.guardrail.intervention_alarm_percent)
        for i, p in enumerate(guarded)
        if p.guardrail is not None
    )
    return ObservabilityPlan(
        alarm_email=obs.alarm_email,
        settings=settings,
        dashboard=DashboardDecision(
            gpu_endpoints=gpu,
            profiles=tuple(p.name for p in profiles),
            source_account_ids=tuple(obs.source_account_ids),
        )
        if obs.dashboard
        else None,
        xray_sampling=None
        if x is None
        else XRaySamplingDecision(x.service_name, x.url_path, x.fixed_rate, x.priority, x.reservoir_size),
        alarms=tuple(a for p in profiles for a in profile_alarms(p.name, settings=settings)),
        governance_alarms=governance,
        governance_dashboard=obs.dashboard and bool(governance),
    )
