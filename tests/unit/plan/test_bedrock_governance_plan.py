"""The plan for governed Bedrock: which guardrail each profile enforces, the logging section, and one error with key
paths for every mistake (the same check synth runs, since synth plans first)."""

from __future__ import annotations

from typing import Any

import pytest

from inference_constructs.config import parse_config
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform

GOVERNED = """
name: acme
bedrock:
  invocation_logging: {s3: true, cloudwatch_logs: true, retention_days: 90, image_data: true}
  profiles:
    - name: team a
      model: us.anthropic.claude-sonnet-4-5-20250929-v1:0
      invoke_role_arns: ["arn:aws:iam::111122223333:role/app"]
      guardrail:
        content_filters: [{type: HATE}]
        pii_entities: [{type: EMAIL}]
    - name: team-b
      model: anthropic.claude-3-haiku-20240307-v1:0
      guardrail: {id: abc123, version: 4}
    - name: team-c
      model: anthropic.claude-3-haiku-20240307-v1:0
"""


@pytest.fixture(scope="module")
def plan() -> Any:
    return plan_platform(parse_config(GOVERNED))


def test_plan_names_the_guardrail_each_profile_enforces(plan: Any) -> None:
    # GIVEN a created guardrail, an existing one, and a profile without
    a, b, c = plan.to_json()["bedrock"]
    # THEN the created one is named <platform>-<profile> (space turned into '-'), with its policy
    assert a["guardrail"]["source"] == "created"
    assert a["guardrail"]["name"] == "acme-team-a"
    assert a["guardrail"]["content_filters"] == {"HATE": {"input": "HIGH", "output": "HIGH"}}
    assert a["guardrail"]["pii_entities"] == {"EMAIL": "ANONYMIZE"}
    # AND the existing one by id and version (YAML's number 4 is the version "4"), and none for the third
    assert (b["guardrail"]["id"], b["guardrail"]["version"]) == ("abc123", "4")
    assert c["guardrail"] is None
    # AND the table says it too
    assert "bedrock profile team a: enforces guardrail acme-team-a (created)" in plan.table()
    assert "bedrock profile team-b: enforces guardrail abc123 version 4" in plan.table()


def test_plan_carries_the_logging_section(plan: Any) -> None:
    logging = plan.to_json()["bedrock_invocation_logging"]
    assert logging["destinations"] == ["s3", "cloudwatch_logs"]
    assert logging["retention_days"] == 90
    assert logging["data"]["image"] is True
    assert logging["overwrite_existing"] is False


def test_plan_without_logging_has_null_section() -> None:
    assert plan_platform(parse_config("name: acme\n")).to_json()["bedrock_invocation_logging"] is None


def _one_profile(block: str) -> str:
    """A config with one profile whose extra keys are ``block`` (one YAML line)."""
    return f"""
name: acme
bedrock:
  profiles:
    - name: a
      model: anthropic.claude-3-haiku-20240307-v1:0
      {block}
"""


def _problems(text: str) -> str:
    with pytest.raises(InferenceConfigError) as info:
        plan_platform(parse_config(text))
    return str(info.value)


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("guardrail: {pii_entities: [{type: SSN}]}", "bedrock.profiles[0].guardrail.pii_entities[0].type: 'SSN'"),
        ("guardrail: {content_filters: [{type: GORE}]}", "bedrock.profiles[0].guardrail.content_filters[0].type"),
        ("guardrail: {}", "bedrock.profiles[0].guardrail: a guardrail without content_filters"),
        ("guardrail: {id: abc}", "bedrock.profiles[0].guardrail: an existing guardrail needs both id and version"),
        (
            "guardrail: {id: abc, version: 1, content_filters: [{type: HATE}]}",
            "bedrock.profiles[0].guardrail: id references an existing guardrail",
        ),
        ("guardrail: {name: 'has space', content_filters: [{type: HATE}]}", "guardrail.name: 'has space'"),
    ],
)
def test_plan_refuses_guardrail_mistakes_with_key_paths(block: str, message: str) -> None:
    assert message in _problems(_one_profile(block))


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("{retention_days: 100}", "bedrock.invocation_logging.retention_days: 100 is not a CloudWatch Logs retention"),
        ("{s3: false, cloudwatch_logs: false}", "bedrock.invocation_logging: no destination"),
        ("{s3: Not_A_Bucket}", "bedrock.invocation_logging.s3: 'Not_A_Bucket'"),
        ("{text_data: false}", "every data flag is false"),
    ],
)
def test_plan_refuses_logging_mistakes_with_key_paths(block: str, message: str) -> None:
    assert message in _problems(f"name: acme\nbedrock:\n  invocation_logging: {block}\n")


