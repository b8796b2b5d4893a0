"""Every CloudWatch metric the library reads or checks, one row each: namespace, name, dimension names, default
statistic, unit and the AWS page that documents it.

Pure Python that imports nothing of the library (no ``aws_cdk``), so the decisions (plan, alarms, rollback alarms,
the template validator) and the constructs (``endpoint.metric_*()``, the metric factories, the dashboards) read the
same rows: a metric's name is written here and nowhere else. The aws-cdk ``Unit`` of a row is looked up on the
construct side (:func:`inference_constructs.observability.metrics.cloudwatch_unit`).

A name AWS publishes in two namespaces (Bedrock's invocation metrics under ``AWS/Bedrock/Guardrails``, the
normalized utilization under both ``/aws/sagemaker/Endpoints`` and ``/aws/sagemaker/InferenceComponents``) is one
row copied into the other namespace (:func:`_also_in`), so the name stays written once.
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


_VARIANT = (Dimension.ENDPOINT_NAME.value, Dimension.VARIANT_NAME.value)
_ENDPOINT = (Dimension.ENDPOINT_NAME.value,)
_COMPONENT = (Dimension.INFERENCE_COMPONENT_NAME.value,)
_MODEL = (Dimension.MODEL_ID.value,)
_GUARDRAIL = (Dimension.GUARDRAIL_ARN.value, Dimension.GUARDRAIL_VERSION.value)

_SAGEMAKER_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html"
_COMPONENT_DOC = (
    "https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-inference-components-cloudwatch.html"
)
_ASYNC_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/async-inference-monitor.html"
_MULTI_MODEL_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/multi-model-endpoint-cloudwatch-metrics.html"
_BEDROCK_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring.html"
_BURNDOWN_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html"
_GUARDRAILS_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-guardrails-cw-metrics.html"
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
    """

    namespace: str
    name: str
    dimensions: tuple[str, ...]
    statistic: str
    unit: str | None
    source: str


_ROWS: list[MetricDefinition] = []


def _define(  # noqa: PLR0917 - one positional per column of the table, in column order
    namespace: str,
    name: str,
    dimensions: tuple[str, ...],
    statistic: str,
    unit: str | None,
    source: str,
) -> MetricDefinition:
    row = MetricDefinition(namespace, name, dimensions, statistic, unit, source)
    _ROWS.append(row)
    return row


def _also_in(row: MetricDefinition, namespace: str, dimensions: tuple[str, ...], source: str) -> MetricDefinition:
    """``row``'s metric name as published in another namespace."""
    copy = replace(row, namespace=namespace, dimensions=dimensions, source=source)
    _ROWS.append(copy)
    return copy


# ------------------------------------------------------------------- AWS/SageMaker: invocations of a variant

INVOCATIONS = _define(SAGEMAKER_NAMESPACE, "Invocations", _VARIANT, "Sum", None, _SAGEMAKER_DOC)
INVOCATIONS_PER_INSTANCE = _define(SAGEMAKER_NAMESPACE, "InvocationsPerInstance", _VARIANT, "Sum", None, _SAGEMAKER_DOC)
INVOCATION_4XX_ERRORS = _define(SAGEMAKER_NAMESPACE, "Invocation4XXErrors", _VARIANT, "Average", None, _SAGEMAKER_DOC)
"""1 or 0 per request: the Average is the 4XX error rate."""
INVOCATION_5XX_ERRORS = _define(SAGEMAKER_NAMESPACE, "Invocation5XXErrors", _VARIANT, "Average", None, _SAGEMAKER_DOC)
"""1 or 0 per request: the Average is the 5XX error rate."""
INVOCATION_MODEL_ERRORS = _define(SAGEMAKER_NAMESPACE, "InvocationModelErrors", _VARIANT, "Sum", None, _SAGEMAKER_DOC)
MODEL_LATENCY = _define(SAGEMAKER_NAMESPACE, "ModelLatency", _VARIANT, "p99", "Microseconds", _SAGEMAKER_DOC)
OVERHEAD_LATENCY = _define(SAGEMAKER_NAMESPACE, "OverheadLatency", _VARIANT, "Average", "Microseconds", _SAGEMAKER_DOC)
"""Percentiles are not published."""
MODEL_SETUP_TIME = _define(SAGEMAKER_NAMESPACE, "ModelSetupTime", _VARIANT, "Average", "Microseconds", _SAGEMAKER_DOC)
"""Serverless cold start; its SampleCount counts the cold starts."""
CONCURRENT_REQUESTS_PER_MODEL = _define(
    SAGEMAKER_NAMESPACE, "ConcurrentRequestsPerModel", _VARIANT, "Maximum", None, _SAGEMAKER_DOC
)
"""High resolution (every 10 s)."""

