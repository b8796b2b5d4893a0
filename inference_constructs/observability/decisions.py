"""What the platform watches and how: every alarm's metric, threshold or band, evaluation and missing-data
treatment, each with its reason, and the dashboard's content (pure decisions; no ``aws_cdk``).

The plan records these (``endpoints[].alarms`` and the ``observability`` section of ``inference-plan.json``);
:class:`~inference_constructs.observability.InferenceAlarms`, the Bedrock governance monitoring and the tag
activation translate them into ``AWS::CloudWatch::Alarm`` resources, binding the dimension values (endpoint,
variant, inference component, profile and guardrail names) that only the built resources know.

Rules: CloudWatch cannot alarm on SEARCH, so alarms watch plain metrics (or metric math over them) of resources
the app knows; an anomaly-detection alarm compares its metric with ``ANOMALY_DETECTION_BAND(m0, std_devs)``, and
such alarms cannot drive auto scaling (CloudWatch user guide, "Using CloudWatch anomaly detection"); an alarm
looks back at most one day for periods under an hour (PutMetricAlarm: ``Period * EvaluationPeriods`` <= 86,400 s).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from inference_constructs._ids import construct_id
from inference_constructs.observability import metric_table
from inference_constructs.observability.cross_account_plan import CrossAccountDecision, TransactionSearchDecision
from inference_constructs.observability.metric_definitions import (
    ERROR_METRICS,
    Dimension,
    error_rate_expression,
)
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.spec import EndpointKind
from inference_constructs.stats import Statistic

#: Period of the endpoint and profile alarms: 5 minutes, as the dashboard graphs them.
PERIOD_SECONDS = 300
#: Anomaly alarms breach on 3 of 3 periods (15 minutes).
ANOMALY_EVALUATION_PERIODS = 3
#: Interventions are judged over 3 consecutive 5-minute periods (a single blocked prompt is not an incident).
INTERVENTION_EVALUATION_PERIODS = 3
#: Delivery failure metric of each invocation-logging destination (Bedrock user guide, "Monitor bedrock-runtime
#: inference using CloudWatch metrics": emitted in ``AWS/Bedrock`` across all model IDs, without dimensions).
DELIVERY_FAILURES = {
    "s3": metric_table.LOGS_S3_DELIVERY_FAILURE,
    "cloudwatch_logs": metric_table.LOGS_CLOUDWATCH_DELIVERY_FAILURE,
    "large_data": metric_table.LARGE_DATA_S3_DELIVERY_FAILURE,
}
#: Their metric names.
DELIVERY_FAILURE_METRICS = {destination: row.name for destination, row in DELIVERY_FAILURES.items()}
#: The endpoint's invocation metrics, per variant or per inference component (``metric_definitions``).
_INVOCATION_DIMENSIONS = "invocation"
#: The async queue metrics: ``EndpointName`` only.
_QUEUE_DIMENSIONS = "queue"


@dataclass(frozen=True)
class AlarmSettings:
    """The thresholds of :class:`~inference_constructs.observability.InferenceAlarms` (each default written
    here once).

    Attributes
    ----------
    anomaly_std_devs:
        Width of the anomaly-detection band in standard deviations; wider means fewer alarms. Default: 2, the
        CloudWatch default.
    error_rate_percent:
        5XX error rate that breaches, 0-100. Default: 5 %, in two of three 5-minute periods.
    oldest_request_age_seconds:
        Age of the oldest queued async request that breaches. Default: 900 s (15 minutes), three 5-minute periods.
    backlog_without_capacity_minutes:
        Minutes an async endpoint may hold a backlog with zero instances before alarming (1-1440); scale-from-zero
        normally takes a few minutes. Default: 15.
    cold_start_seconds:
        Serverless ``ModelSetupTime`` that breaches; SageMaker fails a cold start after 3 minutes. Default: 60 s.
    """

    anomaly_std_devs: float = 2
    error_rate_percent: float = 5.0
    oldest_request_age_seconds: int = 900
    backlog_without_capacity_minutes: int = 15
    cold_start_seconds: float = 60.0


DEFAULT_SETTINGS = AlarmSettings()
"""The default thresholds (one shared value: settings are frozen)."""


@dataclass(frozen=True)
class MetricQuery:
    """One plain metric a metric-math alarm reads, by expression id."""

    id: str
    metric: str
    statistic: Statistic | str


@dataclass(frozen=True)
class AlarmDecision:
    """One alarm: what it watches, when it breaches, and why it exists.

    ``kind`` is ``anomaly`` (``metric`` against its band of ``std_devs``) or ``static`` (``metric``, or
    ``expression`` over ``metrics``, against ``threshold``). ``construct`` is the alarm's construct path inside
    its stack (its logical id follows from it). ``dimensions`` names the dimensions; the constructs bind their
    values (the built resources' names). Comparison and missing-data values are CloudFormation's.
    """

    construct: str
    kind: Literal["anomaly", "static"]
    namespace: str
    metric: str
    statistic: Statistic | str
    period_seconds: int
    dimensions: tuple[str, ...]
    comparison_operator: str
    evaluation_periods: int
    datapoints_to_alarm: int
    treat_missing_data: str
    description: str
    threshold: float | None = None
    std_devs: float | None = None
    expression: str | None = None
    expression_label: str | None = None
    metrics: tuple[MetricQuery, ...] = ()
    unit: str | None = None

    @property
    def alarm(self) -> str:
        """The alarm's construct id (the last part of :attr:`construct`)."""
        return self.construct.rsplit("/", 1)[-1]

    def to_dict(self) -> dict[str, Any]:
        """The alarm's plan entry: every field, in the order of ``_ALARM_PLAN_KEYS``, tuples as lists."""
        entry = {name: getattr(self, name) for name in _ALARM_PLAN_KEYS}
        entry["dimensions"] = list(self.dimensions)
        entry["metrics"] = [asdict(m) for m in self.metrics]
        return entry


_ALARM_PLAN_KEYS = (
    "construct",
    "kind",
    "namespace",
    "metric",
    "statistic",
    "period_seconds",
    "unit",
    "dimensions",
    "threshold",
    "std_devs",
    "expression",
    "expression_label",
    "metrics",
    "comparison_operator",
    "evaluation_periods",
    "datapoints_to_alarm",
    "treat_missing_data",
    "description",
)
"""The keys of an alarm's plan entry, in plan order: what it watches, when it breaches, then why."""


def endpoint_alarm_prefix(
    endpoint_name: str | None, variant_name: str | None = "AllTraffic", index: int = 0, component: str | None = None
) -> str:
    """Construct-id prefix of an endpoint's alarms: its name (``Endpoint<index>`` when the name is not known at
    synth time, None), its variant unless ``AllTraffic`` or unknown, and the inference component they watch when it
    is one of several after the first (``component``, its config name)."""
    base = f"Endpoint{index}" if endpoint_name is None else construct_id(endpoint_name)
    base = base if variant_name in ("AllTraffic", None) else base + construct_id(variant_name)
    return base if component is None else base + construct_id(component)


def endpoint_dimension_names(*, inference_component: bool, queue_metric: bool = False) -> tuple[str, ...]:
    """The dimension names of an endpoint's ``AWS/SageMaker`` metric (``metric_definitions.endpoint_dimensions``)."""
    if queue_metric:
        return (Dimension.ENDPOINT_NAME.value,)
    if inference_component:
        return (Dimension.INFERENCE_COMPONENT_NAME.value,)
    return (Dimension.ENDPOINT_NAME.value, Dimension.VARIANT_NAME.value)


def endpoint_alarms(
    kind: EndpointKind,
    *,
    prefix: str,
    label: str,
    settings: AlarmSettings = DEFAULT_SETTINGS,
    inference_component: bool = False,
    parent: str = "Alarms",
) -> tuple[AlarmDecision, ...]:
    """The alarms of one endpoint, in template order: anomaly on ``ModelLatency`` p99 (above the band); not async
    (which publishes no ``Invocations``): anomaly on ``Invocations`` (outside the band) and the 5XX error rate;
    async: ``HasBacklogWithoutCapacity`` (scale-from-zero not working) and ``ApproximateAgeOfOldestRequest``;
    serverless: ``ModelSetupTime`` (cold start). ``label`` names the endpoint in descriptions; ``prefix`` starts
    the construct ids (:func:`endpoint_alarm_prefix`)."""
    dims = endpoint_dimension_names(inference_component=inference_component)
    queue = endpoint_dimension_names(inference_component=inference_component, queue_metric=True)
    s = settings
    out = [
        _anomaly(
            f"{parent}/{prefix}ModelLatencyP99Anomaly",
            metric_table.MODEL_LATENCY,
            dims,
            "GreaterThanUpperThreshold",
            s.anomaly_std_devs,
            f"SageMaker {label}: ModelLatency p99 above its anomaly band for 15 minutes; latency regressed",
        )
    ]
    if kind is not EndpointKind.ASYNC:
        rate = error_rate_expression("5XX")
        out.append(
            _anomaly(
                f"{parent}/{prefix}InvocationsAnomaly",
                metric_table.INVOCATIONS,
                dims,
                "LessThanLowerOrGreaterThanUpperThreshold",
                s.anomaly_std_devs,
                f"SageMaker {label}: Invocations outside its anomaly band for 15 minutes; traffic surged or dropped",
            )
        )
        out.append(
            _alarm(
                f"{parent}/{prefix}5xxErrorRate",
                ERROR_METRICS["5XX"],
                dims,
                statistic="Sum",
                threshold=s.error_rate_percent,
                comparison="GreaterThanThreshold",
                periods=(3, 2),
                description=f"SageMaker {label}: more than {s.error_rate_percent:g} % of invocations returned 5XX "
                "in two of three 5-minute periods",
                math=(
                    rate.expression,
                    rate.label,
                    (
                        MetricQuery(rate.errors_id, rate.errors_metric, "Sum"),
                        _query("invocations", metric_table.INVOCATIONS),
                    ),
                ),
            )
        )
    if kind is EndpointKind.ASYNC:
        minutes = s.backlog_without_capacity_minutes
        out.append(
            _alarm(
                f"{parent}/{prefix}BacklogWithoutCapacity",
                metric_table.HAS_BACKLOG_WITHOUT_CAPACITY,
                queue,
                period_seconds=60,
                threshold=1,
                comparison="GreaterThanOrEqualToThreshold",
                periods=(minutes, minutes),
                description=f"SageMaker async {label}: requests queued with zero instances for {minutes} minutes; "
                "scale-from-zero is not working",
            )
        )
        out.append(
            _alarm(
                f"{parent}/{prefix}OldestRequestAge",
                metric_table.APPROXIMATE_AGE_OF_OLDEST_REQUEST,
                queue,
                threshold=s.oldest_request_age_seconds,
                comparison="GreaterThanThreshold",
                periods=(3, 3),
                description=f"SageMaker async {label}: the oldest queued request is older than "
                f"{s.oldest_request_age_seconds} s for 15 minutes; the queue is not draining",
            )
        )
    if kind is EndpointKind.SERVERLESS:
        out.append(
            _alarm(
                f"{parent}/{prefix}ColdStart",
                metric_table.MODEL_SETUP_TIME,
                dims,
                statistic="Maximum",
                threshold=s.cold_start_seconds * 1_000_000,
                comparison="GreaterThanThreshold",
                periods=(1, 1),
                description=f"SageMaker serverless {label}: a cold start (ModelSetupTime, microseconds) took longer "
                f"than {s.cold_start_seconds:g} s; consider provisioned concurrency or a smaller image",
            )
        )
    return tuple(out)


def profile_alarms(
    name: str, *, settings: AlarmSettings = DEFAULT_SETTINGS, parent: str = "Alarms"
) -> tuple[AlarmDecision, ...]:
    """The alarms of one Bedrock profile: anomaly on ``OutputTokenCount`` (above the band), the token spend of
    a workload."""
    return (
        _anomaly(
            f"{parent}/{construct_id(name)}OutputTokensAnomaly",
            metric_table.OUTPUT_TOKEN_COUNT,
            metric_table.OUTPUT_TOKEN_COUNT.dimensions,
            "GreaterThanUpperThreshold",
            settings.anomaly_std_devs,
            f"Bedrock profile {name}: OutputTokenCount (sum per 5 min) above its anomaly band for 15 minutes; a "
            "workload is spending more tokens than usual (prompt change, retry loop, abuse)",
        ),
    )


def delivery_failure_alarm(destination: str, *, parent: str = "Governance") -> AlarmDecision:
    """Any failed delivery of model invocation logs to ``destination`` in 5 minutes (sum >= 1)."""
    definition = DELIVERY_FAILURES[destination]
    metric = definition.name
    return _alarm(
        f"{parent}/DeliveryFailure{destination.title().replace('_', '')}",
        definition,
        definition.dimensions,
        threshold=1,
        comparison="GreaterThanOrEqualToThreshold",
        periods=(1, 1),
        description=f"Bedrock model invocation logs failed to reach {destination} ({metric} >= 1 in 5 min)",
    )


def intervention_alarm(index: int, profile: str, percent: float, *, parent: str = "Governance") -> AlarmDecision:
    """More than ``percent`` of a guardrail's evaluations intervened (``100*InvocationsIntervened/Invocations``)
    in 3 consecutive 5-minute periods: a sign of abuse, or of a filter too strict for the traffic."""
    intervened = metric_table.GUARDRAIL_INVOCATIONS_INTERVENED
    return _alarm(
        f"{parent}/Interventions{index}",
        intervened,
        intervened.dimensions,
        threshold=percent,
        comparison="GreaterThanThreshold",
        periods=(INTERVENTION_EVALUATION_PERIODS, INTERVENTION_EVALUATION_PERIODS),
        description=f"guardrail of bedrock profile {profile} intervened in more than {percent:g}% of requests for "
        "15 minutes",
        math=(
            "100*intervened/invocations",
            "intervened %",
            (_query("intervened", intervened), _query("invocations", metric_table.GUARDRAIL_INVOCATIONS)),
        ),
    )


def _query(metric_id: str, definition: MetricDefinition) -> MetricQuery:
    """``definition`` read by a metric-math alarm as ``metric_id``, at its default statistic."""
    return MetricQuery(metric_id, definition.name, definition.statistic)


def _anomaly(  # noqa: PLR0917 - one positional per field of the alarm, in the order the call sites read
    construct: str,
    definition: MetricDefinition,
    dimensions: tuple[str, ...],
    comparison: str,
    std_devs: float,
    description: str,
) -> AlarmDecision:
    """An anomaly alarm of 5-minute periods, 3 of 3 breaching, on ``definition`` at its default statistic; no
    traffic never breaches."""
    periods = (ANOMALY_EVALUATION_PERIODS, ANOMALY_EVALUATION_PERIODS)
    return _alarm(
        construct,
        definition,
        dimensions,
        comparison=comparison,
        periods=periods,
        description=description,
        std_devs=std_devs,
    )


def _alarm(
    construct: str,
    definition: MetricDefinition,
    dimensions: tuple[str, ...],
    *,
    comparison: str,
    periods: tuple[int, int],
    description: str,
    period_seconds: int = PERIOD_SECONDS,
    statistic: Statistic | str | None = None,
    threshold: float | None = None,
    std_devs: float | None = None,
    math: tuple[str, str, tuple[MetricQuery, ...]] | None = None,
) -> AlarmDecision:
    """An alarm on ``definition`` (at its default statistic unless ``statistic`` is given): anomaly against its band
    of ``std_devs`` when that is given, else static against ``threshold``, on the metric or on ``math``
    (expression, its label and the queries it reads) over it. ``periods`` is (evaluation periods, datapoints to
    alarm); no data never breaches."""
    expression, label, queries = math or (None, None, ())
    return AlarmDecision(
        construct=construct,
        kind="static" if std_devs is None else "anomaly",
        namespace=definition.namespace,
        metric=definition.name,
        statistic=statistic or definition.statistic,
        period_seconds=period_seconds,
        dimensions=dimensions,
        threshold=threshold,
        std_devs=std_devs,
        expression=expression,
        expression_label=label,
        metrics=queries,
        comparison_operator=comparison,
        evaluation_periods=periods[0],
        datapoints_to_alarm=periods[1],
        treat_missing_data="notBreaching",
        description=description,
    )


#: Namespace and metric the cost allocation tag activation function writes (embedded metric format) after every
#: run; the handler's own constants (``lambda/cost_allocation_tags``) must match, which the handler tests check.
TAG_ACTIVATION_NAMESPACE = "InferenceConstructs/CostAllocationTags"
PENDING_KEYS_METRIC = "PendingKeys"
#: A key still pending after this long alarms: a new tag takes up to 24 hours to appear in Cost Explorer.
PENDING_ALARM_AFTER_SECONDS = 48 * 3600
#: How often the activation retries by default, and so the period of its pending-keys alarm: 6 hours.
TAG_ACTIVATION_RETRY_SECONDS = 6 * 3600


def pending_keys_alarm(
    period_seconds: int = TAG_ACTIVATION_RETRY_SECONDS, *, parent: str = "TagActivation"
) -> AlarmDecision:
    """Some cost allocation tag key has been pending in every run (one per ``period_seconds``) for 48 hours.
    No data (the function did not run) is ``missing``: the alarm keeps its state."""
    periods = max(1, -(-PENDING_ALARM_AFTER_SECONDS // period_seconds))
    return AlarmDecision(
        construct=f"{parent}/PendingAlarm",
        kind="static",
        namespace=TAG_ACTIVATION_NAMESPACE,
        metric=PENDING_KEYS_METRIC,
        statistic="Minimum",
        period_seconds=period_seconds,
        dimensions=("FunctionName",),
        threshold=1,
        comparison_operator="GreaterThanOrEqualToThreshold",
        evaluation_periods=periods,
        datapoints_to_alarm=periods,
        treat_missing_data="missing",
        description="Cost allocation tag keys still not active after 48 hours: the key is on no billed resource "
        "yet, or this is a member account (activate the keys in the management account); see the function's log",
    )


@dataclass(frozen=True)
class XRaySamplingDecision:
    """The X-Ray sampling rule at the entry service (``observability.xray_sampling``)."""

    service_name: str
    url_path: str = "*"
    fixed_rate: float = 0.05
    priority: int = 1000
    reservoir_size: int = 1


ENHANCED_WIDGETS_REASON = (
    "their endpoint configs turn MetricsConfig.EnableEnhancedMetrics on: one row each of SEARCH graphs with one "
    "line per GPU (GPUUtilization, GPUMemoryUtilization by InstanceId and AcceleratorId; hosts with GPUs) and per "
    "instance (CPUUtilization and MemoryUtilization by InstanceId; Invocations and ModelLatency p99 by InstanceId, "
    "or by ContainerId for an inference component); graphs only: alarms and scaling keep the variant's aggregate "
    "metrics, since instance ids exist only at run time"
)
"""Why an endpoint gets the enhanced-metrics row of the dashboard, as the plan states it."""


def enhanced_widgets(gpu_count: int) -> int:
    """Dashboard widgets of one endpoint with enhanced metrics on: its header, the per-instance CPU/memory and
    invocations/latency graphs, and with GPUs the per-GPU utilization and memory graphs."""
    return 1 + 2 + (2 if gpu_count > 0 else 0)


COMPONENT_WIDGETS_REASON = (
    "they are served through inference components, whose invocation metrics carry InferenceComponentName instead "
    "of the variant the fleet graphs search: a section with SEARCH graphs per InferenceComponentName (invocations, "
    "ModelLatency p99, requests that found no copy, GPU memory per copy), then one row each: invocations and "
    "NoCapacityInvocationFailures, ModelLatency p50/p99, 4XX/5XX error rate, utilization per copy "
    "(/aws/sagemaker/InferenceComponents)"
)
"""Why an endpoint's inference components get rows of the dashboard, as the plan states it."""


def component_widgets(components: int) -> int:
    """Dashboard widgets of ``components`` inference components: none without one, else the section's header and
    its four fleet graphs, and four graphs per component."""
    return 0 if components == 0 else 1 + 4 + 4 * components


@dataclass(frozen=True)
class DashboardDecision:
    """The fleet dashboard: SEARCH graphs of every endpoint and profile, per-GPU graphs of ``gpu_endpoints``
    (endpoint names), per-GPU and per-instance graphs of ``enhanced_endpoints`` (endpoints whose endpoint config
    turns enhanced metrics on), per-profile graphs of ``profiles``, and for a monitoring account one filter and
    cost line per ``source_account_ids``."""

    gpu_endpoints: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()
    source_account_ids: tuple[str, ...] = ()
    enhanced_endpoints: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    """The inference components graphed one by one: ``<endpoint name>`` for the one an endpoint is served by (scale
    to zero, or the first of several), ``<endpoint name>/<component>`` for each further one."""

    def to_dict(self) -> dict[str, Any]:
        """The dashboard's plan entry (``enhanced_endpoints``, ``components`` and their reasons only when an
        endpoint has them)."""
        entry: dict[str, Any] = {name: list(values) for name, values in asdict(self).items()}
        reasons = {"enhanced_endpoints": ENHANCED_WIDGETS_REASON, "components": COMPONENT_WIDGETS_REASON}
        for field, reason in reasons.items():
            if not entry[field]:
                del entry[field]
            else:
                entry[f"{field}_reason"] = reason
        return entry


@dataclass(frozen=True)
class ObservabilityPlan:
    """What the observability stack and the alarms everywhere else build (the ``observability`` plan section).

    Attributes
    ----------
    alarm_email:
        Address subscribed to the platform's alarm topic (and to the Bedrock stack's governance topic); None
        subscribes nobody.
    settings:
        The alarm thresholds (the anomaly band's width comes from ``observability.anomaly_std_devs``).
    dashboard:
        The fleet dashboard, or None when ``observability.dashboard`` is false.
    xray_sampling:
        The X-Ray sampling rule, or None.
    alarms:
        The observability stack's own alarms (one anomaly alarm per Bedrock profile).
    governance_alarms:
        The Bedrock stack's alarms: delivery failures of invocation logging, guardrail interventions.
    governance_dashboard:
        True when the Bedrock stack also graphs those (with ``observability.dashboard``).
    cross_account:
        The monitoring account's sink and the source accounts' links, or None (``observability.cross_account``).
    transaction_search:
        Transaction Search and the accounts that turn it on, or None (``observability.transaction_search``).
    """

    alarm_email: str | None = None
    settings: AlarmSettings = DEFAULT_SETTINGS
    dashboard: DashboardDecision | None = None
    xray_sampling: XRaySamplingDecision | None = None
    alarms: tuple[AlarmDecision, ...] = ()
    governance_alarms: tuple[AlarmDecision, ...] = ()
    governance_dashboard: bool = False
    cross_account: CrossAccountDecision | None = None
    transaction_search: TransactionSearchDecision | None = None

    def summary_lines(self, monitoring_stack: str) -> list[str]:
        """The plan table's cross-account and Transaction Search lines (none without them)."""
        lines = [] if self.cross_account is None else self.cross_account.summary_lines(monitoring_stack)
        if self.transaction_search is not None:
            lines.append(self.transaction_search.summary_line())
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The ``observability`` section of the plan document (``cross_account`` and ``transaction_search`` only
        when the config has them)."""
        x = self.xray_sampling
        optional: dict[str, Any] = {}
        if self.cross_account is not None:
            optional["cross_account"] = self.cross_account.to_dict()
        if self.transaction_search is not None:
            optional["transaction_search"] = self.transaction_search.to_dict()
        return {
            "alarm_email": self.alarm_email,
            "anomaly_std_devs": self.settings.anomaly_std_devs,
            "dashboard": None if self.dashboard is None else self.dashboard.to_dict(),
            "xray_sampling": None if x is None else asdict(x),
            "alarms": [a.to_dict() for a in self.alarms],
            "governance_alarms": [a.to_dict() for a in self.governance_alarms],
            "governance_dashboard": self.governance_dashboard,
            **optional,
        }
