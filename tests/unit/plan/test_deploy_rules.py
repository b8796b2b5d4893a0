"""Fail fast: what an environment-agnostic template assumes about its Region and account is a CloudFormation Rule,
evaluated (with ``tests/cfn_rules.py``) on the synthesized templates for an allowed and a refused Region/account; with
``region``/``account`` in the config the plan refuses instead, and no rule is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import App, Environment, Stack
from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

from inference_constructs.bedrock import ApplicationInferenceProfile
from inference_constructs.config import parse_config
from inference_constructs.cost import BudgetGuardrail
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform
from inference_constructs.region_rules import ACCOUNT_RULE_ID, RULE_ID
from inference_constructs.stacks.platform import build_platform
from tests.cfn_rules import refusals

ACCOUNT = "111122223333"
OTHER = "444455556666"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/app"
HAIKU = "anthropic.claude-3-haiku-20240307-v1:0"


def _config(profiles: str, extra: str = "", head: str = "") -> str:
    return f"name: acme\n{head}bedrock:\n  profiles:\n{profiles}{extra}"


def _templates(text: str) -> dict[str, dict[str, Any]]:
    app = App()
    stacks = build_platform(app, plan_platform(parse_config(text)))
    assembly = app.synth()
    return {part: assembly.get_stack_by_name(stack.stack_name).template for part, stack in stacks.items()}


def _refused(template: dict[str, Any], region: str, account: str = ACCOUNT) -> list[str]:
    return refusals(template, region=region, account=account)


US = f"    - {{name: team-a, model: us.{HAIKU}}}\n"
EU = f"    - {{name: team-b, model: eu.{HAIKU}}}\n"
APAC = f"    - {{name: team-c, model: apac.{HAIKU}}}\n"
GLOBAL = "    - {name: team-d, model: global.anthropic.claude-sonnet-4-5-20250929-v1:0}\n"


@pytest.mark.parametrize(
    ("profile", "allowed", "refused", "prefix"),
    [
        (US, "us-east-1", "eu-west-1", "us"),
        (US, "us-west-2", "ap-northeast-1", "us"),
        (EU, "eu-central-1", "us-east-1", "eu"),
        (APAC, "ap-northeast-1", "eu-west-1", "apac"),
    ],
)
def test_a_geographic_profile_deploys_only_in_its_source_regions(
    profile: str, allowed: str, refused: str, prefix: str
) -> None:
    # GIVEN an environment-agnostic platform whose profile copies a geographic system profile (CopyFrom is built
    # with ${AWS::Region})
    (bedrock,) = [t for part, t in _templates(_config(profile)).items() if part == "bedrock"]
    # WHEN its Rules are evaluated THEN a source Region of the geography goes on to create resources
    assert _refused(bedrock, allowed) == []
    # AND a Region outside it is refused before any resource exists, saying what to change
    (message,) = _refused(bedrock, refused)
    assert message.startswith(f"this region has no bedrock {prefix}. system inference profiles")
    assert "bedrock.profiles[0].model needs; it exists only in" in message
    assert allowed in message


def test_a_global_profile_is_not_limited_to_a_geography_but_to_commercial_regions() -> None:
    # GIVEN a global. profile
    bedrock = _templates(_config(GLOBAL))["bedrock"]
    assertions = bedrock["Rules"][RULE_ID]["Assertions"]
    (rule,) = [a for a in assertions if "global. system inference profiles" in a["AssertDescription"]]
    # THEN commercial Regions of several geographies pass, GovCloud and China are refused
    assert _refused(bedrock, "ap-south-1") == _refused(bedrock, "eu-west-1") == []
    assert rule["AssertDescription"] in _refused(bedrock, "us-gov-west-1")
    assert rule["AssertDescription"] in _refused(bedrock, "cn-north-1")


def test_profile_roles_of_one_account_refuse_a_deploy_to_another_account() -> None:
    # GIVEN an environment-agnostic platform granting a role of account 111122223333 on a profile
    profile = f"    - {{name: team-a, model: {HAIKU}, invoke_role_arns: ['{ROLE}']}}\n"
    bedrock = _templates(_config(profile))["bedrock"]
    # WHEN deployed to that account THEN the account rule lets it through
    assert _refused(bedrock, "us-east-1", ACCOUNT) == []
    # AND another account is refused (the managed policy could not be attached to the role there)
    (message,) = _refused(bedrock, "us-east-1", OTHER)
    assert message.startswith(f"the roles bedrock.profiles[0].invoke_role_arns[0] are in account {ACCOUNT}")
    assert bedrock["Rules"][ACCOUNT_RULE_ID]["Assertions"][0]["Assert"] == {
        "Fn::Equals": [{"Ref": "AWS::AccountId"}, ACCOUNT]
    }


def test_budget_deny_roles_refuse_a_deploy_to_another_account() -> None:
    # GIVEN an environment-agnostic platform whose budget action denies a role of account 111122223333
    text = (
        "name: acme\ncost:\n  budget: {monthly_limit_usd: 1000, notify_email: finops@example.com, "
        f"deny_role_arns: ['{ROLE}']}}\n"
    )
    cost = _templates(text)["cost"]
    # THEN that account passes and another is refused, naming the key (no longer only a plan warning)
    assert _refused(cost, "us-east-1", ACCOUNT) == []
    (message,) = _refused(cost, "us-east-1", OTHER)
    assert f"cost.budget.deny_role_arns[0] are in account {ACCOUNT}" in message
    assert "the budget action attaches its deny policy to each role by name" in message


def test_constructs_from_python_carry_the_rules_too() -> None:
    # GIVEN a profile and a budget built from Python in an environment-agnostic stack
    stack = Stack(App(), "S")
    ApplicationInferenceProfile(stack, "Profile", name="p", model=f"eu.{HAIKU}", invoke_role_arns=[ROLE])
    BudgetGuardrail(stack, "Budget", monthly_limit_usd=10, notify_emails=["f@example.com"], deny_role_arns=[ROLE])
    template = App.of(stack).synth().get_stack_by_name("S").template  # type: ignore[union-attr]
    # THEN eu-west-1 in the roles' account deploys, us-east-1 or another account does not
    assert _refused(template, "eu-west-1") == []
    assert any("eu. system inference profiles" in m and "S/Profile" in m for m in _refused(template, "us-east-1"))
    assert len(_refused(template, "eu-west-1", OTHER)) == 1  # one account, one assertion for both roles


def test_the_rules_lint_clean() -> None:
    # GIVEN the Rules of an environment-agnostic platform with every kind of assertion
    profiles = US + GLOBAL + f"    - {{name: team-e, model: {HAIKU}, invoke_role_arns: ['{ROLE}']}}\n"
    rules = _templates(_config(profiles))["bedrock"]["Rules"]
    assert {RULE_ID, ACCOUNT_RULE_ID} <= set(rules)
    # WHEN cfn-lint reads a template holding them THEN it reports nothing
    template = {"Rules": rules, "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}}}
    assert [m.rule.id for m in lint(json.dumps(template), config=ManualArgs(regions=["us-east-1"]))] == []


def test_with_region_set_the_plan_refuses_a_region_outside_the_geography() -> None:
    # GIVEN region: eu-west-1 and a us. profile WHEN planned THEN the plan refuses with the rule's facts
    with pytest.raises(InferenceConfigError) as err:
        plan_platform(parse_config(_config(US, head="region: eu-west-1\n")))
    assert err.value.problems == (
        "region: eu-west-1 has no bedrock us. system inference profiles (United States), which "
        "bedrock.profiles[0].model needs; deploy to one of ca-central-1, us-east-1, us-east-2, us-west-1, us-west-2, "
        "or change bedrock.profiles[0].model",
    )


def test_with_account_set_the_plan_refuses_a_role_of_another_account() -> None:
    # GIVEN account: 444455556666 and a role of 111122223333 WHEN planned THEN refused with the same reason text
    profile = f"    - {{name: team-a, model: {HAIKU}, invoke_role_arns: ['{ROLE}']}}\n"
    with pytest.raises(InferenceConfigError) as err:
        plan_platform(parse_config(_config(profile, head=f"account: '{OTHER}'\n")))
    (problem,) = err.value.problems
    assert problem.startswith(f"bedrock.profiles[0].invoke_role_arns[0]: the role is in account {ACCOUNT}")
    reason = "the invoke policy is a managed policy attached to each role by name in the deploy account"
    assert reason in problem
    # AND the environment-agnostic template's rule refuses the same deploy for the same reason
    (message,) = _refused(_templates(_config(profile))["bedrock"], "us-east-1", OTHER)
    assert "bedrock.profiles[0].invoke_role_arns[0]" in message
    assert reason in message


def test_with_region_and_account_set_no_rule_is_written() -> None:
    # GIVEN the same platform environment-agnostic, and with region and account set (the plan has checked both)
    profile = f"    - {{name: team-a, model: us.{HAIKU}, invoke_role_arns: ['{ROLE}']}}\n"
    agnostic = _templates(_config(profile))["bedrock"]
    text = _config(profile, head=f"account: '{ACCOUNT}'\nregion: us-east-1\n")
    app = App()
    plan = plan_platform(parse_config(text))
    stacks = build_platform(app, plan, env=Environment(account=ACCOUNT, region="us-east-1"))
    template = app.synth().get_stack_by_name(stacks["bedrock"].stack_name).template
    # THEN the first asserts the profile's geography and the role's account, the second holds neither rule
    descriptions = [
        a["AssertDescription"] for r in (RULE_ID, ACCOUNT_RULE_ID) for a in agnostic["Rules"][r]["Assertions"]
    ]
    assert any("us. system inference profiles" in d for d in descriptions)
    assert any(f"are in account {ACCOUNT}" in d for d in descriptions)
    assert not {RULE_ID, ACCOUNT_RULE_ID} & set(template.get("Rules", {}))


def test_the_plan_shows_the_deployable_regions_and_account_and_why() -> None:
    # GIVEN an environment-agnostic platform with a us. profile granted to a role of 111122223333
    profile = f"    - {{name: team-a, model: us.{HAIKU}, invoke_role_arns: ['{ROLE}']}}\n"
    doc = plan_platform(parse_config(_config(profile))).to_json()["regions"]
    # THEN the plan's deployable Regions are US source Regions only, and it names the one deployable account
    assert doc["deployable_regions"] and set(doc["deployable_regions"]) <= {
        "ca-central-1",
        "us-east-1",
        "us-east-2",
        "us-west-1",
        "us-west-2",
    }
    assert doc["deployable_accounts"] == [ACCOUNT]
    (need,) = doc["account_requirements"]
    assert need["needed_by"] == ["bedrock.profiles[0].invoke_role_arns[0]"]
