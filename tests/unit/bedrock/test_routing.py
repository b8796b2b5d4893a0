"""Intelligent prompt routers: validation, the replace-safe name, the cost range and the construct."""

from __future__ import annotations

import re
from typing import Any

import pytest
from aws_cdk import aws_iam as iam

from inference_constructs.bedrock.pricing import Workload
from inference_constructs.bedrock.router import IntelligentPromptRouter
from inference_constructs.bedrock.router_plan import RouterSpec, check_router_specs, router_plan
from inference_constructs.errors import InferenceConfigError

from ._helpers import new_stack, resources, statements

LITE, PRO, PRO_US = "amazon.nova-lite-v1:0", "amazon.nova-pro-v1:0", "us.amazon.nova-pro-v1:0"
LLAMA_8B, LLAMA_70B_US = "meta.llama3-1-8b-instruct-v1:0", "us.meta.llama3-1-70b-instruct-v1:0"
REGIONAL = "arn:${AWS::Partition}:bedrock:${AWS::Region}"
PATH = r"bedrock\.routers\[0\]"


def _spec(**overrides: Any) -> RouterSpec:
    values: dict[str, Any] = {
        "name": "helpdesk",
        "models": (LITE, PRO),
        "fallback_model": PRO,
        "response_quality_difference": 10.0,
        "tags": {"team": "helpdesk"},
    }
    values.update(overrides)
    return RouterSpec(**values)


def test_a_router_of_two_models_of_one_family_is_valid() -> None:
    llama = _spec(name="llama", models=(LLAMA_8B, LLAMA_70B_US), fallback_model=LLAMA_70B_US)
    assert check_router_specs([_spec(), llama]) == []


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"models": (PRO,)}, rf"{PATH}\.models: \['amazon.nova-pro-v1:0'\] is not two different models"),
        ({"models": (PRO, PRO)}, rf"{PATH}\.models: .* is not two different models"),
        (
            {"models": (LITE, "anthropic.claude-3-haiku-20240307-v1:0")},
            rf"{PATH}\.models: amazon and anthropic models cannot share a router",
        ),
        (
            {"models": ("anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic.claude-3-haiku-20240307-v1:0")},
            rf"{PATH}\.models\[0\]: 'anthropic.claude-sonnet-4-5-20250929-v1:0' is not a model intelligent prompt "
            "routing supports",
        ),
        ({"fallback_model": "amazon.nova-micro-v1:0"}, rf"{PATH}\.fallback_model: 'amazon.nova-micro-v1:0' is not one"),
        ({"name": "r" * 56}, rf"{PATH}\.name: 'r+' has 56 characters; use at most 55"),
        ({"tags": {"aws:team": "x"}}, rf"{PATH}\.tags\.aws:team: keys starting with 'aws:' are reserved"),
        (
            {"response_quality_difference": 101.0},
            rf"{PATH}\.response_quality_difference: 101.0 is not allowed; use 0..100",
        ),
    ],
)
def test_fails_with_the_key_path_and_what_is_allowed(overrides: dict[str, Any], message: str) -> None:
    problems = check_router_specs([_spec(**overrides)])
    assert any(re.search(message, p) for p in problems), problems


def test_duplicate_router_names_are_rejected() -> None:
    problems = check_router_specs([_spec(), _spec()])
    assert problems == [r"bedrock.routers[1].name: 'helpdesk' is already used by bedrock.routers[0]; choose another"]


def test_the_name_changes_with_the_models_and_not_with_the_tags() -> None:
    # GIVEN a router WHEN a create-only property changes THEN its physical name changes (no name collision
    # on replacement); a tag change (updatable) keeps the name
    base = _spec()
    assert re.fullmatch(r"helpdesk-[0-9a-f]{8}", base.physical_name)
    assert _spec(models=(PRO, LITE)).physical_name == base.physical_name  # same set of models
    assert _spec(response_quality_difference=20.0).physical_name != base.physical_name
    assert _spec(models=(LITE, PRO_US), fallback_model=PRO_US).physical_name != base.physical_name
    assert _spec(tags={"team": "other"}).physical_name == base.physical_name


