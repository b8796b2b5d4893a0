"""An endpoint deployed elsewhere, imported by name or ARN, gets invoke grants and metrics like a built one."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Duration, Environment, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Template

from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import IInferenceEndpoint, InferenceEndpoint

ENV = Environment(account="111122223333", region="us-east-1")
ARN = "arn:aws:sagemaker:us-east-1:111122223333:endpoint/team-b-chat"


def _wire(stack: Stack, endpoint: IInferenceEndpoint) -> dict[str, Any]:
    """Code written against the interface only: grant a role invoke, alarm on and graph the 5XX rate."""
    role = iam.Role(stack, "Caller", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    endpoint.grant_invoke(role)
    errors = endpoint.metric("Invocation5XXErrors", period=Duration.minutes(5))
    cloudwatch.Alarm(stack, "Errors", metric=errors, threshold=0.05, evaluation_periods=3)
    cloudwatch.Dashboard(stack, "Board").add_widgets(cloudwatch.GraphWidget(left=[errors]))
    return Template.from_stack(stack).to_json()  # type: ignore[no-any-return]


def _policy_statement(template: dict[str, Any]) -> dict[str, Any]:
    # The grant is one managed policy on the caller's role, never an inline policy (IAMNoInlinePolicy).
    assert not [r for r in template["Resources"].values() if r["Type"] == "AWS::IAM::Policy"]
    (policy,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::IAM::ManagedPolicy"]
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    return statement  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("importer", "argument", "resource"),
    [
        (
            InferenceEndpoint.from_endpoint_name,
            "team-b-chat",
            {
                "Fn::Join": [
                    "",
                    ["arn:", {"Ref": "AWS::Partition"}, ":sagemaker:us-east-1:111122223333:endpoint/team-b-chat"],
                ]
            },
        ),
        (InferenceEndpoint.from_endpoint_arn, ARN, ARN),
    ],
    ids=["by-name", "by-arn"],
)
def test_an_imported_endpoint_gets_invoke_grants_alarms_and_graphs(importer: Any, argument: str, resource: Any) -> None:
    # GIVEN an endpoint another team deployed, imported into a stack by name or ARN
    stack = Stack(App(), "S", env=ENV)
    endpoint = importer(stack, "TeamB", argument)
    # WHEN a role is granted invoke on it and its 5XX rate is alarmed on and graphed through the interface
    template = _wire(stack, endpoint)
    # THEN it implements IInferenceEndpoint, creates no SageMaker resource, grants both invoke actions on its ARN,
    # and the alarm watches its metric on EndpointName + VariantName over 5 minutes
    assert isinstance(endpoint, IInferenceEndpoint)
    assert not [r for r in template["Resources"].values() if r["Type"].startswith("AWS::SageMaker::")]
    statement = _policy_statement(template)
    assert statement["Action"] == ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"]
    assert statement["Resource"] == resource
    (alarm,) = [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert alarm["Dimensions"] == [
        {"Name": "EndpointName", "Value": "team-b-chat"},
        {"Name": "VariantName", "Value": "AllTraffic"},
    ]
    assert (alarm["MetricName"], alarm["Period"], alarm["Namespace"]) == ("Invocation5XXErrors", 300, "AWS/SageMaker")


def test_an_imported_async_endpoint_grants_async_invoke_on_the_lower_cased_arn() -> None:
    # GIVEN an async endpoint with capitals in its name, imported by name with kind "async" (a string)
    stack = Stack(App(), "S", env=ENV)
    endpoint = InferenceEndpoint.from_endpoint_name(stack, "Batch", "Team-B-Batch", kind="async")
    # WHEN a role is granted invoke on it
    template = _wire(stack, endpoint)
    # THEN the grant is InvokeEndpointAsync on the lower-cased ARN, while the metric keeps the exact name
    statement = _policy_statement(template)
    assert statement["Action"] == "sagemaker:InvokeEndpointAsync"
    assert statement["Resource"]["Fn::Join"][1][-1].endswith(":endpoint/team-b-batch")
    assert endpoint.metric_invocations().dimensions == {"EndpointName": "Team-B-Batch", "VariantName": "AllTraffic"}


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (lambda s: InferenceEndpoint.from_endpoint_arn(s, "E", "arn:aws:s3:::bucket/key"), "endpoint_arn"),
        (lambda s: InferenceEndpoint.from_endpoint_name(s, "E", "chat", kind="batch"), "kind"),
        (lambda s: InferenceEndpoint.from_endpoint_name(s, "E", "chat").metric_invocations_per_copy(), "S/E"),
    ],
    ids=["not-an-endpoint-arn", "unknown-kind", "per-copy-metric"],
)
def test_importer_mistakes_name_the_prop(call: Any, path: str) -> None:
    # GIVEN a wrong ARN, an unknown kind, or a per-copy metric on an endpoint whose component is unknown
    # WHEN the importer (or the metric) is called
    # THEN one InferenceConfigError names the prop
    with pytest.raises(InferenceConfigError) as raised:
        call(Stack(App(), "S", env=ENV))
    assert raised.value.problems[0].path == path
