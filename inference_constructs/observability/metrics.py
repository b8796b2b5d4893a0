"""Metric factories for inference observability: side-effect-free callables returning ``cloudwatch.Metric`` and
``cloudwatch.MathExpression`` values (never constructs). Each factory's ``.data`` returns the same metric as plain
data (:class:`~inference_constructs.observability.graph_data.MetricData` / ``MathData``): the dashboard renders those
without a round trip to the jsii kernel per metric, and the aws-cdk objects are made from the same data.

Two families:

* ``fleet_*``: SEARCH expressions over a whole namespace, so endpoints and profiles created later show up on the
  dashboard without editing it. They are for graphs only: CloudWatch cannot alarm on SEARCH.
* ``endpoint_*`` / ``profile_*``: plain metrics (and metric math over them) for one known endpoint or profile. Alarms
  use these.

Units, from the SageMaker and Bedrock metric references
(https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html,
https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring.html):

* ``ModelLatency``, ``OverheadLatency`` and ``ModelSetupTime`` are microseconds; the ``*_ms`` factories divide by 1000.
* ``GPUUtilization``, ``GPUMemoryUtilization`` and ``CPUUtilization`` of ``/aws/sagemaker/Endpoints`` are summed over
  devices (0–100 × device count); ``endpoint_gpu_*_per_gpu`` divide by the host's GPU count.
* ``Invocation4XXErrors`` / ``Invocation5XXErrors`` emit 1 or 0 per request, so their Average is the error rate.
* Bedrock ``InvocationLatency`` is milliseconds to the last token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch

from inference_constructs.observability import metric_definitions, metric_table
from inference_constructs.observability.graph_data import GraphMetric, MathData, MetricData
from inference_constructs.observability.metric_definitions import (  # SEARCH rendering is pure: defined there
    BEDROCK_DIMENSIONS,
    CACHE_WRITE_METRIC_NAMES,
    COMPONENT_DIMENSIONS,
    ENDPOINT_ONLY_DIMENSIONS,
    ERROR_METRICS,
    VARIANT_DIMENSIONS,
    Dimension,
    ErrorClass,
    error_rate_expression,
    search,
)
from inference_constructs.observability.metric_factory import (  # noqa: F401 - cloudwatch_unit: its old home
    cloudwatch_unit,
    math_factory,
    metric_factory,
    period_seconds,
)
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.observability.targets import MonitoredEndpoint, MonitoredProfile
from inference_constructs.stats import Statistic

# The namespaces, re-exported as part of this module's API (defined in metric_definitions).
SAGEMAKER_NAMESPACE = metric_definitions.SAGEMAKER_NAMESPACE
ENDPOINT_INSTANCE_NAMESPACE = metric_definitions.ENDPOINT_INSTANCE_NAMESPACE
BEDROCK_NAMESPACE = metric_definitions.BEDROCK_NAMESPACE
BILLING_NAMESPACE = metric_definitions.BILLING_NAMESPACE

ENDPOINT_DIMENSIONS = tuple(d.value for d in VARIANT_DIMENSIONS)
ASYNC_DIMENSIONS = tuple(d.value for d in ENDPOINT_ONLY_DIMENSIONS)
CACHE_READ_METRIC_NAMES = (metric_table.CACHE_READ_INPUT_TOKENS.name, metric_table.CACHE_READ_INPUT_TOKEN_COUNT.name)
"""Both spellings AWS documents for prompt-cache reads; SEARCH on a name that does not exist returns nothing."""

BILLING_REGION = "us-east-1"
DEFAULT_PERIOD = Duration.minutes(5)
ONE_DAY_SECONDS = 86_400
"""The period of the billing metric: CloudWatch publishes estimated charges a few times a day."""
CACHE_HIT_RATIO_EXPRESSION = "100*SUM(cacheread)/(SUM(cacheread)+SUM(cachewrite)+SUM(uncached))"
"""Prompt-cache hit ratio in percent over the ids ``cacheread``, ``cachewrite`` and ``uncached``."""


# --------------------------------------------------------------------------------------------------------- SEARCH


@math_factory
def search_expression(
    namespace: str,
    dimensions: Sequence[str],
    metric_names: Sequence[str],
    statistic: Statistic | str,
    *,
    account_ids: Sequence[str] = (),
    scale: str = "",
    label: str | None = None,
    period: Duration = DEFAULT_PERIOD,
) -> MathData:
    """A SEARCH as a ``MathExpression``, optionally scaled (``scale="/1000"`` or ``"100*"``) for display units.

    Default label: empty, so each series keeps its own label (the endpoint or model it belongs to) instead of the
    whole expression text, which CDK would otherwise use for every series.
    """
    query = search(namespace, dimensions, metric_names, statistic, account_ids=account_ids)
    return MathData(_scaled(query, scale), label="" if label is None else label, period_seconds=period_seconds(period))


def _scaled(query: str, scale: str) -> str:
    """``query`` with a display scale appended (``"/1000"``, ``"*100"``) or prepended (``"100*"``)."""
    return f"{query}{scale}" if scale.startswith(("/", "*")) else f"{scale}{query}"


def _name(metric: MetricDefinition | str) -> str:
    """The metric name of a table row (or a name given as is)."""
    return metric if isinstance(metric, str) else metric.name


def _fleet(
    definition: MetricDefinition,
    statistic: Statistic | str | None = None,
    *,
    account_ids: Sequence[str],
    period: Duration,
    scale: str = "",
    dimensions: Sequence[str] | None = None,
) -> MathData:
    """SEARCH for ``definition`` over its namespace and dimension names (or ``dimensions``); ``statistic`` defaults
    to the row's."""
    return search_expression.data(
        definition.namespace,
        definition.dimensions if dimensions is None else dimensions,
        [definition.name],
        statistic or definition.statistic,
        account_ids=account_ids,
        scale=scale,
        period=period,
    )