def test_cost_range_from_all_cheap_to_all_fallback() -> None:
    # GIVEN Nova Lite ($0.06 / $0.24 per 1M) and Nova Pro ($0.80 / $3.20) and 100M in, 20M out a month
    entry = router_plan(_spec(workload=Workload(input_tokens=100_000_000, output_tokens=20_000_000))).to_json()
    cost = entry["cost_range"]
    # THEN all on Lite = 100 x 0.06 + 20 x 0.24 = 6 + 4.8 = 10.80; all on Pro = 80 + 64 = 144.00
    assert cost["all_cheapest_monthly_usd"] == 10.80
    assert cost["all_fallback_monthly_usd"] == 144.00
    assert entry["router_name"] == _spec().physical_name
    assert "new name" in entry["replacement"]


def test_the_router_resource_and_its_grants() -> None:
    # GIVEN a router construct with an invoking role
    stack = new_stack()
    router = IntelligentPromptRouter(
        stack,
        "Router",
        name="helpdesk",
        models=[LITE, PRO_US],
        fallback_model=PRO_US,
        response_quality_difference=10,
        tags={"team": "helpdesk"},
        invoke_role_arns=["arn:aws:iam::111122223333:role/helpdesk-api"],
    )
    grantee = iam.Role(stack, "App", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    router.grant_invoke(grantee)
    # THEN the router carries the hashed name, both model ARNs, the fallback, the criteria and the tags
    (props,) = [r["Properties"] for r in resources(stack, "AWS::Bedrock::IntelligentPromptRouter").values()]
    assert props["PromptRouterName"] == router.router_name
    assert props["Models"] == [
        {"ModelArn": f"{REGIONAL}::foundation-model/{LITE}"},
        {"ModelArn": f"{REGIONAL}:${{AWS::AccountId}}:inference-profile/{PRO_US}"},
    ]
    assert props["FallbackModel"] == props["Models"][1]
    assert props["RoutingCriteria"] == {"ResponseQualityDifference": 10}
    assert props["Tags"] == [{"Key": "team", "Value": "helpdesk"}]
    # AND invoking is granted on the router ARN and on every model ARN Bedrock authorizes
    found = statements(stack)
    granted = {str(r) for s in found for r in (s["Resource"] if isinstance(s["Resource"], list) else [s["Resource"]])}
    assert "${" + stack.get_logical_id(router.resource) + ".PromptRouterArn}" in granted
    assert f"{REGIONAL}::foundation-model/{LITE}" in granted
    assert "arn:${AWS::Partition}:bedrock:us-west-2::foundation-model/amazon.nova-pro-v1:0" in granted
    assert all(set(s["Action"]) == {"bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"} for s in found)
    # AND the listed role gets them through one customer-managed policy, and so does the app's own role:
    # no inline policy, which the NIST 800-53 and HIPAA packs refuse (IAMNoInlinePolicy)
    managed = list(resources(stack, "AWS::IAM::ManagedPolicy").values())
    assert sorted(str(m["Properties"]["Roles"]) for m in managed) == sorted(
        ["['helpdesk-api']", str(["${" + stack.get_logical_id(grantee.node.default_child) + "}"])]
    )
    assert resources(stack, "AWS::IAM::Policy") == {}


def test_the_construct_refuses_a_bad_router_before_any_resource_exists() -> None:
    stack = new_stack()
    with pytest.raises(InferenceConfigError, match=r"router\.fallback_model: 'amazon.nova-micro-v1:0' is not one"):
        IntelligentPromptRouter(
            stack, "Router", name="r", models=[LITE, PRO], fallback_model="amazon.nova-micro-v1:0",
            response_quality_difference=5,
        )  # fmt: skip
    assert resources(stack, "AWS::Bedrock::IntelligentPromptRouter") == {}
