"""The alarms the library renders (rollback alarms, InferenceAlarms) are usable as aws-cdk IAlarm."""

from __future__ import annotations

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_sns as sns
from aws_cdk.assertions import Match, Template

from inference_constructs import InferenceAlarms, InferenceConfigError, ModelSpec, RealtimeEndpoint
from inference_constructs.observability import RenderedAlarm, alarm_of

QWEN = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6)


def test_rollback_and_observability_alarms_take_actions_and_compose() -> None:
    # GIVEN an endpoint's rollback alarms and the InferenceAlarms of the same endpoint
    stack = Stack(App(), "S")
    chat = RealtimeEndpoint(stack, "Chat", model=QWEN)
    topic = sns.Topic(stack, "Pager")
    watched = InferenceAlarms(stack, "Alarms", endpoints=[chat], topic=topic)
    rollback = [alarm_of(a) for a in chat.rollback_alarms]
    errors = alarm_of(next(a for k, a in watched.alarms.items() if k.endswith("ErrorRate")))
    # WHEN they are used as aws-cdk IAlarm: an SNS action, and a composite alarm over them
    rollback[0].add_alarm_action(actions.SnsAction(topic))
    rollback[0].add_ok_action(actions.SnsAction(topic))
    alarms: list[cloudwatch.IAlarm] = [*rollback, errors]
    cloudwatch.CompositeAlarm(
        stack, "Any", alarm_rule=cloudwatch.AlarmRule.any_of(*alarms), actions_enabled=True
    ).add_alarm_action(actions.SnsAction(topic))
    template = Template.from_stack(stack)
    # THEN the rollback alarm notifies the topic and the composite alarm's rule names each alarm's ARN
    topic_ref = {"Ref": stack.get_logical_id(topic.node.default_child)}  # type: ignore[arg-type]
    rollback_id = stack.get_logical_id(chat.rollback_alarms[0])
    template.has_resource(
        "AWS::CloudWatch::Alarm",
        {"Properties": Match.object_like({"AlarmActions": [topic_ref], "OKActions": [topic_ref]})},
    )
    assert rollback_id in template.find_resources(
        "AWS::CloudWatch::Alarm", {"Properties": {"AlarmActions": [topic_ref]}}
    )
    (composite,) = template.find_resources("AWS::CloudWatch::CompositeAlarm").values()
    assert all(isinstance(a, RenderedAlarm) for a in alarms)
    assert str(composite["Properties"]["AlarmRule"]).count("Fn::GetAtt") == 3


def test_fails_alarm_of_an_alarm_the_library_did_not_render() -> None:
    # GIVEN a CfnAlarm made elsewhere WHEN asked for its IAlarm THEN one error says to import it by ARN
    stack = Stack(App(), "S")
    other = cloudwatch.CfnAlarm(stack, "Other", comparison_operator="GreaterThanThreshold", evaluation_periods=1)
    with pytest.raises(InferenceConfigError, match="from_alarm_arn"):
        alarm_of(other)


def test_alarm_of_adds_one_ialarm_beside_the_alarm_and_renders_nothing_more() -> None:
    # GIVEN two apps with the same endpoint
    stacks = [Stack(App(), "S") for _ in range(2)]
    chats = [RealtimeEndpoint(stack, "Chat", model=QWEN) for stack in stacks]
    cfn = chats[0].rollback_alarms[0]
    # WHEN one of them asks for a rollback alarm's IAlarm twice
    first, second = alarm_of(cfn), alarm_of(cfn)
    # THEN it is one RenderedAlarm, the child "Alarm" of the alarm's owner, holding that CfnAlarm,
    # and both templates (resources and logical ids) are the same
    assert first is second
    assert first.node.scope is cfn.node.scope and first.node.id == "Alarm"
    assert first.resource is cfn
    assert Template.from_stack(stacks[0]).to_json() == Template.from_stack(stacks[1]).to_json()


def test_a_rendered_alarm_made_directly_still_owns_its_alarm() -> None:
    # GIVEN a RenderedAlarm made directly with its CfnAlarm as the child "Resource" (its documented form)
    stack = Stack(App(), "S")
    owner = RenderedAlarm(stack, "Direct")
    cfn = cloudwatch.CfnAlarm(owner, "Resource", comparison_operator="GreaterThanThreshold", evaluation_periods=1)
    # WHEN asked for its IAlarm THEN it is the owner itself, reading that CfnAlarm
    assert alarm_of(cfn) is owner and owner.resource is cfn