# ------------------------------------------------------------------------------------------ SageMaker (fleet)


@math_factory
def fleet_component_metric(
    definition: MetricDefinition,
    statistic: Statistic | str | None = None,
    *,
    account_ids: Sequence[str] = (),
    period: Duration = DEFAULT_PERIOD,
    scale: str = "",
) -> MathData:
    """SEARCH for ``definition`` per inference component (``InferenceComponentName``): an invocation metric of
    ``AWS/SageMaker`` that an inference component serves, or a per-copy metric; one line per component that reported
    data, ``statistic`` (default: the row's) over ``period``."""
    component = [d.value for d in COMPONENT_DIMENSIONS]
    return _fleet(definition, statistic, account_ids=account_ids, period=period, scale=scale, dimensions=component)


@math_factory
def fleet_invocations(*, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD) -> MathData:
    """Invocations per endpoint variant, sum over ``period`` (async endpoints do not publish it)."""
    return _fleet(metric_table.INVOCATIONS, account_ids=account_ids, period=period)


@math_factory
def fleet_model_latency_ms(
    statistic: Statistic | str = "p99", *, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD
) -> MathData:
    """ModelLatency per endpoint variant in milliseconds (the metric is microseconds), ``statistic`` over ``period``."""
    return _fleet(metric_table.MODEL_LATENCY, statistic, account_ids=account_ids, scale="/1000", period=period)


@math_factory
def fleet_overhead_latency_ms(*, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD) -> MathData:
    """OverheadLatency per endpoint variant in milliseconds, average over ``period`` (percentiles are not published)."""
    return _fleet(metric_table.OVERHEAD_LATENCY, account_ids=account_ids, scale="/1000", period=period)


@math_factory
def fleet_error_rate_percent(
    error_class: ErrorClass, *, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD
) -> MathData:
    """Invocation 4XX or 5XX error rate per endpoint variant in percent: ``100*`` the Average of the 1/0 metric."""
    return _fleet(ERROR_METRICS[error_class], account_ids=account_ids, scale="100*", period=period)


@math_factory
def fleet_instance_metric(
    metric_name: MetricDefinition | str, *, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD
) -> MathData:
    """An ``/aws/sagemaker/Endpoints`` instance metric (a :mod:`metric_table` row or its name) per endpoint
    variant, average over ``period``.

    GPU and CPU utilization there are sums over devices (0–100 × device count): a fleet graph cannot divide by
    each endpoint's device count, so say so where it is shown.
    """
    return search_expression.data(
        ENDPOINT_INSTANCE_NAMESPACE,
        ENDPOINT_DIMENSIONS,
        [_name(metric_name)],
        "Average",
        account_ids=account_ids,
        period=period,
    )


