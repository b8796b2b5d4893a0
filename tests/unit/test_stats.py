"""Statistic names CloudWatch statistics as aws-cdk's Stats do, and is accepted wherever a statistic string is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from aws_cdk import App, Environment, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk.assertions import Template

from inference_constructs import InferenceEndpoint, Statistic
from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability import MonitoredEndpoint
from inference_constructs.observability.metrics import endpoint_model_latency_ms, fleet_bedrock_metric

Stats = cloudwatch.Stats


@pytest.mark.parametrize(
    ("ours", "cdks"),
    [
        (Statistic.AVERAGE, Stats.AVERAGE),
        (Statistic.SUM, Stats.SUM),
        (Statistic.MINIMUM, Stats.MINIMUM),
        (Statistic.MAXIMUM, Stats.MAXIMUM),
        (Statistic.SAMPLE_COUNT, Stats.SAMPLE_COUNT),
        (Statistic.IQM, Stats.IQM),
        (Statistic.percentile(99), Stats.percentile(99)),
        (Statistic.p(99.9), Stats.p(99.9)),
        (Statistic.p(50.0), Stats.p(50)),
        (Statistic.p(0), Stats.p(0)),
        (Statistic.tm(99), Stats.tm(99)),
        (Statistic.trimmed_mean(10, 90), Stats.trimmed_mean(10, 90)),
        (Statistic.wm(10, 90), Stats.winsorized_mean(10, 90)),
        (Statistic.tc(95), Stats.trimmed_count(95)),
        (Statistic.ts(10, 90), Stats.trimmed_sum(10, 90)),
        (Statistic.pr(100), Stats.percentile_rank(100)),
        (Statistic.percentile_rank(0.5, 1.5), Stats.pr(0.5, 1.5)),
    ],
)
def test_a_statistic_is_the_string_aws_cdk_stats_give(ours: str, cdks: str) -> None:
    # GIVEN a statistic named through Statistic WHEN it is compared with aws-cdk's Stats THEN it is the same string
    assert ours == cdks
    assert f"{ours}" == cdks


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: Statistic.p(101), "percentile"),
        (lambda: Statistic.percentile(-1), "percentile"),
        (lambda: Statistic.tm(10, 100.5), "upper"),
        (lambda: Statistic.wm(True), "lower"),
    ],
    ids=["above-100", "negative", "upper-above-100", "bool"],
)
def test_fails_on_a_percentage_outside_0_to_100(call: Callable[[], str], argument: str) -> None:
    # GIVEN a percentile-based statistic WHEN its percentage is not one THEN the error names the argument
    with pytest.raises(InferenceConfigError, match="is not a percentage; use 0 to 100") as raised:
        call()
    assert raised.value.problems[0].path == argument


def _template(maximum: str, p90: str, total: str) -> dict[str, Any]:
    stack = Stack(App(), "S", env=Environment(account="111122223333", region="us-east-1"))
    endpoint = InferenceEndpoint.from_endpoint_name(stack, "Chat", "chat")
    cloudwatch.Alarm(
        stack, "Busy", metric=endpoint.metric_invocations(statistic=maximum), threshold=1, evaluation_periods=1
    )
    latency = endpoint_model_latency_ms(MonitoredEndpoint.of(endpoint), p90)
    cloudwatch.Dashboard(stack, "Board").add_widgets(
        cloudwatch.GraphWidget(left=[latency, fleet_bedrock_metric("Invocations", total)])
    )
    return Template.from_stack(stack).to_json()  # type: ignore[no-any-return]


def test_a_statistic_member_gives_the_template_its_string_gives() -> None:
    # GIVEN an alarm on a metric_* method, a latency graph and a fleet SEARCH, built once with Statistic members
    # and once with the strings
    with_enum = _template(Statistic.MAXIMUM, Statistic.p(90), Statistic.SUM)
    with_strings = _template("Maximum", "p90", "Sum")
    # WHEN the templates are compared THEN they are the same, and the statistics are CloudWatch's strings
    assert with_enum == with_strings
    (alarm,) = [r["Properties"] for r in with_enum["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert alarm["Statistic"] == "Maximum"
