"""The metric definitions every layer reads: which dimensions an endpoint's metric carries, and the GPU rule."""

from __future__ import annotations

import pytest

from inference_constructs.observability.metric_definitions import (
    ENDPOINT_INSTANCE_NAMESPACE,
    SAGEMAKER_NAMESPACE,
    endpoint_dimensions,
    gpu_metric_divisor,
    gpu_metric_target,
)


@pytest.mark.parametrize(
    ("namespace", "component", "variant_dimension", "expected"),
    [
        (SAGEMAKER_NAMESPACE, None, True, {"EndpointName": "e", "VariantName": "v"}),
        (SAGEMAKER_NAMESPACE, "c", True, {"InferenceComponentName": "c"}),
        (ENDPOINT_INSTANCE_NAMESPACE, "c", True, {"EndpointName": "e", "VariantName": "v"}),
        (SAGEMAKER_NAMESPACE, None, False, {"EndpointName": "e"}),
        (SAGEMAKER_NAMESPACE, "c", False, {"EndpointName": "e"}),
    ],
)
def test_endpoint_dimensions_follow_the_variant_or_component_rule(
    namespace: str, component: str | None, variant_dimension: bool, expected: dict[str, str]
) -> None:
    # GIVEN an endpoint "e" with variant "v", maybe hosted through inference component "c"
    # WHEN its metric dimensions in a namespace are asked for
    found = endpoint_dimensions(
        "e", "v", namespace=namespace, inference_component_name=component, variant_dimension=variant_dimension
    )
    # THEN invocation metrics follow the component, instance metrics the variant, queue metrics the endpoint,
    # in template order
    assert list(found.items()) == list(expected.items())


@pytest.mark.parametrize(("gpus", "divisor", "target_at_80"), [(0, 1, 0.0), (1, 1, 80.0), (4, 4, 320.0), (8, 8, 640.0)])
def test_gpu_metrics_run_0_to_100_times_the_gpu_count(gpus: int, divisor: int, target_at_80: float) -> None:
    # GIVEN a host with `gpus` GPUs
    # WHEN the per-GPU divisor and the metric value at 80 % per GPU are computed
    # THEN the metric is a sum over GPUs: divide by the count (at least 1), multiply a per-GPU target by it
    assert gpu_metric_divisor(gpus) == divisor
    assert gpu_metric_target(80, gpus) == target_at_80
