"""Where the metrics the library reads live: CloudWatch namespaces, dimension names, which dimensions an
endpoint's metric carries, and how GPU metrics scale with the host's GPU count.

Pure Python (no ``aws_cdk`` import): the hosting constructs' ``metric_*`` methods, the rollback alarms, the
observability alarms and dashboard, and the scaling decisions all read these, so each rule is written once.

Sources: the SageMaker metric reference (https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html)
and the inference component metrics
(https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-inference-components-cloudwatch.html).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "BEDROCK_NAMESPACE",
    "BILLING_NAMESPACE",
    "COMPONENT_DIMENSIONS",
    "ENDPOINT_INSTANCE_NAMESPACE",
    "ENDPOINT_ONLY_DIMENSIONS",
    "GUARDRAILS_NAMESPACE",
    "INFERENCE_COMPONENT_NAMESPACE",
    "SAGEMAKER_NAMESPACE",
    "VARIANT_DIMENSIONS",
    "Dimension",
    "endpoint_dimensions",
    "gpu_metric_divisor",
    "gpu_metric_target",
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


VARIANT_DIMENSIONS = (Dimension.ENDPOINT_NAME, Dimension.VARIANT_NAME)
"""The dimensions of a production variant's invocation and instance metrics."""
ENDPOINT_ONLY_DIMENSIONS = (Dimension.ENDPOINT_NAME,)
"""The dimensions of the async queue metrics (``ApproximateBacklogSize*``, ``HasBacklogWithoutCapacity``...)."""
COMPONENT_DIMENSIONS = (Dimension.INFERENCE_COMPONENT_NAME,)
"""The dimensions of an inference component's metrics."""


def endpoint_dimensions(
    endpoint_name: str,
    variant_name: str,
    *,
    namespace: str = SAGEMAKER_NAMESPACE,
    inference_component_name: str | None = None,
    variant_dimension: bool = True,
) -> dict[str, str]:
    """Dimensions of one endpoint's metric in ``namespace``, in template order.

    An ``AWS/SageMaker`` invocation metric of an endpoint hosted through an inference component is published
    per component (``InferenceComponentName``); every other endpoint metric per variant (``EndpointName``,
    ``VariantName``); the async queue metrics (``variant_dimension=False``) per endpoint only.
    """
    if inference_component_name is not None and namespace == SAGEMAKER_NAMESPACE and variant_dimension:
        return {Dimension.INFERENCE_COMPONENT_NAME.value: inference_component_name}
    if variant_dimension:
        return {Dimension.ENDPOINT_NAME.value: endpoint_name, Dimension.VARIANT_NAME.value: variant_name}
    return {Dimension.ENDPOINT_NAME.value: endpoint_name}


def gpu_metric_divisor(gpu_count: int) -> int:
    """What to divide an ``/aws/sagemaker/Endpoints`` GPU metric by for 0..100 % per GPU.

    ``GPUUtilization`` and ``GPUMemoryUtilization`` are summed over the host's GPUs (0..100 x GPU count); a host
    without GPUs divides by 1.
    """
    return max(gpu_count, 1)


def gpu_metric_target(percent_per_gpu: float, gpu_count: int) -> float:
    """The value of an ``/aws/sagemaker/Endpoints`` GPU metric at ``percent_per_gpu`` on every GPU (80 % on a
    4-GPU host is 320)."""
    return percent_per_gpu * gpu_count
