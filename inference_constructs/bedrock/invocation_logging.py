"""``ModelInvocationLogging``: Bedrock model invocation logging to encrypted S3 and/or CloudWatch Logs.

There is no CloudFormation resource for it, so a custom resource (``lambda/bedrock_invocation_logging``)
calls ``PutModelInvocationLoggingConfiguration``. The configuration is one per account and Region: the
handler refuses to replace one this stack did not create unless ``overwrite_existing`` is set, restores
the replaced one on delete, and never blocks a stack delete.
"""

from __future__ import annotations

from aws_cdk import Aws, CustomResource, Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from constructs import Construct

from inference_constructs._buckets import retained_bucket
from inference_constructs._handler import HandlerFunction
from inference_constructs._kms import deny_grants_statement
from inference_constructs.bedrock.invocation_logging_plan import (
    LARGE_DATA_PREFIX,
    LOG_STREAM,
    S3_LOG_PREFIX,
    InvocationLoggingSpec,
    check_invocation_logging,
    logging_config,
)
from inference_constructs.bedrock.model_source import raise_if_problems
from inference_constructs.compliance import acknowledge, acknowledge_all

_ACTIONS = (
    "bedrock:GetModelInvocationLoggingConfiguration",
    "bedrock:PutModelInvocationLoggingConfiguration",
    "bedrock:DeleteModelInvocationLoggingConfiguration",
)


