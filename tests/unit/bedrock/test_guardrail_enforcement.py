"""Guardrails: the resources, and the grants that make a caller unable to reach the model without the guardrail.

The grant tests evaluate the synthesized policy statements with ``_iam.evaluate`` (identity-based policy
evaluation: explicit Deny wins, then Allow, else implicit deny; negated condition operators are true for a
missing key). Tokens are replaced by concrete ARNs in us-east-1, account 123456789012.
"""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import Stack
from aws_cdk import aws_iam as iam

from inference_constructs.bedrock import (
    ApplicationInferenceProfile,
    ContentFilter,
    DeniedTopic,
    Guardrail,
    GuardrailReference,
    GuardrailSpec,
    PiiEntity,
)
from inference_constructs.errors import InferenceConfigError

from ._helpers import new_stack, resources, statements
from ._iam import ALLOW, DENY, IMPLICIT_DENY, as_list, concrete, evaluate

SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"
ACCOUNT = "123456789012"
GUARDRAIL_ARN = f"arn:aws:bedrock:us-east-1:{ACCOUNT}:guardrail/gr1abc"
PROFILE_ARN = f"arn:aws:bedrock:us-east-1:{ACCOUNT}:application-inference-profile/prof123"
SYSTEM_PROFILE_ARN = f"arn:aws:bedrock:us-east-1:{ACCOUNT}:inference-profile/us.{SONNET}"
SPEC = GuardrailSpec(
    name="acme-team-a",
    content_filters=(ContentFilter("HATE"), ContentFilter("PROMPT_ATTACK", "HIGH", "NONE")),
    denied_topics=(DeniedTopic("investment advice", "Recommendations about buying or selling securities.", ("Buy?",)),),
    pii_entities=(PiiEntity("EMAIL", "ANONYMIZE"), PiiEntity("US_SOCIAL_SECURITY_NUMBER", "BLOCK")),
    grounding_threshold=0.75,
)


def _guarded_role(stack: Stack, *, broad_allow: bool = False) -> tuple[Guardrail, ApplicationInferenceProfile]:
    guardrail = Guardrail(stack, "Guardrail", spec=SPEC)
    profile = ApplicationInferenceProfile(
        stack, "Profile", name="team-a", model=f"us.{SONNET}", guardrail=guardrail.reference
    )
    role = iam.Role(stack, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    profile.grant_invoke(role)
    if broad_allow:  # what a team's own broad policy might add, e.g. a managed Bedrock full-access policy
        role.add_to_principal_policy(iam.PolicyStatement(actions=["bedrock:*"], resources=["*"]))
    return guardrail, profile


def _substitutions(stack: Stack, version: str = "3") -> dict[str, str]:
    (guardrail_id,) = resources(stack, "AWS::Bedrock::Guardrail")
    (version_id,) = resources(stack, "AWS::Bedrock::GuardrailVersion")
    (profile_id,) = resources(stack, "AWS::Bedrock::ApplicationInferenceProfile")
    return {
        "${AWS::Partition}": "aws",
        "${AWS::Region}": "us-east-1",
        "${AWS::AccountId}": ACCOUNT,
        f"${{{guardrail_id}.GuardrailArn}}": GUARDRAIL_ARN,
        f"${{{version_id}.Version}}": version,
        f"${{{profile_id}.InferenceProfileArn}}": PROFILE_ARN,
    }


def _policy(broad_allow: bool = False) -> list[dict[str, Any]]:
    stack = new_stack()
    _guarded_role(stack, broad_allow=broad_allow)
    return concrete(statements(stack), _substitutions(stack))  # type: ignore[no-any-return]


def _with(identifier: str | None) -> dict[str, str]:
    return {} if identifier is None else {"bedrock:GuardrailIdentifier": identifier}


GUARDED = f"{GUARDRAIL_ARN}:3"
FM_EAST = f"arn:aws:bedrock:us-east-1::foundation-model/{SONNET}"
FM_WEST = f"arn:aws:bedrock:us-west-2::foundation-model/{SONNET}"


@pytest.mark.parametrize("broad_allow", [False, True], ids=["only-library-grant", "plus-bedrock-star-allow"])
@pytest.mark.parametrize(
    ("action", "resource", "identifier", "expected"),
    [
        ("bedrock:InvokeModel", PROFILE_ARN, GUARDED, ALLOW),
        ("bedrock:InvokeModelWithResponseStream", PROFILE_ARN, GUARDED, ALLOW),
        ("bedrock:InvokeModel", SYSTEM_PROFILE_ARN, GUARDED, ALLOW),
        ("bedrock:InvokeModel", FM_WEST, GUARDED, ALLOW),
        # a direct foundation-model call without the guardrail: denied explicitly
        ("bedrock:InvokeModel", FM_EAST, None, DENY),
        ("bedrock:InvokeModelWithResponseStream", FM_WEST, None, DENY),
        ("bedrock:InvokeModel", PROFILE_ARN, None, DENY),
        ("bedrock:InvokeModel", SYSTEM_PROFILE_ARN, None, DENY),
        # another guardrail, or an older version of this one
        ("bedrock:InvokeModel", FM_EAST, f"arn:aws:bedrock:us-east-1:{ACCOUNT}:guardrail/other:1", DENY),
        ("bedrock:InvokeModel", PROFILE_ARN, f"{GUARDRAIL_ARN}:2", DENY),
        ("bedrock:InvokeModel", PROFILE_ARN, f"{GUARDRAIL_ARN}:DRAFT", DENY),
    ],
)
def test_invoke_is_allowed_only_with_the_guardrail_version(
    broad_allow: bool, action: str, resource: str, identifier: str | None, expected: str
) -> None:
    # GIVEN a role granted invoke through a guarded profile (and, in one variant, bedrock:* on * besides)
    policy = _policy(broad_allow)
    # WHEN the request is evaluated THEN only requests naming this guardrail version get through
    assert evaluate(policy, action, resource, _with(identifier)) == expected


def test_apply_guardrail_is_allowed_on_the_guardrail_only() -> None:
    policy = _policy()
    assert evaluate(policy, "bedrock:ApplyGuardrail", GUARDRAIL_ARN) == ALLOW
    other = f"arn:aws:bedrock:us-east-1:{ACCOUNT}:guardrail/other"
    assert evaluate(policy, "bedrock:ApplyGuardrail", other) == IMPLICIT_DENY


def test_granted_statements_follow_the_documented_pattern() -> None:
    # GIVEN the statements of a guarded grant, rendered
    policy = _policy()
    allows = [s for s in policy if s["Effect"] == "Allow" and "bedrock:InvokeModel" in s["Action"]]
    (deny,) = [s for s in policy if s["Effect"] == "Deny"]
    # THEN every invoke Allow carries StringEquals on the identifier <guardrail ARN>:<version>
    assert allows and all(s["Condition"] == {"StringEquals": {"bedrock:GuardrailIdentifier": GUARDED}} for s in allows)
    # AND one Deny with StringNotEquals, for both invoke actions, on every foundation model and every system and
    # application inference profile of every Region and account (not only the granted ARNs)
    assert deny["Condition"] == {"StringNotEquals": {"bedrock:GuardrailIdentifier": GUARDED}}
    assert sorted(deny["Action"]) == ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]
    assert as_list(deny["Resource"]) == [
        "arn:aws:bedrock:*::foundation-model/*",
        "arn:aws:bedrock:*:*:inference-profile/*",
        "arn:aws:bedrock:*:*:application-inference-profile/*",
    ]
    granted = {r for s in allows for r in as_list(s["Resource"])}
    assert {PROFILE_ARN, SYSTEM_PROFILE_ARN, FM_EAST, FM_WEST} <= granted