@pytest.mark.parametrize(
    ("block", "path"),
    [
        ("guardrail: {contextual_grounding: {grounding_threshold: 1.5}}", "guardrail.contextual_grounding"),
        ("guardrail: {intervention_alarm_percent: 0}", "guardrail.intervention_alarm_percent"),
        ("guardrail: {content_filters: [{type: HATE, input_strength: EXTREME}]}", "input_strength"),
        ("guardrail: {denied_topics: [{name: t, definition: d, examples: [a, b, c, d, e, f]}]}", "examples"),
        ("guardrail: {colour: red}", "guardrail.colour"),
    ],
)
def test_config_load_refuses_out_of_range_guardrail_keys(block: str, path: str) -> None:
    with pytest.raises(InferenceConfigError, match=path.replace(".", r"\.")):
        parse_config(_one_profile(block))


def test_plan_refuses_one_role_on_the_same_model_with_two_guardrails() -> None:
    # GIVEN one role on two profiles of the same model, one guarded and one not
    text = """
name: acme
bedrock:
  profiles:
    - name: guarded
      model: anthropic.claude-3-haiku-20240307-v1:0
      invoke_role_arns: ["arn:aws:iam::111122223333:role/app"]
      guardrail: {content_filters: [{type: HATE}]}
    - name: open
      model: us.anthropic.claude-3-haiku-20240307-v1:0
      invoke_role_arns: ["arn:aws:iam::111122223333:role/app"]
"""
    # THEN the plan refuses: the guarded profile's Deny would also block the unguarded profile's calls
    message = _problems(text)
    assert "bedrock.profiles[1].invoke_role_arns[0]: role arn:aws:iam::111122223333:role/app" in message
    assert "guardrail acme-guarded" in message
    assert "no guardrail" in message


def test_plan_refuses_a_router_role_that_a_guarded_profile_would_deny() -> None:
    # GIVEN one role on a guarded profile and on a prompt router over the same model
    text = """
name: acme
bedrock:
  profiles:
    - name: guarded
      model: amazon.nova-pro-v1:0
      invoke_role_arns: ["arn:aws:iam::111122223333:role/app"]
      guardrail: {content_filters: [{type: HATE}]}
  routers:
    - name: helpdesk-router
      models: [amazon.nova-lite-v1:0, amazon.nova-pro-v1:0]
      fallback_model: amazon.nova-pro-v1:0
      response_quality_difference: 10
      invoke_role_arns: ["arn:aws:iam::111122223333:role/app"]
"""
    # THEN the plan refuses at the router's key path: router calls carry no guardrail, the Deny would refuse them
    message = _problems(text)
    assert "bedrock.routers[0].invoke_role_arns[0]: role arn:aws:iam::111122223333:role/app" in message
    assert "guardrail acme-guarded" in message


def test_plan_refuses_one_role_on_a_guarded_profile_and_an_unguarded_profile_of_another_model() -> None:
    # GIVEN one role on a guarded Haiku profile and on an unguarded Nova profile
    text = """
name: acme
bedrock:
  profiles:
    - name: guarded
      model: anthropic.claude-3-haiku-20240307-v1:0
      invoke_role_arns: ["arn:aws:iam::111122223333:role/app"]
      guardrail: {content_filters: [{type: HATE}]}
    - name: open
      model: amazon.nova-pro-v1:0
      invoke_role_arns: ["arn:aws:iam::111122223333:role/app"]
"""
    # THEN the plan refuses: the guardrail's Deny covers every model, so the Nova grant could never be used unguarded
    message = _problems(text)
    assert "bedrock.profiles[1].invoke_role_arns[0]: role arn:aws:iam::111122223333:role/app" in message
    assert "(model anthropic.claude-3-haiku-20240307-v1:0) with guardrail acme-guarded" in message
