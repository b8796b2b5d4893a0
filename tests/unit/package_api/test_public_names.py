"""Each subpackage's ``__all__`` lists its public constructs, value types and documented functions; the config
layer's checks and plan-entry builders stay in their modules (importable from there, not exported)."""

from __future__ import annotations

import importlib

import pytest

import inference_constructs

#: Prefixes of helpers the config layer and the plan use; never part of a package's public API.
INTERNAL_PREFIXES = ("check_", "plan_entr", "router_plan_entry", "guarded_", "load_", "managed_", "scale_to_zero_")
PACKAGES = ["hosting", "bedrock", "observability", "scaling", "cost"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_internal_helper_is_exported(package: str) -> None:
    # GIVEN a subpackage WHEN its __all__ is read THEN no config-layer check or plan builder is in it
    exported = importlib.import_module(f"inference_constructs.{package}").__all__
    public_validators = {"validate_template", "validate_dashboard_body"}
    internal = [n for n in exported if n.startswith(INTERNAL_PREFIXES)]
    internal += [n for n in exported if n.startswith("validate_") and n not in public_validators]
    assert internal == []


def test_the_hosting_package_exports_the_constructs_their_props_and_the_plan() -> None:
    # GIVEN the hosting package WHEN its __all__ is read THEN it is exactly what an app building endpoints uses
    from inference_constructs import hosting

    assert set(hosting.__all__) == {
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
    }


def test_the_front_door_lists_each_public_construct_of_the_subpackages() -> None:
    # GIVEN the constructs a CDK app builds WHEN the front door's __all__ is read THEN each is there
    constructs = {
        "RealtimeEndpoint",
        "ServerlessEndpoint",
        "MultiModelEndpoint",
        "InferenceEndpoint",
        "ImportedEndpoint",
        "ApplicationInferenceProfile",
        "Guardrail",
        "IntelligentPromptRouter",
        "ModelInvocationLogging",
        "InferenceAlarms",
        "InferenceDashboard",
        "RenderedAlarm",
        "EndpointScaling",
        "InferenceComponentScaling",
        "ServerlessScaling",
        "BudgetGuardrail",
        "CostAnomalyMonitor",
    }
    assert constructs <= set(inference_constructs.__all__)
    assert not [n for n in inference_constructs.__all__ if n.startswith(INTERNAL_PREFIXES)]