OTHER_ACCOUNT = "444455556666"


@pytest.mark.parametrize(
    "resource",
    [
        # a global. profile and the Region-less global model ARN it authorizes
        f"arn:aws:bedrock:us-east-1:{ACCOUNT}:inference-profile/global.{SONNET}",
        f"arn:aws:bedrock:::foundation-model/{SONNET}",
        # another geography and another Region's model
        f"arn:aws:bedrock:eu-west-1:{ACCOUNT}:inference-profile/eu.{SONNET}",
        f"arn:aws:bedrock:ap-northeast-1::foundation-model/{SONNET}",
        # another model, another application profile of this or another account
        "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0",
        f"arn:aws:bedrock:us-east-1:{ACCOUNT}:application-inference-profile/other1",
        f"arn:aws:bedrock:us-west-2:{OTHER_ACCOUNT}:application-inference-profile/shared9",
        f"arn:aws:bedrock:us-west-2:{OTHER_ACCOUNT}:inference-profile/us.{SONNET}",
    ],
    ids=[
        "global-profile",
        "region-less-model",
        "eu-profile",
        "tokyo-model",
        "other-model",
        "other-profile",
        "other-account-app-profile",
        "other-account-system-profile",
    ],
)
@pytest.mark.parametrize("action", ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"])
def test_a_listed_role_with_another_bedrock_allow_reaches_no_model_without_the_guardrail(
    action: str, resource: str
) -> None:
    # GIVEN a role granted through a guarded us. profile that also holds bedrock:* on * from elsewhere
    policy = _policy(broad_allow=True)
    # WHEN it calls any other path to a model without the guardrail THEN the explicit Deny refuses it
    assert evaluate(policy, action, resource, {}) == DENY
    assert evaluate(policy, action, resource, _with(f"{GUARDRAIL_ARN}:2")) == DENY
    # AND with the guardrail version its other Allow still works
    assert evaluate(policy, action, resource, _with(GUARDED)) == ALLOW


def test_invoke_role_arns_get_the_guarded_statements_in_the_managed_policy() -> None:
    # GIVEN a guarded profile with a config role
    stack = new_stack()
    guardrail = Guardrail(stack, "Guardrail", spec=SPEC)
    ApplicationInferenceProfile(
        stack,
        "Profile",
        name="team-a",
        model=SONNET,
        guardrail=guardrail.reference,
        invoke_role_arns=[f"arn:aws:iam::{ACCOUNT}:role/app"],
    )
    # WHEN synthesized THEN the managed policy denies a foundation-model call without the guardrail
    policy = concrete(statements(stack), _substitutions(stack))
    assert evaluate(policy, "bedrock:InvokeModel", FM_EAST, {}) == DENY
    assert evaluate(policy, "bedrock:InvokeModel", FM_EAST, _with(GUARDED)) == ALLOW


def test_guardrail_resource_carries_the_spec() -> None:
    stack = new_stack()
    Guardrail(stack, "Guardrail", spec=SPEC)
    (guardrail,) = resources(stack, "AWS::Bedrock::Guardrail").values()
    props = guardrail["Properties"]
    assert props["Name"] == "acme-team-a"
    assert props["ContentPolicyConfig"]["FiltersConfig"] == [
        {"Type": "HATE", "InputStrength": "HIGH", "OutputStrength": "HIGH"},
        {"Type": "PROMPT_ATTACK", "InputStrength": "HIGH", "OutputStrength": "NONE"},
    ]
    assert props["TopicPolicyConfig"]["TopicsConfig"][0]["Type"] == "DENY"
    assert props["SensitiveInformationPolicyConfig"]["PiiEntitiesConfig"] == [
        {"Type": "EMAIL", "Action": "ANONYMIZE"},
        {"Type": "US_SOCIAL_SECURITY_NUMBER", "Action": "BLOCK"},
    ]
    assert props["ContextualGroundingPolicyConfig"] == {"FiltersConfig": [{"Type": "GROUNDING", "Threshold": 0.75}]}


def _version_description(spec: GuardrailSpec) -> str:
    stack = new_stack()
    Guardrail(stack, "Guardrail", spec=spec)
    (version,) = resources(stack, "AWS::Bedrock::GuardrailVersion").values()
    return str(version["Properties"]["Description"])


def test_a_policy_change_replaces_the_version_and_a_rename_does_not() -> None:
    # GIVEN the same guardrail with a stricter filter, and with another name
    stricter = GuardrailSpec(**{**SPEC.__dict__, "content_filters": (ContentFilter("HATE"), ContentFilter("INSULTS"))})
    renamed = GuardrailSpec(**{**SPEC.__dict__, "name": "acme-renamed"})
    # THEN the create-only version description changes with the policy (a new numbered version is cut)
    assert _version_description(stricter) != _version_description(SPEC)
    # AND a rename (updated in place on the guardrail) keeps the version
    assert _version_description(renamed) == _version_description(SPEC)


def test_an_existing_guardrail_is_referenced_by_id_in_the_deploy_account() -> None:
    stack = new_stack()
    reference = GuardrailReference.existing("abc123", "7")
    profile = ApplicationInferenceProfile(stack, "Profile", name="team-a", model=SONNET, guardrail=reference)
    role = iam.Role(stack, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    profile.grant_invoke(role)
    (profile_id,) = resources(stack, "AWS::Bedrock::ApplicationInferenceProfile")
    subs = {
        "${AWS::Partition}": "aws",
        "${AWS::Region}": "us-east-1",
        "${AWS::AccountId}": ACCOUNT,
        f"${{{profile_id}.InferenceProfileArn}}": PROFILE_ARN,
    }
    policy = concrete(statements(stack), subs)
    existing = f"arn:aws:bedrock:us-east-1:{ACCOUNT}:guardrail/abc123"
    assert evaluate(policy, "bedrock:InvokeModel", FM_EAST, _with(f"{existing}:7")) == ALLOW
    assert evaluate(policy, "bedrock:InvokeModel", FM_EAST, {}) == DENY
    assert evaluate(policy, "bedrock:ApplyGuardrail", existing) == ALLOW


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (GuardrailSpec(name="x"), "filters nothing"),
        (GuardrailSpec(name="bad name", content_filters=(ContentFilter("HATE"),)), "guardrail.name: 'bad name'"),
        (
            GuardrailSpec(name="x", content_filters=(ContentFilter("HATE"), ContentFilter("HATE"))),
            r"guardrail.content_filters\[1\].type: HATE is listed twice",
        ),
        (GuardrailSpec(name="x", content_filters=(ContentFilter("HATE", "EXTREME"),)), "input_strength: 'EXTREME'"),
        (GuardrailSpec(name="x", pii_entities=(PiiEntity("SSN"),)), r"pii_entities\[0\].type: 'SSN'"),
        (GuardrailSpec(name="x", grounding_threshold=1.0), "contextual_grounding.grounding_threshold: 1.0"),
        (
            GuardrailSpec(name="x", denied_topics=(DeniedTopic("t", "d" * 201),)),
            r"denied_topics\[0\].definition: 201 characters; use 1-200",
        ),
        (GuardrailSpec(existing_id="abc", existing_version="DRAFT"), "version: 'DRAFT' is not a numbered version"),
        (GuardrailSpec(existing_id="abc"), "needs both id and version"),
    ],
)
def test_fails_on_an_invalid_guardrail(spec: GuardrailSpec, message: str) -> None:
    with pytest.raises(InferenceConfigError, match=message):
        Guardrail(new_stack(), "Guardrail", spec=spec)
