"""The plan: every decision for a platform config, made before any construct exists.

Pure Python (no ``aws_cdk`` import): ``python -m inference_constructs plan CONFIG`` prints it, every synth writes
it as ``inference-plan.json`` into the cloud assembly, and the stacks build from it. This package is where the
config file meets the decisions (``docs/architecture.md``): each ``from config`` adapter turns a config block
into a decision's input, and :func:`plan_platform` makes every decision in order. All problems across the whole
file are collected and raised as one :class:`~inference_constructs.errors.InferenceConfigError`.

- :mod:`.endpoint_request`, :mod:`.scaling`, :mod:`.bedrock`, :mod:`.cost`, :mod:`.observability`,
  :mod:`.regions`: the adapters, one per config block;
- :mod:`.endpoint` (:class:`EndpointDecisions`) and :mod:`.platform` (:class:`PlatformPlan`): the plan's values,
  rendered by :mod:`.endpoint_entry` and :mod:`.table`;
- :mod:`.planner` (:func:`plan_platform`) and :mod:`.load` (:func:`platform_plan`): the orchestration.
"""

from __future__ import annotations

from inference_constructs._lazy import lazy_exports
from inference_constructs.hosting.request import REQUEST_TYPES
from inference_constructs.plan.bedrock import (
    bedrock_workload,
    guardrail_spec,
    invocation_logging_spec,
    profile_specs,
    router_specs,
)
from inference_constructs.plan.cost import decide_cost
from inference_constructs.plan.endpoint import HOURS_PER_MONTH, EndpointDecisions, capacity_schedule, decide_endpoint
from inference_constructs.plan.endpoint_request import endpoint_request, model_spec
from inference_constructs.plan.load import PlanSource, platform_plan
from inference_constructs.plan.observability import decide_observability
from inference_constructs.plan.planner import hosting_stack_name, plan_platform
from inference_constructs.plan.platform import PlatformPlan
from inference_constructs.plan.regions import account_requirements, region_requirements
from inference_constructs.plan.scaling import intent_from_config, plan_from_config

# The decision types and helpers the plan uses stay importable from it, as they were from the one module it was.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ARNS": "inference_constructs.aws_limits",
        **dict.fromkeys(
            ("InvocationLoggingSpec", "check_invocation_logging"),
            "inference_constructs.bedrock.invocation_logging_plan",
        ),
        **dict.fromkeys(
            ("ModelSource", "Residency", "source_region_requirement"), "inference_constructs.bedrock.model_source"
        ),
        **dict.fromkeys(
            ("InvocationLoggingPlan", "ProfilePlan", "RouterPlan"), "inference_constructs.bedrock.plan_sections"
        ),
        **dict.fromkeys(
            ("Workload", "token_economics", "workload_from_counts"), "inference_constructs.bedrock.pricing"
        ),
        **dict.fromkeys(
            ("ProfileSpec", "check_profile_specs", "check_router_roles", "plan_entries"),
            "inference_constructs.bedrock.inference_profile_plan",
        ),
        **dict.fromkeys(
            ("RouterSpec", "check_router_specs", "router_plan"), "inference_constructs.bedrock.router_plan"
        ),
        **dict.fromkeys(("Catalog", "load_catalog"), "inference_constructs.catalog"),
        "dashboard_problems": "inference_constructs.config.constraints",
        **dict.fromkeys(("BedrockWorkload", "Endpoint", "PlatformConfig"), "inference_constructs.config.schema"),
        **dict.fromkeys(("HfTokenSecret", "ModelAccess"), "inference_constructs.containers.model_access"),
        "PLATFORM_TAG": "inference_constructs.cost.capacity_tags",
        **dict.fromkeys(
            ("CapacitySchedule", "CommitmentRecommendation", "recommend_commitment"),
            "inference_constructs.cost.commitment",
        ),
        "CostPlan": "inference_constructs.cost.decisions",
        "InferenceConfigError": "inference_constructs.errors",
        **dict.fromkeys(REQUEST_TYPES, "inference_constructs.hosting.request"),
        **dict.fromkeys(("EndpointPlan", "plan_endpoint"), "inference_constructs.hosting.decisions"),
        **dict.fromkeys(
            ("EndpointFootprint", "MAX_RESOURCES_PER_STACK", "assign_stacks"), "inference_constructs.layout"
        ),
        **dict.fromkeys(
            (
                "AlarmDecision",
                "AlarmSettings",
                "DashboardDecision",
                "ObservabilityPlan",
                "XRaySamplingDecision",
                "delivery_failure_alarm",
                "endpoint_alarm_prefix",
                "endpoint_alarms",
                "intervention_alarm",
                "profile_alarms",
            ),
            "inference_constructs.observability.decisions",
        ),
        "logging_plan_entry": "inference_constructs.plan.planner",
        **dict.fromkeys(
            (
                "AccountRequirement",
                "RegionRequirement",
                "account_requirement",
                "load_resource_regions",
                "platform_requirements",
                "region_problems",
            ),
            "inference_constructs.regions",
        ),
        "ScalingPlan": "inference_constructs.scaling.decisions",
        "HostDecision": "inference_constructs.sizing",
        **dict.fromkeys(
            ("Accelerator", "AcceleratorChoice", "EndpointKind", "ModelArchitecture", "ModelSourceKind", "ModelSpec"),
            "inference_constructs.spec",
        ),
    },
)

__all__ = [
    "HOURS_PER_MONTH",
    "EndpointDecisions",
    "PlanSource",
    "PlatformPlan",
    "account_requirements",
    "bedrock_workload",
    "capacity_schedule",
    "decide_cost",
    "decide_endpoint",
    "decide_observability",
    "endpoint_request",
    "guardrail_spec",
    "hosting_stack_name",
    "intent_from_config",
    "invocation_logging_spec",
    "model_spec",
    "plan_from_config",
    "plan_platform",
    "platform_plan",
    "profile_specs",
    "region_requirements",
    "router_specs",
]
