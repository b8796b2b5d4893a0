"""What ``InferenceDashboard`` shows, section by section, as plain widgets (:mod:`.graph_data`): the SageMaker
fleet (SEARCH), each known endpoint's GPUs, enhanced metrics and inference components, the Bedrock fleet and each
known profile, and the cost. The construct lays the rows out and renders them (:mod:`.dashboard`)."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration

from inference_constructs.observability import metric_definitions, metric_table, metrics
from inference_constructs.observability.graph_data import GraphData, GraphMetric, TextData, WidgetData, YAxis
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.observability.targets import MonitoredEndpoint, MonitoredProfile
from inference_constructs.spec import EndpointKind

__all__ = ["BILLING_NOTE", "DashboardSections"]

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


class DashboardSections:
    """The rows of one dashboard, top to bottom: ``accounts`` filter every SEARCH (a monitoring account), ``region``
    is what the graphs read (the cost graph reads us-east-1), ``period`` their aggregation period."""

    def __init__(self, *, accounts: Sequence[str], region: str, period: Duration, period_seconds: int) -> None:
        self._accounts = tuple(accounts)
        self._region = region
        self._period = period
        self._period_seconds = period_seconds

    def rows(
        self, endpoints: Sequence[MonitoredEndpoint], profiles: Sequence[MonitoredProfile]
    ) -> list[list[WidgetData]]:
        """Every section's rows, in dashboard order."""
        return [
            *self._sagemaker_rows(),
            *self._endpoint_rows(endpoints),
            *self._enhanced_rows(endpoints),
            *self._component_rows(endpoints),
            *self._bedrock_rows(),
            *self._profile_rows(profiles),
            *self._cost_rows(),
        ]

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
