"""InferenceAlarms: anomaly and static alarms, the encrypted SNS topic and its policies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Match, Template

from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability.alarms import InferenceAlarms, check_alarm_settings
from inference_constructs.observability.decisions import AlarmSettings
from inference_constructs.observability.targets import MonitoredEndpoint, MonitoredProfile
from inference_constructs.observability.validate import validate_template
from inference_constructs.spec import EndpointKind
from tests.unit.observability.conftest import Synth, cfn_lint

CHAT = MonitoredEndpoint("chat", kind=EndpointKind.REALTIME, gpu_count=4)
BATCH = MonitoredEndpoint("batch", kind=EndpointKind.ASYNC, gpu_count=1)
EMBED = MonitoredEndpoint("embed", kind=EndpointKind.SERVERLESS)
TEAM_A = MonitoredProfile("team-a", "a1b2c3d4e5f6")


@pytest.fixture
def template(app: App, stack: Stack, synth: Synth) -> dict[str, Any]:
    # GIVEN alarms for a real-time, an async and a serverless endpoint and one profile, band width 2.5
    InferenceAlarms(
        stack,
        "Alarms",
        endpoints=[CHAT, BATCH, EMBED],
        profiles=[TEAM_A],
        anomaly_std_devs=2.5,
        alarm_email="ml-oncall@example.com",
    )
    # WHEN synthesized with the three nag packs
    return synth(app, stack)


def _alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: r["Properties"] for k, r in template["Resources"].items() if r["Type"] == "AWS::CloudWatch::Alarm"}


def _alarm(template: dict[str, Any], construct_id: str) -> dict[str, Any]:
    (props,) = [p for k, p in _alarms(template).items() if k.startswith(f"Alarms{construct_id}")]
    return props


def _metric_stat(props: dict[str, Any], metric_id: str) -> dict[str, Any]:
    (query,) = [q for q in props["Metrics"] if q["Id"] == metric_id]
    stat: dict[str, Any] = query["MetricStat"]
    return stat


_CHAT_DIMENSIONS = [{"Name": "EndpointName", "Value": "chat"}, {"Name": "VariantName", "Value": "AllTraffic"}]


@pytest.mark.parametrize(
    ("construct_id", "metric", "stat", "operator"),
    [
        (
            "TeamAOutputTokensAnomaly",
            {
                "Dimensions": [{"Name": "ModelId", "Value": "a1b2c3d4e5f6"}],
                "MetricName": "OutputTokenCount",
                "Namespace": "AWS/Bedrock",
            },
            "Sum",
            "GreaterThanUpperThreshold",
        ),
        (
            "ChatModelLatencyP99Anomaly",
            {"Dimensions": _CHAT_DIMENSIONS, "MetricName": "ModelLatency", "Namespace": "AWS/SageMaker"},
            "p99",
            "GreaterThanUpperThreshold",
        ),
        (
            "ChatInvocationsAnomaly",
            {"Dimensions": _CHAT_DIMENSIONS, "MetricName": "Invocations", "Namespace": "AWS/SageMaker"},
            "Sum",
            "LessThanLowerOrGreaterThanUpperThreshold",
        ),
    ],
)
def test_anomaly_alarm_uses_band_as_threshold(
    template: dict[str, Any], construct_id: str, metric: dict[str, Any], stat: str, operator: str
) -> None:
    # THEN the alarm compares the metric to ANOMALY_DETECTION_BAND(m0, 2.5) through ThresholdMetricId
    props = _alarm(template, construct_id)
    band = [q for q in props["Metrics"] if "Expression" in q]
    assert band == [
        {
            "Expression": "ANOMALY_DETECTION_BAND(m0, 2.5)",
            "Id": "expr_1",
            "Label": "Anomaly Detection Band",
            "ReturnData": True,
        }
    ]
    assert props["ThresholdMetricId"] == "expr_1"
    assert "Threshold" not in props
    assert props["ComparisonOperator"] == operator
    assert _metric_stat(props, "m0") == {"Metric": metric, "Period": 300, "Stat": stat}
    assert (props["EvaluationPeriods"], props["DatapointsToAlarm"], props["TreatMissingData"]) == (3, 3, "notBreaching")


def test_error_rate_alarm_divides_5xx_by_invocations(template: dict[str, Any]) -> None:
    # THEN the 5XX alarm is 100 * errors / invocations (sums over 5 minutes) above 5 %
    props = _alarm(template, "Chat5xxErrorRate")
    (expression,) = [q for q in props["Metrics"] if "Expression" in q]
    assert expression["Expression"] == "100*errors5xx/invocations"
    assert _metric_stat(props, "errors5xx")["Metric"]["MetricName"] == "Invocation5XXErrors"
    assert _metric_stat(props, "invocations")["Stat"] == "Sum"
    assert (props["Threshold"], props["ComparisonOperator"]) == (5, "GreaterThanThreshold")


def test_async_endpoint_alarms_on_backlog_without_capacity_and_age(template: dict[str, Any]) -> None:
    # THEN the async endpoint has backlog/age alarms on the EndpointName-only dimension and no Invocations alarms
    backlog = _alarm(template, "BatchBacklogWithoutCapacity")
    assert backlog["MetricName"] == "HasBacklogWithoutCapacity"
    assert backlog["Dimensions"] == [{"Name": "EndpointName", "Value": "batch"}]
    assert (backlog["Statistic"], backlog["Period"], backlog["EvaluationPeriods"]) == ("Average", 60, 15)
    assert (backlog["Threshold"], backlog["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")
    age = _alarm(template, "BatchOldestRequestAge")
    assert (age["MetricName"], age["Statistic"], age["Threshold"]) == ("ApproximateAgeOfOldestRequest", "Maximum", 900)
    assert not [k for k in _alarms(template) if k.startswith(("AlarmsBatchInvocations", "AlarmsBatch5xx"))]


def test_serverless_endpoint_alarms_on_cold_start_in_microseconds(template: dict[str, Any]) -> None:
    # THEN the cold-start alarm compares ModelSetupTime (µs) with 60 s
    props = _alarm(template, "EmbedColdStart")
    assert (props["MetricName"], props["Statistic"], props["Threshold"]) == ("ModelSetupTime", "Maximum", 60_000_000)


def test_every_alarm_notifies_the_topic(template: dict[str, Any]) -> None:
    # THEN all 11 alarms send ALARM and OK to the one topic
    alarms = _alarms(template)
    assert len(alarms) == 11
    (topic_id,) = [k for k, r in template["Resources"].items() if r["Type"] == "AWS::SNS::Topic"]
    assert all(p["AlarmActions"] == [{"Ref": topic_id}] == p["OKActions"] for p in alarms.values())


def test_topic_is_kms_encrypted_with_rotating_key_cloudwatch_may_use(template: dict[str, Any]) -> None:
    # THEN the topic uses a customer-managed key with rotation whose policy lets CloudWatch encrypt
    assertions = Template.from_json(template)
    assertions.has_resource_properties(
        "AWS::SNS::Topic", {"KmsMasterKeyId": {"Fn::GetAtt": [Match.string_like_regexp("AlarmsTopicKey"), "Arn"]}}
    )
    assertions.has_resource_properties(
        "AWS::KMS::Key",
        {
            "EnableKeyRotation": True,
            "KeyPolicy": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {
                                "Action": ["kms:Decrypt", "kms:GenerateDataKey*"],
                                "Principal": {"Service": "cloudwatch.amazonaws.com"},
                                "Effect": "Allow",
                            }
                        )
                    ]
                )
            },
        },
    )


def test_topic_policy_denies_non_ssl_and_allows_only_this_accounts_alarms(template: dict[str, Any]) -> None:
    # THEN the topic policy denies publishing without TLS and lets CloudWatch alarms of this account publish
    Template.from_json(template).has_resource_properties(
        "AWS::SNS::TopicPolicy",
        {
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {
                                "Action": "sns:Publish",
                                "Effect": "Deny",
                                "Principal": "*",
                                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                            }
                        ),
                        Match.object_like(
                            {
                                "Action": "sns:Publish",
                                "Effect": "Allow",
                                "Principal": {"Service": "cloudwatch.amazonaws.com"},
                                "Condition": {
                                    "ArnLike": {"aws:SourceArn": Match.any_value()},
                                    "StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}},
                                },
                            }
                        ),
                    ]
                )
            }
        },
    )


def test_email_subscription_is_created(template: dict[str, Any]) -> None:
    # THEN the address is subscribed by email
    Template.from_json(template).has_resource_properties(
        "AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "ml-oncall@example.com"}
    )


def test_template_passes_expression_validator_and_cfn_lint(template: dict[str, Any]) -> None:
    # THEN no alarm references SEARCH, ids and windows are valid, and cfn-lint is clean
    assert validate_template(template) == []
    assert cfn_lint(template) == []


def test_without_email_no_subscription(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN alarms without an email
    InferenceAlarms(stack, "Alarms", profiles=[TEAM_A])
    # WHEN synthesized
    template = synth(app, stack)
    # THEN the topic exists without a subscription
    Template.from_json(template).resource_count_is("AWS::SNS::Subscription", 0)
    Template.from_json(template).resource_count_is("AWS::SNS::Topic", 1)


def test_token_endpoint_name_gets_index_based_ids(stack: Stack) -> None:
    # GIVEN an endpoint whose name is a token
    from aws_cdk import CfnParameter

    name = CfnParameter(stack, "Name").value_as_string
    # WHEN alarms are created / THEN their ids use the index
    alarms = InferenceAlarms(stack, "Alarms", endpoints=[MonitoredEndpoint(name)])
    assert sorted(alarms.alarms) == [
        "Endpoint05xxErrorRate",
        "Endpoint0InvocationsAnomaly",
        "Endpoint0ModelLatencyP99Anomaly",
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"anomaly_std_devs": 0}, r"anomaly_std_devs: 0 is not allowed; use a number above 0"),
        ({"alarm_email": "not-an-email"}, r"alarm_email: 'not-an-email' is not an email address"),
        ({"error_rate_percent": 150}, r"error_rate_percent: 150 is not allowed"),
        (
            {"backlog_without_capacity_minutes": 2000},
            r"backlog_without_capacity_minutes: 2000 is not allowed; use 1..1440",
        ),
        ({"oldest_request_age_seconds": 0}, r"oldest_request_age_seconds: 0 is not allowed"),
        ({"cold_start_seconds": -1}, r"cold_start_seconds: -1 is not allowed"),
        ({"endpoints": [MonitoredEndpoint("x", gpu_count=-2)]}, r"endpoints\[0\].gpu_count: -2 is negative"),
    ],
)
def test_fails_on_invalid_settings(stack: Stack, kwargs: dict[str, Any], message: str) -> None:
    # GIVEN an invalid setting / WHEN the alarms are created / THEN one error names the key and the fix
    with pytest.raises(InferenceConfigError, match=message):
        InferenceAlarms(stack, "Alarms", **kwargs)


def test_collects_every_problem_with_config_path() -> None:
    # GIVEN two bad settings and the config path / WHEN checked / THEN both are reported under that path
    problems = check_alarm_settings(AlarmSettings(anomaly_std_devs=-1), alarm_email="x", path="observability").problems
    assert problems == [
        "observability.anomaly_std_devs: -1 is not allowed; use a number above 0, e.g. 2",
        "observability.alarm_email: 'x' is not an email address; use name@example.com",
    ]


def test_alarms_in_another_stack_notify_the_one_topic_passed_in(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN the topic owned by one InferenceAlarms, and endpoint alarms in a second stack that reuse it
    owner = InferenceAlarms(stack, "Alarms", profiles=[TEAM_A])
    shard = Stack(app, "Shard")
    InferenceAlarms(shard, "Alarms", endpoints=[CHAT], topic=owner.topic)
    # WHEN synthesized
    synth(app, stack)
    template = app.synth().get_stack_artifact(shard.artifact_id).template
    # THEN the second stack creates no topic or key, and its alarms notify the imported topic
    shard_template = Template.from_json(template)
    shard_template.resource_count_is("AWS::SNS::Topic", 0)
    shard_template.resource_count_is("AWS::KMS::Key", 0)
    actions = {json.dumps(a["AlarmActions"]) for a in _alarms(template).values()}
    assert len(actions) == 1
    assert "Fn::ImportValue" in actions.pop()


def test_fails_on_email_with_a_topic_passed_in(app: App, stack: Stack) -> None:
    owner = InferenceAlarms(stack, "Alarms")
    with pytest.raises(InferenceConfigError, match="alarm_email: cannot subscribe to a topic passed in"):
        InferenceAlarms(Stack(app, "Shard"), "Alarms", topic=owner.topic, alarm_email="a@example.com")


def test_alarms_of_a_scale_to_zero_endpoint_read_its_inference_component(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a real-time endpoint served through an inference component
    component = MonitoredEndpoint("playground", gpu_count=1, inference_component_name="playground-component")
    # WHEN its alarms are synthesized
    InferenceAlarms(stack, "Alarms", endpoints=[component])
    template = synth(app, stack)
    # THEN invocation and latency metrics use the InferenceComponentName dimension, never EndpointName
    dims = [
        query["MetricStat"]["Metric"]["Dimensions"]
        for alarm in _alarms(template).values()
        for query in alarm.get("Metrics", [])
        if "MetricStat" in query
    ]
    assert dims
    assert all(d == [{"Name": "InferenceComponentName", "Value": "playground-component"}] for d in dims)


def test_alarms_on_a_linked_source_account_read_that_account(synth: Synth) -> None:
    # GIVEN alarms in a monitoring account's stack on a real-time endpoint and a profile of a source account
    app = App()
    stack = Stack(app, "Monitoring", env={"account": "999988887777", "region": "us-east-1"})
    source = "111122223333"
    InferenceAlarms(
        stack,
        "Alarms",
        endpoints=[MonitoredEndpoint("chat", kind=EndpointKind.REALTIME, gpu_count=4, account_id=source)],
        profiles=[MonitoredProfile("team-a", "a1b2c3d4e5f6", account_id=source)],
    )
    template = synth(app, stack)
    alarms = _alarms(template)
    # THEN every alarm (anomaly, metric math, static) reads each of its metrics from the source account
    queries = [q for props in alarms.values() for q in props["Metrics"] if "MetricStat" in q]
    assert alarms and all("Metrics" in props for props in alarms.values())
    assert queries and {q["AccountId"] for q in queries} == {source}
    # AND none uses SEARCH (CloudWatch alarms need one time series)
    assert validate_template(template) == []
