"""The expression validator: it accepts what the library emits and fails on each kind of mistake."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inference_constructs.observability.validate import (
    check_alarm,
    check_expression,
    resolve_to_string,
    validate_dashboard_body,
    validate_template,
)

GOOD_SEARCH = "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"ModelLatency\"', 'p99')"


def _graph(*entries: dict[str, Any] | list[Any]) -> dict[str, Any]:
    rows = [e if isinstance(e, list) else [e] for e in entries]
    return {"type": "metric", "properties": {"title": "t", "metrics": rows}}


@pytest.mark.parametrize(
    "expression",
    [
        GOOD_SEARCH,
        f"{GOOD_SEARCH}/1000",
        "100*SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"Invocation5XXErrors\"', 'Average')",
        'SEARCH(\'{AWS/Bedrock,ModelId} (MetricName="CacheReadInputTokens" OR '
        'MetricName="CacheReadInputTokenCount") :aws.AccountId = ("111122223333" OR "444455556666")\', \'Sum\')',
        "SEARCH('{AWS/Bedrock,ModelId} ModelId=\"a\\(b\" MetricName=\"Invocations\"', 'p99.9')",
        "SEARCH('{AWS/Billing,Currency} Currency=\"USD\" MetricName=\"EstimatedCharges\"', 'Maximum', 86400)",
        "SEARCH('{AWS/SageMaker,EndpointName} MetricName=\"ApproximateBacklogSize\"', 'TM(10%:90%)')",
        "SUM(a)/SUM(b)",
    ],
)
def test_accepts_valid_expressions(expression: str) -> None:
    # GIVEN a valid expression / WHEN checked with ids a and b defined / THEN no problem
    assert check_expression(expression, defined_ids={"a", "b"}) == []


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ("SEARCH('{AWS/SageMaker,EndpointName} MetricName=\"ModelLatency\"', 'avg')", "statistic 'avg' is not"),
        ("SEARCH('{AWS/Sagemaker,EndpointName} MetricName=\"ModelLatency\"', 'Sum')", "namespace 'AWS/Sagemaker'"),
        ("SEARCH('{AWS/Bedrock,Model} MetricName=\"Invocations\"', 'Sum')", "dimension names ['Model'] do not exist"),
        ("SEARCH('{AWS/Bedrock,ModelId} MetricName=\"Invocation\"', 'Sum')", "metric 'Invocation' does not exist"),
        ("SEARCH('{AWS/Bedrock,ModelId} EndpointName=\"x\"', 'Sum')", "dimension 'EndpointName' does not exist"),
        ("SEARCH('{AWS/Bedrock,ModelId} MetricName=\"Invocations', 'Sum')", "unbalanced double quotes"),
        ("SEARCH('{AWS/Bedrock,ModelId} (MetricName=\"Invocations\"', 'Sum')", "unbalanced parentheses"),
        ("SEARCH('{AWS/Bedrock,ModelId MetricName=\"Invocations\"', 'Sum')", "metric schema '{' is not closed"),
        ("SEARCH('{AWS/Bedrock,ModelId} MetricName=\"Invocations\"', 'Sum'", "missing closing parenthesis"),
        ("SEARCH('{AWS/Bedrock,ModelId} MetricName=\"Invocations\", 'Sum')", "malformed SEARCH"),
        ("SEARCH({AWS/Bedrock,ModelId}, 'Sum')", "expected a single-quoted string"),
        ("search('{AWS/Bedrock,ModelId} MetricName=\"Invocations\"', 'Sum')", "SEARCH must be written in upper case"),
        ("SEARCH('{AWS/Bedrock,ModelId} Invocations or Throttles', 'Sum')", "boolean operator 'or' must be upper"),
        ("SEARCH('{AWS/Bedrock,ModelId} :aws.AccountId = (\"1\" OR \"111122223333\")', 'Sum')", "account id '1'"),
        (f"{GOOD_SEARCH} + " + "x" * 1024, "characters long; the limit is 1024"),
        ("SUM(a)/SUM(missing)", "uses undefined ids ['missing']"),
    ],
)
def test_fails_on_invalid_expression(expression: str, problem: str) -> None:
    # GIVEN an invalid expression / WHEN checked / THEN the problem is named
    problems = check_expression(expression, defined_ids={"a"})
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    ("widget", "problem"),
    [
        (_graph({"expression": "a*2", "id": "Bad"}), "id 'Bad' does not match"),
        (_graph({"expression": "1", "id": "a"}, {"expression": "2", "id": "a"}), "ids ['a'] are defined more than"),
        (_graph(["AWS/SageMaker", "Invocation", "EndpointName", "x", {}]), "metric 'Invocation' does not exist"),
        (_graph(["AWS/SageMaker", "Invocations", "Endpoint", "x", {}]), "dimension names ['Endpoint']"),
        (_graph(["Custom/Ns", "Invocations", {}]), "namespace 'Custom/Ns'"),
        (_graph(["AWS/SageMaker", "Invocations", {"stat": "P99"}]), "statistic 'P99' is not"),
        (_graph(*[{"expression": GOOD_SEARCH, "id": f"s{i}"} for i in range(101)]), "101 SEARCH expressions"),
    ],
)
def test_fails_on_invalid_widget(widget: dict[str, Any], problem: str) -> None:
    # GIVEN a dashboard with one bad widget / WHEN validated / THEN the widget's problem is reported
    problems = validate_dashboard_body({"widgets": [widget]})
    assert any(problem in p for p in problems), problems


def test_fails_on_more_than_500_widgets() -> None:
    # GIVEN 501 text widgets / WHEN validated / THEN the widget limit is reported
    body = {"widgets": [{"type": "text", "properties": {"markdown": "x"}}] * 501}
    assert validate_dashboard_body(body) == ["dashboard: 501 widgets; a dashboard holds at most 500"]


def test_fails_on_body_that_is_not_json() -> None:
    # GIVEN a broken body / WHEN validated / THEN it says so
    assert validate_dashboard_body("{widgets")[0].startswith("dashboard: the body is not valid json")


def test_resolves_join_and_intrinsics_to_placeholders() -> None:
    # GIVEN a CDK-style Fn::Join body with Ref and GetAtt parts
    value = {"Fn::Join": ["", ['{"r":"', {"Ref": "AWS::Region"}, '","p":"', {"Fn::GetAtt": ["Prof", "Id"]}, '"}']]}
    # WHEN resolved / THEN it is JSON with placeholder strings
    assert json.loads(resolve_to_string(value)) == {"r": "TOKEN_AWS_Region", "p": "TOKEN_Prof_Id"}


def _alarm(**properties: Any) -> dict[str, Any]:
    return {"ComparisonOperator": "GreaterThanThreshold", "EvaluationPeriods": 1, **properties}


def test_fails_on_alarm_over_search() -> None:
    # GIVEN an alarm whose metric math contains SEARCH / WHEN checked / THEN it is refused
    alarm = _alarm(Metrics=[{"Id": "s", "Expression": f"MAX({GOOD_SEARCH})", "ReturnData": True}], Threshold=1)
    assert "references a SEARCH expression; cloudwatch cannot alarm on SEARCH" in check_alarm(alarm)


@pytest.mark.parametrize(
    ("properties", "problem"),
    [
        (
            {"Metrics": [{"Id": "m0", "MetricStat": {"Stat": "p99", "Period": 300}}], "ThresholdMetricId": "band"},
            "ThresholdMetricId 'band' is not one of the metric ids",
        ),
        (
            {"Metrics": [{"Id": "m0", "MetricStat": {"Stat": "Sum", "Period": 300}}], "ThresholdMetricId": "m0"},
            "needs exactly one ANOMALY_DETECTION_BAND, found 0",
        ),
        (
            {
                "Metrics": [
                    {"Id": "m0", "MetricStat": {"Stat": "Sum", "Period": 300}},
                    {"Id": "e", "Expression": "SUM(METRICS())"},
                    {"Id": "band", "Expression": "ANOMALY_DETECTION_BAND(e, 2)"},
                ],
                "ThresholdMetricId": "band",
            },
            "an anomaly alarm cannot use the METRICS() function",
        ),
        ({"Metrics": [{"Id": "M0", "Expression": "1"}]}, "metric id 'M0' does not match"),
        ({"Metrics": [{"Id": "e", "Expression": "x/2"}]}, "uses undefined ids ['x']"),
        ({"Period": 3000, "EvaluationPeriods": 30, "Threshold": 1}, "period 3000 s × 30 evaluation periods exceeds"),
    ],
)
def test_fails_on_invalid_alarm(properties: dict[str, Any], problem: str) -> None:
    # GIVEN an alarm with one mistake / WHEN checked / THEN the mistake is named
    problems = check_alarm(_alarm(**properties))
    assert any(problem in p for p in problems), problems


def test_validate_template_prefixes_logical_ids() -> None:
    # GIVEN a template with a bad dashboard, an alarm on SEARCH, and an unrelated resource
    template = {
        "Resources": {
            "Dash": {
                "Type": "AWS::CloudWatch::Dashboard",
                "Properties": {"DashboardBody": json.dumps({"widgets": [_graph({"expression": "q", "id": "z"})]})},
            },
            "Alarm": {
                "Type": "AWS::CloudWatch::Alarm",
                "Properties": _alarm(Metrics=[{"Id": "s", "Expression": GOOD_SEARCH}], Threshold=1),
            },
            "Topic": {"Type": "AWS::SNS::Topic", "Properties": {}},
        }
    }
    # WHEN validated / THEN each problem names its resource
    assert validate_template(template) == [
        "Dash widget 0 (t): expression 'q' uses undefined ids ['q']",
        "Alarm: references a SEARCH expression; cloudwatch cannot alarm on SEARCH",
    ]