@math_factory
def fleet_async_metric(
    metric_name: MetricDefinition | str,
    statistic: Statistic | str,
    *,
    account_ids: Sequence[str] = (),
    period: Duration = DEFAULT_PERIOD,
) -> MathData:
    """An async-endpoint queue metric (a :mod:`metric_table` row or its name; ``EndpointName`` dimension only) per
    endpoint."""
    return search_expression.data(
        SAGEMAKER_NAMESPACE, ASYNC_DIMENSIONS, [_name(metric_name)], statistic, account_ids=account_ids, period=period
    )


@math_factory
def fleet_model_setup_time_ms(
    statistic: Statistic | str = "Maximum", *, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD
) -> MathData:
    """Serverless cold-start time (ModelSetupTime) per endpoint variant in milliseconds."""
    return _fleet(metric_table.MODEL_SETUP_TIME, statistic, account_ids=account_ids, scale="/1000", period=period)


@math_factory
def fleet_cold_starts(*, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD) -> MathData:
    """Serverless cold starts per endpoint variant: the SampleCount of ModelSetupTime over ``period``."""
    return _fleet(metric_table.MODEL_SETUP_TIME, "SampleCount", account_ids=account_ids, period=period)


# -------------------------------------------------------------------------------------------- Bedrock (fleet)

_TOKEN_COUNTS = {"Input": metric_table.INPUT_TOKEN_COUNT, "Output": metric_table.OUTPUT_TOKEN_COUNT}


@math_factory
def fleet_bedrock_metric(
    metric_names: Sequence[str] | str | MetricDefinition,
    statistic: Statistic | str = "Sum",
    *,
    account_ids: Sequence[str] = (),
    period: Duration = DEFAULT_PERIOD,
) -> MathData:
    """An ``AWS/Bedrock`` metric (a :mod:`metric_table` row, a name, or alternative names) per ``ModelId`` (model,
    system profile or application profile id)."""
    names = [_name(metric_names)] if isinstance(metric_names, str | MetricDefinition) else list(metric_names)
    return search_expression.data(
        BEDROCK_NAMESPACE, BEDROCK_DIMENSIONS, names, statistic, account_ids=account_ids, period=period
    )


@math_factory
def fleet_tokens_per_invocation(
    direction: Literal["Input", "Output"], *, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD
) -> MathData:
    """Fleet-wide input or output tokens per Bedrock invocation: ``SUM(tokens)/SUM(invocations)``.

    SEARCH results cannot be paired series by series, so this is the fleet ratio; per-profile ratios come from
    :func:`profile_tokens_per_invocation`.
    """
    tokens = fleet_bedrock_metric.data(_TOKEN_COUNTS[direction], account_ids=account_ids, period=period)
    invocations = fleet_bedrock_metric.data(metric_table.BEDROCK_INVOCATIONS, account_ids=account_ids, period=period)
    tokens_id = f"{direction.lower()}tokens"
    return MathData(
        f"SUM({tokens_id})/SUM(invocations)",
        ((tokens_id, tokens), ("invocations", invocations)),
        label=f"{direction.lower()} tokens per invocation",
        period_seconds=period_seconds(period),
    )


def cache_hit_ratio_expression(
    read: cloudwatch.IMetric, write: cloudwatch.IMetric, uncached: cloudwatch.IMetric, *, period: Duration, label: str
) -> cloudwatch.MathExpression:
    """Prompt-cache hit ratio in percent: ``100 * read / (read + write + input)``.

    Definition: the share of all prompt tokens that were served from the cache. Bedrock reports the three kinds of
    prompt tokens separately (``InputTokenCount`` excludes cached tokens), so their sum is every prompt token.
    Writes are in the denominator because a write is a prompt that missed the cache (and costs more than input).
    """
    return cloudwatch.MathExpression(
        expression=CACHE_HIT_RATIO_EXPRESSION,
        using_metrics={"cacheread": read, "cachewrite": write, "uncached": uncached},
        label=label,
        period=period,
    )


def _cache_hit_ratio(read: GraphMetric, write: GraphMetric, uncached: GraphMetric, *, period: Duration) -> MathData:
    """:func:`cache_hit_ratio_expression` of three metrics given as data, labelled ``cache hit ratio (%)``."""
    using = (("cacheread", read), ("cachewrite", write), ("uncached", uncached))
    return MathData(
        CACHE_HIT_RATIO_EXPRESSION, using, label="cache hit ratio (%)", period_seconds=period_seconds(period)
    )


