"""Every CloudWatch metric the library reads or checks, one row each: namespace, name, dimension names, default
statistic, unit and the AWS page that documents it.

Pure Python that imports nothing of the library (no ``aws_cdk``), so the decisions (plan, alarms, rollback alarms,
the template validator) and the constructs (``endpoint.metric_*()``, the metric factories, the dashboards) read the
same rows: a metric's name is written here and nowhere else. The aws-cdk ``Unit`` of a row is looked up on the
construct side (:func:`inference_constructs.observability.metrics.cloudwatch_unit`).

A name AWS publishes in two namespaces (Bedrock's invocation metrics under ``AWS/Bedrock/Guardrails``, the
normalized utilization under both ``/aws/sagemaker/Endpoints`` and ``/aws/sagemaker/InferenceComponents``) is one
row copied into the other namespace (``_Rows.also``), so the name stays written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

__all__ = [
    "BEDROCK_NAMESPACE",
    "BILLING_NAMESPACE",
    "ENDPOINT_INSTANCE_NAMESPACE",
    "GUARDRAILS_NAMESPACE",
    "INFERENCE_COMPONENT_NAMESPACE",
    "METRICS",
    "NAMESPACE_DIMENSIONS",
    "SAGEMAKER_NAMESPACE",
    "Dimension",
    "MetricDefinition",
    "dimension_sets",
    "names_in",
]

SAGEMAKER_NAMESPACE = "AWS/SageMaker"
"""Invocation, async queue and inference-component metrics (``EndpointName, VariantName``; async backlog metrics
``EndpointName`` only; an inference component's invocation metrics ``InferenceComponentName``)."""
ENDPOINT_INSTANCE_NAMESPACE = "/aws/sagemaker/Endpoints"
"""Instance metrics of endpoints: CPU, memory, disk, GPU (``EndpointName, VariantName``)."""
INFERENCE_COMPONENT_NAMESPACE = "/aws/sagemaker/InferenceComponents"
"""Per-copy utilization of inference components, normalized to 0..100 (``InferenceComponentName``)."""
BEDROCK_NAMESPACE = "AWS/Bedrock"
"""Bedrock runtime metrics (``ModelId``; an application inference profile's traffic carries the profile id)."""
GUARDRAILS_NAMESPACE = "AWS/Bedrock/Guardrails"
"""Bedrock guardrail metrics (``GuardrailArn, GuardrailVersion``; also ``Operation``, ``GuardrailContentSource``,
``GuardrailPolicyType``)."""
BILLING_NAMESPACE = "AWS/Billing"
"""Estimated charges; published in us-east-1 only, once billing alerts are turned on."""


class Dimension(StrEnum):
    """CloudWatch dimension names; constructs bind their values."""

    ENDPOINT_NAME = "EndpointName"
    VARIANT_NAME = "VariantName"
    INFERENCE_COMPONENT_NAME = "InferenceComponentName"
    MODEL_ID = "ModelId"
    GUARDRAIL_ARN = "GuardrailArn"
    GUARDRAIL_VERSION = "GuardrailVersion"
    CURRENCY = "Currency"
    INSTANCE_ID = "InstanceId"
    """Enhanced metrics only: one instance of the variant."""
    ACCELERATOR_ID = "AcceleratorId"
    """Enhanced metrics only, GPU metrics only: one GPU of an instance."""
    CONTAINER_ID = "ContainerId"
    """Enhanced metrics only, inference components only: one container (a copy of the model)."""


_VARIANT = (Dimension.ENDPOINT_NAME.value, Dimension.VARIANT_NAME.value)
_ENDPOINT = (Dimension.ENDPOINT_NAME.value,)
_COMPONENT = (Dimension.INFERENCE_COMPONENT_NAME.value,)
_MODEL = (Dimension.MODEL_ID.value,)
_GUARDRAIL = (Dimension.GUARDRAIL_ARN.value, Dimension.GUARDRAIL_VERSION.value)
_PER_INSTANCE = (*_VARIANT, Dimension.INSTANCE_ID.value)
_PER_ACCELERATOR = (*_PER_INSTANCE, Dimension.ACCELERATOR_ID.value)
_PER_CONTAINER = (
    *_VARIANT,
    Dimension.INFERENCE_COMPONENT_NAME.value,
    Dimension.INSTANCE_ID.value,
    Dimension.CONTAINER_ID.value,
)

_SAGEMAKER_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html"
_COMPONENT_DOC = (
    "https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-inference-components-cloudwatch.html"
)
_ASYNC_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/async-inference-monitor.html"
_MULTI_MODEL_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/multi-model-endpoint-cloudwatch-metrics.html"
_BEDROCK_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring.html"
_BURNDOWN_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html"
_GUARDRAILS_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-guardrails-cw-metrics.html"
_ENHANCED_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch-enhanced-metrics.html"
"""Which dimensions enhanced metrics add in each namespace: ``InstanceId`` and, on GPU metrics, ``AcceleratorId`` to
``/aws/sagemaker/Endpoints`` utilization metrics; ``InstanceId`` and, for inference components, ``ContainerId`` to
``AWS/SageMaker`` invocation metrics."""
_OTEL_MAPPING_DOC = (
    "https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-detailed-observability-metric-mapping.html"
)
"""The exact ``AWS/SageMaker`` dimension sets of each invocation metric ("Metric name mapping: legacy to OTel"):
``EndpointName, VariantName, InstanceId`` per instance, ``EndpointName, VariantName, InferenceComponentName,
InstanceId, ContainerId`` per container of an inference component."""
_BILLING_DOC = (
    "https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/monitor_estimated_charges_with_cloudwatch.html"
)


@dataclass(frozen=True)
class MetricDefinition:
    """One CloudWatch metric as AWS publishes it, and how the library reads it by default.

    Attributes
    ----------
    namespace:
        The CloudWatch namespace, e.g. ``AWS/SageMaker``.
    name:
        The metric name, e.g. ``ModelLatency``.
    dimensions:
        The dimension names it is published with, in template order (an endpoint hosted through an inference
        component publishes its ``AWS/SageMaker`` invocation metrics per ``InferenceComponentName`` instead:
        :func:`~inference_constructs.observability.metric_definitions.endpoint_dimensions`).
    statistic:
        The statistic the library's ``metric_*`` methods read unless told otherwise.
    unit:
        The CloudWatch unit those methods set (CloudWatch then reads only datapoints of that unit), e.g.
        ``Microseconds``; None sets none (every unit matches).
    source:
        The AWS page that documents the metric.
    enhanced_dimensions:
        With ``MetricsConfig.EnableEnhancedMetrics`` on the endpoint config: the dimension names the metric is also
        published with for one instance of a variant (a GPU metric: for one GPU of an instance), in template order.
        Empty: no enhanced dimension set is documented for it.
    enhanced_component_dimensions:
        With enhanced metrics on an endpoint that hosts inference components: the dimension names the metric is
        published with for one container of a component. Empty: none documented.
    enhanced_source:
        The AWS page that documents the enhanced dimension sets; None without them.
    """

    namespace: str
    name: str
    dimensions: tuple[str, ...]
    statistic: str
    unit: str | None
    source: str
    enhanced_dimensions: tuple[str, ...] = ()
    enhanced_component_dimensions: tuple[str, ...] = ()
    enhanced_source: str | None = None


_ROWS: list[MetricDefinition] = []


@dataclass(frozen=True)
class _Rows:
    """The rows that share a namespace, dimension names and source page (and, for a group whose metrics all read
    alike, the default statistic and unit): calling it adds one (name, default statistic, unit) to the table;
    :meth:`also` copies another row's metric name into it."""

    namespace: str
    dimensions: tuple[str, ...]
    source: str
    statistic: str | None = None
    unit: str | None = None
    enhanced: tuple[str, ...] = ()
    enhanced_component: tuple[str, ...] = ()
    enhanced_source: str | None = None

    def __call__(self, name: str, statistic: str | None = None, unit: str | None = None) -> MetricDefinition:
        default_statistic = statistic or self.statistic
        assert default_statistic is not None, f"{name}: a row states its default statistic or its group's"
        row = MetricDefinition(
            self.namespace,
            name,
            self.dimensions,
            default_statistic,
            unit or self.unit,
            self.source,
            self.enhanced,
            self.enhanced_component,
            self.enhanced_source,
        )
        return self._add(row)

    def with_enhanced(self, enhanced: tuple[str, ...], component: tuple[str, ...] = ()) -> _Rows:
        """The same group whose metrics enhanced metrics also publish per ``enhanced`` (one instance or GPU) and,
        on an endpoint with inference components, per ``component`` (one container); source: the enhanced-metrics
        page, or for invocation metrics the page that lists their exact dimension sets."""
        source = _OTEL_MAPPING_DOC if self.namespace == SAGEMAKER_NAMESPACE else _ENHANCED_DOC
        return replace(self, enhanced=enhanced, enhanced_component=component, enhanced_source=source)

    def also(self, row: MetricDefinition) -> MetricDefinition:
        """``row``'s metric name (statistic and unit too) as published in this namespace."""
        return self._add(replace(row, namespace=self.namespace, dimensions=self.dimensions, source=self.source))

    @staticmethod
    def _add(row: MetricDefinition) -> MetricDefinition:
        _ROWS.append(row)
        return row


_variant = _Rows(SAGEMAKER_NAMESPACE, _VARIANT, _SAGEMAKER_DOC)
_variant_per_container = _variant.with_enhanced(_PER_INSTANCE, _PER_CONTAINER)
"""Invocation metrics published per instance and, for an inference component, per container."""
_variant_per_instance = _variant.with_enhanced(_PER_INSTANCE)
_component = _Rows(SAGEMAKER_NAMESPACE, _COMPONENT, _COMPONENT_DOC)
_queue = _Rows(SAGEMAKER_NAMESPACE, _ENDPOINT, _ASYNC_DOC)
_multi_model = _Rows(SAGEMAKER_NAMESPACE, _VARIANT, _MULTI_MODEL_DOC)
_utilization = _Rows(ENDPOINT_INSTANCE_NAMESPACE, _VARIANT, _SAGEMAKER_DOC, "Average", "Percent")
_host_utilization = _utilization.with_enhanced(_PER_INSTANCE)
_gpu_utilization = _utilization.with_enhanced(_PER_ACCELERATOR)
"""GPU metrics: enhanced metrics publish them per GPU of an instance (``AcceleratorId``, "GPU metrics only")."""
_instance_of_components = _Rows(ENDPOINT_INSTANCE_NAMESPACE, _VARIANT, _COMPONENT_DOC)
_copy = _Rows(INFERENCE_COMPONENT_NAMESPACE, _COMPONENT, _COMPONENT_DOC)
_bedrock = _Rows(BEDROCK_NAMESPACE, _MODEL, _BEDROCK_DOC)
_burndown = _Rows(BEDROCK_NAMESPACE, _MODEL, _BURNDOWN_DOC)
_log_delivery = _Rows(BEDROCK_NAMESPACE, (), _BEDROCK_DOC)
"""Model invocation logging delivery: emitted across all model ids, without dimensions."""
_guardrail = _Rows(GUARDRAILS_NAMESPACE, _GUARDRAIL, _GUARDRAILS_DOC)
_billing = _Rows(BILLING_NAMESPACE, (Dimension.CURRENCY.value,), _BILLING_DOC)

# ------------------------------------------------------------------- AWS/SageMaker: invocations of a variant

INVOCATIONS = _variant_per_container("Invocations", "Sum")
INVOCATIONS_PER_INSTANCE = _variant_per_instance("InvocationsPerInstance", "Sum")
INVOCATION_4XX_ERRORS = _variant_per_container("Invocation4XXErrors", "Average")
"""1 or 0 per request: the Average is the 4XX error rate."""
INVOCATION_5XX_ERRORS = _variant_per_container("Invocation5XXErrors", "Average")
"""1 or 0 per request: the Average is the 5XX error rate."""
INVOCATION_MODEL_ERRORS = _variant_per_container("InvocationModelErrors", "Sum")
MODEL_LATENCY = _variant_per_container("ModelLatency", "p99", "Microseconds")
OVERHEAD_LATENCY = _variant_per_container("OverheadLatency", "Average", "Microseconds")
"""Percentiles are not published."""
MODEL_SETUP_TIME = _variant("ModelSetupTime", "Average", "Microseconds")
"""Serverless cold start; its SampleCount counts the cold starts."""
CONCURRENT_REQUESTS_PER_MODEL = _variant("ConcurrentRequestsPerModel", "Maximum")
"""High resolution (every 10 s)."""

# ------------------------------------------------------------- AWS/SageMaker: invocations of an inference component

INVOCATIONS_PER_COPY = _component("InvocationsPerCopy", "Sum", "Count")
CONCURRENT_REQUESTS_PER_COPY = _component("ConcurrentRequestsPerCopy", "Maximum")
NO_CAPACITY_INVOCATION_FAILURES = _component("NoCapacityInvocationFailures", "Sum", "Count")
"""Requests that found no copy: non-zero after idle at zero copies; it wakes the component up."""

# ------------------------------------------------------------------------ AWS/SageMaker: the async queue

APPROXIMATE_BACKLOG_SIZE = _queue("ApproximateBacklogSize", "Average", "Count")
APPROXIMATE_BACKLOG_SIZE_PER_INSTANCE = _queue("ApproximateBacklogSizePerInstance", "Average", "Count")
APPROXIMATE_AGE_OF_OLDEST_REQUEST = _queue("ApproximateAgeOfOldestRequest", "Maximum", "Seconds")
HAS_BACKLOG_WITHOUT_CAPACITY = _queue("HasBacklogWithoutCapacity", "Average", "Count")
"""1 when requests wait and no instance runs: it drives scale-out from zero."""

# ---------------------------------------------------------------------- /aws/sagemaker/Endpoints: instances

CPU_UTILIZATION = _host_utilization("CPUUtilization")
"""Summed over vCPUs: 0..100 x vCPU count."""
MEMORY_UTILIZATION = _host_utilization("MemoryUtilization")
"""Host RAM, not GPU memory."""
DISK_UTILIZATION = _host_utilization("DiskUtilization")
GPU_UTILIZATION = _gpu_utilization("GPUUtilization")
"""Summed over GPUs: 0..100 x GPU count (per accelerator with enhanced metrics: one GPU)."""
GPU_MEMORY_UTILIZATION = _gpu_utilization("GPUMemoryUtilization")
"""Summed over GPUs: 0..100 x GPU count (per accelerator with enhanced metrics: one GPU)."""

# ------------------------------------------------------------- /aws/sagemaker/InferenceComponents: per copy

GPU_UTILIZATION_NORMALIZED = _copy("GPUUtilizationNormalized", "Average", "Percent")
"""0..100 of the copy's reserved GPUs."""
GPU_MEMORY_UTILIZATION_NORMALIZED = _copy("GPUMemoryUtilizationNormalized", "Average", "Percent")
"""0..100 of the copy's reserved GPU memory."""
CPU_UTILIZATION_NORMALIZED = _copy("CPUUtilizationNormalized", "Average")
"""The copy's CPU utilization (no unit set: the source names none)."""

# ---------------------------------------------------------------------------------- AWS/Bedrock: runtime

BEDROCK_INVOCATIONS = _bedrock.also(INVOCATIONS)
"""Successful requests."""
INVOCATION_LATENCY = _bedrock("InvocationLatency", "Average")
"""Milliseconds to the last token."""
INVOCATION_CLIENT_ERRORS = _bedrock("InvocationClientErrors", "Sum")
INVOCATION_SERVER_ERRORS = _bedrock("InvocationServerErrors", "Sum")
INVOCATION_THROTTLES = _bedrock("InvocationThrottles", "Sum")
"""Throttled requests, counted neither as invocations nor as errors."""
INPUT_TOKEN_COUNT = _bedrock("InputTokenCount", "Sum")
"""Prompt tokens not read from or written to the cache."""
OUTPUT_TOKEN_COUNT = _bedrock("OutputTokenCount", "Sum")
TIME_TO_FIRST_TOKEN = _bedrock("TimeToFirstToken", "Average")
"""Milliseconds, streaming APIs only."""
# Prompt-cache metric names disagree across AWS pages: the runtime-metrics page and the token-burndown page.
CACHE_READ_INPUT_TOKENS = _bedrock("CacheReadInputTokens", "Sum")
CACHE_WRITE_INPUT_TOKENS = _bedrock("CacheWriteInputTokens", "Sum")
CACHE_READ_INPUT_TOKEN_COUNT = _burndown("CacheReadInputTokenCount", "Sum")
CACHE_WRITE_INPUT_TOKEN_COUNT = _burndown("CacheWriteInputTokenCount", "Sum")
LOGS_S3_DELIVERY_SUCCESS = _log_delivery("ModelInvocationLogsS3DeliverySuccess", "Sum")
LOGS_S3_DELIVERY_FAILURE = _log_delivery("ModelInvocationLogsS3DeliveryFailure", "Sum")
LOGS_CLOUDWATCH_DELIVERY_SUCCESS = _log_delivery("ModelInvocationLogsCloudWatchDeliverySuccess", "Sum")
LOGS_CLOUDWATCH_DELIVERY_FAILURE = _log_delivery("ModelInvocationLogsCloudWatchDeliveryFailure", "Sum")
LARGE_DATA_S3_DELIVERY_SUCCESS = _log_delivery("ModelInvocationLargeDataS3DeliverySuccess", "Sum")
LARGE_DATA_S3_DELIVERY_FAILURE = _log_delivery("ModelInvocationLargeDataS3DeliveryFailure", "Sum")

# ------------------------------------------------------------------------------- AWS/Bedrock/Guardrails

GUARDRAIL_INVOCATIONS = _guardrail.also(BEDROCK_INVOCATIONS)
"""Guardrail evaluations."""
GUARDRAIL_INVOCATIONS_INTERVENED = _guardrail("InvocationsIntervened", "Sum")
"""Evaluations in which the guardrail intervened."""

# ----------------------------------------------------------------------------------------------- AWS/Billing

ESTIMATED_CHARGES = _billing("EstimatedCharges", "Maximum")
"""Estimated charges to date this month (``Currency=USD``), us-east-1 only."""

# ----------------------------------------------------- published too, read by no metric_* (the validator knows them)

for _name in (
    "ServerlessProvisionedConcurrencyUtilization",
    "FirstChunkLatency",
    "FirstChunkModelLatency",
    "FirstChunkOverheadLatency",
    "MidStreamErrors",
):
    _variant(_name, "Average")
for _name in (
    "RequestDownloadFailures",
    "ResponseUploadFailures",
    "NotificationFailures",
    "ExpiredRequests",
    "InvocationFailures",
    "InvocationsProcesssed",  # sic: the name AWS documents
    "RequestDownloadLatency",
    "ResponseUploadLatency",
    "TimeInBacklog",
    "TotalProcessingTime",
):
    _queue(_name, "Sum")
for _name in (
    "ModelLoadingWaitTime",
    "ModelUnloadingTime",
    "ModelDownloadingTime",
    "ModelLoadingTime",
    "ModelCacheHit",
):
    _multi_model(_name, "Average")
for _row in (GPU_UTILIZATION_NORMALIZED, GPU_MEMORY_UTILIZATION_NORMALIZED, CPU_UTILIZATION_NORMALIZED):
    _instance_of_components.also(_row)
for _name in ("CPUReservation", "GPUReservation", "MemoryReservation", "LoadedModelCount"):
    _instance_of_components(_name, "Average")
_copy("MemoryUtilizationNormalized", "Average")
for _name in ("LegacyModelInvocations", "OutputImageCount", "EstimatedTPMQuotaUsage"):
    _bedrock(_name, "Sum")
for _row in (INVOCATION_LATENCY, INVOCATION_CLIENT_ERRORS, INVOCATION_SERVER_ERRORS, INVOCATION_THROTTLES):
    _guardrail.also(_row)
_guardrail("TextUnitCount", "Sum")

del _name, _row

METRICS: tuple[MetricDefinition, ...] = tuple(_ROWS)
"""Every row, in the order above."""

_ENHANCED_NAMES = (Dimension.INSTANCE_ID.value, Dimension.ACCELERATOR_ID.value, Dimension.CONTAINER_ID.value)
"""The dimension names enhanced metrics add (which namespace carries which: the rows' enhanced sets and
``_ENHANCED_DOC``)."""

NAMESPACE_DIMENSIONS: Mapping[str, frozenset[str]] = {
    SAGEMAKER_NAMESPACE: frozenset(_VARIANT + _COMPONENT + _PER_CONTAINER),
    ENDPOINT_INSTANCE_NAMESPACE: frozenset(_PER_ACCELERATOR),
    INFERENCE_COMPONENT_NAMESPACE: frozenset(_COMPONENT + _ENHANCED_NAMES),
    BEDROCK_NAMESPACE: frozenset({*_MODEL, "ImageSize", "BucketedStepSize"}),
    GUARDRAILS_NAMESPACE: frozenset({*_GUARDRAIL, "Operation", "GuardrailContentSource", "GuardrailPolicyType"}),
    BILLING_NAMESPACE: frozenset({Dimension.CURRENCY.value, "ServiceName", "LinkedAccount"}),
}
"""Every dimension name each namespace publishes metrics with (also those no row's metric is read by)."""

BY_NAMESPACE: Mapping[str, tuple[MetricDefinition, ...]] = {
    namespace: tuple(row for row in METRICS if row.namespace == namespace)
    for namespace in dict.fromkeys(row.namespace for row in METRICS)
}
"""The rows of each namespace."""


def dimension_sets(namespace: str, name: str) -> frozenset[frozenset[str]]:
    """Every dimension-name set ``name`` is published with in ``namespace``: its row's, the enhanced-metrics sets,
    and for an ``AWS/SageMaker`` invocation metric an inference component serves, ``InferenceComponentName``
    (empty for a metric the table does not hold)."""
    sets: set[frozenset[str]] = set()
    for row in BY_NAMESPACE.get(namespace, ()):
        if row.name == name:
            sets.update(frozenset(d) for d in (row.dimensions, row.enhanced_dimensions) if d)
            if row.enhanced_component_dimensions:
                sets.update((frozenset(row.enhanced_component_dimensions), frozenset(_COMPONENT)))
    return frozenset(sets)


def names_in(namespace: str) -> frozenset[str]:
    """The metric names published in ``namespace`` (empty for a namespace the table does not hold)."""
    return frozenset(row.name for row in BY_NAMESPACE.get(namespace, ()))
