"""Pure guardrail decisions: default names, the cross-profile role rule, the statement pattern."""

from __future__ import annotations

import pytest

from inference_constructs.bedrock.guardrail_plan import (
    LIMITS,
    GuardedRole,
    check_role_guardrails,
    default_guardrail_name,
    guarded_invoke_statements,
)

from ._iam import ALLOW, DENY, evaluate


@pytest.mark.parametrize(
    ("platform", "profile", "expected"),
    [("acme", "team-a", "acme-team-a"), ("acme", "team a", "acme-team-a"), ("acme", "t.1/x", "acme-t-1-x")],
)
def test_default_name_replaces_characters_the_name_pattern_refuses(platform: str, profile: str, expected: str) -> None:
    assert default_guardrail_name(platform, profile) == expected


def test_long_default_names_are_cut_to_50_and_stay_distinct() -> None:
    # GIVEN two 64-character profile names that differ only at the end
    a = default_guardrail_name("platform-name", "x" * 63 + "a")
    b = default_guardrail_name("platform-name", "x" * 63 + "b")
    # THEN both fit the CloudFormation Name limit and differ
    assert len(a) == len(b) == LIMITS["name_max_length"][0]
    assert a != b


ROLE = "arn:aws:iam::111122223333:role/app"


@pytest.mark.parametrize(
    ("first", "second", "conflict"),
    [("g1", "g1", False), ("g1", "g2", True), ("g1", None, True), (None, None, False)],
)
def test_one_role_on_one_model_needs_one_guardrail(first: str | None, second: str | None, conflict: bool) -> None:
    grants = [GuardedRole(ROLE, "m", first, "p[0]"), GuardedRole(ROLE, "m", second, "p[1]")]
    assert bool(check_role_guardrails(grants)) is conflict


def test_one_role_on_two_models_needs_one_guardrail_too() -> None:
    # GIVEN one role granted on a guarded profile of m1 and an unguarded one of m2
    grants = [GuardedRole(ROLE, "m1", "g1", "p[0]"), GuardedRole(ROLE, "m2", None, "p[1]")]
    # THEN it is refused: the guardrail's Deny covers every model, so m2 could not be called without g1
    (problem,) = check_role_guardrails(grants)
    assert problem.startswith("p[1]: role arn:aws:iam::111122223333:role/app is also granted on p[0] (model m1)")


def test_other_roles_do_not_conflict() -> None:
    grants = [GuardedRole(ROLE, "m1", "g1", "p[0]"), GuardedRole(ROLE.replace("app", "web"), "m1", None, "p[1]")]
    assert check_role_guardrails(grants) == []


def test_statements_deny_every_granted_arn_without_the_identifier() -> None:
    # GIVEN two ARN groups
    statements = guarded_invoke_statements(
        [["arn:aws:bedrock:us-east-1:1:application-inference-profile/p"], ["arn:aws:bedrock:*::foundation-model/m"]],
        guardrail_identifier="arn:aws:bedrock:us-east-1:1:guardrail/g:2",
        guardrail_arn="arn:aws:bedrock:us-east-1:1:guardrail/g",
        partition="aws",
    )
    # THEN a direct foundation-model call in any Region without a guardrail is denied, with it allowed
    model = "arn:aws:bedrock:eu-west-1::foundation-model/m"
    assert evaluate(statements, "bedrock:InvokeModel", model, {}) == DENY
    guarded = {"bedrock:GuardrailIdentifier": "arn:aws:bedrock:us-east-1:1:guardrail/g:2"}
    assert evaluate(statements, "bedrock:InvokeModel", model, guarded) == ALLOW
