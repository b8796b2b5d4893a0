"""From the config file's ``observability:`` block and the planned endpoints and profiles to the plan's
:class:`ObservabilityPlan`.
"""

from __future__ import annotations

from collections.abc import Sequence

from inference_constructs.bedrock.inference_profile_plan import ProfileSpec
from inference_constructs.bedrock.invocation_logging_plan import InvocationLoggingSpec
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.observability.cross_account_plan import (
    LOG_GROUPS,
    METRICS,
    TRACES,
    CrossAccountDecision,
    LinkDecision,
    TransactionSearchDecision,
    check_cross_account,
    link_stack_name,
    sink_region,
)
from inference_constructs.observability.decisions import (
    AlarmSettings,
    DashboardDecision,
    ObservabilityPlan,
    XRaySamplingDecision,
    delivery_failure_alarm,
    intervention_alarm,
    profile_alarms,
)
from inference_constructs.observability.targets import enhanced_metrics_on
from inference_constructs.plan.endpoint import EndpointDecisions
from inference_constructs.spec import EndpointKind

__all__ = [
    "cross_account_problems",
    "decide_cross_account",
    "decide_observability",
    "decide_transaction_search",
    "graphed_components",
    "has_enhanced_widgets",
]


def _resource_types(config: PlatformConfig) -> tuple[str, ...]:
    """What the links share: the config's list, else metrics (every dashboard and alarm reads them), and traces
    and log groups (the ``aws/spans`` log group) when Transaction Search is on."""
    obs = config.observability
    cross = obs.cross_account
    if cross is not None and cross.resource_types is not None:
        return tuple(cross.resource_types)
    return (METRICS,) + ((TRACES, LOG_GROUPS) if obs.transaction_search is not None else ())


def sink_name(config: PlatformConfig) -> str:
    """The sink's name: ``cross_account.sink_name``, else ``<platform name>-monitoring``."""
    cross = config.observability.cross_account
    return cross.sink_name if cross is not None and cross.sink_name else f"{config.name}-monitoring"


def cross_account_problems(config: PlatformConfig) -> list[str]:
    """Every problem with ``observability.cross_account`` (none without it)."""
    cross = config.observability.cross_account
    if cross is None:
        return []
    return check_cross_account(
        source_account_ids=config.observability.source_account_ids,
        organization_id=cross.organization_id,
        resource_types=_resource_types(config),
        sink_name=sink_name(config) if cross.sink else None,
        sink_arn=cross.sink_arn,
        label_template=cross.label_template,
        own_account=config.account,
        region=config.region,
    )


def decide_cross_account(config: PlatformConfig) -> CrossAccountDecision | None:
    """The sink (when ``cross_account.sink``) and one link per source account; a link is deployed (has a link
    stack) once ``cross_account.sink_arn`` names the sink, in the sink's Region."""
    obs = config.observability
    cross = obs.cross_account
    if cross is None:
        return None
    types = _resource_types(config)
    region = sink_region(cross.sink_arn) if cross.sink_arn else config.region
    return CrossAccountDecision(
        sink_name=sink_name(config) if cross.sink else None,
        source_account_ids=() if cross.organization_id else tuple(obs.source_account_ids),
        organization_id=cross.organization_id,
        resource_types=types,
        links=tuple(
            LinkDecision(
                stack=link_stack_name(config.name, account),
                account=account,
                region=region,
                sink_arn=cross.sink_arn,
                resource_types=types,
                label_template=cross.label_template,
            )
            for account in obs.source_account_ids
        ),
    )


def decide_transaction_search(
    config: PlatformConfig, cross: CrossAccountDecision | None
) -> TransactionSearchDecision | None:
    """Transaction Search in this account (``"this"``) and, with ``source_accounts``, in each source account that
    has a link stack (the traces are produced where the workloads run)."""
    search = config.observability.transaction_search
    if search is None:
        return None
    linked = tuple(link.account for link in cross.links if link.sink_arn) if cross is not None else ()
    return TransactionSearchDecision(
        indexing_percentage=search.indexing_percentage,
        accounts=("this", *(linked if search.source_accounts else ())),
    )


def graphed_components(endpoint: EndpointDecisions) -> tuple[str, ...]:
    """The inference components of ``endpoint`` the dashboard graphs one by one (``DashboardDecision.components``):
    none unless it is served through inference components; its name for the first, ``<name>/<component>`` after."""
    if not endpoint.hosting.uses_inference_component:
        return ()
    further = endpoint.hosting.components.components[1:] if endpoint.hosting.components is not None else ()
    return (endpoint.endpoint_name, *(f"{endpoint.endpoint_name}/{c.name}" for c in further))


def has_enhanced_widgets(endpoint: EndpointDecisions) -> bool:
    """True when the dashboard gives ``endpoint`` its per-GPU and per-instance row: a real-time endpoint whose
    endpoint config turns enhanced metrics on."""
    return endpoint.kind is EndpointKind.REALTIME and enhanced_metrics_on(endpoint.hosting)


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
    enhanced = tuple(e.endpoint_name for e in endpoints if has_enhanced_widgets(e))
    x = obs.xray_sampling
    guarded = [p for p in profiles if p.guardrail is not None]
    cross = decide_cross_account(config)
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
            enhanced_endpoints=enhanced,
            components=tuple(c for e in endpoints for c in graphed_components(e)),
        )
        if obs.dashboard
        else None,
        xray_sampling=None
        if x is None
        else XRaySamplingDecision(x.service_name, x.url_path, x.fixed_rate, x.priority, x.reservoir_size),
        alarms=tuple(a for p in profiles for a in profile_alarms(p.name, settings=settings)),
        governance_alarms=governance,
        governance_dashboard=obs.dashboard and bool(governance),
        cross_account=cross,
        transaction_search=decide_transaction_search(config, cross),
    )
