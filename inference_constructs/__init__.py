"""Optimized inference stacks on AWS as CDK constructs: the public constructs and value types in one place.

``from inference_constructs import RealtimeEndpoint, ModelSpec, Capacity, InferenceConfigError,
add_compliance_gates`` works for every name in ``__all__``. Names resolve on first use, so importing the
package (and ``python -m inference_constructs plan``) never loads aws_cdk; a construct's module loads it when
the construct is first named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports

if TYPE_CHECKING:
    from inference_constructs._coerce import (
        InferencePropTypeError,
    )
    from inference_constructs.bedrock import (
        ApplicationInferenceProfile,
        Guardrail,
        IntelligentPromptRouter,
        ModelInvocationLogging,
        Residency,
    )
    from inference_constructs.compliance import acknowledge, add_compliance_gates
    from inference_constructs.containers.routing import RoutingOptions, RoutingStrategy
    from inference_constructs.containers.serving_options import (
        BatchingLimits,
        ServingOptions,
        SpeculativeDecoding,
        SpeculativeMethod,
    )
    from inference_constructs.cost import (
        BudgetGuardrail,
        CostAnomalyMonitor,
    )
    from inference_constructs.errors import (
        InferenceConfigError,
        Problem,
    )
    from inference_constructs.hf_token import HfTokenSecret
    from inference_constructs.hosting import (
        AdapterRequest,
        AsyncOptions,
        Capacity,
        ComponentRequest,
        DataCaptureOptions,
        DeploymentOptions,
        DeploymentStrategy,
        IInferenceEndpoint,
        ImportedEndpoint,
        InferenceComponentsEndpoint,
        InferenceEndpoint,
        MetricOptions,
        MultiModelEndpoint,
        RealtimeEndpoint,
        ServerlessEndpoint,
        VpcOptions,
    )
    from inference_constructs.observability import (
        InferenceAlarms,
        InferenceDashboard,
        MonitoredEndpoint,
        MonitoredProfile,
        RenderedAlarm,
        alarm_of,
    )
    from inference_constructs.scaling import (
        EndpointScaling,
        InferenceComponentScaling,
        ServerlessScaling,
    )
    from inference_constructs.spec import (
        AcceleratorChoice,
        DType,
        EndpointKind,
        ModelArchitecture,
        ModelSourceKind,
        ModelSpec,
        Serving,
    )
    from inference_constructs.stacks.platform import (
        InferencePlatform,
    )
    from inference_constructs.stats import Statistic

_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "AdapterRequest",
            "AsyncOptions",
            "Capacity",
            "ComponentRequest",
            "DataCaptureOptions",
            "DeploymentOptions",
            "DeploymentStrategy",
            "IInferenceEndpoint",
            "ImportedEndpoint",
            "InferenceComponentsEndpoint",
            "InferenceEndpoint",
            "MetricOptions",
            "MultiModelEndpoint",
            "RealtimeEndpoint",
            "ServerlessEndpoint",
            "VpcOptions",
        ),
        "inference_constructs.hosting",
    ),
    **dict.fromkeys(
        ("AcceleratorChoice", "DType", "EndpointKind", "ModelArchitecture", "ModelSourceKind", "ModelSpec", "Serving"),
        "inference_constructs.spec",
    ),
    **dict.fromkeys(
        ("BatchingLimits", "ServingOptions", "SpeculativeDecoding", "SpeculativeMethod"),
        "inference_constructs.containers.serving_options",
    ),
    **dict.fromkeys(
        ("RoutingOptions", "RoutingStrategy"),
        "inference_constructs.containers.routing",
    ),
    **dict.fromkeys(("HfTokenSecret",), "inference_constructs.hf_token"),
    **dict.fromkeys(("Statistic",), "inference_constructs.stats"),
    **dict.fromkeys(("acknowledge", "add_compliance_gates"), "inference_constructs.compliance"),
    **dict.fromkeys(("InferenceConfigError", "Problem"), "inference_constructs.errors"),
    **dict.fromkeys(("InferencePropTypeError",), "inference_constructs._coerce"),
    **dict.fromkeys(
        ("ApplicationInferenceProfile", "Guardrail", "IntelligentPromptRouter", "ModelInvocationLogging", "Residency"),
        "inference_constructs.bedrock",
    ),
    **dict.fromkeys(
        (
            "EndpointScaling",
            "InferenceComponentScaling",
            "ServerlessScaling",
            # the old names (deprecated, removed in the next release): they warn on use
            "EndpointAutoScaling",
            "ServerlessProvisionedConcurrencyScaling",
        ),
        "inference_constructs.scaling",
    ),
    **dict.fromkeys(
        ("InferenceAlarms", "InferenceDashboard", "MonitoredEndpoint", "MonitoredProfile", "RenderedAlarm", "alarm_of"),
        "inference_constructs.observability",
    ),
    **dict.fromkeys(("BudgetGuardrail", "CostAnomalyMonitor"), "inference_constructs.cost"),
    **dict.fromkeys(("InferencePlatform",), "inference_constructs.stacks.platform"),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "AcceleratorChoice",
    "AdapterRequest",
    "ApplicationInferenceProfile",
    "AsyncOptions",
    "BatchingLimits",
    "BudgetGuardrail",
    "Capacity",
    "ComponentRequest",
    "CostAnomalyMonitor",
    "DType",
    "DataCaptureOptions",
    "DeploymentOptions",
    "DeploymentStrategy",
    "EndpointKind",
    "EndpointScaling",
    "Guardrail",
    "HfTokenSecret",
    "IInferenceEndpoint",
    "ImportedEndpoint",
    "InferenceAlarms",
    "InferenceComponentScaling",
    "InferenceComponentsEndpoint",
    "InferenceConfigError",
    "InferenceDashboard",
    "InferenceEndpoint",
    "InferencePlatform",
    "InferencePropTypeError",
    "IntelligentPromptRouter",
    "MetricOptions",
    "ModelArchitecture",
    "ModelInvocationLogging",
    "ModelSourceKind",
    "ModelSpec",
    "MonitoredEndpoint",
    "MonitoredProfile",
    "MultiModelEndpoint",
    "Problem",
    "RealtimeEndpoint",
    "RenderedAlarm",
    "Residency",
    "RoutingOptions",
    "RoutingStrategy",
    "ServerlessEndpoint",
    "ServerlessScaling",
    "Serving",
    "ServingOptions",
    "SpeculativeDecoding",
    "SpeculativeMethod",
    "Statistic",
    "VpcOptions",
    "acknowledge",
    "add_compliance_gates",
    "alarm_of",
]
