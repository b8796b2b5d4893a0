"""Alarms and dashboard for guardrail interventions and invocation-log delivery failures."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_sns as sns

from inference_constructs.observability.bedrock_governance import (
    DELIVERY_FAILURE_METRICS,
    BedrockGovernanceMonitoring,
    MonitoredGuardrail,
    MonitoredInvocationLogging,
)
from inference_constructs.observability.validate import validate_template

from .conftest import Synth, cfn_lint, dashboard_body

ARN = "arn:aws:bedrock:us-east-1:123456789012:guardrail/gr1"
GUARDRAIL = MonitoredGuardrail(profile="team-a", arn=ARN, version="3", intervention_alarm_percent=20)


def _alarms(template: dict[str, Any]) -> list[dict[str, Any]]:
    return [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]


def _build(app: App, stack: Stack, *, destinations: tuple[str, ...], dashboard: bool) -> None:
    BedrockGovernanceMonitoring(
        stack,
        "Governance",
        topic=sns.Topic.from_topic_arn(stack, "Topic", "arn:aws:sns:us-east-1:123456789012:alarms"),
        guardrails=[GUARDRAIL],
        invocation_logging=MonitoredInvocationLogging(destinations=destinations),
        dashboard=dashboard,
    )


@pytest.mark.parametrize(
    "destinations", [("s3",), ("cloudwatch_logs",), ("s3", "cloudwatch_logs", "large_data")], ids=str
)
def test_one_delivery_failure_alarm_per_destination(app: App, stack: Stack, destinations: tuple[str, ...]) -> None:
    # GIVEN the configured destinations WHEN synthesized
    _build(app, stack, destinations=destinations, dashboard=False)
    template = app.synth().get_stack_artifact(stack.artifact_id).template
    failures = [a for a in _alarms(template) if a.get("Namespace") == "AWS/Bedrock"]
    # THEN one alarm per destination on its failure metric, no dimensions, any failure in 5 minutes
    assert sorted(a["MetricName"] for a in failures) == sorted(DELIVERY_FAILURE_METRICS[d] for d in destinations)
    for alarm in failures:
        assert "Dimensions" not in alarm
        assert (alarm["Statistic"], alarm["Period"], alarm["Threshold"]) == ("Sum", 300, 1)
        assert alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
        assert alarm["TreatMissingData"] == "notBreaching"


def test_intervention_alarm_is_the_share_of_intervened_evaluations_of_the_guardrail_version(
    app: App, stack: Stack
) -> None:
    _build(app, stack, destinations=(), dashboard=False)
    template = app.synth().get_stack_artifact(stack.artifact_id).template
    (alarm,) = [a for a in _alarms(template) if "Metrics" in a]
    expression, *inputs = alarm["Metrics"]
    # THEN 100*intervened/invocations over the guardrail's ARN and version, above the configured percent for 15 min
    assert expression["Expression"] == "100*intervened/invocations"
    assert {q["MetricStat"]["Metric"]["MetricName"] for q in inputs} == {"InvocationsIntervened", "Invocations"}
    for query in inputs:
        metric = query["MetricStat"]["Metric"]
        assert metric["Namespace"] == "AWS/Bedrock/Guardrails"
        assert metric["Dimensions"] == [
            {"Name": "GuardrailArn", "Value": ARN},
            {"Name": "GuardrailVersion", "Value": "3"},
        ]
    assert (alarm["Threshold"], alarm["EvaluationPeriods"], alarm["DatapointsToAlarm"]) == (20, 3, 3)
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold"


def test_dashboard_graphs_interventions_and_delivery_and_passes_every_gate(
    app: App, stack: Stack, synth: Synth
) -> None:
    # GIVEN alarms and the dashboard WHEN synthesized with the three nag packs
    _build(app, stack, destinations=("s3", "cloudwatch_logs"), dashboard=True)
    template = synth(app, stack)
    # THEN the dashboard has one row per guardrail and one for delivery, and every gate is clean
    titles = [w["properties"]["title"] for w in dashboard_body(template)["widgets"]]
    assert titles == ["Guardrail of team-a: evaluations and interventions", "Invocation log delivery"]
    assert validate_template(template) == []
    assert cfn_lint(template) == []


def test_no_dashboard_unless_asked(app: App, stack: Stack) -> None:
    _build(app, stack, destinations=("s3",), dashboard=False)
    template = app.synth().get_stack_artifact(stack.artifact_id).template
    assert not [r for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Dashboard"]