@math_factory
def fleet_cache_hit_ratio_percent(*, account_ids: Sequence[str] = (), period: Duration = DEFAULT_PERIOD) -> MathData:
    """Fleet-wide prompt-cache hit ratio in percent (see :func:`cache_hit_ratio_expression`)."""
    return _cache_hit_ratio(
        fleet_bedrock_metric.data(CACHE_READ_METRIC_NAMES, account_ids=account_ids, period=period),
        fleet_bedrock_metric.data(CACHE_WRITE_METRIC_NAMES, account_ids=account_ids, period=period),
        fleet_bedrock_metric.data(metric_table.INPUT_TOKEN_COUNT, account_ids=account_ids, period=period),
        period=period,
    )


# ------------------------------------------------------------------------------------------ one endpoint


def endpoint_dimensions(endpoint: MonitoredEndpoint, namespace: str = SAGEMAKER_NAMESPACE) -> dict[str, str]:
    """Dimensions of one endpoint variant's metrics in ``namespace``: ``EndpointName, VariantName``, or
    ``InferenceComponentName`` for an ``AWS/SageMaker`` metric of an endpoint served through an inference component."""
    return metric_definitions.endpoint_dimensions(
        endpoint.name,
        endpoint.variant_name,
        namespace=namespace,
        inference_component_name=endpoint.inference_component_name,
    )


@metric_factory
def endpoint_metric(
    endpoint: MonitoredEndpoint,
    metric_name: MetricDefinition | str,
    statistic: Statistic | str | None = None,
    *,
    namespace: str | None = None,
    label: str | None = None,
    period: Duration = DEFAULT_PERIOD,
) -> MetricData:
    """One metric of one endpoint variant (``EndpointName, VariantName``), or, for an ``AWS/SageMaker`` metric of
    an endpoint served through an inference component, of that component (``InferenceComponentName``).

    ``metric_name`` is a :mod:`metric_table` row, whose namespace and statistic are the defaults, or a metric name
    (default namespace ``AWS/SageMaker``, statistic Average).
    """
    row = None if isinstance(metric_name, str) else metric_name
    namespace = namespace or (row.namespace if row else SAGEMAKER_NAMESPACE)
    return MetricData(
        namespace,
        _name(metric_name),
        tuple(endpoint_dimensions(endpoint, namespace).items()),
        statistic or (row.statistic if row else "Average"),
        period_seconds(period),
        label=label,
        account=endpoint.account_id,
    )


@metric_factory
def endpoint_model_latency(
    endpoint: MonitoredEndpoint, statistic: Statistic | str = "p99", *, period: Duration = DEFAULT_PERIOD
) -> MetricData:
    """ModelLatency of one endpoint variant in microseconds, ``statistic`` (default p99) over 5 minutes."""
    return endpoint_metric.data(endpoint, metric_table.MODEL_LATENCY, statistic, period=period)


@math_factory
def endpoint_model_latency_ms(
    endpoint: MonitoredEndpoint, statistic: Statistic | str = "p99", *, period: Duration = DEFAULT_PERIOD
) -> MathData:
    """ModelLatency of one endpoint variant in milliseconds (``latency/1000``), p99 over 5 minutes by default."""
    latency_id = f"latency{statistic.lower().replace('.', '_')}"
    return MathData(
        f"{latency_id}/1000",
        ((latency_id, endpoint_model_latency.data(endpoint, statistic, period=period)),),
        label=f"ModelLatency {statistic} (ms)",
        period_seconds=period_seconds(period),
    )


@metric_factory
def endpoint_invocations(endpoint: MonitoredEndpoint, *, period: Duration = DEFAULT_PERIOD) -> MetricData:
    """Invocations of one endpoint variant, sum over 5 minutes (not published by async endpoints)."""
    return endpoint_metric.data(endpoint, metric_table.INVOCATIONS, period=period)


@math_factory
def endpoint_error_rate_percent(
    endpoint: MonitoredEndpoint, error_class: ErrorClass = "5XX", *, period: Duration = DEFAULT_PERIOD
) -> MathData:
    """Invocation error rate of one endpoint variant in percent: ``100*errors/invocations``, sums over 5 minutes."""
    rate = error_rate_expression(error_class)
    return MathData(
        rate.expression,
        (
            (rate.errors_id, endpoint_metric.data(endpoint, ERROR_METRICS[error_class], "Sum", period=period)),
            ("invocations", endpoint_invocations.data(endpoint, period=period)),
        ),
        label=rate.label,
        period_seconds=period_seconds(period),
    )


