"""Regions: the plan refuses a configured region that lacks an image or a resource type the platform needs, and a
region-agnostic stack carries the same requirements as CloudFormation Rules assertions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import App, Environment, Stack
from aws_cdk.assertions import Template
from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

from inference_constructs.config import parse_config
from inference_constructs.containers import load_snapshot
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform
from inference_constructs.region_rules import RULE_ID, add_region_rules
from inference_constructs.regions import (
    RegionRequirement,
    image_requirement,
    load_resource_regions,
    type_requirement,
)

_LLM = "{id: org/m-8b, parameters_billion: 8, max_context_tokens: 4096, architecture: {family: llama}}"


def _platform(region: str | None, endpoint: str = "", extra: str = "") -> str:
    head = f"name: regional\nregion: {region}\n" if region else "name: regional\n"
    return head + (f"endpoints:\n{endpoint}" if endpoint else "") + extra


NEURON = f"  - {{name: sum, model: {_LLM}, serving: neuron, accelerator: inferentia}}\n"
SCALE_TO_ZERO = (
    f"  - {{name: chat, model: {_LLM}, serving: lmi, accelerator: gpu, capacity: {{min: 0, max: 2}}, "
    "scaling: {concurrency_per_instance: 4}}\n"
)
PROFILE = "bedrock:\n  profiles:\n    - {name: team-a, model: anthropic.claude-3-haiku-20240307-v1:0}\n"
STAGED = (
    "  - {name: chat, model: {id: meta-llama/Llama-3.1-8B-Instruct, parameters_billion: 8, max_context_tokens: 4096, "
    "revision: 0e9e39f249a16976918f6564b8830bc894c89659, hf_token: {secret: team/hf-token}}, serving: lmi, "
    "accelerator: gpu}\n"
)
BUDGET = "cost:\n  budget: {monthly_limit_usd: 1000, notify_email: finops@example.com}\n"


@pytest.mark.parametrize(
    ("region", "endpoint", "extra", "match"),
    [
        (
            "af-south-1",
            NEURON,
            "",
            r"region: af-south-1 has no lmi-neuron serving image \(djl-inference:.*\), which endpoints\[0\] needs; "
            r"deploy to one of .*us-east-1",
        ),
        (
            "eu-west-3",
            SCALE_TO_ZERO,
            "",
            r"region: eu-west-3 has no sagemaker inference components .*AWS::SageMaker::InferenceComponent\), "
            r"which endpoints\[0\] needs; deploy to a region other than",
        ),
        (
            "us-west-1",
            "",
            PROFILE,
            r"region: us-west-1 has no bedrock application inference profiles .*which bedrock\.profiles\[0\] needs",
        ),
        (
            "ca-west-1",
            STAGED,
            "",
            r"region: ca-west-1 has no codebuild projects and step functions state machines staging gated weights "
            r"\(model\.hf_token\) \(AWS::CodeBuild::Project, AWS::StepFunctions::StateMachine\), "
            r"which endpoints\[0\] needs",
        ),
        ("eu-north-1", "", BUDGET, r"region: eu-north-1 has no aws budgets \(AWS::Budgets::Budget\), which cost\."),
    ],
)
def test_fails_region_that_lacks_what_the_platform_needs(region: str, endpoint: str, extra: str, match: str) -> None:
    # GIVEN a config with a region that lacks an image or a resource type the config needs
    config = parse_config(_platform(region, endpoint, extra))
    # WHEN planned THEN the plan refuses at the region key, naming what is missing and who needs it
    with pytest.raises(InferenceConfigError, match=match):
        plan_platform(config)


@pytest.mark.parametrize("extra", ["", PROFILE + BUDGET])
def test_region_that_has_everything_is_planned(extra: str) -> None:
    # GIVEN the same needs in us-east-1 WHEN planned THEN nothing is refused and the plan lists the deploy region
    doc = plan_platform(parse_config(_platform("us-east-1", NEURON + SCALE_TO_ZERO, extra))).to_json()
    assert doc["regions"]["deploy_region"] == "us-east-1"
    assert "us-east-1" in doc["regions"]["deployable_regions"]


def test_region_agnostic_plan_lists_the_deployable_regions_and_why() -> None:
    # GIVEN a region-agnostic config with a Neuron endpoint and a scale-to-zero GPU endpoint WHEN planned
    doc = plan_platform(parse_config(_platform(None, NEURON + SCALE_TO_ZERO))).to_json()["regions"]
    # THEN the deployable regions are those with the neuron image and inference components, and each need is listed
    neuron = set(load_snapshot().images["lmi-neuron"].accounts)
    lacking = set(load_resource_regions().lacking("AWS::SageMaker::InferenceComponent"))
    assert set(doc["deployable_regions"]) <= neuron - lacking
    assert "eu-west-3" not in doc["deployable_regions"]  # no inference components there
    assert {"endpoints[0]"} <= {u for r in doc["requirements"] for u in r["needed_by"]}


def _rules(requirements: list[RegionRequirement], region: str | None = None) -> dict[str, Any]:
    app = App()
    stack = Stack(app, "S", env=Environment(region=region) if region else None)
    add_region_rules(stack, requirements)
    return dict(Template.from_stack(stack).to_json().get("Rules", {}))


def test_region_agnostic_stack_asserts_each_requirement_on_aws_region() -> None:
    # GIVEN an image requirement and a resource-type requirement
    image = load_snapshot().images["lmi-neuron"]
    needs = [
        image_requirement(image.key, image.repository, image.tag, image.accounts, ["endpoints[0]"]),
        type_requirement("AWS::SageMaker::InferenceComponent", "sagemaker inference components", ["endpoints[1]"]),
    ]
    assert needs[1] is not None
    # WHEN added to a region-agnostic stack
    rules = _rules([n for n in needs if n is not None])
    # THEN one rule asserts Fn::Contains of the image's regions and Fn::Not(Fn::Contains) of the lacking regions
    first, second = rules[RULE_ID]["Assertions"]
    assert first["Assert"] == {"Fn::Contains": [sorted(image.accounts), {"Ref": "AWS::Region"}]}
    lacking = list(load_resource_regions().lacking("AWS::SageMaker::InferenceComponent"))
    assert second["Assert"] == {"Fn::Not": [{"Fn::Contains": [lacking, {"Ref": "AWS::Region"}]}]}
    assert second["AssertDescription"].startswith("this region has no sagemaker inference components")
    assert "endpoints[1]" in second["AssertDescription"]


def test_rules_lint_clean() -> None:
    # GIVEN the rule of a region-agnostic stack WHEN cfn-lint reads a template holding it THEN it reports nothing
    image = load_snapshot().images["lmi-neuron"]
    rules = _rules([image_requirement(image.key, image.repository, image.tag, image.accounts, ["endpoints[0]"])])
    template = {
        "Rules": rules,
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
    }
    matches = lint(json.dumps(template), config=ManualArgs(regions=["us-east-1"]))
    assert [m.rule.id for m in matches] == []


def test_stack_with_a_region_gets_no_rule() -> None:
    # GIVEN a stack with a concrete region (the plan has already refused a region that lacks something)
    image = load_snapshot().images["lmi-neuron"]
    rules = _rules([image_requirement(image.key, image.repository, image.tag, image.accounts, ["e"])], "us-east-1")
    # WHEN rules are added THEN none is
    assert RULE_ID not in rules


def test_types_available_everywhere_need_no_rule() -> None:
    # GIVEN a resource type every covered region has WHEN asked for its requirement THEN there is none
    assert type_requirement("AWS::SNS::Topic", "sns topics", ["observability"]) is None
