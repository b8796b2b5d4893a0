"""The stack's shared buckets: access-log delivery by bucket policy, never by ACL, whatever the feature flags."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack

from inference_constructs.hosting import AsyncOptions, Capacity, RealtimeEndpoint
from inference_constructs.spec import ModelSourceKind, ModelSpec
from tests.unit.hosting._synth import lint_findings, logical_ids

FLAG = "@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy"


def _async_stack(context: dict[str, Any]) -> dict[str, Any]:
    """An async endpoint (it creates the shared data bucket, hence the access-log bucket) in an app with ``context``."""
    app = App(context=context)
    stack = Stack(app, "Test")
    RealtimeEndpoint(
        stack,
        "Batch",
        model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/llama/", parameters_billion=8),
        async_inference=AsyncOptions(),
        capacity=Capacity(0, 2),
    )
    template: dict[str, Any] = app.synth().get_stack_by_name("Test").template
    return template


@pytest.mark.parametrize("context", [{}, {FLAG: False}, {FLAG: True}], ids=["bare-app", "flag-off", "flag-on"])
def test_access_log_bucket_has_no_acl_and_lints_clean(context: dict[str, Any]) -> None:
    # GIVEN an async endpoint in an app with or without the bucket-policy log delivery flag
    # WHEN synthesized and linted
    template = _async_stack(context)
    # THEN cfn-lint reports nothing (no W3045 legacy AccessControl) and ACLs are disabled on both buckets
    assert lint_findings(template) == []
    buckets = [template["Resources"][k]["Properties"] for k in logical_ids(template, "AWS::S3::Bucket")]
    assert [b.get("AccessControl") for b in buckets] == [None, None]
    assert [b["OwnershipControls"]["Rules"][0]["ObjectOwnership"] for b in buckets] == ["BucketOwnerEnforced"] * 2


def test_access_logs_are_delivered_by_bucket_policy_from_the_data_bucket_only() -> None:
    # GIVEN an async endpoint in a bare app WHEN synthesized
    template = _async_stack({})
    resources = template["Resources"]
    logs_id, data_id = logical_ids(template, "AWS::S3::Bucket")
    # THEN the data bucket logs to the access-log bucket under data/
    assert resources[data_id]["Properties"]["LoggingConfiguration"] == {
        "DestinationBucketName": {"Ref": logs_id},
        "LogFilePrefix": "data/",
    }
    # AND the access-log bucket policy lets the S3 logging service write there for the data bucket of this account
    policy = next(
        r["Properties"]["PolicyDocument"]
        for r in resources.values()
        if r["Type"] == "AWS::S3::BucketPolicy" and r["Properties"]["Bucket"] == {"Ref": logs_id}
    )
    delivery = [s for s in policy["Statement"] if s.get("Principal") == {"Service": "logging.s3.amazonaws.com"}]
    assert len(delivery) == 1
    assert delivery[0]["Action"] == "s3:PutObject"
    assert delivery[0]["Condition"] == {
        "ArnLike": {"aws:SourceArn": {"Fn::GetAtt": [data_id, "Arn"]}},
        "StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}},
    }


def test_bucket_template_is_the_same_with_and_without_the_flag() -> None:
    # GIVEN the same endpoint with the flag on and off WHEN synthesized THEN the shared buckets are identical
    def buckets(template: dict[str, Any]) -> dict[str, Any]:
        return {k: r for k, r in template["Resources"].items() if r["Type"].startswith("AWS::S3::")}

    assert buckets(_async_stack({FLAG: True})) == buckets(_async_stack({}))
