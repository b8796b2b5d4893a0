"""``endpoint.metric_*(**options)`` take the aws-cdk ``MetricOptions`` names and pass them to ``cloudwatch.Metric``."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk.assertions import Template

from inference_constructs.hosting import RealtimeEndpoint
from inference_constructs.spec import ModelSpec

LLM = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7)


def _alarm_properties(metric: cloudwatch.Metric, stack: Stack) -> dict[str, Any]:
    cloudwatch.Alarm(stack, "Alarm", metric=metric, threshold=1, evaluation_periods=1)
    alarms = Template.from_stack(stack).find_resources("AWS::CloudWatch::Alarm")
    (props,) = [a["Properties"] for logical_id, a in alarms.items() if logical_id.startswith("Alarm")]
    return props  # type: ignore[no-any-return]


def test_metric_defaults_are_unchanged_without_options() -> None:
    # GIVEN an endpoint WHEN its p99 latency metric is alarmed on without options
    stack = Stack(App(), "S")
    endpoint = RealtimeEndpoint(stack, "Chat", model=LLM)
    props = _alarm_properties(endpoint.metric_model_latency(), stack)
    # THEN the method's own defaults render: p99 over 60 s in microseconds on EndpointName + VariantName
    assert (props["ExtendedStatistic"], props["Period"], props["Unit"]) == ("p99", 60, "Microseconds")
    assert [d["Name"] for d in props["Dimensions"]] == ["EndpointName", "VariantName"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"period": Duration.minutes(5)}, {"Period": 300, "ExtendedStatistic": "p99"}),
        ({"statistic": "p50"}, {"ExtendedStatistic": "p50", "Period": 60}),
        ({"statistic": "Average"}, {"Statistic": "Average"}),
        ({"unit": cloudwatch.Unit.MILLISECONDS}, {"Unit": "Milliseconds"}),
        ({"dimensions_map": {"EndpointName": "other"}}, {"Dimensions": [{"Name": "EndpointName", "Value": "other"}]}),
        ({"period": None}, {"Period": 60}),
    ],
    ids=["period", "percentile", "statistic", "unit", "dimensions-map-replaces", "none-keeps-default"],
)
def test_metric_options_override_the_method_defaults_in_the_alarm(
    options: dict[str, Any], expected: dict[str, Any]
) -> None:
    # GIVEN an endpoint WHEN its latency metric is asked for with one aws-cdk MetricOptions name and alarmed on
    stack = Stack(App(), "S")
    endpoint = RealtimeEndpoint(stack, "Chat", model=LLM)
    props = _alarm_properties(endpoint.metric_model_latency(**options), stack)
    # THEN the rendered alarm carries the option (the rest keep the method's defaults)
    assert {k: props.get(k) for k in expected} == expected


@pytest.mark.parametrize(
    ("method", "options", "field", "value"),
    [
        ("metric_invocations", {"label": "Requests"}, "label", "Requests"),
        ("metric_gpu_utilization", {"color": "#ff0000"}, "color", "#ff0000"),
        ("metric_invocation_5xx_errors", {"account": "123456789012"}, "account", "123456789012"),
        ("metric_approximate_backlog_size", {"region": "eu-west-1"}, "region", "eu-west-1"),
    ],
)
def test_presentation_and_cross_account_options_reach_the_metric(
    method: str, options: dict[str, Any], field: str, value: str
) -> None:
    # GIVEN an endpoint WHEN a metric is asked for with label, color, account or region
    stack = Stack(App(), "S")
    endpoint = RealtimeEndpoint(stack, "Chat", model=LLM)
    metric: cloudwatch.Metric = getattr(endpoint, method)(**options)
    # THEN the metric (as a graph renders it) carries it
    assert getattr(metric, field) == value
