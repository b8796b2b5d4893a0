"""Names that moved to the layer they belong to still import from where they were, as the same objects."""

from __future__ import annotations

import importlib
import warnings

import pytest

#: ``(old module, name, new module)`` for each moved name.
MOVED = [
    ("inference_constructs.containers.model_access", "HfTokenSecret", "inference_constructs.hf_token"),
    ("inference_constructs.hosting.interface", "IInferenceEndpoint", "inference_constructs.interfaces"),
    ("inference_constructs.hosting.interface", "MetricOptions", "inference_constructs.interfaces"),
    ("inference_constructs.hosting", "IInferenceEndpoint", "inference_constructs.interfaces"),
    ("inference_constructs.scaling.from_config", "plan_from_config", "inference_constructs.plan.scaling"),
    ("inference_constructs.scaling.from_config", "intent_from_config", "inference_constructs.plan.scaling"),
    ("inference_constructs.scaling", "plan_from_config", "inference_constructs.plan.scaling"),
    ("inference_constructs.scaling", "intent_from_config", "inference_constructs.plan.scaling"),
    ("inference_constructs.bedrock.governance_config", "guardrail_spec", "inference_constructs.plan.bedrock"),
    ("inference_constructs.bedrock.governance_config", "invocation_logging_spec", "inference_constructs.plan.bedrock"),
    ("inference_constructs.stacks.platform", "platform_plan", "inference_constructs.plan.load"),
    ("inference_constructs.plan", "decide_cost", "inference_constructs.plan.cost"),
    ("inference_constructs.bedrock.guardrails", "GuardrailSpec", "inference_constructs.bedrock.guardrail_plan"),
    ("inference_constructs.bedrock.profiles", "ProfileSpec", "inference_constructs.bedrock.inference_profile_plan"),
    ("inference_constructs.bedrock.routing", "RouterSpec", "inference_constructs.bedrock.router_plan"),
    (
        "inference_constructs.bedrock.logging_spec",
        "InvocationLoggingSpec",
        "inference_constructs.bedrock.invocation_logging_plan",
    ),
    ("inference_constructs.cost.scope", "CostPlan", "inference_constructs.cost.decisions"),
    *(
        ("inference_constructs.hosting.decisions", name, "inference_constructs.hosting.request")
        for name in (
            "Capacity",
            "DataCaptureOptions",
            "DeploymentOptions",
            "DeploymentStrategy",
            "MultiModelOptions",
            "VpcOptions",
        )
    ),
]

#: What ``inference_constructs.plan`` offered when it was one module: its own names and the decision types and
#: helpers it imported.
PLAN_NAMES = [
    "ARNS",
    "Accelerator",
    "AcceleratorChoice",
    "AccountRequirement",
    "AlarmDecision",
    "AlarmSettings",
    "AsyncOptions",
    "BedrockWorkload",
    "Capacity",
    "CapacitySchedule",
    "Catalog",
    "CommitmentRecommendation",
    "CostPlan",
    "DashboardDecision",
    "DataCaptureOptions",
    "DeploymentOptions",
    "DeploymentStrategy",
    "Endpoint",
    "EndpointDecisions",
    "EndpointFootprint",
    "EndpointKind",
    "EndpointPlan",
    "EndpointRequest",
    "HOURS_PER_MONTH",
    "HfTokenSecret",
    "HostDecision",
    "InferenceConfigError",
    "InvocationLoggingPlan",
    "InvocationLoggingSpec",
    "MAX_RESOURCES_PER_STACK",
    "ModelAccess",
    "ModelArchitecture",
    "ModelSource",
    "ModelSourceKind",
    "ModelSpec",
    "MultiModelOptions",
    "ObservabilityPlan",
    "PLATFORM_TAG",
    "PlatformConfig",
    "PlatformPlan",
    "ProfilePlan",
    "ProfileSpec",
    "RegionRequirement",
    "Residency",
    "RouterPlan",
    "RouterSpec",
    "ScalingPlan",
    "ServerlessOptions",
    "VpcOptions",
    "Workload",
    "XRaySamplingDecision",
    "account_requirement",
    "account_requirements",
    "assign_stacks",
    "bedrock_workload",
    "capacity_schedule",
    "check_invocation_logging",
    "check_profile_specs",
    "check_router_roles",
    "check_router_specs",
    "dashboard_problems",
    "decide_cost",
    "decide_endpoint",
    "decide_observability",
    "delivery_failure_alarm",
    "endpoint_alarm_prefix",
    "endpoint_alarms",
    "endpoint_request",
    "guardrail_spec",
    "hosting_stack_name",
    "intervention_alarm",
    "invocation_logging_spec",
    "load_catalog",
    "load_resource_regions",
    "logging_plan_entry",
    "model_spec",
    "plan_endpoint",
    "plan_entries",
    "plan_from_config",
    "plan_platform",
    "platform_requirements",
    "profile_alarms",
    "profile_specs",
    "recommend_commitment",
    "region_problems",
    "region_requirements",
    "router_plan",
    "router_specs",
    "source_region_requirement",
    "token_economics",
    "workload_from_counts",
]


@pytest.mark.parametrize(("old", "name", "new"), MOVED)
def test_a_moved_name_imports_from_its_old_module(old: str, name: str, new: str) -> None:
    # GIVEN a name that moved
    # WHEN it is imported from its old module and from its new one
    # THEN both are the same object
    with warnings.catch_warnings():
        # a deprecated alias module warns on each name (tests/unit/package_api/test_layers.py checks the warning)
        warnings.simplefilter("ignore", DeprecationWarning)
        assert getattr(importlib.import_module(old), name) is getattr(importlib.import_module(new), name)


@pytest.mark.parametrize("name", PLAN_NAMES)
def test_every_name_of_the_former_plan_module_imports_from_the_plan_package(name: str) -> None:
    # GIVEN the plan package
    plan = importlib.import_module("inference_constructs.plan")
    # WHEN a name the plan module offered is read
    # THEN it resolves and is listed
    assert getattr(plan, name) is not None
    assert name in dir(plan)


#: ``(module, old name, new name)`` for each public name renamed in place.
RENAMED = [
    ("inference_constructs", "EndpointAutoScaling", "EndpointScaling"),
    ("inference_constructs", "ServerlessProvisionedConcurrencyScaling", "ServerlessScaling"),
    ("inference_constructs.scaling", "EndpointAutoScaling", "EndpointScaling"),
    ("inference_constructs.scaling.autoscaling", "ServerlessProvisionedConcurrencyScaling", "ServerlessScaling"),
]


@pytest.mark.parametrize(("module", "old", "new"), RENAMED)
def test_a_renamed_name_is_the_new_object_and_warns(module: str, old: str, new: str) -> None:
    # GIVEN a public name renamed in place
    package = importlib.import_module(module)
    # WHEN the old name is read
    with pytest.warns(DeprecationWarning, match=new):
        value = getattr(package, old)
    # THEN it is the object of the new name
    assert value is getattr(package, new)


def test_a_moved_module_warns_with_its_new_path() -> None:
    # GIVEN a module that moved (its old path kept one release)
    old = importlib.import_module("inference_constructs.bedrock.profiles")
    # WHEN a name is read from the old path
    with pytest.warns(DeprecationWarning, match="inference_constructs.bedrock.inference_profile_plan"):
        value = old.ProfileSpec
    # THEN it is the new module's object, and an unknown name is still an AttributeError
    assert value is importlib.import_module("inference_constructs.bedrock.inference_profile_plan").ProfileSpec
    with pytest.raises(AttributeError):
        _ = old.NoSuchName
