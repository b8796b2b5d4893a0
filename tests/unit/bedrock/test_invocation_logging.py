"""ModelInvocationLogging: destinations, the Bedrock service role's scope, the custom resource, nag and cfn-lint."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk import App, Stack, Validations
from aws_cdk import aws_iam as iam
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks
from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

from inference_constructs.bedrock import (
    ApplicationInferenceProfile,
    ContentFilter,
    Guardrail,
    GuardrailSpec,
    InvocationLoggingSpec,
    ModelInvocationLogging,
)
from inference_constructs.bedrock.invocation_logging_plan import check_invocation_logging
from inference_constructs.errors import InferenceConfigError

from ._helpers import new_stack, resources

SOURCE_CONDITIONS = {
    "StringEquals": {"aws:SourceAccount": "${AWS::AccountId}"},
    "ArnLike": {"aws:SourceArn": "arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:*"},
}


def _one(stack: Stack, type_name: str) -> tuple[str, dict[str, Any]]:
    (item,) = resources(stack, type_name).items()
    return item


def _logging(spec: InvocationLoggingSpec | None = None) -> Stack:
    stack = new_stack()
    ModelInvocationLogging(stack, "InvocationLogging", spec=spec or InvocationLoggingSpec())
    return stack


def test_custom_resource_writes_both_destinations_with_large_data_in_the_bucket() -> None:
    # GIVEN S3 and CloudWatch Logs destinations
    stack = _logging()
    bucket_id, _ = _one(stack, "AWS::S3::Bucket")
    group_id = next(k for k in resources(stack, "AWS::Logs::LogGroup") if k.startswith("InvocationLoggingLogGroup"))
    role_id, _ = next(
        (k, v)
        for k, v in resources(stack, "AWS::IAM::Role").items()
        if v["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]
        == {"Service": "bedrock.amazonaws.com"}
    )
    # WHEN synthesized THEN the custom resource carries the API's loggingConfig and the overwrite flag
    _, custom = _one(stack, "Custom::BedrockInvocationLogging")
    assert custom["Properties"]["LoggingConfig"] == {
        "textDataDeliveryEnabled": True,
        "imageDataDeliveryEnabled": False,
        "embeddingDataDeliveryEnabled": False,
        "s3Config": {"bucketName": f"${{{bucket_id}}}"},
        "cloudWatchConfig": {
            "logGroupName": f"${{{group_id}}}",
            "roleArn": f"${{{role_id}.Arn}}",
            "largeDataDeliveryS3Config": {"bucketName": f"${{{bucket_id}}}", "keyPrefix": "large-data"},
        },
    }
    assert custom["Properties"]["OverwriteExisting"] == "false"
    # AND CloudFormation stops waiting after 5 minutes even if the function never answers
    assert custom["Properties"]["ServiceTimeout"] == "300"


def test_video_and_audio_flags_are_sent_only_when_true() -> None:
    # GIVEN video on and audio off (a Lambda runtime's older SDK rejects a member it does not know, even false)
    stack = _logging(InvocationLoggingSpec(video_data=True))
    _, custom = _one(stack, "Custom::BedrockInvocationLogging")
    # THEN the configuration names video, and not audio
    config = custom["Properties"]["LoggingConfig"]
    assert config["videoDataDeliveryEnabled"] is True
    assert "audioDataDeliveryEnabled" not in config


def test_delivery_role_is_trusted_by_this_accounts_bedrock_and_writes_one_log_stream() -> None:
    stack = _logging()
    group_id = next(k for k in resources(stack, "AWS::Logs::LogGroup") if k.startswith("InvocationLoggingLogGroup"))
    role = next(
        v
        for v in resources(stack, "AWS::IAM::Role").values()
        if v["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]
        == {"Service": "bedrock.amazonaws.com"}
    )
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Condition"] == SOURCE_CONDITIONS
    policy = next(
        v for k, v in resources(stack, "AWS::IAM::ManagedPolicy").items() if k.startswith("InvocationLoggingDelivery")
    )
    by_action = {
        tuple(sorted(iam_list(s["Action"]))): s["Resource"] for s in policy["Properties"]["PolicyDocument"]["Statement"]
    }
    assert by_action[("logs:CreateLogStream", "logs:PutLogEvents")] == (
        f"arn:${{AWS::Partition}}:logs:${{AWS::Region}}:${{AWS::AccountId}}:log-group:${{{group_id}}}"
        ":log-stream:aws/bedrock/modelinvocations"
    )
    assert by_action[("s3:PutObject",)].endswith("/large-data/*")


def iam_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def test_bucket_is_kms_encrypted_expires_logs_and_admits_only_this_accounts_bedrock() -> None:
    stack = _logging(InvocationLoggingSpec(retention_days=90))
    bucket_id, bucket = _one(stack, "AWS::S3::Bucket")
    props = bucket["Properties"]
    assert (
        props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"][
            "SSEAlgorithm"
        ]
        == "aws:kms"
    )
    assert props["LifecycleConfiguration"]["Rules"][0]["ExpirationInDays"] == 90
    _, policy = _one(stack, "AWS::S3::BucketPolicy")
    (bedrock_put,) = [
        s
        for s in policy["Properties"]["PolicyDocument"]["Statement"]
        if s.get("Principal") == {"Service": "bedrock.amazonaws.com"}
    ]
    assert bedrock_put["Condition"] == SOURCE_CONDITIONS
    assert f"${{{bucket_id}.Arn}}/AWSLogs/${{AWS::AccountId}}/BedrockModelInvocationLogs/*" in bedrock_put["Resource"]


def test_log_groups_are_encrypted_with_the_key_and_keep_the_configured_retention() -> None:
    stack = _logging(InvocationLoggingSpec(retention_days=731))
    key_id, _ = _one(stack, "AWS::KMS::Key")
    groups = resources(stack, "AWS::Logs::LogGroup")
    invocation = next(v for k, v in groups.items() if k.startswith("InvocationLoggingLogGroup"))
    assert invocation["Properties"]["RetentionInDays"] == 731
    assert all(g["Properties"]["KmsKeyId"] == f"${{{key_id}.Arn}}" for g in groups.values())


def test_cloudwatch_only_has_no_bucket_and_no_large_data() -> None:
    stack = _logging(InvocationLoggingSpec(s3=False))
    assert resources(stack, "AWS::S3::Bucket") == {}
    _, custom = _one(stack, "Custom::BedrockInvocationLogging")
    assert "largeDataDeliveryS3Config" not in custom["Properties"]["LoggingConfig"]["cloudWatchConfig"]
    assert "s3Config" not in custom["Properties"]["LoggingConfig"]


def test_existing_bucket_is_named_not_created() -> None:
    stack = _logging(InvocationLoggingSpec(s3="security-audit-logs", cloudwatch_logs=False, overwrite_existing=True))
    assert resources(stack, "AWS::S3::Bucket") == {}
    _, custom = _one(stack, "Custom::BedrockInvocationLogging")
    assert custom["Properties"]["LoggingConfig"]["s3Config"] == {"bucketName": "security-audit-logs"}
    assert custom["Properties"]["OverwriteExisting"] == "true"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (InvocationLoggingSpec(s3=False, cloudwatch_logs=False), "bedrock.invocation_logging: no destination"),
        (InvocationLoggingSpec(retention_days=100), "retention_days: 100 is not a CloudWatch Logs retention"),
        (InvocationLoggingSpec(s3="Bad_Bucket"), "bedrock.invocation_logging.s3: 'Bad_Bucket'"),
        (InvocationLoggingSpec(text_data=False), "every data flag is false"),
    ],
)
def test_fails_on_invalid_logging(spec: InvocationLoggingSpec, message: str) -> None:
    assert any(message in p for p in check_invocation_logging(spec))
    with pytest.raises(InferenceConfigError, match=message):
        _logging(spec)


def test_logging_and_a_guarded_profile_pass_nag_packs_and_cfn_lint() -> None:
    # GIVEN logging to both destinations, a guardrail and a guarded profile with a config role, packs on
    app = App()
    Validations.of(app).add_plugins(AwsSolutionsChecks(app), NIST80053R5Checks(app), HIPAASecurityChecks(app))
    stack = Stack(app, "Governed")
    ModelInvocationLogging(stack, "InvocationLogging", spec=InvocationLoggingSpec())
    guardrail = Guardrail(stack, "Guardrail", spec=GuardrailSpec(name="acme", content_filters=(ContentFilter("HATE"),)))
    profile = ApplicationInferenceProfile(
        stack,
        "Profile",
        name="team-a",
        model="global.anthropic.claude-sonnet-4-5-20250929-v1:0",
        guardrail=guardrail.reference,
        invoke_role_arns=["arn:aws:iam::111122223333:role/app"],
    )
    assert isinstance(profile.invoke_policy, iam.ManagedPolicy)
    # WHEN synthesized (a nag finding raises) and linted THEN nothing is reported
    template = app.synth().get_stack_by_name("Governed").template
    matches = lint(json.dumps(template), config=ManualArgs(regions=["us-east-1", "eu-west-1"]))
    assert [str(m) for m in matches] == []
