"""The alarms the library renders (rollback alarms, InferenceAlarms) are usable as aws-cdk IAlarm."""

from __future__ import annotations

import pytest
from aws_cdk import App, RemovalPolicy, Stack, Tags
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
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


def test_an_alarm_as_ialarm_is_the_construct_that_holds_it() -> None:
    # GIVEN an endpoint's two rollback alarms as IAlarm, in an app with aws-cdk's Lambda action permission ids
    app = App(context={"@aws-cdk/aws-cloudwatch-actions:changeLambdaPermissionLogicalIdForLambdaAction": True})
    stack = Stack(app, "S")
    chat = RealtimeEndpoint(stack, "Chat", model=QWEN)
    topic = sns.Topic(stack, "Pager")
    fn = lambda_.Function(
        stack, "Fn", runtime=lambda_.Runtime.PYTHON_3_12, handler="i.h", code=lambda_.Code.from_inline("x")
    )
    first, second = (alarm_of(a) for a in chat.rollback_alarms)
    # WHEN both notify a function, and the first is tagged, ordered after the topic and retained
    first.add_alarm_action(actions.LambdaAction(fn))
    second.add_alarm_action(actions.LambdaAction(fn))
    Tags.of(first).add("team", "ml")
    first.node.add_dependency(topic)
    first.apply_removal_policy(RemovalPolicy.RETAIN)
    # THEN it is the CfnAlarm's own scope (its id names the permission), and tags, the dependency and the removal
    # policy reach the CfnAlarm
    assert first is chat.rollback_alarms[0].node.scope
    resources = Template.from_stack(stack).to_json()["Resources"]
    alarm = resources[stack.get_logical_id(chat.rollback_alarms[0])]
    assert {"Key": "team", "Value": "ml"} in alarm["Properties"]["Tags"]
    assert stack.get_logical_id(topic.node.default_child) in alarm["DependsOn"]  # type: ignore[arg-type]
    assert alarm["DeletionPolicy"] == "Retain"
    permissions = sorted(k for k, r in resources.items() if r["Type"] == "AWS::Lambda::Permission")
    assert len(permissions) == 2
    assert permissions[0].startswith("FnRollback") and permissions[1].startswith("FnRollback")
