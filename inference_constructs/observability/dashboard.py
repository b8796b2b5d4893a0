"""``InferenceDashboard``: one CloudWatch dashboard that answers "did the optimization work?".

Fleet graphs are SEARCH expressions, so endpoints and Bedrock profiles created later appear without editing the
dashboard. Endpoints and profiles the app knows get extra per-resource graphs (GPU utilization per GPU, tokens per
invocation and cache-hit ratio per profile).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any, cast

import jsii
from aws_cdk import Aws, Duration, IStableStringProducer, Lazy, RemovalPolicy, Stack, Token
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from inference_constructs.errors import ProblemCollector
from inference_constructs.observability import metric_definitions, metric_table, metrics
from inference_constructs.observability.graph_data import (
    GraphData,
    GraphMetric,
    TextData,
    WidgetData,
    YAxis,
    dashboard_object,
    rows_height,
)
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.observability.targets import (
    EndpointLike,
    MonitoredEndpoint,
    MonitoredProfile,
    ProfileLike,
    key,
    monitored_endpoints,
    monitored_profiles,
    validate_account_ids,
    validate_endpoints,
    validate_profiles,
)
from inference_constructs.spec import EndpointKind

MAX_WIDGETS = 500
"""CloudWatch allows at most 500 widgets in one dashboard body."""
MAX_SEARCH_LENGTH = metric_definitions.MAX_SEARCH_LENGTH
"""CloudWatch rejects a SEARCH query longer than 1024 characters."""
DASHBOARD_NAME = re.compile(r"^[A-Za-z0-9_-]{1,255}$")
"""A dashboard name: alphanumerics, dash and underscore, at most 255 characters (CloudWatch API reference,
``PutDashboard`` ``DashboardName``; aws-cdk's ``Dashboard`` checks the characters)."""
SHORT_PERIODS = (1, 5, 10, 30)
"""The periods under a minute a graph may have; longer ones are whole minutes (aws-cdk's ``Metric`` and
``MathExpression``, after CloudWatch's ``MetricStat.Period``)."""

_FULL = 24
_THIRD = 8
_QUARTER = 6
_HEIGHT = 6

BILLING_NOTE = (
    "Estimated charges come from **AWS/Billing in us-east-1** and exist only once **Receive Billing Alerts** is "
    "turned on in the billing preferences of the paying account; until then this graph stays empty."
)


#: The fleet's instance graphs, one row each: metric, title, y-axis label and y-axis maximum (None: automatic).
_INSTANCE_GRAPHS: tuple[tuple[MetricDefinition, str, str, float | None], ...] = (
    (metric_table.GPU_UTILIZATION, "GPUUtilization (%, summed over GPUs: 0–100 × GPU count)", "% × GPUs", None),
    (
        metric_table.GPU_MEMORY_UTILIZATION,
        "GPUMemoryUtilization (%, summed over GPUs: 0–100 × GPU count)",
        "% × GPUs",
        None,
    ),
    (metric_table.CPU_UTILIZATION, "CPUUtilization (%, summed over vCPUs: 0–100 × vCPU count)", "% × vCPUs", None),
    (metric_table.MEMORY_UTILIZATION, "MemoryUtilization (host RAM, %)", "%", 100),
)


#: The inference-component section's fleet graphs (SEARCH per ``InferenceComponentName``): metric, title, y-axis
#: label, display scale and y-axis maximum (None: automatic).
_COMPONENT_FLEET_GRAPHS: tuple[tuple[MetricDefinition, str, str, str, float | None], ...] = (
    (metric_table.INVOCATIONS, "Invocations per component (sum)", "count", "", None),
    (metric_table.MODEL_LATENCY, "ModelLatency p99 per component (ms)", "ms", "/1000", None),
    (
        metric_table.NO_CAPACITY_INVOCATION_FAILURES,
        "Requests that found no copy, per component (sum)",
        "requests",
        "",
        None,
    ),
    (
        metric_table.GPU_MEMORY_UTILIZATION_NORMALIZED,
        "GPUMemoryUtilizationNormalized per component (% of its copies' GPUs)",
        "%",
        "",
        100,
    ),
)


def _axis(label: str, maximum: float | None = None) -> YAxis:
    return YAxis(label, max=maximum)


def _cdk_axis(axis: YAxis | None) -> cloudwatch.YAxisProps | None:
    if axis is None:
        return None
    return cloudwatch.YAxisProps(min=axis.min, max=axis.max, label=axis.label, show_units=axis.show_units)


def cdk_widget(widget: WidgetData) -> cloudwatch.IWidget:
    """The aws-cdk widget of a widget given as data (its metrics made with :func:`metrics.to_l2`)."""
    if isinstance(widget, TextData):
        return cloudwatch.TextWidget(markdown=widget.markdown, width=widget.width, height=widget.height)
    return cloudwatch.GraphWidget(
        title=widget.title,
        left=[metrics.to_l2(m) for m in widget.left],
        right=[metrics.to_l2(m) for m in widget.right] or None,
        left_y_axis=_cdk_axis(widget.left_y_axis),
        right_y_axis=_cdk_axis(widget.right_y_axis),
        width=widget.width,
        height=widget.height,
        region=widget.region,
        period=None if widget.period_seconds is None else Duration.seconds(widget.period_seconds),
        start=widget.start,
    )


class InferenceDashboard(Construct):
    """A CloudWatch dashboard for SageMaker endpoints and Bedrock application inference profiles.

    Widgets, top to bottom:

    * SageMaker fleet (SEARCH): invocations; OverheadLatency (ms); 4XX/5XX error rate (%); ModelLatency p50, p90 and
      p99 (ms; the metric is microseconds); GPU utilization and GPU memory (summed over GPUs: 0–100 × GPU count);
      CPU utilization (summed over vCPUs) and host memory; async backlog and age of the oldest request; serverless
      ModelSetupTime (cold starts).
    * Per known endpoint with GPUs: GPU utilization and GPU memory divided by that host's GPU count (0–100 %).
    * Per known real-time endpoint whose endpoint config turns enhanced metrics on
      (``MonitoredEndpoint.enhanced_metrics``; SEARCH over the enhanced dimension sets, so each GPU and each instance
      is one line): GPU utilization and GPU memory per GPU (``AcceleratorId``, hosts with GPUs); CPU and host memory
      per instance (``InstanceId``); invocations and ModelLatency p99 per instance (per container, ``ContainerId``,
      for an inference component).
    * Bedrock fleet (SEARCH, per ``ModelId``): invocations; InvocationLatency p99 (ms); throttles and errors; input
      and output tokens; tokens per invocation; prompt-cache read and write tokens (both documented metric
      spellings); cache-hit ratio ``100 * read / (read + write + input)``.
    * Per known profile: tokens per invocation and cache-hit ratio.
    * Cost: estimated charges in USD, us-east-1, one point per day over 30 days.

    Parameters
    ----------
    scope, construct_id:
        Where the dashboard is created.
    endpoints:
        Endpoints the app knows: endpoint constructs (built or imported, any ``IInferenceEndpoint``) or
        :class:`MonitoredEndpoint` values; each with GPUs gets a per-GPU widget, and each whose endpoint config
        turns enhanced metrics on gets a row of per-GPU and per-instance graphs. Default: only the fleet graphs,
        which still show every endpoint in the account and Region.
    profiles:
        Bedrock application inference profiles the app knows (``ApplicationInferenceProfile`` constructs or
        :class:`MonitoredProfile` values); each gets a widget. Default: only the fleet graphs.
    source_account_ids:
        For a dashboard deployed in a CloudWatch cross-account observability **monitoring account**: every SEARCH
        gets ``:aws.AccountId = ("111..." OR "222...")`` so the fleet graphs cover exactly these source accounts,
        and the cost graph shows one line per account. The filter works only in a monitoring account linked to the
        source accounts (see docs/observability.md). Default: the graphs read the dashboard's own account.
    dashboard_name:
        Name of the dashboard. Default: CloudFormation generates a unique name.
    region:
        Region the graphs read (except the cost graph, which always reads us-east-1). Default: the Region the stack
        is deployed to (``AWS::Region``), so one template serves every Region.
    period:
        Aggregation period of the graphs (except cost: one day). Default: 5 minutes.

    Raises
    ------
    InferenceConfigError
        When an account id is not 12 digits, an endpoint or profile is malformed, the accounts make a SEARCH longer
        than 1024 characters, or the dashboard would exceed 500 widgets.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoints: Sequence[EndpointLike] = (),
        profiles: Sequence[ProfileLike] = (),
        source_account_ids: Sequence[str] = (),
        dashboard_name: str | None = None,
        region: str | None = None,
        period: Duration = metrics.DEFAULT_PERIOD,
    ) -> None:
        super().__init__(scope, construct_id)
        endpoints, profiles = monitored_endpoints(endpoints), monitored_profiles(profiles)
        problems = check_dashboard_inputs(endpoints=endpoints, profiles=profiles, source_account_ids=source_account_ids)
        if (
            dashboard_name is not None
            and not Token.is_unresolved(dashboard_name)
            and not DASHBOARD_NAME.match(dashboard_name)
        ):
            problems.add(
                "dashboard_name",
                f"{dashboard_name!r} is not a dashboard name",
                "use 1-255 letters, digits, dashes (-) and underscores (_)",
            )
        seconds = metrics.period_seconds(period)
        if seconds not in SHORT_PERIODS and (seconds < 60 or seconds % 60):
            problems.add("period", f"{seconds} seconds is not a graph period", "use 1, 5, 10, 30 or whole minutes")
        problems.raise_if_any()
        self._accounts = tuple(source_account_ids)
        self._region = region or Aws.REGION
        self._period = period
        self._period_seconds = seconds

        rows: list[list[WidgetData]] = []
        rows += self._sagemaker_rows()
        rows += self._endpoint_rows(endpoints)
        rows += self._enhanced_rows(endpoints)
        rows += self._component_rows(endpoints)
        rows += self._bedrock_rows()
        rows += self._profile_rows(profiles)
        rows += self._cost_rows()
        self.rows: tuple[tuple[WidgetData, ...], ...] = tuple(tuple(row) for row in rows)
        """The widgets as data, row by row, top to bottom (each row left to right)."""
        count = sum(len(row) for row in rows)
        if count > MAX_WIDGETS:
            problems = ProblemCollector()
            problems.add(
                "endpoints",
                f"{len(endpoints)} endpoints and {len(profiles)} profiles need {count} widgets; "
                f"a dashboard holds at most {MAX_WIDGETS}",
                "split them across several InferenceDashboard constructs (the fleet graphs already show all)",
            )
            problems.raise_if_any()
        self._added: list[cloudwatch.IWidget] = []
        # The L2 ``cloudwatch.Dashboard`` this class used to create had the id ``Resource`` and its ``CfnDashboard``
        # the id ``Resource`` under it: the same path keeps the logical id, so a deployed dashboard is not replaced.
        self._holder = _DashboardResource(self, "Resource", owner=self)
        self.resource = cloudwatch.CfnDashboard(
            self._holder, "Resource", dashboard_body=self._render(), dashboard_name=dashboard_name
        )
        """The ``AWS::CloudWatch::Dashboard``; its body is rendered from :attr:`rows` (and :meth:`add_widgets`)."""
        self._widgets: tuple[cloudwatch.IWidget, ...] | None = None

    def _render(self) -> str:
        """The body: :attr:`rows`, then the rows :meth:`add_widgets` added, through ``Stack.to_json_string`` (which
        writes a string that holds a token as aws-cdk's dashboard does)."""
        widgets: list[Any] = list(dashboard_object(self.rows, region=self._region))
        top = rows_height(self.rows)
        for row in self._added:
            row.position(0, top)
            top += int(row.height)
            widgets += row.to_json()
        return Stack.of(self).to_json_string({"widgets": widgets})

    @property
    def widgets(self) -> tuple[cloudwatch.IWidget, ...]:
        """Every widget of :attr:`rows` as an aws-cdk widget, in dashboard order, for a dashboard of your own: made on
        first use; changing them does not change this dashboard (which is rendered from :attr:`rows`)."""
        if self._widgets is None:
            self._widgets = tuple(cdk_widget(w) for row in self.rows for w in row)
        return self._widgets

    def add_widgets(self, *widgets: cloudwatch.IWidget) -> None:
        """Add ``widgets`` as a row below the others, as ``cloudwatch.Dashboard.add_widgets`` does (left to right,
        wrapping past 24 columns). Like the L2 dashboard, the body is rendered at synth, so a widget changed after
        this call shows as it is then."""
        if not widgets:
            return
        self._added.append(widgets[0] if len(widgets) == 1 else cast(cloudwatch.IWidget, cloudwatch.Row(*widgets)))
        if len(self._added) == 1:
            self.resource.dashboard_body = Lazy.string(_RenderAtSynth(self))

    @property
    def dashboard(self) -> Construct:
        """Deprecated: the construct that holds :attr:`resource` (its ``node.default_child``), with
        ``add_widgets``, ``dashboard_name``, ``dashboard_arn`` and ``apply_removal_policy``. It was the
        ``cloudwatch.Dashboard`` before the dashboard was rendered from data; use this construct's own members."""
        warnings.warn(
            "InferenceDashboard.dashboard is deprecated: use the InferenceDashboard itself (add_widgets, "
            "dashboard_name, dashboard_arn) or its resource",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._holder

    @property
    def dashboard_name(self) -> str:
        """Name of the dashboard: ``Ref`` of the resource, as the L2 dashboard's (it resolves to the given name)."""
        return self.resource.ref

    @property
    def dashboard_arn(self) -> str:
        """ARN of the dashboard (``arn:<partition>:cloudwatch::<account>:dashboard/<name>``)."""
        stack = Stack.of(self)
        return f"arn:{stack.partition}:cloudwatch::{stack.account}:dashboard/{self.dashboard_name}"

    # ------------------------------------------------------------------------------------------ building blocks

    def _graph(
        self,
        title: str,
        left: Sequence[GraphMetric],
        *,
        axis: str,
        width: int = _THIRD,
        right: Sequence[GraphMetric] = (),
        right_axis: str | None = None,
        maximum: float | None = None,
    ) -> GraphData:
        return GraphData(
            title,
            tuple(left),
            _axis(axis, maximum),
            width=width,
            height=_HEIGHT,
            right=tuple(right),
            right_y_axis=_axis(right_axis) if right_axis else None,
            region=self._region,
            period_seconds=self._period_seconds,
        )

    @staticmethod
    def _header(markdown: str) -> list[WidgetData]:
        return [TextData(markdown, _FULL, 2)]

    @classmethod
    def _section(cls, markdown: str, widgets: Sequence[WidgetData]) -> list[list[WidgetData]]:
        """A header, then ``widgets`` four to a row; nothing when there are no widgets."""
        if not widgets:
            return []
        return [cls._header(markdown), *[list(widgets[i : i + 4]) for i in range(0, len(widgets), 4)]]

    # ------------------------------------------------------------------------------------------------ sections

    def _sagemaker_rows(self) -> list[list[WidgetData]]:
        acc, p = self._accounts, self._period
        backlog, oldest = metric_table.APPROXIMATE_BACKLOG_SIZE, metric_table.APPROXIMATE_AGE_OF_OLDEST_REQUEST
        scope = f" (accounts {', '.join(acc)})" if acc else ""
        return [
            self._header(
                f"## SageMaker endpoints{scope}\n"
                "Every endpoint variant that reported data in the last 2 weeks (SEARCH). "
                "Latencies are shown in ms (the metrics are µs)."
            ),
            [
                self._graph(
                    "Invocations (sum)", [metrics.fleet_invocations.data(account_ids=acc, period=p)], axis="count"
                ),
                self._graph(
                    "OverheadLatency (ms, average)",
                    [metrics.fleet_overhead_latency_ms.data(account_ids=acc, period=p)],
                    axis="ms",
                ),
                self._graph(
                    "Invocation error rate (%): 100 × Average of 4XX / 5XX errors",
                    [
                        metrics.fleet_error_rate_percent.data(c, account_ids=acc, period=p)
                        for c in metric_definitions.ERROR_METRICS
                    ],
                    axis="%",
                ),
            ],
            [
                self._graph(
                    f"ModelLatency {stat} (ms)",
                    [metrics.fleet_model_latency_ms.data(stat, account_ids=acc, period=p)],
                    axis="ms",
                )
                for stat in ("p50", "p90", "p99")
            ],
            [
                self._graph(
                    title,
                    [metrics.fleet_instance_metric.data(row, account_ids=acc, period=p)],
                    axis=axis,
                    width=_QUARTER,
                    maximum=maximum,
                )
                for row, title, axis, maximum in _INSTANCE_GRAPHS
            ],
            [
                self._graph(
                    "Async: ApproximateBacklogSize (requests, average)",
                    [metrics.fleet_async_metric.data(backlog, backlog.statistic, account_ids=acc, period=p)],
                    axis="requests",
                    right=[
                        metrics.fleet_async_metric.data(
                            metric_table.HAS_BACKLOG_WITHOUT_CAPACITY, "Maximum", account_ids=acc, period=p
                        )
                    ],
                    right_axis="backlog without capacity (1/0)",
                ),
                self._graph(
                    "Async: ApproximateAgeOfOldestRequest (s, maximum)",
                    [metrics.fleet_async_metric.data(oldest, oldest.statistic, account_ids=acc, period=p)],
                    axis="s",
                ),
                self._graph(
                    "Serverless: ModelSetupTime (cold start, ms, maximum)",
                    [metrics.fleet_model_setup_time_ms.data("Maximum", account_ids=acc, period=p)],
                    axis="ms",
                    right=[metrics.fleet_cold_starts.data(account_ids=acc, period=p)],
                    right_axis="cold starts",
                ),
            ],
        ]

    def _endpoint_rows(self, endpoints: Sequence[MonitoredEndpoint]) -> list[list[WidgetData]]:
        return self._section(
            "## Endpoints of this app: GPU utilization and memory per GPU (0–100 %)",
            [
                self._per_gpu_graph(e)
                for e in endpoints
                if e.gpu_count > 0 and e.kind is not EndpointKind.SERVERLESS and e.component is None
            ],
        )

    def _per_gpu_graph(self, endpoint: MonitoredEndpoint) -> GraphData:
        host = f" on {endpoint.instance_type}" if endpoint.instance_type else ""
        return self._graph(
            f"{endpoint.name}/{endpoint.variant_name}: GPU per device (%, ÷ {endpoint.gpu_count} GPUs{host})",
            [
                metrics.endpoint_gpu_utilization_per_gpu.data(endpoint, period=self._period),
                metrics.endpoint_gpu_memory_utilization_per_gpu.data(endpoint, period=self._period),
            ],
            axis="% per GPU",
            width=_QUARTER,
            maximum=100,
        )

    def _enhanced_rows(self, endpoints: Sequence[MonitoredEndpoint]) -> list[list[WidgetData]]:
        enhanced = [
            e for e in endpoints if e.enhanced_metrics and e.kind is EndpointKind.REALTIME and e.component is None
        ]
        return [
            row
            for e in enhanced
            for row in self._section(
                f"## {e.name}/{e.variant_name}: enhanced metrics, one line per GPU and per instance (SEARCH)",
                self._enhanced_graphs(e),
            )
        ]

    def _enhanced_graphs(self, endpoint: MonitoredEndpoint) -> list[WidgetData]:
        """Per GPU (``AcceleratorId``) and per instance (``InstanceId``) graphs of an endpoint whose endpoint config
        turns enhanced metrics on; an inference component's invocations are per container (``ContainerId``)."""
        p, title = self._period, f"{endpoint.name}/{endpoint.variant_name}"
        per_gpu: list[WidgetData] = [
            self._graph(
                f"{title}: {row.name} per GPU (%, one line per GPU of each instance)",
                [metrics.endpoint_enhanced_metric.data(endpoint, row, period=p)],
                axis="% per GPU",
                width=_QUARTER,
            )
            for row in (metric_table.GPU_UTILIZATION, metric_table.GPU_MEMORY_UTILIZATION)
            if endpoint.gpu_count > 0
        ]
        served_by = "container" if endpoint.inference_component_name else "instance"
        return [
            *per_gpu,
            self._graph(
                f"{title}: CPUUtilization (left, summed over vCPUs) and host memory (right, %) per instance",
                [metrics.endpoint_enhanced_metric.data(endpoint, metric_table.CPU_UTILIZATION, period=p)],
                axis="% × vCPUs",
                right=[metrics.endpoint_enhanced_metric.data(endpoint, metric_table.MEMORY_UTILIZATION, period=p)],
                right_axis="% host RAM",
                width=_QUARTER,
            ),
            self._graph(
                f"{title}: invocations (left, sum) and ModelLatency p99 (right, ms) per {served_by}",
                [metrics.endpoint_enhanced_metric.data(endpoint, metric_table.INVOCATIONS, period=p)],
                axis="count",
                right=[
                    metrics.endpoint_enhanced_metric.data(
                        endpoint, metric_table.MODEL_LATENCY, "p99", scale="/1000", period=p
                    )
                ],
                right_axis="ms",
                width=_QUARTER,
            ),
        ]

    def _component_rows(self, endpoints: Sequence[MonitoredEndpoint]) -> list[list[WidgetData]]:
        """Every inference component in the account (SEARCH per ``InferenceComponentName``: the fleet graphs above
        are per variant, which an inference component's invocations do not carry), then a row per known component;
        nothing when no known endpoint is served through inference components."""
        components = [e for e in endpoints if e.inference_component_name is not None]
        if not components:
            return []
        acc, p = self._accounts, self._period
        fleet: list[WidgetData] = [
            self._graph(
                title,
                [metrics.fleet_component_metric.data(row, scale=scale, account_ids=acc, period=p)],
                axis=axis,
                width=_QUARTER,
                maximum=maximum,
            )
            for row, title, axis, scale, maximum in _COMPONENT_FLEET_GRAPHS
        ]
        header = self._header(
            "## Inference components\n"
            "Every component that reported data (SEARCH per InferenceComponentName), then each component of this "
            "app: its invocations, latency and errors, and the utilization of its copies."
        )
        return [header, fleet, *[self._component_graphs(c) for c in components]]

    def _component_graphs(self, endpoint: MonitoredEndpoint) -> list[WidgetData]:
        """One row for the inference component ``endpoint`` watches (``InferenceComponentName``)."""
        p = self._period
        title = f"{endpoint.name} {endpoint.component}" if endpoint.component else endpoint.name
        if endpoint.gpu_count > 0:
            usage: list[GraphMetric] = [
                metrics.endpoint_metric.data(endpoint, metric_table.GPU_UTILIZATION_NORMALIZED, period=p),
                metrics.endpoint_metric.data(endpoint, metric_table.GPU_MEMORY_UTILIZATION_NORMALIZED, period=p),
            ]
            usage_title = "GPU utilization and GPU memory per copy (% of its reserved GPUs)"
        else:
            usage = [metrics.endpoint_metric.data(endpoint, metric_table.CPU_UTILIZATION_NORMALIZED, period=p)]
            usage_title = "CPUUtilizationNormalized per copy"
        latency = [metrics.endpoint_model_latency_ms.data(endpoint, stat, period=p) for stat in ("p50", "p99")]
        errors = [
            metrics.endpoint_error_rate_percent.data(endpoint, c, period=p) for c in metric_definitions.ERROR_METRICS
        ]
        return [
            self._graph(
                f"{title}: invocations (left, sum) and requests that found no copy (right, sum)",
                [metrics.endpoint_invocations.data(endpoint, period=p)],
                axis="count",
                right=[metrics.endpoint_metric.data(endpoint, metric_table.NO_CAPACITY_INVOCATION_FAILURES, period=p)],
                right_axis="requests",
                width=_QUARTER,
            ),
            self._graph(f"{title}: ModelLatency p50 and p99 (ms)", latency, axis="ms", width=_QUARTER),
            self._graph(f"{title}: 4XX / 5XX error rate (%)", errors, axis="%", width=_QUARTER),
            self._graph(f"{title}: {usage_title}", usage, axis="%", width=_QUARTER, maximum=100),
        ]

    def _bedrock_rows(self) -> list[list[WidgetData]]:
        acc, p = self._accounts, self._period

        def fleet(names: Sequence[str] | MetricDefinition, stat: str = "Sum") -> GraphMetric:
            return metrics.fleet_bedrock_metric.data(names, stat, account_ids=acc, period=p)

        return [
            self._header(
                "## Bedrock (per ModelId: model, system profile or application inference profile id)\n"
                "Cache-hit ratio = 100 × cache read / (cache read + cache write + input) prompt tokens."
            ),
            [
                self._graph("Invocations (sum)", [fleet(metric_table.BEDROCK_INVOCATIONS)], axis="count"),
                self._graph(
                    "InvocationLatency p99 (ms, to the last token)",
                    [fleet(metric_table.INVOCATION_LATENCY, "p99")],
                    axis="ms",
                ),
                self._graph(
                    "Throttles and errors (sum)",
                    [
                        fleet(metric_table.INVOCATION_THROTTLES),
                        fleet(metric_table.INVOCATION_SERVER_ERRORS),
                        fleet(metric_table.INVOCATION_CLIENT_ERRORS),
                    ],
                    axis="count",
                ),
            ],
            [
                self._graph("InputTokenCount (sum)", [fleet(metric_table.INPUT_TOKEN_COUNT)], axis="tokens"),
                self._graph("OutputTokenCount (sum)", [fleet(metric_table.OUTPUT_TOKEN_COUNT)], axis="tokens"),
                self._graph(
                    "Tokens per invocation (all models)",
                    [
                        metrics.fleet_tokens_per_invocation.data("Input", account_ids=acc, period=p),
                        metrics.fleet_tokens_per_invocation.data("Output", account_ids=acc, period=p),
                    ],
                    axis="tokens",
                ),
            ],
            [
                self._graph("Prompt cache read tokens (sum)", [fleet(metrics.CACHE_READ_METRIC_NAMES)], axis="tokens"),
                self._graph(
                    "Prompt cache write tokens (sum)",
                    [fleet(metric_definitions.CACHE_WRITE_METRIC_NAMES)],
                    axis="tokens",
                ),
                self._graph(
                    "Prompt cache-hit ratio (%, all models)",
                    [metrics.fleet_cache_hit_ratio_percent.data(account_ids=acc, period=p)],
                    axis="%",
                    maximum=100,
                ),
            ],
        ]

    def _profile_rows(self, profiles: Sequence[MonitoredProfile]) -> list[list[WidgetData]]:
        return self._section(
            "## Bedrock application inference profiles of this app", [self._profile_graph(p) for p in profiles]
        )

    def _profile_graph(self, profile: MonitoredProfile) -> GraphData:
        model = f" ({profile.model})" if profile.model else ""
        return self._graph(
            f"{profile.name}{model}: tokens per invocation and cache-hit ratio",
            [
                metrics.profile_tokens_per_invocation.data(profile, "Input", period=self._period),
                metrics.profile_tokens_per_invocation.data(profile, "Output", period=self._period),
            ],
            axis="tokens",
            right=[metrics.profile_cache_hit_ratio_percent.data(profile, period=self._period)],
            right_axis="cache hit %",
            width=_QUARTER,
        )

    def _cost_rows(self) -> list[list[WidgetData]]:
        if self._accounts:
            charges: list[GraphMetric] = [
                metrics.estimated_charges_in_usd.data(account_id=a, label=f"{a} estimated charges (USD)")
                for a in self._accounts
            ]
        else:
            charges = [metrics.estimated_charges_in_usd.data(label="estimated charges (USD)")]
        graph = GraphData(
            "Estimated charges (USD, month to date, us-east-1, daily)",
            tuple(charges),
            _axis("USD"),
            width=16,
            height=_HEIGHT,
            region=metrics.BILLING_REGION,
            period_seconds=metrics.ONE_DAY_SECONDS,
            start="-P30D",
        )
        note = TextData(BILLING_NOTE, 8, _HEIGHT)
        return [self._header("## Cost"), [graph, note]]


class _DashboardResource(Construct):
    """The construct that holds an :class:`InferenceDashboard`'s ``CfnDashboard`` (id ``Resource``, where the L2
    dashboard was), with the members of the L2 dashboard that the deprecated ``InferenceDashboard.dashboard`` kept."""

    def __init__(self, scope: Construct, construct_id: str, *, owner: InferenceDashboard) -> None:
        super().__init__(scope, construct_id)
        self._owner = owner

    def add_widgets(self, *widgets: cloudwatch.IWidget) -> None:
        """:meth:`InferenceDashboard.add_widgets`."""
        self._owner.add_widgets(*widgets)

    @property
    def dashboard_name(self) -> str:
        """:attr:`InferenceDashboard.dashboard_name`."""
        return self._owner.dashboard_name

    @property
    def dashboard_arn(self) -> str:
        """:attr:`InferenceDashboard.dashboard_arn`."""
        return self._owner.dashboard_arn

    def apply_removal_policy(self, policy: RemovalPolicy) -> None:
        """Apply ``policy`` to the ``AWS::CloudWatch::Dashboard``."""
        self._owner.resource.apply_removal_policy(policy)


@jsii.implements(IStableStringProducer)
class _RenderAtSynth:
    """Renders an :class:`InferenceDashboard`'s body when the template is written (once widgets were added)."""

    def __init__(self, dashboard: InferenceDashboard) -> None:
        self._dashboard = dashboard

    def produce(self) -> str | None:
        """The body."""
        return self._dashboard._render()


def check_dashboard_inputs(
    *,
    endpoints: Sequence[MonitoredEndpoint] = (),
    profiles: Sequence[MonitoredProfile] = (),
    source_account_ids: Sequence[str] = (),
    path: str = "",
) -> ProblemCollector:
    """Collect every problem with the dashboard inputs (``path`` prefixes the key names, e.g. ``observability``)."""
    problems = ProblemCollector()
    problems.extend(validate_endpoints(endpoints, path=key(path, "endpoints")))
    problems.extend(validate_profiles(profiles, path=key(path, "profiles")))
    account_problems = validate_account_ids(source_account_ids, path=key(path, "source_account_ids"))
    problems.extend(account_problems)
    if not account_problems and source_account_ids:
        longest = metric_definitions.longest_dashboard_search(source_account_ids)
        if longest > MAX_SEARCH_LENGTH:
            problems.add(
                key(path, "source_account_ids"),
                f"{len(source_account_ids)} accounts make a SEARCH expression {longest} characters long; "
                f"the limit is {MAX_SEARCH_LENGTH}",
                "list at most 48 accounts per dashboard, or none to cover every linked account",
            )
    return problems
