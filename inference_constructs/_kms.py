"""Customer-managed KMS keys whose policies let one AWS service use them, for this account only (private).

Every key made here has rotation on and two kinds of statement beside CDK's default account-root statement:

* ``DenyGrantsExceptForAwsResources``: ``kms:CreateGrant`` is denied unless the grant is for an AWS resource
  (``kms:GrantIsForAWSResource``) or the caller is an AWS service (``aws:PrincipalIsAWSService``), the
  statement AWS Control Tower's proactive control CT.KMS.PR.3 requires
  (https://docs.aws.amazon.com/controltower/latest/controlreference/kms-rules.html).
* one ``Allow`` per service principal, always scoped to this account and Region through the encryption
  context the service passes (SNS: ``aws:sns:topicArn``; CloudWatch Logs: ``aws:logs:arn``), and through
  ``aws:SourceAccount`` / ``aws:SourceArn`` whenever the service sends them (``...IfExists``: whether CloudWatch
  alarms send them on the KMS call behind an SNS publish is not documented, and a condition that the request
  lacks would silently stop every notification).
"""

from __future__ import annotations

from aws_cdk import ArnFormat, Aws, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from inference_constructs._arns import format_arn

#: The statement CT.KMS.PR.3 looks for (Deny, Principal *, kms:CreateGrant, BoolIfExists on both keys).
DENY_GRANTS_SID = "DenyGrantsExceptForAwsResources"


def deny_grants_statement() -> iam.PolicyStatement:
    """Deny ``kms:CreateGrant`` to everyone unless the grant is for an AWS resource or the caller is a service."""
    return iam.PolicyStatement(
        sid=DENY_GRANTS_SID,
        effect=iam.Effect.DENY,
        principals=[iam.AnyPrincipal()],
        actions=["kms:CreateGrant"],
        resources=["*"],
        conditions={"BoolIfExists": {"kms:GrantIsForAWSResource": "false", "aws:PrincipalIsAWSService": "false"}},
    )


def _key(scope: Construct, construct_id: str, description: str) -> kms.Key:
    key = kms.Key(scope, construct_id, description=description, enable_key_rotation=True)
    key.add_to_resource_policy(deny_grants_statement())
    return key


def alarm_topic_key(scope: Construct, construct_id: str, *, description: str) -> kms.Key:
    """A key for an SNS topic that CloudWatch alarms of this account and Region publish to.

    CloudWatch may generate data keys and decrypt only for SNS topics of this account and Region
    (``kms:EncryptionContext:aws:sns:topicArn``), for alarms of this account (``aws:SourceAccount``,
    ``aws:SourceArn`` when present)."""
    key = _key(scope, construct_id, description)
    stack = Stack.of(scope)
    topics = format_arn(stack, service="sns", resource="*", arn_format=ArnFormat.NO_RESOURCE_NAME)
    alarms = format_arn(
        stack, service="cloudwatch", resource="alarm", resource_name="*", arn_format=ArnFormat.COLON_RESOURCE_NAME
    )
    key.add_to_resource_policy(
        iam.PolicyStatement(
            sid="AllowCloudWatchAlarmsOfThisAccountToPublish",
            principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
            actions=["kms:Decrypt", "kms:GenerateDataKey*"],
            resources=["*"],
            conditions={
                "StringLike": {"kms:EncryptionContext:aws:sns:topicArn": topics},
                "StringEqualsIfExists": {"aws:SourceAccount": Aws.ACCOUNT_ID},
                "ArnLikeIfExists": {"aws:SourceArn": alarms},
            },
        )
    )
    return key


def log_group_key(scope: Construct, construct_id: str, *, description: str) -> kms.Key:
    """A key CloudWatch Logs may use only for log groups of this account and Region
    (``kms:EncryptionContext:aws:logs:arn``, as the CloudWatch Logs user guide's key policy shows)."""
    key = _key(scope, construct_id, description)
    stack = Stack.of(scope)
    log_groups = format_arn(
        stack, service="logs", resource="log-group", resource_name="*", arn_format=ArnFormat.COLON_RESOURCE_NAME
    )
    key.add_to_resource_policy(
        iam.PolicyStatement(
            sid="AllowCloudWatchLogsOfThisAccount",
            principals=[iam.ServicePrincipal(f"logs.{Aws.REGION}.amazonaws.com")],
            actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
            resources=["*"],
            conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn": log_groups}},
        )
    )
    return key
