"""``endpoint.metric_*(**options)`` take the aws-cdk ``MetricOptions`` names and pass them to ``cloudwatch.Metric``."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk.assertions import Template

from inference_constructs.hosting import RealtimeEndpoint
from inference_constructs.observability import metric_table
from inference_constructs.observability.metric_table import MetricDefinition
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


_ENDPOINT_METHODS = {
    "metric_invocations": metric_table.INVOCATIONS,
    "metric_invocations_per_instance": metric_table.INVOCATIONS_PER_INSTANCE,
    "metric_model_latency": metric_table.MODEL_LATENCY,
    "metric_overhead_latency": metric_table.OVERHEAD_LATENCY,
    "metric_invocation_4xx_errors": metric_table.INVOCATION_4XX_ERRORS,
    "metric_invocation_5xx_errors": metric_table.INVOCATION_5XX_ERRORS,
    "metric_invocation_model_errors": metric_table.INVOCATION_MODEL_ERRORS,
    "metric_concurrent_requests_per_model": metric_table.CONCURRENT_REQUESTS_PER_MODEL,
    "metric_model_setup_time": metric_table.MODEL_SETUP_TIME,
    "metric_cpu_utilization": metric_table.CPU_UTILIZATION,
    "metric_memory_utilization": metric_table.MEMORY_UTILIZATION,
    "metric_disk_utilization": metric_table.DISK_UTILIZATION,
    "metric_gpu_utilization": metric_table.GPU_UTILIZATION,
    "metric_gpu_memory_utilization": metric_table.GPU_MEMORY_UTILIZATION,
    "metric_approximate_backlog_size": metric_table.APPROXIMATE_BACKLOG_SIZE,
    "metric_approximate_backlog_size_per_instance": metric_table.APPROXIMATE_BACKLOG_SIZE_PER_INSTANCE,
    "metric_approximate_age_of_oldest_request": metric_table.APPROXIMATE_AGE_OF_OLDEST_REQUEST,
    "metric_has_backlog_without_capacity": metric_table.HAS_BACKLOG_WITHOUT_CAPACITY,
}


@pytest.mark.parametrize(("method", "row"), list(_ENDPOINT_METHODS.items()), ids=list(_ENDPOINT_METHODS))
def test_each_metric_method_reads_its_row_of_the_metric_table(method: str, row: MetricDefinition) -> None:
    # GIVEN an endpoint WHEN one of its metric_* methods is called without options and alarmed on
    stack = Stack(App(), "S")
    endpoint = RealtimeEndpoint(stack, "Chat", model=LLM)
    props = _alarm_properties(getattr(endpoint, method)(), stack)
    # THEN namespace, name, dimension names, statistic and unit are the row's
    statistic = props.get("Statistic", props.get("ExtendedStatistic"))
    assert (props["Namespace"], props["MetricName"], statistic, props.get("Unit")) == (
        row.namespace,
        row.name,
        row.statistic,
        row.unit,
    )
    assert tuple(d["Name"] for d in props["Dimensions"]) == row.dimensions
