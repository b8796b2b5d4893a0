"""ApplicationInferenceProfile: resource, tags, exact IAM ARNs, metrics, nag packs and cfn-lint."""

from __future__ import annotations

import json

import pytest
from aws_cdk import App, CfnParameter, Stack, Validations
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Template
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks
from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

from inference_constructs.bedrock import ApplicationInferenceProfile, GuardrailReference, Residency
from inference_constructs.errors import InferenceConfigError

from ._helpers import new_stack, render, resources, statements

SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"
HAIKU = "anthropic.claude-3-haiku-20240307-v1:0"
ACTIONS = ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]
PROFILE_ARN = "${Profile6F32097C.InferenceProfileArn}"
P = "${AWS::Partition}"


def _profile(stack: Stack, model: str, **kwargs: object) -> ApplicationInferenceProfile:
    return ApplicationInferenceProfile(stack, "Profile", name="team-a", model=model, **kwargs)  # type: ignore[arg-type]


def _granted_arns(model: str) -> set[str]:
    stack = new_stack()
    profile = _profile(stack, model)
    role = iam.Role(stack, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    profile.grant_invoke(role)
    found = statements(stack)
    assert all(sorted(s["Action"]) == ACTIONS for s in found)
    arns: set[str] = set()
    for s in found:
        arns |= set(s["Resource"]) if isinstance(s["Resource"], list) else {s["Resource"]}
    return arns


def test_profile_resource_copies_the_source_in_the_deploy_region_with_tags() -> None:
    # GIVEN a us. profile with a team tag
    stack = new_stack()
    _profile(stack, f"us.{SONNET}", tags={"team": "team-a", "cost-center": "4711"})
    # WHEN synthesized THEN one profile, region-agnostic CopyFrom, tags sorted by key
    (res,) = resources(stack, "AWS::Bedrock::ApplicationInferenceProfile").values()
    assert res["Properties"] == {
        "InferenceProfileName": "team-a",
        "ModelSource": {
            "CopyFrom": f"arn:{P}:bedrock:${{AWS::Region}}:${{AWS::AccountId}}:inference-profile/us.{SONNET}"
        },
        "Tags": [{"Key": "cost-center", "Value": "4711"}, {"Key": "team", "Value": "team-a"}],
    }


def test_primary_child_is_resource() -> None:
    # GIVEN a profile WHEN its children are listed THEN the L1 child id is Resource
    profile = _profile(new_stack(), SONNET)
    assert profile.node.default_child is profile.resource


def test_grant_invoke_for_us_profile_lists_exact_arns() -> None:
    # GIVEN a us. profile WHEN invoke is granted THEN profile, system profile and 4 US model ARNs
    assert _granted_arns(f"us.{SONNET}") == {
        PROFILE_ARN,
        f"arn:{P}:bedrock:${{AWS::Region}}:${{AWS::AccountId}}:inference-profile/us.{SONNET}",
        *(
            f"arn:{P}:bedrock:{r}::foundation-model/{SONNET}"
            for r in ("us-east-1", "us-east-2", "us-west-1", "us-west-2")
        ),
    }


def test_grant_invoke_for_eu_profile_lists_exact_arns() -> None:
    # GIVEN an eu. profile WHEN invoke is granted THEN profile, system profile and every EU model ARN
    regions = (
        "eu-central-1",
        "eu-central-2",
        "eu-north-1",
        "eu-south-1",
        "eu-south-2",
        "eu-west-1",
        "eu-west-2",
        "eu-west-3",
    )
    assert _granted_arns(f"eu.{SONNET}") == {
        PROFILE_ARN,
        f"arn:{P}:bedrock:${{AWS::Region}}:${{AWS::AccountId}}:inference-profile/eu.{SONNET}",
        *(f"arn:{P}:bedrock:{r}::foundation-model/{SONNET}" for r in regions),
    }


def test_grant_invoke_for_global_profile_lists_exact_arns() -> None:
    # GIVEN a global. profile WHEN invoke is granted THEN the Region-less and any-Region model ARNs
    assert _granted_arns(f"global.{SONNET}") == {
        PROFILE_ARN,
        f"arn:{P}:bedrock:${{AWS::Region}}:${{AWS::AccountId}}:inference-profile/global.{SONNET}",
        f"arn:{P}:bedrock:::foundation-model/{SONNET}",
        f"arn:{P}:bedrock:*::foundation-model/{SONNET}",
    }


def test_grant_invoke_for_foundation_model_lists_exact_arns() -> None:
    # GIVEN a plain foundation model WHEN invoke is granted THEN the profile and the deploy-Region model
    assert _granted_arns(HAIKU) == {PROFILE_ARN, f"arn:{P}:bedrock:${{AWS::Region}}::foundation-model/{HAIKU}"}


def test_invoke_role_arns_get_one_managed_policy() -> None:
    # GIVEN two role ARNs from config
    stack = new_stack()
    _profile(stack, HAIKU, invoke_role_arns=["arn:aws:iam::111122223333:role/a", "arn:aws:iam::111122223333:role/x/b"])
    # WHEN synthesized THEN one managed policy attached to both roles, and no inline policy
    (policy,) = resources(stack, "AWS::IAM::ManagedPolicy").values()
    assert policy["Properties"]["Roles"] == ["a", "b"]
    assert resources(stack, "AWS::IAM::Policy") == {}


def test_metrics_use_the_profile_id_dimension_and_default_statistics() -> None:
    # GIVEN a profile WHEN its metrics are resolved
    stack = new_stack()
    profile = _profile(stack, HAIKU)
    invocations = profile.metric_invocations()
    latency = profile.metric_invocation_latency()
    # THEN namespace AWS/Bedrock, ModelId = profile id, Sum / Average over 5 minutes
    assert (invocations.namespace, invocations.metric_name, invocations.statistic) == (
        "AWS/Bedrock",
        "Invocations",
        "Sum",
    )
    assert render(stack.resolve(invocations.dimensions)) == {"ModelId": "${Profile6F32097C.InferenceProfileId}"}
    assert (latency.statistic, latency.period.to_seconds()) == ("Average", 300)


@pytest.mark.parametrize(
    ("method", "name"),
    [
        ("metric_invocation_throttles", "InvocationThrottles"),
        ("metric_invocation_client_errors", "InvocationClientErrors"),
        ("metric_invocation_server_errors", "InvocationServerErrors"),
        ("metric_input_token_count", "InputTokenCount"),
        ("metric_output_token_count", "OutputTokenCount"),
        ("metric_time_to_first_token", "TimeToFirstToken"),
        ("metric_cache_read_input_tokens", "CacheReadInputTokens"),
        ("metric_cache_write_input_tokens", "CacheWriteInputTokens"),
        ("metric_cache_read_input_token_count", "CacheReadInputTokenCount"),
        ("metric_cache_write_input_token_count", "CacheWriteInputTokenCount"),
    ],
)
def test_each_metric_helper_uses_the_official_name(method: str, name: str) -> None:
    # GIVEN a profile WHEN a metric helper is called THEN it returns the official metric name
    assert getattr(_profile(new_stack(), HAIKU), method)().metric_name == name


def test_cache_total_sums_both_metric_names() -> None:
    # GIVEN a profile WHEN the cache read total is built THEN it fills and adds both names
    expression = _profile(new_stack(), HAIKU).metric_cache_read_input_tokens_total()
    assert expression.expression == "FILL(documented, 0) + FILL(alternate, 0)"
    used = {k: m.metric_name for k, m in expression.using_metrics.items()}  # type: ignore[attr-defined]
    assert used == {"documented": "CacheReadInputTokens", "alternate": "CacheReadInputTokenCount"}


def test_name_from_cfn_parameter_is_accepted() -> None:
    # GIVEN a CfnParameter name WHEN the profile is created THEN it is not rejected and is rendered as Ref
    stack = new_stack()
    name = CfnParameter(stack, "ProfileName").value_as_string
    ApplicationInferenceProfile(stack, "Profile", name=name, model=HAIKU)
    Template.from_stack(stack).has_resource_properties(
        "AWS::Bedrock::ApplicationInferenceProfile", {"InferenceProfileName": {"Ref": "ProfileName"}}
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "n" * 65, "model": HAIKU}, "name: 'n+' is 65 characters long; use at most 64"),
        ({"name": "team a!", "model": HAIKU}, "name: 'team a!' is not a valid profile name"),
        ({"name": "ok", "model": "bad model"}, "model: 'bad model' is not a foundation model id"),
        ({"name": "ok", "model": HAIKU, "tags": {"team": "a#"}}, "tags.team: value 'a#' has characters"),
        (
            {"name": "ok", "model": f"us.{SONNET}", "residency": Residency.SINGLE_REGION},
            "residency: .* is a cross-Region profile",
        ),
    ],
)
def test_fails_on_invalid_props(kwargs: dict[str, object], message: str) -> None:
    # GIVEN an invalid prop WHEN the construct is created THEN one InferenceConfigError names the prop
    with pytest.raises(InferenceConfigError, match=message):
        ApplicationInferenceProfile(new_stack(), "Profile", **kwargs)  # type: ignore[arg-type]