# ------------------------------------------------------------- AWS/SageMaker: invocations of an inference component

INVOCATIONS_PER_COPY = _define(SAGEMAKER_NAMESPACE, "InvocationsPerCopy", _COMPONENT, "Sum", "Count", _COMPONENT_DOC)
CONCURRENT_REQUESTS_PER_COPY = _define(
    SAGEMAKER_NAMESPACE, "ConcurrentRequestsPerCopy", _COMPONENT, "Maximum", None, _COMPONENT_DOC
)
NO_CAPACITY_INVOCATION_FAILURES = _define(
    SAGEMAKER_NAMESPACE, "NoCapacityInvocationFailures", _COMPONENT, "Sum", "Count", _COMPONENT_DOC
)
"""Requests that found no copy: non-zero after idle at zero copies; it wakes the component up."""

# ------------------------------------------------------------------------ AWS/SageMaker: the async queue

APPROXIMATE_BACKLOG_SIZE = _define(
    SAGEMAKER_NAMESPACE, "ApproximateBacklogSize", _ENDPOINT, "Average", "Count", _ASYNC_DOC
)
APPROXIMATE_BACKLOG_SIZE_PER_INSTANCE = _define(
    SAGEMAKER_NAMESPACE, "ApproximateBacklogSizePerInstance", _ENDPOINT, "Average", "Count", _ASYNC_DOC
)
APPROXIMATE_AGE_OF_OLDEST_REQUEST = _define(
    SAGEMAKER_NAMESPACE, "ApproximateAgeOfOldestRequest", _ENDPOINT, "Maximum", "Seconds", _ASYNC_DOC
)
HAS_BACKLOG_WITHOUT_CAPACITY = _define(
    SAGEMAKER_NAMESPACE, "HasBacklogWithoutCapacity", _ENDPOINT, "Average", "Count", _ASYNC_DOC
)
"""1 when requests wait and no instance runs: it drives scale-out from zero."""

# ---------------------------------------------------------------------- /aws/sagemaker/Endpoints: instances

CPU_UTILIZATION = _define(ENDPOINT_INSTANCE_NAMESPACE, "CPUUtilization", _VARIANT, "Average", "Percent", _SAGEMAKER_DOC)
"""Summed over vCPUs: 0..100 x vCPU count."""
MEMORY_UTILIZATION = _define(
    ENDPOINT_INSTANCE_NAMESPACE, "MemoryUtilization", _VARIANT, "Average", "Percent", _SAGEMAKER_DOC
)
"""Host RAM, not GPU memory."""
DISK_UTILIZATION = _define(
    ENDPOINT_INSTANCE_NAMESPACE, "DiskUtilization", _VARIANT, "Average", "Percent", _SAGEMAKER_DOC
)
GPU_UTILIZATION = _define(ENDPOINT_INSTANCE_NAMESPACE, "GPUUtilization", _VARIANT, "Average", "Percent", _SAGEMAKER_DOC)
"""Summed over GPUs: 0..100 x GPU count."""
GPU_MEMORY_UTILIZATION = _define(
    ENDPOINT_INSTANCE_NAMESPACE, "GPUMemoryUtilization", _VARIANT, "Average", "Percent", _SAGEMAKER_DOC
)
"""Summed over GPUs: 0..100 x GPU count."""

# ------------------------------------------------------------- /aws/sagemaker/InferenceComponents: per copy