class ModelInvocationLogging(Construct):
    """Model invocation logging of the deploy account and Region, with destinations this construct owns.

    * ``Key``: a KMS key (rotation on) encrypting the bucket and both log groups; its policy lets
      CloudWatch Logs use it for log groups of this account and Region, and Bedrock generate data keys
      for S3 delivery only from this account's Bedrock (``aws:SourceAccount`` / ``aws:SourceArn``).
    * ``Bucket`` (``spec.s3`` true): SSE-KMS, TLS only, no public access, versioned, objects expire after
      ``retention_days``; its policy lets ``bedrock.amazonaws.com`` put objects under
      ``AWSLogs/<account>/BedrockModelInvocationLogs/`` and ``large-data/`` with the same conditions.
    * ``LogGroup`` (``spec.cloudwatch_logs``): KMS-encrypted, ``retention_days``; ``DeliveryRole`` is
      trusted by Bedrock with those conditions and may only write the stream ``aws/bedrock/modelinvocations``
      of that group and large data into the bucket.
    * ``Resource``: the custom resource that writes the configuration (``Function`` answers it).

    Parameters
    ----------
    spec:
        Destinations, retention, data flags and ``overwrite_existing``.
    path:
        Key path for problem messages. Default: ``bedrock.invocation_logging``.

    Raises
    ------
    InferenceConfigError
        Listing every problem of ``spec``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        spec: InvocationLoggingSpec,
        path: str = "bedrock.invocation_logging",
    ) -> None:
        super().__init__(scope, construct_id)
        raise_if_problems(check_invocation_logging(spec, path=path))
        self.spec = spec
        self.key = kms.Key(
            self,
            "Key",
            enable_key_rotation=True,
            description="Encrypts Bedrock model invocation logs (S3 bucket and log groups)",
            removal_policy=RemovalPolicy.RETAIN,
        )
        self.key.add_to_resource_policy(deny_grants_statement())  # Control Tower CT.KMS.PR.3
        self._allow_logs_service()
        self.bucket: s3.Bucket | None = None
        """The S3 destination this construct created, or None."""
        bucket_name = spec.existing_bucket
        if spec.creates_bucket:
            self.bucket = self._bucket(spec.retention_days)
            bucket_name = self.bucket.bucket_name
        self.log_group: logs.LogGroup | None = None
        """The CloudWatch Logs destination, or None."""
        self.delivery_role: iam.Role | None = None
        """The role Bedrock assumes to write to the log group, or None."""
        role_policy: iam.ManagedPolicy | None = None
        if spec.cloudwatch_logs:
            self.log_group = self._log_group("LogGroup", spec.retention_days)
            self.delivery_role, role_policy = self._delivery_role(self.log_group, bucket_name)
        config = logging_config(
            spec,
            bucket_name=bucket_name,
            log_group_name=self.log_group.log_group_name if self.log_group else None,
            role_arn=self.delivery_role.role_arn if self.delivery_role else None,
        )
        self.function: lambda_.FunctionBase = self._function()
        """The function that writes the configuration, construct id ``Function`` (an ``IFunction``; its
        ``AWS::Lambda::Function`` is ``function.node.default_child``)."""
        self.resource = CustomResource(
            self,
            "Resource",
            service_token=self.function.function_arn,
            resource_type="Custom::BedrockInvocationLogging",
            properties={"LoggingConfig": config, "OverwriteExisting": str(spec.overwrite_existing).lower()},
            service_timeout=Duration.minutes(5),
        )
        # Bedrock checks the destinations' permissions when the configuration is written.
        bucket_policy = self.bucket.policy if self.bucket is not None else None
        for dependency in (bucket_policy, role_policy, self.function_policy):
            if dependency is not None:
                self.resource.node.add_dependency(dependency)

    # ------------------------------------------------------------------ destinations
    def _source_conditions(self) -> dict[str, dict[str, str]]:
        """Only this account's Bedrock, in this Region (Bedrock user guide, invocation logging setup)."""
        return {
            "StringEquals": {"aws:SourceAccount": Aws.ACCOUNT_ID},
            "ArnLike": {"aws:SourceArn": f"arn:{Aws.PARTITION}:bedrock:{Aws.REGION}:{Aws.ACCOUNT_ID}:*"},
        }

    def _allow_logs_service(self) -> None:
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal(f"logs.{Aws.REGION}.amazonaws.com")],
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                conditions={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": (
                            f"arn:{Aws.PARTITION}:logs:{Aws.REGION}:{Aws.ACCOUNT_ID}:log-group:*"
                        )
                    }
                },
            )
        )

    def _bucket(self, retention_days: int) -> s3.Bucket:
        bucket = retained_bucket(
            self,
            "Bucket",
            encryption=s3.BucketEncryption.KMS,
            encryption_key=self.key,
            lifecycle_rule=s3.LifecycleRule(
                expiration=Duration.days(retention_days), noncurrent_version_expiration=Duration.days(1)
            ),
        )
        prefixes = [S3_LOG_PREFIX.format(account=Aws.ACCOUNT_ID), f"{LARGE_DATA_PREFIX}/"]
        bucket.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("bedrock.amazonaws.com")],
                actions=["s3:PutObject"],
                resources=[bucket.arn_for_objects(f"{p}*") for p in prefixes],
                conditions=self._source_conditions(),
            )
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("bedrock.amazonaws.com")],
                actions=["kms:GenerateDataKey"],
                resources=["*"],
                conditions=self._source_conditions(),
            )
        )
        reason_logs = (
            "this bucket is itself the audit destination of Bedrock invocation logs, written only by the "
            "bedrock.amazonaws.com principal of this account; server access logs of it would need another bucket "
            "whose access logs need another. CloudTrail records its policy and configuration changes"
        )
        reason_replication = (
            "invocation logs hold prompts and responses of this region's Bedrock traffic; replicating them to another "
            "region would move that data out of the region (residency). versioning and retention on stack delete "
            "protect them"
        )
        acknowledge_all(
            bucket,
            [
                ("AwsSolutions-S1", reason_logs),
                ("NIST.800.53.R5-S3BucketLoggingEnabled", reason_logs),
                ("HIPAA.Security-S3BucketLoggingEnabled", reason_logs),
                ("cdk-validator-cfnguard::s3_bucket_logging_enabled_check", reason_logs),  # CT.S3.PR.2
                ("NIST.800.53.R5-S3BucketReplicationEnabled", reason_replication),
                ("HIPAA.Security-S3BucketReplicationEnabled", reason_replication),
            ],
        )
        return bucket

    def _log_group(self, construct_id: str, retention_days: int) -> logs.LogGroup:
        group = logs.LogGroup(self, construct_id, encryption_key=self.key, removal_policy=RemovalPolicy.RETAIN)
        cfn = group.node.default_child
        assert isinstance(cfn, logs.CfnLogGroup)
        cfn.retention_in_days = retention_days  # any value of the CloudWatch Logs set (checked by the spec)
        return group

    def _delivery_role(self, group: logs.LogGroup, bucket_name: str | None) -> tuple[iam.Role, iam.ManagedPolicy]:
        role = iam.Role(
            self,
            "DeliveryRole",
            assumed_by=iam.ServicePrincipal("bedrock.amazonaws.com", conditions=self._source_conditions()),
            description="Lets Bedrock deliver model invocation logs to this stack's log group",
        )
        stream_arn = (
            f"arn:{Aws.PARTITION}:logs:{Aws.REGION}:{Aws.ACCOUNT_ID}:log-group:{group.log_group_name}"
            f":log-stream:{LOG_STREAM}"
        )
        write_logs = ["logs:CreateLogStream", "logs:PutLogEvents"]
        statements = [iam.PolicyStatement(actions=write_logs, resources=[stream_arn])]
        if bucket_name is not None:
            large_data = f"arn:{Aws.PARTITION}:s3:::{bucket_name}/{LARGE_DATA_PREFIX}/*"
            statements.append(iam.PolicyStatement(actions=["s3:PutObject"], resources=[large_data]))
            statements.append(iam.PolicyStatement(actions=["kms:GenerateDataKey"], resources=[self.key.key_arn]))
        policy = iam.ManagedPolicy(
            self,
            "DeliveryPolicy",
            description="Bedrock invocation log delivery: one log stream, and large data under one bucket prefix",
            statements=statements,
            roles=[role],
        )
        if bucket_name is not None:
            bucket_ref = (
                f"<{Stack.of(self).get_logical_id(self.bucket.node.default_child)}>"  # type: ignore[arg-type]
                if self.bucket is not None
                else bucket_name
            )
            acknowledge(
                policy,
                f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::{bucket_ref}/{LARGE_DATA_PREFIX}/*]",
                "Bedrock names large-data objects itself; the grant is limited to s3:PutObject under one prefix "
                "of the invocation-log bucket",
            )
        return role, policy

    # ------------------------------------------------------------------ custom resource
    def _function(self) -> HandlerFunction:
        function_logs = self._log_group("FunctionLogGroup", 365)
        role = iam.Role(
            self,
            "FunctionRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="Writes the Bedrock model invocation logging configuration of this account and Region",
        )
        statements = [
            iam.PolicyStatement(actions=list(_ACTIONS), resources=["*"]),
            iam.PolicyStatement(
                actions=["logs:CreateLogStream", "logs:PutLogEvents"], resources=[f"{function_logs.log_group_arn}:*"]
            ),
        ]
        if self.delivery_role is not None:
            statements.append(
                iam.PolicyStatement(
                    actions=["iam:PassRole"],
                    resources=[self.delivery_role.role_arn],
                    conditions={"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}},
                )
            )
        self.function_policy = iam.ManagedPolicy(
            self,
            "FunctionPolicy",
            description="Bedrock invocation logging configuration calls, passing the delivery role, own logs",
            statements=statements,
            roles=[role],
        )
        function = HandlerFunction(
            self,
            "Function",
            asset="bedrock_invocation_logging",
            timeout=Duration.minutes(2),
            role=role,
            log_group=function_logs,
            description="Writes, restores or deletes the Bedrock model invocation logging configuration",
        )
        log_group_id = Stack.of(self).get_logical_id(function_logs.node.default_child)  # type: ignore[arg-type]
        acknowledge_all(
            self.function_policy,
            [
                (
                    "AwsSolutions-IAM5[Resource::*]",
                    "the model invocation logging configuration is an account-and-region setting with no resource "
                    "ARN, so Get/Put/DeleteModelInvocationLoggingConfiguration take resource *",
                ),
                (
                    f"AwsSolutions-IAM5[Resource::<{log_group_id}.Arn>:*]",
                    "logs:CreateLogStream/PutLogEvents on the streams of this function's own log group only",
                ),
            ],
        )
        once = (
            "invoked only by CloudFormation on create, update and delete of this stack; reserving concurrency would "
            "take capacity from accounts whose concurrency limit is 10"
        )
        sync = "CloudFormation invokes the function synchronously and the handler always answers; nothing to retry"
        vpc = "calls only the public Bedrock control-plane API and touches no VPC resource"
        acknowledge_all(
            function,
            [
                ("NIST.800.53.R5-LambdaConcurrency", once),
                ("HIPAA.Security-LambdaConcurrency", once),
                ("NIST.800.53.R5-LambdaDLQ", sync),
                ("HIPAA.Security-LambdaDLQ", sync),
                ("NIST.800.53.R5-LambdaInsideVPC", vpc),
                ("HIPAA.Security-LambdaInsideVPC", vpc),
                ("cdk-validator-cfnguard::lambda_inside_vpc_check", vpc),  # CT.LAMBDA.PR.3
            ],
        )
        return function


__all__ = ["ModelInvocationLogging"]
