"""Endpoints built from Python in a region-agnostic stack carry the region rule for their image and resource types."""

from __future__ import annotations

from typing import Any

from aws_cdk import App, Environment, Stack
from aws_cdk.assertions import Template

from inference_constructs.containers import load_snapshot
from inference_constructs.hosting import Capacity, RealtimeEndpoint
from inference_constructs.region_rules import RULE_ID
from inference_constructs.regions import load_resource_regions
from inference_constructs.scaling.decisions import HostFacts, ScalingIntent, plan_scaling
from inference_constructs.spec import EndpointKind, ModelSpec
from tests.unit.hosting._synth import synth_checked

MODEL = ModelSpec(id="org/chat-8b", parameters_billion=8, max_context_tokens=4096, max_concurrent_sequences=8)
_REGION = {"Ref": "AWS::Region"}


def _assertions(template: dict[str, Any]) -> list[dict[str, Any]]:
    return list(template.get("Rules", {}).get(RULE_ID, {}).get("Assertions", []))


def test_endpoint_asserts_its_image_regions_and_hosting_types() -> None:
    # GIVEN a GPU LLM endpoint on Inferentia2 (the LMI Neuron image), built from Python in a region-agnostic stack
    # WHEN synthesized (nag and cfn-lint run inside)
    _, template = synth_checked(
        lambda stack: RealtimeEndpoint(stack, "Sum", model=MODEL, instance_type="ml.inf2.8xlarge")
    )
    # THEN the rule allows only regions publishing the image and excludes regions lacking SageMaker hosting types
    asserts = [a["Assert"] for a in _assertions(template)]
    neuron = sorted(load_snapshot().images["lmi-neuron"].accounts)
    lacking = list(load_resource_regions().lacking("AWS::SageMaker::Model"))
    assert {"Fn::Contains": [neuron, _REGION]} in asserts
    assert {"Fn::Not": [{"Fn::Contains": [lacking, _REGION]}]} in asserts


def test_scale_to_zero_endpoint_asserts_inference_component_regions() -> None:
    # GIVEN a real-time endpoint with capacity.min 0 (hosted through an inference component) WHEN synthesized
    plan = plan_scaling(
        "endpoints[0]",
        kind=EndpointKind.REALTIME,
        min_capacity=0,
        max_capacity=2,
        intent=ScalingIntent(concurrency_per_instance=6),
        host=HostFacts(gpu_count=1, instance_type="ml.g5.2xlarge"),
    )
    _, template = synth_checked(
        lambda stack: RealtimeEndpoint(
            stack, "Chat", model=MODEL, instance_type="ml.g5.2xlarge", capacity=Capacity(0, 2)
        ).auto_scale_from_plan(plan)
    )
    # THEN one assertion excludes the regions whose CloudFormation has no AWS::SageMaker::InferenceComponent
    lacking = list(load_resource_regions().lacking("AWS::SageMaker::InferenceComponent"))
    descriptions = {a["AssertDescription"] for a in _assertions(template)}
    assert {"Fn::Not": [{"Fn::Contains": [lacking, _REGION]}]} in [a["Assert"] for a in _assertions(template)]
    assert any(d.startswith("this region has no sagemaker inference components") for d in descriptions)


def test_two_endpoints_share_one_assertion_per_requirement() -> None:
    # GIVEN two endpoints with the same image in one stack WHEN synthesized
    app = App()
    stack = Stack(app, "S")
    for name in ("A", "B"):
        RealtimeEndpoint(stack, name, model=MODEL, instance_type="ml.g5.2xlarge")
    # THEN the rule has one assertion for the image and one for the hosting types
    assert len(_assertions(Template.from_stack(stack).to_json())) == 2


def test_endpoint_in_a_stack_with_a_region_gets_no_rule() -> None:
    # GIVEN a stack with a concrete region (a missing image is then refused when the image uri is resolved)
    app = App()
    stack = Stack(app, "S", env=Environment(region="us-east-1"))
    RealtimeEndpoint(stack, "Chat", model=MODEL, instance_type="ml.g5.2xlarge")
    # WHEN synthesized THEN no region rule exists
    assert RULE_ID not in Template.from_stack(stack).to_json().get("Rules", {})