GPU_UTILIZATION_NORMALIZED = _define(
    INFERENCE_COMPONENT_NAMESPACE, "GPUUtilizationNormalized", _COMPONENT, "Average", "Percent", _COMPONENT_DOC
)
"""0..100 of the copy's reserved GPUs."""
GPU_MEMORY_UTILIZATION_NORMALIZED = _define(
    INFERENCE_COMPONENT_NAMESPACE, "GPUMemoryUtilizationNormalized", _COMPONENT, "Average", "Percent", _COMPONENT_DOC
)
"""0..100 of the copy's reserved GPU memory."""
_CPU_NORMALIZED = _define(
    INFERENCE_COMPONENT_NAMESPACE, "CPUUtilizationNormalized", _COMPONENT, "Average", None, _COMPONENT_DOC
)

# ---------------------------------------------------------------------------------- AWS/Bedrock: runtime

BEDROCK_INVOCATIONS = _also_in(INVOCATIONS, BEDROCK_NAMESPACE, _MODEL, _BEDROCK_DOC)
"""Successful requests."""
INVOCATION_LATENCY = _define(BEDROCK_NAMESPACE, "InvocationLatency", _MODEL, "Average", None, _BEDROCK_DOC)
"""Milliseconds to the last token."""
INVOCATION_CLIENT_ERRORS = _define(BEDROCK_NAMESPACE, "InvocationClientErrors", _MODEL, "Sum", None, _BEDROCK_DOC)
INVOCATION_SERVER_ERRORS = _define(BEDROCK_NAMESPACE, "InvocationServerErrors", _MODEL, "Sum", None, _BEDROCK_DOC)
INVOCATION_THROTTLES = _define(BEDROCK_NAMESPACE, "InvocationThrottles", _MODEL, "Sum", None, _BEDROCK_DOC)
"""Throttled requests, counted neither as invocations nor as errors."""
INPUT_TOKEN_COUNT = _define(BEDROCK_NAMESPACE, "InputTokenCount", _MODEL, "Sum", None, _BEDROCK_DOC)
"""Prompt tokens not read from or written to the cache."""
OUTPUT_TOKEN_COUNT = _define(BEDROCK_NAMESPACE, "OutputTokenCount", _MODEL, "Sum", None, _BEDROCK_DOC)
TIME_TO_FIRST_TOKEN = _define(BEDROCK_NAMESPACE, "TimeToFirstToken", _MODEL, "Average", None, _BEDROCK_DOC)
"""Milliseconds, streaming APIs only."""
# Prompt-cache metric names disagree across AWS pages: the runtime-metrics page and the token-burndown page.
CACHE_READ_INPUT_TOKENS = _define(BEDROCK_NAMESPACE, "CacheReadInputTokens", _MODEL, "Sum", None, _BEDROCK_DOC)
CACHE_WRITE_INPUT_TOKENS = _define(BEDROCK_NAMESPACE, "CacheWriteInputTokens", _MODEL, "Sum", None, _BEDROCK_DOC)
CACHE_READ_INPUT_TOKEN_COUNT = _define(
    BEDROCK_NAMESPACE, "CacheReadInputTokenCount", _MODEL, "Sum", None, _BURNDOWN_DOC
)
CACHE_WRITE_INPUT_TOKEN_COUNT = _define(
    BEDROCK_NAMESPACE, "CacheWriteInputTokenCount", _MODEL, "Sum", None, _BURNDOWN_DOC
)
# Model invocation logging delivery: emitted across all model ids, without dimensions.
LOGS_S3_DELIVERY_SUCCESS = _define(
    BEDROCK_NAMESPACE, "ModelInvocationLogsS3DeliverySuccess", (), "Sum", None, _BEDROCK_DOC
)
LOGS_S3_DELIVERY_FAILURE = _define(
    BEDROCK_NAMESPACE, "ModelInvocationLogsS3DeliveryFailure", (), "Sum", None, _BEDROCK_DOC
)
LOGS_CLOUDWATCH_DELIVERY_SUCCESS = _define(
    BEDROCK_NAMESPACE, "ModelInvocationLogsCloudWatchDeliverySuccess", (), "Sum", None, _BEDROCK_DOC
)
LOGS_CLOUDWATCH_DELIVERY_FAILURE = _define(
    BEDROCK_NAMESPACE, "ModelInvocationLogsCloudWatchDeliveryFailure", (), "Sum", None, _BEDROCK_DOC
)
LARGE_DATA_S3_DELIVERY_SUCCESS = _define(
    BEDROCK_NAMESPACE, "ModelInvocationLargeDataS3DeliverySuccess", (), "Sum", None, _BEDROCK_DOC
)
LARGE_DATA_S3_DELIVERY_FAILURE = _define(
    BEDROCK_NAMESPACE, "ModelInvocationLargeDataS3DeliveryFailure", (), "Sum", None, _BEDROCK_DOC
)