@math_factory
def endpoint_per_gpu(
    endpoint: MonitoredEndpoint, metric_name: MetricDefinition | str, *, period: Duration = DEFAULT_PERIOD
) -> MathData:
    """A ``/aws/sagemaker/Endpoints`` GPU metric (a :mod:`metric_table` row or its name) divided by the host's GPU
    count: 0–100 % per GPU, average."""
    gpus = metric_definitions.gpu_metric_divisor(endpoint.gpu_count)
    name = _name(metric_name)
    metric_id = name.lower()
    return MathData(
        f"{metric_id}/{gpus}",
        (
            (
                metric_id,
                endpoint_metric.data(
                    endpoint, metric_name, "Average", namespace=ENDPOINT_INSTANCE_NAMESPACE, period=period
                ),
            ),
        ),
        label=f"{name} per GPU (%), {gpus} GPU" + ("s" if gpus > 1 else ""),
        period_seconds=period_seconds(period),
    )


@math_factory
def endpoint_gpu_utilization_per_gpu(endpoint: MonitoredEndpoint, *, period: Duration = DEFAULT_PERIOD) -> MathData:
    """GPUUtilization ÷ GPU count of one endpoint variant (0–100 %), average over 5 minutes."""
    return endpoint_per_gpu.data(endpoint, metric_table.GPU_UTILIZATION, period=period)


@math_factory
def endpoint_gpu_memory_utilization_per_gpu(
    endpoint: MonitoredEndpoint, *, period: Duration = DEFAULT_PERIOD
) -> MathData:
    """GPUMemoryUtilization ÷ GPU count of one endpoint variant (0–100 %), average over 5 minutes."""
    return endpoint_per_gpu.data(endpoint, metric_table.GPU_MEMORY_UTILIZATION, period=period)


@math_factory
def endpoint_enhanced_metric(
    endpoint: MonitoredEndpoint,
    definition: MetricDefinition,
    statistic: Statistic | str | None = None,
    *,
    scale: str = "",
    period: Duration = DEFAULT_PERIOD,
) -> MathData:
    """SEARCH over the enhanced dimension set of ``definition`` for one endpoint variant whose endpoint config turns
    enhanced metrics on: one line per instance (a GPU metric: per GPU of each instance; an inference component's
    invocation metric: per container), ``statistic`` (default: the row's) over ``period``, optionally scaled
    (``"/1000"``: µs to ms). For graphs only: the instance ids are known only at run time, and CloudWatch cannot
    alarm on SEARCH."""
    query = metric_definitions.enhanced_search(
        definition,
        statistic or definition.statistic,
        endpoint_name=endpoint.name,
        variant_name=endpoint.variant_name,
        inference_component_name=endpoint.inference_component_name,
        account_ids=(endpoint.account_id,) if endpoint.account_id else (),
    )
    return MathData(_scaled(query, scale), label="", period_seconds=period_seconds(period))


@metric_factory
def endpoint_async_metric(
    endpoint: MonitoredEndpoint,
    metric_name: MetricDefinition | str,
    statistic: Statistic | str,
    *,
    period: Duration = DEFAULT_PERIOD,
) -> MetricData:
    """An async queue metric (a :mod:`metric_table` row or its name) of one endpoint (dimension ``EndpointName``
    only)."""
    dimensions = metric_definitions.endpoint_dimensions(endpoint.name, endpoint.variant_name, variant_dimension=False)
    return MetricData(
        SAGEMAKER_NAMESPACE,
        _name(metric_name),
        tuple(dimensions.items()),
        statistic,
        period_seconds(period),
        account=endpoint.account_id,
    )


ONE_MINUTE = Duration.minutes(1)


@metric_factory
def endpoint_has_backlog_without_capacity(endpoint: MonitoredEndpoint, *, period: Duration = ONE_MINUTE) -> MetricData:
    """HasBacklogWithoutCapacity of one async endpoint (1: requests wait and no instance runs), average per minute."""
    definition = metric_table.HAS_BACKLOG_WITHOUT_CAPACITY
    return endpoint_async_metric.data(endpoint, definition, definition.statistic, period=period)


