"""The alarm decisions (pure): which alarms an endpoint, a profile, the governance pieces and the tag activation
get, with which metric, dimensions, threshold or band and evaluation; and that the constructs translate them."""

from __future__ import annotations

import pytest
from aws_cdk import Stack
from aws_cdk.assertions import Template

from inference_constructs.observability.alarms import InferenceAlarms
from inference_constructs.observability.decisions import (
    DEFAULT_SETTINGS,
    AlarmDecision,
    AlarmSettings,
    endpoint_alarm_prefix,
    endpoint_alarms,
    intervention_alarm,
    pending_keys_alarm,
    profile_alarms,
)
from inference_constructs.observability.targets import MonitoredEndpoint
from inference_constructs.spec import EndpointKind


def _by_id(
    kind: EndpointKind, settings: AlarmSettings = DEFAULT_SETTINGS, *, inference_component: bool = False
) -> dict[str, AlarmDecision]:
    alarms = endpoint_alarms(
        kind, prefix="Chat", label="endpoint chat", settings=settings, inference_component=inference_component
    )
    return {a.alarm: a for a in alarms}


def test_an_async_endpoint_alarms_on_its_queue_per_endpoint_and_not_on_invocations() -> None:
    # GIVEN an async endpoint with a 20-minute backlog allowance
    alarms = _by_id(EndpointKind.ASYNC, AlarmSettings(backlog_without_capacity_minutes=20))
    # THEN it has the latency anomaly and the two queue alarms, no Invocations alarm (async publishes none)
    assert sorted(alarms) == ["ChatBacklogWithoutCapacity", "ChatModelLatencyP99Anomaly", "ChatOldestRequestAge"]
    backlog = alarms["ChatBacklogWithoutCapacity"]
    # AND the queue metrics carry EndpointName only, per minute, for the allowance's minutes
    assert backlog.dimensions == ("EndpointName",)
    assert (backlog.period_seconds, backlog.evaluation_periods, backlog.datapoints_to_alarm) == (60, 20, 20)
    assert alarms["ChatModelLatencyP99Anomaly"].dimensions == ("EndpointName", "VariantName")


def test_an_inference_component_endpoint_alarms_on_the_components_metrics() -> None:
    # GIVEN a real-time endpoint served by an inference component
    alarms = _by_id(EndpointKind.REALTIME, inference_component=True)
    # THEN its invocation alarms read the InferenceComponentName dimension, the error rate over two metrics
    rate = alarms["Chat5xxErrorRate"]
    assert rate.dimensions == ("InferenceComponentName",)
    assert rate.expression == "100*errors5xx/invocations"
    assert [m.metric for m in rate.metrics] == ["Invocation5XXErrors", "Invocations"]


def test_a_serverless_cold_start_threshold_is_in_microseconds() -> None:
    # GIVEN a serverless endpoint with a 30 s cold-start budget
    cold = _by_id(EndpointKind.SERVERLESS, AlarmSettings(cold_start_seconds=30))["ChatColdStart"]
    # THEN ModelSetupTime (microseconds) breaches above 30,000,000 in one period
    assert (cold.metric, cold.threshold, cold.evaluation_periods) == ("ModelSetupTime", 30_000_000, 1)


def test_anomaly_alarms_carry_the_configured_band_width() -> None:
    # GIVEN a band of 3.5 standard deviations
    (tokens,) = profile_alarms("team-a", settings=AlarmSettings(anomaly_std_devs=3.5))
    # THEN the profile's token anomaly uses it, above the band only, 3 of 3 five-minute periods
    assert (tokens.kind, tokens.std_devs, tokens.comparison_operator) == ("anomaly", 3.5, "GreaterThanUpperThreshold")
    assert (tokens.period_seconds, tokens.evaluation_periods, tokens.datapoints_to_alarm) == (300, 3, 3)
    assert tokens.construct == "Alarms/TeamAOutputTokensAnomaly"


@pytest.mark.parametrize(("period", "periods"), [(6 * 3600, 8), (7 * 3600, 7), (48 * 3600, 1), (3 * 86400, 1)])
def test_the_pending_keys_alarm_spans_48_hours_of_runs(period: int, periods: int) -> None:
    # WHEN the activation retries every ``period`` seconds
    alarm = pending_keys_alarm(period)
    # THEN the alarm needs every run of 48 hours (rounded up, at least one) to be pending
    assert (alarm.period_seconds, alarm.evaluation_periods, alarm.datapoints_to_alarm) == (period, periods, periods)
    assert alarm.treat_missing_data == "missing"


def test_alarm_prefixes_name_the_variant_unless_all_traffic_and_fall_back_to_the_index() -> None:
    assert endpoint_alarm_prefix("acme-chat") == "AcmeChat"
    assert endpoint_alarm_prefix("acme-chat", "blue") == "AcmeChatBlue"
    assert endpoint_alarm_prefix(None, "blue", 3) == "Endpoint3Blue"
    assert endpoint_alarm_prefix(None, None, 2) == "Endpoint2"


def test_an_intervention_alarm_reads_the_guardrails_rate() -> None:
    alarm = intervention_alarm(1, "support", 12.5)
    assert (alarm.construct, alarm.threshold, alarm.expression) == (
        "Governance/Interventions1",
        12.5,
        "100*intervened/invocations",
    )
    assert alarm.dimensions == ("GuardrailArn", "GuardrailVersion")


def test_inference_alarms_translate_the_decisions_of_their_settings(stack: Stack) -> None:
    # GIVEN alarms for an async endpoint with non-default thresholds
    settings = AlarmSettings(anomaly_std_devs=2.5, oldest_request_age_seconds=600, backlog_without_capacity_minutes=9)
    endpoint = MonitoredEndpoint("batch", kind=EndpointKind.ASYNC)
    InferenceAlarms(
        stack,
        "Alarms",
        endpoints=[endpoint],
        anomaly_std_devs=settings.anomaly_std_devs,
        oldest_request_age_seconds=settings.oldest_request_age_seconds,
        backlog_without_capacity_minutes=settings.backlog_without_capacity_minutes,
    )
    # WHEN the template is read
    alarms = Template.from_stack(stack).find_resources("AWS::CloudWatch::Alarm")
    rendered = {a["Properties"]["AlarmDescription"]: a["Properties"] for a in alarms.values()}
    # THEN each planned alarm is there with its description, threshold and evaluation
    planned = endpoint_alarms(EndpointKind.ASYNC, prefix="Batch", label="endpoint batch", settings=settings)
    assert sorted(rendered) == sorted(a.description for a in planned)
    for decision in planned:
        props = rendered[decision.description]
        assert props["EvaluationPeriods"] == decision.evaluation_periods
        assert props.get("Threshold") == decision.threshold
        assert props["ComparisonOperator"] == decision.comparison_operator
