"""Every endpoint kind is a CDK Resource behind IInferenceEndpoint, whose default child is the endpoint."""

from __future__ import annotations

from aws_cdk import App, RemovalPolicy, Resource, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk.assertions import Template

from inference_constructs.hosting import IInferenceEndpoint, RealtimeEndpoint, ServerlessEndpoint
from inference_constructs.spec import ModelSourceKind, ModelSpec

TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")


def _invoke(endpoint: IInferenceEndpoint, role: iam.IGrantable) -> str:
    """Code written against the interface only."""
    endpoint.grant_invoke(role)
    return endpoint.metric("Invocations", statistic="Sum").metric_name


def test_endpoint_kinds_are_resources_behind_the_interface() -> None:
    # GIVEN a real-time and a serverless endpoint
    stack = Stack(App(), "S")
    role = iam.Role(stack, "Caller", assumed_by=iam.AccountRootPrincipal())
    endpoints = [
        RealtimeEndpoint(stack, "Chat", model=ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7)),
        ServerlessEndpoint(stack, "Churn", model=TABULAR),
    ]
    # WHEN code written against IInferenceEndpoint uses them, and the removal policy is set on one
    names = [_invoke(e, role) for e in endpoints]
    endpoints[0].apply_removal_policy(RemovalPolicy.RETAIN)
    # THEN both are Resources implementing the interface, the default child is the endpoint itself,
    # and the removal policy lands on the AWS::SageMaker::Endpoint
    assert all(isinstance(e, Resource) and isinstance(e, IInferenceEndpoint) for e in endpoints)
    assert all(isinstance(e.node.default_child, sagemaker.CfnEndpoint) for e in endpoints)
    assert names == ["Invocations", "Invocations"]
    retained = Template.from_stack(stack).find_resources("AWS::SageMaker::Endpoint", {"DeletionPolicy": "Retain"})
    assert len(retained) == 1
