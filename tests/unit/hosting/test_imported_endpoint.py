"""An endpoint deployed elsewhere, imported by name or ARN, gets invoke grants and metrics like a built one."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, CfnParameter, Duration, Environment, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Template

from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import (
    IInferenceEndpoint,
    ImportedEndpoint,
    InferenceEndpoint,
    MultiModelEndpoint,
    RealtimeEndpoint,
    ServerlessEndpoint,
)
from inference_constructs.observability import MonitoredEndpoint
from inference_constructs.spec import EndpointKind

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


def test_an_endpoint_imported_by_attributes_keeps_its_exact_name_and_its_arn() -> None:
    # GIVEN an endpoint with capitals in its name, imported with both its exact name and its (lower-cased) ARN
    stack = Stack(App(), "S", env=ENV)
    arn = "arn:aws:sagemaker:us-east-1:111122223333:endpoint/team-b-chat"
    endpoint = InferenceEndpoint.from_endpoint_attributes(
        stack, "TeamB", endpoint_name="Team-B-Chat", endpoint_arn=arn, variant_name="Blue"
    )
    # WHEN it is wired through the interface
    template = _wire(stack, endpoint)
    # THEN the grant is on the ARN as given and the metrics use the exact name and the variant
    assert _policy_statement(template)["Resource"] == arn
    (alarm,) = [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert alarm["Dimensions"] == [
        {"Name": "EndpointName", "Value": "Team-B-Chat"},
        {"Name": "VariantName", "Value": "Blue"},
    ]


def test_an_endpoint_imported_by_arn_from_another_region_reads_its_metrics_there() -> None:
    # GIVEN an endpoint of another account and Region, imported by ARN
    stack = Stack(App(), "S", env=ENV)
    endpoint = InferenceEndpoint.from_endpoint_arn(
        stack, "Far", "arn:aws:sagemaker:eu-west-1:444455556666:endpoint/chat"
    )
    # WHEN its environment and a metric are read
    metric = endpoint.metric_model_latency()
    # THEN the ARN gives the Region, the account and the name, and the metric is read in that account and Region
    assert (endpoint.env.region, endpoint.env.account, endpoint.endpoint_name) == ("eu-west-1", "444455556666", "chat")  # type: ignore[attr-defined]
    assert (metric.region, metric.account, metric.statistic) == ("eu-west-1", "444455556666", "p99")


def test_an_endpoint_imported_by_a_token_arn_takes_its_name_from_the_arn_at_deploy_time() -> None:
    # GIVEN an endpoint ARN known only at deploy time (a CloudFormation parameter)
    stack = Stack(App(), "S", env=ENV)
    arn = CfnParameter(stack, "EndpointArn").value_as_string
    # WHEN it is imported by ARN and its 5XX rate is alarmed on
    endpoint = InferenceEndpoint.from_endpoint_arn(stack, "Param", arn)
    template = _wire(stack, endpoint)
    # THEN no check refuses the token, and the name dimension is the ARN's resource name, split at deploy time
    from_arn = {"Fn::Select": [5, {"Fn::Split": [":", {"Ref": "EndpointArn"}]}]}
    (alarm,) = [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert alarm["Dimensions"][0] == {
        "Name": "EndpointName",
        "Value": {"Fn::Select": [1, {"Fn::Split": ["/", from_arn]}]},
    }
    assert _policy_statement(template)["Resource"] == {"Ref": "EndpointArn"}


@pytest.mark.parametrize(
    ("cls", "options", "kind"),
    [
        (InferenceEndpoint, {}, EndpointKind.REALTIME),
        (RealtimeEndpoint, {}, EndpointKind.REALTIME),
        (RealtimeEndpoint, {"kind": "async"}, EndpointKind.ASYNC),
        (ServerlessEndpoint, {}, EndpointKind.SERVERLESS),
        (MultiModelEndpoint, {}, EndpointKind.MULTI_MODEL),
    ],
    ids=["base", "realtime", "realtime-async", "serverless", "multi-model"],
)
def test_an_endpoint_imported_through_a_kind_is_of_that_kind(cls: Any, options: Any, kind: EndpointKind) -> None:
    # GIVEN an endpoint imported through one of the endpoint classes, with or without a kind
    stack = Stack(App(), "S", env=ENV)
    # WHEN it is imported and described for the dashboard
    endpoint = cls.from_endpoint_name(stack, "E", "chat", **options)
    # THEN its kind is the class's, unless the kind option says otherwise
    assert MonitoredEndpoint.of(endpoint).kind is kind


@pytest.mark.parametrize(
    ("attributes", "paths", "message"),
    [
        ({}, ["endpoint_name"], "neither endpoint_name nor endpoint_arn is given"),
        ({"endpoint_name": "team_b"}, ["endpoint_name"], "'team_b' is not a SageMaker endpoint name"),
        ({"endpoint_name": "x" * 64}, ["endpoint_name"], "use 1 to 63 letters"),
        ({"endpoint_arn": "arn:aws:sagemaker:us-east-1:1111:endpoint/chat"}, ["endpoint_arn"], "12-digit account"),
        ({"endpoint_arn": "arn:aws:sagemaker:us-east-1:111122223333:model/chat"}, ["endpoint_arn"], "endpoint/<name>"),
        (
            {"endpoint_name": "chat", "endpoint_arn": ARN},
            ["endpoint_name"],
            "'chat' is not the name in endpoint_arn \\('team-b-chat'\\)",
        ),
        ({"endpoint_name": "chat", "variant_name": ""}, ["variant_name"], "variant_name: is empty"),
        ({"endpoint_arn": "arn:aws:s3:::bucket/key", "kind": "batch"}, ["kind", "endpoint_arn"], "2 problems"),
    ],
    ids=["nothing", "bad-name", "long-name", "bad-account", "not-an-endpoint", "other-name", "no-variant", "two"],
)
def test_fails_on_attributes_sagemaker_refuses(attributes: Any, paths: list[str], message: str) -> None:
    # GIVEN attributes no SageMaker endpoint can have
    # WHEN the endpoint is imported
    # THEN one InferenceConfigError names every wrong argument, its value and what is allowed
    with pytest.raises(InferenceConfigError, match=message) as raised:
        InferenceEndpoint.from_endpoint_attributes(Stack(App(), "S", env=ENV), "E", **attributes)
    assert [p.path for p in raised.value.problems] == paths


def test_the_deprecated_imported_endpoint_warns_and_still_imports() -> None:
    # GIVEN code that builds the public ImportedEndpoint of the previous release
    stack = Stack(App(), "S", env=ENV)
    # WHEN it is constructed
    with pytest.warns(DeprecationWarning, match="from_endpoint_attributes"):
        endpoint = ImportedEndpoint(stack, "Old", endpoint_name="team-b-chat", endpoint_arn=ARN, kind="async")
    # THEN it still is an IInferenceEndpoint with the old defaults and grants
    template = _wire(stack, endpoint)
    assert isinstance(endpoint, IInferenceEndpoint)
    assert (endpoint.variant_name, endpoint.kind) == ("AllTraffic", EndpointKind.ASYNC)
    statement = _policy_statement(template)
    assert (statement["Action"], statement["Resource"]) == ("sagemaker:InvokeEndpointAsync", ARN)
