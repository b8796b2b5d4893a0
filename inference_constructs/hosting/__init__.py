"""SageMaker hosting constructs (real-time, async, serverless, multi-model) and their pure decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports
from inference_constructs.hosting.decisions import EndpointPlan, plan_endpoint
from inference_constructs.hosting.interface import IInferenceEndpoint, MetricOptions
from inference_constructs.hosting.request import (
    AdapterRequest,
    AsyncOptions,
    Capacity,
    CapacityReservation,
    ComponentRequest,
    ComponentsOptions,
    DataCaptureOptions,
    DeploymentOptions,
    DeploymentStrategy,
    EndpointRequest,
    MetricsOptions,
    MultiModelOptions,
    PlacementStrategy,
    ServerlessOptions,
    VpcOptions,
)

if TYPE_CHECKING:
    from inference_constructs.hosting.endpoint import InferenceEndpoint
    from inference_constructs.hosting.imported import EndpointAttributes, EndpointImportOptions, ImportedEndpoint
    from inference_constructs.hosting.kinds import (
        InferenceComponentsEndpoint,
        MultiModelEndpoint,
        RealtimeEndpoint,
        ServerlessEndpoint,
        endpoint_from_request,
    )

# The constructs load aws_cdk on first use, so the pure decisions import without it (the plan needs that).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "InferenceEndpoint": "inference_constructs.hosting.endpoint",
        **dict.fromkeys(
            ("EndpointAttributes", "EndpointImportOptions", "ImportedEndpoint"), "inference_constructs.hosting.imported"
        ),
        **dict.fromkeys(
            (
                "InferenceComponentsEndpoint",
                "MultiModelEndpoint",
                "RealtimeEndpoint",
                "ServerlessEndpoint",
                "endpoint_from_request",
            ),
            "inference_constructs.hosting.kinds",
        ),
    },
)

__all__ = [
    "AdapterRequest",
    "AsyncOptions",
    "Capacity",
    "CapacityReservation",
    "ComponentRequest",
    "ComponentsOptions",
    "DataCaptureOptions",
    "DeploymentOptions",
    "DeploymentStrategy",
    "EndpointAttributes",
    "EndpointImportOptions",
    "EndpointPlan",
    "EndpointRequest",
    "IInferenceEndpoint",
    "ImportedEndpoint",
    "InferenceComponentsEndpoint",
    "InferenceEndpoint",
    "MetricOptions",
    "MetricsOptions",
    "MultiModelEndpoint",
    "MultiModelOptions",
    "PlacementStrategy",
    "RealtimeEndpoint",
    "ServerlessEndpoint",
    "ServerlessOptions",
    "VpcOptions",
    "endpoint_from_request",
    "plan_endpoint",
]