# ------------------------------------------------------------------------------- AWS/Bedrock/Guardrails

GUARDRAIL_INVOCATIONS = _also_in(BEDROCK_INVOCATIONS, GUARDRAILS_NAMESPACE, _GUARDRAIL, _GUARDRAILS_DOC)
"""Guardrail evaluations."""
GUARDRAIL_INVOCATIONS_INTERVENED = _define(
    GUARDRAILS_NAMESPACE, "InvocationsIntervened", _GUARDRAIL, "Sum", None, _GUARDRAILS_DOC
)
"""Evaluations in which the guardrail intervened."""

# ----------------------------------------------------------------------------------------------- AWS/Billing

ESTIMATED_CHARGES = _define(
    BILLING_NAMESPACE, "EstimatedCharges", (Dimension.CURRENCY.value,), "Maximum", None, _BILLING_DOC
)
"""Estimated charges to date this month (``Currency=USD``), us-east-1 only."""

# ----------------------------------------------------- published too, read by no metric_* (the validator knows them)

for _name in (
    "ServerlessProvisionedConcurrencyUtilization",
    "FirstChunkLatency",
    "FirstChunkModelLatency",
    "FirstChunkOverheadLatency",
    "MidStreamErrors",
):
    _define(SAGEMAKER_NAMESPACE, _name, _VARIANT, "Average", None, _SAGEMAKER_DOC)
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
    _define(SAGEMAKER_NAMESPACE, _name, _ENDPOINT, "Sum", None, _ASYNC_DOC)
for _name in (
    "ModelLoadingWaitTime",
    "ModelUnloadingTime",
    "ModelDownloadingTime",
    "ModelLoadingTime",
    "ModelCacheHit",
):
    _define(SAGEMAKER_NAMESPACE, _name, _VARIANT, "Average", None, _MULTI_MODEL_DOC)
for _row in (GPU_UTILIZATION_NORMALIZED, GPU_MEMORY_UTILIZATION_NORMALIZED, _CPU_NORMALIZED):
    _also_in(_row, ENDPOINT_INSTANCE_NAMESPACE, _VARIANT, _COMPONENT_DOC)
for _name in ("CPUReservation", "GPUReservation", "MemoryReservation", "LoadedModelCount"):
    _define(ENDPOINT_INSTANCE_NAMESPACE, _name, _VARIANT, "Average", None, _COMPONENT_DOC)
_define(INFERENCE_COMPONENT_NAMESPACE, "MemoryUtilizationNormalized", _COMPONENT, "Average", None, _COMPONENT_DOC)
for _name in ("LegacyModelInvocations", "OutputImageCount", "EstimatedTPMQuotaUsage"):
    _define(BEDROCK_NAMESPACE, _name, _MODEL, "Sum", None, _BEDROCK_DOC)
for _row in (INVOCATION_LATENCY, INVOCATION_CLIENT_ERRORS, INVOCATION_SERVER_ERRORS, INVOCATION_THROTTLES):
    _also_in(_row, GUARDRAILS_NAMESPACE, _GUARDRAIL, _GUARDRAILS_DOC)
_define(GUARDRAILS_NAMESPACE, "TextUnitCount", _GUARDRAIL, "Sum", None, _GUARDRAILS_DOC)

del _name, _row

METRICS: tuple[MetricDefinition, ...] = tuple(_ROWS)
"""Every row, in the order above."""

NAMESPACE_DIMENSIONS: Mapping[str, frozenset[str]] = {
    SAGEMAKER_NAMESPACE: frozenset(_VARIANT + _COMPONENT),
    ENDPOINT_INSTANCE_NAMESPACE: frozenset(_VARIANT),
    INFERENCE_COMPONENT_NAMESPACE: frozenset(_COMPONENT),
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


def names_in(namespace: str) -> frozenset[str]:
    """The metric names published in ``namespace`` (empty for a namespace the table does not hold)."""
    return frozenset(row.name for row in BY_NAMESPACE.get(namespace, ()))
