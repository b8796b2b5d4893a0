"""Values that cross platform stacks go through SSM parameters, never exports."""

from __future__ import annotations

import json
import re

import pytest
from aws_cdk import App, CfnOutput, Stack, aws_sns
from aws_cdk.assertions import Template

from inference_constructs.stacks._handoff import KEEP_EXPORTS, local_topic, local_value, parameter_name


def _stacks() -> tuple[App, Stack, Stack, aws_sns.Topic]:
    app = App()
    producer, consumer = Stack(app, "p-observability"), Stack(app, "p-hosting-1")
    return app, producer, consumer, aws_sns.Topic(producer, "Topic")


def test_a_value_of_another_stack_is_written_to_ssm_and_read_through_a_template_parameter() -> None:
    # GIVEN a topic in one stack used by another
    _app, producer, consumer, topic = _stacks()
    # WHEN the consumer asks for its ARN twice (two alarms)
    first = local_value(consumer, topic.topic_arn, key="alarm-topic-arn")
    second = local_value(consumer, topic.topic_arn, key="alarm-topic-arn")
    aws_sns.Topic.from_topic_arn(consumer, "Imported", first)
    # THEN the producer writes one parameter with the topic's Ref under a stable name
    produced = Template.from_stack(producer)
    produced.resource_count_is("AWS::SSM::Parameter", 1)
    produced.has_resource_properties(
        "AWS::SSM::Parameter",
        {
            "Name": "/inference-platform/p-observability/alarm-topic-arn",
            "Type": "String",
            "Value": {"Ref": "TopicBFC7AF6E"},
        },
    )
    # AND the consumer reads it through an SSM-typed template parameter, with no import, after the producer
    consumed = consumer.resolve(first)
    assert consumer.resolve(second) == consumed
    parameters = Template.from_stack(consumer).to_json()["Parameters"]
    (parameter,) = [p for k, p in parameters.items() if k != "BootstrapVersion"]
    assert parameter == {
        "Type": "AWS::SSM::Parameter::Value<String>",
        "Default": "/inference-platform/p-observability/alarm-topic-arn",
    }
    assert "Fn::ImportValue" not in json.dumps(Template.from_stack(consumer).to_json())
    assert producer in consumer.dependencies


def test_a_value_of_the_same_stack_or_a_literal_is_left_as_it_is() -> None:
    _app, producer, _consumer, topic = _stacks()
    assert local_value(producer, topic.topic_arn, key="alarm-topic-arn") == topic.topic_arn
    assert (
        local_value(producer, "arn:aws:sns:us-east-1:111122223333:t", key="k") == "arn:aws:sns:us-east-1:111122223333:t"
    )
    assert local_topic(producer, topic) is topic
    Template.from_stack(producer).resource_count_is("AWS::SSM::Parameter", 0)


def test_fails_a_key_outside_the_ssm_name_alphabet() -> None:
    with pytest.raises(ValueError, match=r"handoff key 'a b' must be segments of a-zA-Z0-9_\.-"):
        parameter_name("p-bedrock", "a b")


def test_the_migration_flag_keeps_the_export_an_automatic_reference_made() -> None:
    # GIVEN the export an automatic cross-stack reference creates (what platforms deployed before import)
    _app, producer, consumer, topic = _stacks()
    CfnOutput(consumer, "Arn", value=topic.topic_arn)
    automatic = Template.from_stack(producer).to_json()["Outputs"]
    # WHEN the value is handed over with the keep-exports flag set
    flagged = App(context={KEEP_EXPORTS: "true"})
    producer2, consumer2 = Stack(flagged, "p-observability"), Stack(flagged, "p-hosting-1")
    topic2 = aws_sns.Topic(producer2, "Topic")
    local_value(consumer2, topic2.topic_arn, key="alarm-topic-arn")
    # THEN the producer still exports the same name and value, and the consumer imports nothing
    assert Template.from_stack(producer2).to_json()["Outputs"] == automatic
    assert "Fn::ImportValue" not in json.dumps(Template.from_stack(consumer2).to_json())
    # AND without the flag there is no export
    plain = App()
    producer3, consumer3 = Stack(plain, "p-observability"), Stack(plain, "p-hosting-1")
    local_value(consumer3, aws_sns.Topic(producer3, "Topic").topic_arn, key="alarm-topic-arn")
    assert "Outputs" not in Template.from_stack(producer3).to_json()


def test_profile_names_become_key_segments_that_stay_distinct_after_cdk_drops_punctuation() -> None:
    # GIVEN profile names Bedrock accepts that differ only in punctuation, and a letters-and-digits one
    from inference_constructs.stacks._handoff import key_segment, parameter_name

    names = ["team a", "team-a", "team_a", "teama"]
    # WHEN each becomes a handoff key segment
    segments = [key_segment(n) for n in names]
    # THEN each is a valid SSM name segment, and they stay distinct with only letters and digits kept
    assert segments[3] == "teama"
    assert all(re.fullmatch(r"[a-zA-Z0-9_.-]+", s) for s in segments)
    assert len({re.sub(r"[^A-Za-z0-9]", "", s) for s in segments}) == 4
    assert parameter_name("p-bedrock", f"bedrock-profiles/{segments[0]}/id").count("/") == 5