@metric_factory
def endpoint_oldest_request_age(endpoint: MonitoredEndpoint, *, period: Duration = DEFAULT_PERIOD) -> MetricData:
    """ApproximateAgeOfOldestRequest of one async endpoint in seconds, maximum over 5 minutes."""
    definition = metric_table.APPROXIMATE_AGE_OF_OLDEST_REQUEST
    return endpoint_async_metric.data(endpoint, definition, definition.statistic, period=period)


@metric_factory
def endpoint_model_setup_time(endpoint: MonitoredEndpoint, *, period: Duration = DEFAULT_PERIOD) -> MetricData:
    """ModelSetupTime (serverless cold start) of one endpoint variant in microseconds, maximum over 5 minutes."""
    return endpoint_metric.data(endpoint, metric_table.MODEL_SETUP_TIME, "Maximum", period=period)


# ------------------------------------------------------------------------------------------- one profile


@metric_factory
def profile_metric(
    profile: MonitoredProfile,
    metric_name: MetricDefinition | str,
    statistic: Statistic | str = "Sum",
    *,
    label: str | None = None,
    period: Duration = DEFAULT_PERIOD,
) -> MetricData:
    """One ``AWS/Bedrock`` metric (a :mod:`metric_table` row or its name) of one application inference profile
    (``ModelId`` = the profile id)."""
    return MetricData(
        BEDROCK_NAMESPACE,
        _name(metric_name),
        ((Dimension.MODEL_ID.value, profile.profile_id),),
        statistic,
        period_seconds(period),
        label=label,
        account=profile.account_id,
    )


@metric_factory
def profile_output_tokens(profile: MonitoredProfile, *, period: Duration = DEFAULT_PERIOD) -> MetricData:
    """OutputTokenCount through one profile, sum over 5 minutes."""
    return profile_metric.data(profile, metric_table.OUTPUT_TOKEN_COUNT, period=period)


@math_factory
def profile_tokens_per_invocation(
    profile: MonitoredProfile, direction: Literal["Input", "Output"], *, period: Duration = DEFAULT_PERIOD
) -> MathData:
    """Input or output tokens per invocation through one profile: ``tokens/invocations``, sums over 5 minutes."""
    tokens_id = f"{direction.lower()}tokens"
    return MathData(
        f"{tokens_id}/invocations",
        (
            (tokens_id, profile_metric.data(profile, _TOKEN_COUNTS[direction], period=period)),
            ("invocations", profile_metric.data(profile, metric_table.BEDROCK_INVOCATIONS, period=period)),
        ),
        label=f"{direction.lower()} tokens per invocation",
        period_seconds=period_seconds(period),
    )


@math_factory
def profile_cache_hit_ratio_percent(profile: MonitoredProfile, *, period: Duration = DEFAULT_PERIOD) -> MathData:
    """Prompt-cache hit ratio through one profile in percent (see :func:`cache_hit_ratio_expression`).

    The cache reads and writes are SEARCHes for the profile's exact ``ModelId`` over both documented metric
    spellings, so this is for graphs only (no alarm).
    """
    accounts = [profile.account_id] if profile.account_id else []
    values = {Dimension.MODEL_ID.value: profile.profile_id}

    def _search(names: Sequence[str]) -> MathData:
        query = search(
            BEDROCK_NAMESPACE, BEDROCK_DIMENSIONS, names, "Sum", account_ids=accounts, dimension_values=values
        )
        return MathData(query, label="", period_seconds=period_seconds(period))

    return _cache_hit_ratio(
        _search(CACHE_READ_METRIC_NAMES),
        _search(CACHE_WRITE_METRIC_NAMES),
        profile_metric.data(profile, metric_table.INPUT_TOKEN_COUNT, period=period),
        period=period,
    )


# -------------------------------------------------------------------------------------------------- billing


@metric_factory
def estimated_charges_in_usd(*, account_id: str | None = None, label: str | None = None) -> MetricData:
    """AWS/Billing EstimatedCharges (``Currency=USD``) in us-east-1, maximum per day.

    Billing metrics exist only once "Receive Billing Alerts" is turned on in the billing preferences of the
    (payer) account; until then the graph is empty.
    """
    charges = metric_table.ESTIMATED_CHARGES
    return MetricData(
        charges.namespace,
        charges.name,
        ((Dimension.CURRENCY.value, "USD"),),
        charges.statistic,
        ONE_DAY_SECONDS,
        label=label,
        account=account_id,
        region=BILLING_REGION,
    )
