"""What exists in each CloudWatch namespace the library graphs: its dimension names and metric names.

Pure data (no ``aws_cdk`` import), from the AWS metric references (see ``docs/observability.md``). The template
validator (:mod:`inference_constructs.observability.validate`) reports a namespace outside this table, and a metric
or dimension name a namespace does not have, so a typo cannot slip through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from inference_constructs.observability.metric_definitions import (
    BEDROCK_NAMESPACE,
    BILLING_NAMESPACE,
    ENDPOINT_INSTANCE_NAMESPACE,
    GUARDRAILS_NAMESPACE,
    INFERENCE_COMPONENT_NAMESPACE,
    SAGEMAKER_NAMESPACE,
)

__all__ = ["KNOWN_NAMESPACES", "Namespace"]


@dataclass(frozen=True)
class Namespace:
    """What exists in one CloudWatch namespace: dimension names and metric names."""

    dimensions: frozenset[str]
    metrics: frozenset[str]


_BEDROCK_INVOCATION_METRICS = (
    "Invocations",
    "InvocationLatency",
    "InvocationClientErrors",
    "InvocationServerErrors",
    "InvocationThrottles",
)
"""Published under the same names by Bedrock runtime and by Bedrock guardrails."""

KNOWN_NAMESPACES: Mapping[str, Namespace] = {
    SAGEMAKER_NAMESPACE: Namespace(
        dimensions=frozenset({"EndpointName", "VariantName", "InferenceComponentName"}),
        metrics=frozenset(
            {
                "Invocations",
                "InvocationsPerInstance",
                "InvocationsPerCopy",
                "Invocation4XXErrors",
                "Invocation5XXErrors",
                "InvocationModelErrors",
                "ModelLatency",
                "OverheadLatency",
                "ModelSetupTime",
                "ConcurrentRequestsPerModel",
                "ConcurrentRequestsPerCopy",
                "NoCapacityInvocationFailures",
                "ServerlessProvisionedConcurrencyUtilization",
                "ApproximateBacklogSize",
                "ApproximateBacklogSizePerInstance",
                "ApproximateAgeOfOldestRequest",
                "HasBacklogWithoutCapacity",
                "RequestDownloadFailures",
                "ResponseUploadFailures",
                "NotificationFailures",
                "ExpiredRequests",
                "InvocationFailures",
                "InvocationsProcesssed",
                "RequestDownloadLatency",
                "ResponseUploadLatency",
                "TimeInBacklog",
                "TotalProcessingTime",
                "ModelLoadingWaitTime",
                "ModelUnloadingTime",
                "ModelDownloadingTime",
                "ModelLoadingTime",
                "ModelCacheHit",
                "FirstChunkLatency",
                "FirstChunkModelLatency",
                "FirstChunkOverheadLatency",
                "MidStreamErrors",
            }
        ),
    ),
    ENDPOINT_INSTANCE_NAMESPACE: Namespace(
        dimensions=frozenset({"EndpointName", "VariantName"}),
        metrics=frozenset(
            {
                "CPUUtilization",
                "MemoryUtilization",
                "DiskUtilization",
                "GPUUtilization",
                "GPUMemoryUtilization",
                "CPUUtilizationNormalized",
                "GPUUtilizationNormalized",
                "GPUMemoryUtilizationNormalized",
                "CPUReservation",
                "GPUReservation",
                "MemoryReservation",
                "LoadedModelCount",
            }
        ),
    ),
    INFERENCE_COMPONENT_NAMESPACE: Namespace(
        dimensions=frozenset({"InferenceComponentName"}),
        metrics=frozenset(
            {
                "CPUUtilizationNormalized",
                "GPUUtilizationNormalized",
                "GPUMemoryUtilizationNormalized",
                "MemoryUtilizationNormalized",
            }
        ),
    ),
    BEDROCK_NAMESPACE: Namespace(
        dimensions=frozenset({"ModelId", "ImageSize", "BucketedStepSize"}),
        metrics=frozenset(
            {
                *_BEDROCK_INVOCATION_METRICS,
                "InputTokenCount",
                "OutputTokenCount",
                "LegacyModelInvocations",
                "OutputImageCount",
                "TimeToFirstToken",
                "EstimatedTPMQuotaUsage",
                "CacheReadInputTokens",
                "CacheWriteInputTokens",
                "CacheReadInputTokenCount",
                "CacheWriteInputTokenCount",
                # model invocation logging delivery, published without dimensions
                "ModelInvocationLogsCloudWatchDeliverySuccess",
                "ModelInvocationLogsCloudWatchDeliveryFailure",
                "ModelInvocationLogsS3DeliverySuccess",
                "ModelInvocationLogsS3DeliveryFailure",
                "ModelInvocationLargeDataS3DeliverySuccess",
                "ModelInvocationLargeDataS3DeliveryFailure",
            }
        ),
    ),
    GUARDRAILS_NAMESPACE: Namespace(
        dimensions=frozenset(
            {"Operation", "GuardrailContentSource", "GuardrailPolicyType", "GuardrailArn", "GuardrailVersion"}
        ),
        metrics=frozenset({*_BEDROCK_INVOCATION_METRICS, "TextUnitCount", "InvocationsIntervened"}),
    ),
    BILLING_NAMESPACE: Namespace(
        dimensions=frozenset({"Currency", "ServiceName", "LinkedAccount"}),
        metrics=frozenset({"EstimatedCharges"}),
    ),
}
"""Namespaces the library graphs, with their dimension and metric names (AWS metric references, see
docs/observability.md). A namespace outside this table is reported, so a typo cannot slip through."""