def test_stack_passes_nag_packs_and_cfn_lint() -> None:
    # GIVEN one profile per source kind with config roles and the three nag packs on
    app = App()
    Validations.of(app).add_plugins(AwsSolutionsChecks(app), NIST80053R5Checks(app), HIPAASecurityChecks(app))
    stack = Stack(app, "BedrockProfiles")
    for i, model in enumerate([f"us.{SONNET}", f"eu.{SONNET}", f"global.{SONNET}", HAIKU]):
        ApplicationInferenceProfile(
            stack,
            f"Profile{i}",
            name=f"team-{i}",
            model=model,
            tags={"team": f"team-{i}"},
            invoke_role_arns=["arn:aws:iam::111122223333:role/app"],
        )
    # WHEN synthesized (a nag finding raises) and linted
    template = app.synth().get_stack_by_name("BedrockProfiles").template
    matches = lint(json.dumps(template), config=ManualArgs(regions=["us-east-1", "eu-west-1"]))
    # THEN cfn-lint reports nothing
    assert [str(m) for m in matches] == []


@pytest.mark.parametrize("guarded", [False, True], ids=["plain", "guarded"])
@pytest.mark.parametrize("grant", ["grant_invoke", "grant_source_invoke"])
def test_a_role_granted_a_global_source_has_its_region_wildcard_acknowledged(grant: str, guarded: bool) -> None:
    # GIVEN a global. profile (optionally guarded), AwsSolutions on, and a role this app creates
    app = App()
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    stack = Stack(app, "Grants")
    guardrail = GuardrailReference.existing("gr1abc", "3") if guarded else None
    profile = _profile(stack, f"global.{SONNET}", guardrail=guardrail)
    role = iam.Role(stack, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    # WHEN invoke (or source invoke) is granted to the role
    getattr(profile, grant)(role)
    # THEN the any-Region model ARN is granted, and synth passes (a nag finding raises): its IAM5 finding is
    # acknowledged on the role
    template = app.synth().get_stack_by_name("Grants").template
    assert f"bedrock:*::foundation-model/{SONNET}" in json.dumps(template)


def test_model_from_cfn_parameter_is_the_copy_from_arn_and_flagged_as_leaving() -> None:
    # GIVEN a model ARN from a CfnParameter
    stack = new_stack()
    model = CfnParameter(stack, "ModelArn").value_as_string
    profile = ApplicationInferenceProfile(stack, "Profile", name="team-a", model=model)
    # WHEN synthesized THEN CopyFrom is the parameter and residency treats it as able to leave
    Template.from_stack(stack).has_resource_properties(
        "AWS::Bedrock::ApplicationInferenceProfile", {"ModelSource": {"CopyFrom": {"Ref": "ModelArn"}}}
    )
    assert profile.model_source.leaves_region


def test_fails_on_token_model_with_single_region_residency() -> None:
    # GIVEN a token model and single-region residency WHEN created THEN residency cannot be verified
    stack = new_stack()
    model = CfnParameter(stack, "ModelArn").value_as_string
    with pytest.raises(InferenceConfigError, match="residency: the model is an unresolved token"):
        ApplicationInferenceProfile(stack, "Profile", name="a", model=model, residency=Residency.SINGLE_REGION)
