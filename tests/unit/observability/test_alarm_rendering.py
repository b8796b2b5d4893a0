"""The CfnAlarm helpers render what the L2 ``cloudwatch.Alarm`` renders for the same metric (CDK is the oracle)."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cloudwatch_actions
from aws_cdk import aws_sns as sns
from aws_cdk.assertions import Template

from inference_constructs.observability.alarm_resources import (
    COMPARISON_OPERATORS,
    TREAT_MISSING_DATA,
    AlarmMath,
    AlarmMetric,
    add_alarm,
    add_anomaly_alarm,
    js_number,
)

_DIMS = (("EndpointName", "chat"), ("VariantName", "AllTraffic"))
_GT = cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD
_NB = cloudwatch.TreatMissingData.NOT_BREACHING
#: Settings both sides of the static-alarm comparison get.
_STATIC: dict[str, Any] = {
    "threshold": 5,
    "comparison_operator": _GT,
    "evaluation_periods": 3,
    "datapoints_to_alarm": 2,
    "treat_missing_data": _NB,
}


def _l2_metric(m: AlarmMetric) -> cloudwatch.Metric:
    return cloudwatch.Metric(
        namespace=m.namespace,
        metric_name=m.metric_name,
        dimensions_map=dict(m.dimensions),
        statistic=m.statistic,
        period=Duration.seconds(m.period_seconds),
        unit=cloudwatch.Unit(m.unit.upper()) if m.unit else None,
        account=m.account_id,
    )


def _l2(spec: AlarmMetric | AlarmMath) -> cloudwatch.IMetric:
    if isinstance(spec, AlarmMetric):
        return _l2_metric(spec)
    return cloudwatch.MathExpression(
        expression=spec.expression,
        using_metrics={k: _l2_metric(m) for k, m in spec.using},
        label=spec.label,
        period=Duration.seconds(spec.using[0][1].period_seconds),
    )


def _stacks() -> tuple[Stack, Stack, sns.Topic, sns.Topic]:
    app = App()
    env = {"account": "111111111111", "region": "us-east-1"}
    l2_stack, l1_stack = Stack(app, "L2", env=env), Stack(app, "L1", env=env)
    return l2_stack, l1_stack, sns.Topic(l2_stack, "Topic"), sns.Topic(l1_stack, "Topic")


def _alarm(template: Template, logical_id: str) -> dict[str, Any]:
    resource: dict[str, Any] = template.to_json()["Resources"][logical_id]
    return resource


_LATENCY = AlarmMetric("AWS/SageMaker", "ModelLatency", _DIMS, "p99", 60, unit="Microseconds")
_ERRORS = AlarmMetric("AWS/SageMaker", "Invocation5XXErrors", _DIMS, "Average", 60)
_OTHER_ACCOUNT = AlarmMetric("AWS/SageMaker", "Invocations", _DIMS, "Sum", 300, account_id="222222222222")
_SAME_ACCOUNT = AlarmMetric("AWS/SageMaker", "Invocations", _DIMS, "Sum", 300, account_id="111111111111")
_RATE = AlarmMath(
    "100*errors5xx/invocations",
    (
        ("errors5xx", AlarmMetric("AWS/SageMaker", "Invocation5XXErrors", _DIMS, "Sum", 300)),
        ("invocations", AlarmMetric("AWS/SageMaker", "Invocations", _DIMS, "Sum", 300)),
    ),
    label="5XX error rate (%)",
)
_RATE_OTHER_ACCOUNT = AlarmMath(
    "100*errors5xx/invocations",
    (
        ("errors5xx", AlarmMetric("AWS/SageMaker", "Invocation5XXErrors", _DIMS, "Sum", 300, account_id="2" * 12)),
        ("invocations", _OTHER_ACCOUNT),
    ),
    label="5XX error rate (%)",
)


@pytest.mark.parametrize(
    "spec",
    [_LATENCY, _ERRORS, _OTHER_ACCOUNT, _RATE, _RATE_OTHER_ACCOUNT],
    ids=["extended-stat-unit", "simple-stat", "cross-account", "math", "math-cross-account"],
)
def test_static_alarm_renders_like_the_l2_alarm(spec: AlarmMetric | AlarmMath) -> None:
    # GIVEN the same metric as an L2 alarm with an SNS action and through add_alarm, in identical stacks
    l2_stack, l1_stack, l2_topic, l1_topic = _stacks()
    alarm = cloudwatch.Alarm(
        l2_stack,
        "Alarm",
        metric=_l2(spec),
        alarm_description="five percent",
        **_STATIC,
    )
    alarm.add_alarm_action(cloudwatch_actions.SnsAction(l2_topic))
    alarm.add_ok_action(cloudwatch_actions.SnsAction(l2_topic))
    cfn = add_alarm(
        l1_stack,
        "Alarm",
        spec,
        description="five percent",
        **_STATIC,
        actions=[l1_topic.topic_arn],
        ok_actions=[l1_topic.topic_arn],
    )
    # WHEN synthesized THEN the logical ids and the whole resources are equal
    l2_id = l2_stack.get_logical_id(alarm.node.default_child)  # type: ignore[arg-type]
    assert l1_stack.get_logical_id(cfn) == l2_id
    assert _alarm(Template.from_stack(l1_stack), l2_id) == _alarm(Template.from_stack(l2_stack), l2_id)


@pytest.mark.parametrize("std_devs", [2.0, 2.5, 3])
@pytest.mark.parametrize("metric", [_LATENCY, _OTHER_ACCOUNT, _SAME_ACCOUNT], ids=["local", "cross", "same-account"])
def test_anomaly_alarm_renders_like_the_l2_anomaly_alarm(std_devs: float, metric: AlarmMetric) -> None:
    # GIVEN the same metric as an L2 AnomalyDetectionAlarm and through add_anomaly_alarm
    l2_stack, l1_stack, l2_topic, l1_topic = _stacks()
    alarm = cloudwatch.AnomalyDetectionAlarm(
        l2_stack,
        "Anomaly",
        metric=_l2_metric(metric),
        std_devs=std_devs,
        evaluation_periods=3,
        datapoints_to_alarm=3,
        comparison_operator=cloudwatch.ComparisonOperator.LESS_THAN_LOWER_OR_GREATER_THAN_UPPER_THRESHOLD,
        treat_missing_data=_NB,
        alarm_description="band",
    )
    alarm.add_alarm_action(cloudwatch_actions.SnsAction(l2_topic))
    # The L2 drops an account equal to the stack's; callers pass None then (InferenceAlarms._account).
    same = metric.account_id == l1_stack.account
    cfn = add_anomaly_alarm(
        l1_stack,
        "Anomaly",
        AlarmMetric(
            metric.namespace,
            metric.metric_name,
            metric.dimensions,
            metric.statistic,
            metric.period_seconds,
            metric.unit,
            None if same else metric.account_id,
        ),
        std_devs=std_devs,
        evaluation_periods=3,
        datapoints_to_alarm=3,
        comparison_operator=cloudwatch.ComparisonOperator.LESS_THAN_LOWER_OR_GREATER_THAN_UPPER_THRESHOLD,
        treat_missing_data=_NB,
        description="band",
        actions=[l1_topic.topic_arn],
    )
    # WHEN synthesized THEN equal
    l2_id = l2_stack.get_logical_id(alarm.node.default_child)  # type: ignore[arg-type]
    assert l1_stack.get_logical_id(cfn) == l2_id
    assert _alarm(Template.from_stack(l1_stack), l2_id) == _alarm(Template.from_stack(l2_stack), l2_id)


def test_every_cdk_operator_and_missing_data_mode_has_its_cloudformation_value() -> None:
    # GIVEN every member of the CDK enums WHEN rendered through the L2 alarm THEN the maps agree with CDK
    app = App()
    stack = Stack(app, "S")
    metric = _l2_metric(_ERRORS)
    for i, op in enumerate(cloudwatch.ComparisonOperator):
        if "UPPER" in op.name or "LOWER" in op.name:
            continue  # anomaly-band operators need a band; checked in the anomaly test
        cloudwatch.Alarm(stack, f"Op{i}", metric=metric, threshold=1, evaluation_periods=1, comparison_operator=op)
    for i, mode in enumerate(cloudwatch.TreatMissingData):
        cloudwatch.Alarm(stack, f"Md{i}", metric=metric, threshold=1, evaluation_periods=1, treat_missing_data=mode)
    props = [r["Properties"] for r in Template.from_stack(stack).to_json()["Resources"].values()]
    rendered_ops = [p["ComparisonOperator"] for p in props if "TreatMissingData" not in p]
    rendered_modes = [p["TreatMissingData"] for p in props if "TreatMissingData" in p]
    assert rendered_ops == [
        v for k, v in COMPARISON_OPERATORS.items() if "UPPER" not in k.name and "LOWER" not in k.name
    ]
    assert rendered_modes == list(TREAT_MISSING_DATA.values())
    assert set(COMPARISON_OPERATORS) == set(cloudwatch.ComparisonOperator)
    assert set(TREAT_MISSING_DATA) == set(cloudwatch.TreatMissingData)


@pytest.mark.parametrize(("value", "text"), [(2.0, "2"), (2, "2"), (2.5, "2.5"), (0.1, "0.1"), (10.0, "10")])
def test_js_number(value: float, text: str) -> None:
    # GIVEN a band width WHEN formatted THEN as JavaScript would print it in the expression
    assert js_number(value) == text
