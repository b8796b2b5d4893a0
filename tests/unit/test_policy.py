"""A policy document built from IAM JSON renders as the same document built from ``iam.PolicyStatement`` objects,
minimized alike under ``@aws-cdk/aws-iam:minimizePolicies``."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3

from inference_constructs._policy import allow, document

MINIMIZE = {"@aws-cdk/aws-iam:minimizePolicies": True}


def _rendered(context: dict[str, Any], build: Any) -> Any:
    stack = Stack(App(context=context), "Policy")
    bucket = s3.Bucket(stack, "Bucket")
    policy = iam.ManagedPolicy(stack, "P", document=build(bucket.bucket_arn))
    return stack.resolve(policy.document)


def _as_json(arn: str) -> iam.PolicyDocument:
    return document(
        [
            allow(["s3:GetObject"], [f"{arn}/a/*"]),
            allow(["s3:GetObject"], [f"{arn}/b/*"]),
            allow(["s3:ListBucket"], [arn], {"StringLike": {"s3:prefix": ["a/*"]}}),
            allow(["cloudwatch:PutMetricData"], ["*"]),
        ]
    )


def _as_objects(arn: str) -> iam.PolicyDocument:
    return iam.PolicyDocument(
        statements=[
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[f"{arn}/a/*"]),
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[f"{arn}/b/*"]),
            iam.PolicyStatement(
                actions=["s3:ListBucket"], resources=[arn], conditions={"StringLike": {"s3:prefix": ["a/*"]}}
            ),
            iam.PolicyStatement(actions=["cloudwatch:PutMetricData"], resources=["*"]),
        ]
    )


def _mixed(arn: str) -> iam.PolicyDocument:
    return document(
        [
            allow(["s3:GetObject"], [f"{arn}/a/*"]),
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[f"{arn}/b/*"]),
            allow(["s3:ListBucket"], [arn], {"StringLike": {"s3:prefix": ["a/*"]}}),
            iam.PolicyStatement(actions=["cloudwatch:PutMetricData"], resources=["*"]),
        ]
    )


@pytest.mark.parametrize("context", [{}, MINIMIZE], ids=["as given", "minimized"])
@pytest.mark.parametrize("build", [_as_json, _mixed], ids=["json", "json and objects"])
def test_a_document_of_iam_json_renders_as_one_of_statement_objects(context: dict[str, Any], build: Any) -> None:
    # GIVEN the same statements as IAM JSON (or some of them as objects) and as PolicyStatement objects
    # WHEN each is a managed policy's document THEN both render alike, minimized or not
    assert _rendered(context, build) == _rendered(context, _as_objects)


def test_minimizing_merges_the_statements_of_a_json_document() -> None:
    # GIVEN two reads of one action on two prefixes WHEN minimized THEN they are one statement (the check above
    # cannot pass by both sides skipping minimization)
    statements = _rendered(MINIMIZE, _as_json)["Statement"]
    assert len(statements) == 3
    assert [s["Action"] for s in statements].count("s3:GetObject") == 1


def test_allow_writes_the_iam_json_of_an_allow_statement() -> None:
    assert allow(["a:B"], ["*"]) == {"Effect": "Allow", "Action": ["a:B"], "Resource": ["*"]}
    assert allow(["a:B"], ["r"], {"Bool": {"k": "v"}})["Condition"] == {"Bool": {"k": "v"}}
