"""Deploy-time staging of gated and private Hugging Face models into S3 (the default ``model.hf_token`` route).

Per staged model (one per endpoint), under the endpoint:

* ``WeightsStaging/Job``: a CodeBuild project that reads the token from the secret itself (a ``SECRETS_MANAGER``
  environment variable, resolved by CodeBuild when the build starts and masked in its log) and streams the model
  at the pinned commit into the stack's data bucket under ``hub-models/<model id>/<revision>/``
  (``lambda/hub_model_staging_job``). Its role ``JobRole`` may read that secret (and decrypt with its key, when
  one is given) and write that prefix only.
* ``WeightsStaging/Resource``: a ``Custom::HubModelStaging`` custom resource whose properties carry the model id,
  revision and prefix, so a change of any of them stages again, into a new prefix beside the old one. The Model
  takes its ``S3Uri`` attribute, so it is created only once the weights are there.

Per stack, shared by every staged model (``HubModelStagingProvider``): the two handler functions
(``lambda/hub_model_staging``: ``on_event`` starts the build, ``is_complete`` awaits it) behind a CDK
``custom_resources.Provider``, which polls ``is_complete`` from a Step Functions state machine.

Timing (every value here is written once):

* the build may run :data:`BUILD_TIMEOUT` (50 minutes) and wait :data:`QUEUED_TIMEOUT` (5 minutes) in the queue;
* the provider gives up after :data:`TOTAL_TIMEOUT`, 60 minutes: the most ``Provider.totalTimeout`` allows
  (aws-cdk-lib ``custom-resources/lib/provider-framework/provider.ts``: "The maximum timeout is 1 hour"), and
  above build + queue, so a build that runs out of time ends ``TIMED_OUT`` and the resource fails with the
  build's log link rather than with the provider's generic timeout;
* :data:`QUERY_INTERVAL`, 30 seconds between ``BatchGetBuilds`` polls: staging takes minutes (an 8B model is
  about 16 GB), so a poll every 30 s adds at most 30 s to a deploy and makes at most 120 polls per model.

The build runs in CodeBuild's default network (no VPC configuration), because it must reach huggingface.co on
the internet; an endpoint's ``vpc`` applies to the SageMaker model only. Put the job in a VPC with a NAT route
by editing the project if your organisation forbids builds outside one.
"""

from __future__ import annotations

from aws_cdk import ArnFormat, CfnResource, CustomResource, Duration, Stack
from aws_cdk import aws_codebuild as codebuild
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3_assets as s3_assets
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import custom_resources as cr
from constructs import Construct, IConstruct

from inference_constructs._arns import format_arn, kept_on_stack, stack_of
from inference_constructs._assets import lambda_asset_path
from inference_constructs._handler import HandlerFunction, handler_identity
from inference_constructs._kms import log_group_key
from inference_constructs._policy import allow, document
from inference_constructs._tokens import is_unresolved
from inference_constructs.compliance import acknowledge_all
from inference_constructs.containers.model_access import ModelStaging
from inference_constructs.hosting._shared import InferenceStorage

__all__ = ["BUILD_TIMEOUT", "QUERY_INTERVAL", "TOTAL_TIMEOUT", "HubModelStaging"]

BUILD_TIMEOUT = Duration.minutes(50)
QUEUED_TIMEOUT = Duration.minutes(5)
TOTAL_TIMEOUT = Duration.minutes(60)
QUERY_INTERVAL = Duration.seconds(30)
#: The build image: Ubuntu with python3 and the AWS CLI (CodeBuild's curated ``aws/codebuild/standard:7.0``).
BUILD_IMAGE = codebuild.LinuxBuildImage.STANDARD_7_0
#: 4 vCPUs, 8 GiB (botocore ``codebuild`` ``ComputeType``: "BUILD_GENERAL1_MEDIUM: Use up to 8 GiB memory and 4
#: vCPUs"); the job streams each file into S3 and needs no disk for the weights.
COMPUTE_TYPE = codebuild.ComputeType.MEDIUM
PROVIDER_ID = "HubModelStagingProvider"
_JOB_ASSET = "hub_model_staging_job"
_HANDLER_ASSET = "hub_model_staging"
_PROVIDER = "_inference_constructs_staging_provider"


class _StagingProvider(Construct):
    """The stack's staging provider: handler functions, their policy, the framework, one log key."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self.key = log_group_key(
            self, "LogKey", description="Encrypts the hub model staging logs and build projects of this stack"
        )
        identity = handler_identity(
            self,
            retention=logs.RetentionDays.ONE_YEAR,
            encryption_key=self.key,
            role_description="Starts and awaits the hub model staging builds of this stack",
            policy_description="Hub model staging handlers: start and read this stack's staging builds, write own logs",
        )
        self.log_group, self.role, self.policy = identity.log_group, identity.role, identity.policy
        common = {"timeout": Duration.minutes(1), "role": self.role, "log_group": self.log_group}
        self.on_event = HandlerFunction(
            self,
            "OnEvent",
            asset=_HANDLER_ASSET,
            entry="on_event_handler",
            description="Starts the build that stages a hub model into S3",
            **common,  # type: ignore[arg-type]
        )
        self.is_complete = HandlerFunction(
            self,
            "IsComplete",
            asset=_HANDLER_ASSET,
            entry="is_complete_handler",
            description="Reports whether the hub model staging build finished",
            **common,  # type: ignore[arg-type]
        )
        self.framework_log_group = logs.LogGroup(
            self, "FrameworkLogGroup", retention=logs.RetentionDays.ONE_YEAR, encryption_key=self.key
        )
        self.provider = cr.Provider(
            self,
            "Provider",
            on_event_handler=self.on_event,
            is_complete_handler=self.is_complete,
            query_interval=QUERY_INTERVAL,
            total_timeout=TOTAL_TIMEOUT,
            log_group=self.framework_log_group,
            disable_waiter_state_machine_logging=False,
            waiter_state_machine_log_options=cr.LogOptions(
                destination=self.framework_log_group, level=sfn.LogLevel.ALL, include_execution_data=False
            ),
        )
        self._framework_depends_on_its_policies()
        self._acknowledge()

    def _framework_depends_on_its_policies(self) -> None:
        """Each framework function waits for its role's policy (it must invoke the handlers as soon as it exists);
        the role itself is implied by the ``GetAtt`` on its ARN, so it is left out of ``DependsOn``, which then
        has one entry instead of a pair in aws-cdk-lib's unsorted order."""
        stack = Stack.of(self)
        for name in ("framework-onEvent", "framework-isComplete", "framework-onTimeout"):
            function = self.provider.node.find_child(name)
            cfn_function = function.node.default_child
            policy = function.node.find_child("ServiceRole").node.find_child("DefaultPolicy").node.default_child
            assert isinstance(cfn_function, CfnResource) and isinstance(policy, CfnResource)
            cfn_function.add_override("DependsOn", [stack.get_logical_id(policy)])

    @staticmethod
    def of(scope: IConstruct) -> _StagingProvider:
        stack = stack_of(scope)
        return kept_on_stack(stack, _PROVIDER, lambda: _StagingProvider(stack, PROVIDER_ID))

    def _acknowledge(self) -> None:
        """The findings of the handlers and of aws-cdk-lib's provider framework (its functions, roles and waiter
        state machine, whose policies the framework writes), each with why it is safe here."""
        stack = Stack.of(self)
        ids = {
            name: stack.get_logical_id(fn.node.default_child)  # type: ignore[arg-type]
            for name, fn in (("on_event", self.on_event), ("is_complete", self.is_complete))
        }
        framework_ids = {
            name: stack.get_logical_id(self.provider.node.find_child(name).node.default_child)  # type: ignore[arg-type]
            for name in ("framework-isComplete", "framework-onTimeout")
        }
        log_id = stack.get_logical_id(self.log_group.node.default_child)  # type: ignore[arg-type]
        concurrency = (
            "invoked only by cloudformation (through the provider framework) while a hub model is staged on deploy; "
            "reserving concurrency would take capacity from accounts whose concurrency limit is 10"
        )
        dlq = (
            "invoked synchronously by the provider framework, which reports every error to cloudformation as the "
            "resource's failure; nothing is invoked asynchronously, so a dead-letter queue would stay empty"
        )
        vpc = (
            "calls only the public codebuild and step functions apis and touches no vpc resource; the staging job "
            "itself needs the internet (huggingface.co), so a vpc would add a nat gateway and no protection"
        )
        findings: list[tuple[str, str]] = [
            (f"{pack}-{rule}", reason)
            for pack in ("NIST.800.53.R5", "HIPAA.Security")
            for rule, reason in (("LambdaConcurrency", concurrency), ("LambdaDLQ", dlq), ("LambdaInsideVPC", vpc))
        ]
        findings.append(("cdk-validator-cfnguard::lambda_inside_vpc_check", vpc))  # CT.LAMBDA.PR.3
        findings.append(
            (
                f"AwsSolutions-IAM5[Resource::<{log_id}.Arn>:*]",
                "logs:CreateLogStream/PutLogEvents on the log streams of the handlers' own log group only",
            )
        )
        acknowledge_all(self, findings)
        inline = (
            "the provider framework of aws-cdk-lib writes its roles' policies itself (invoke the two handlers, start "
            "and stop its own waiter state machine); they name only this provider's functions and state machine"
        )
        tracing = (
            "the waiter state machine of aws-cdk-lib's provider framework has no tracing option; it only polls the "
            "staging build, whose own log (linked from any failure) records what happened"
        )
        framework_findings: list[tuple[str, str]] = [
            ("NIST.800.53.R5-IAMNoInlinePolicy", inline),
            ("HIPAA.Security-IAMNoInlinePolicy", inline),
            (
                "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
                "the provider framework's functions get the aws managed basic execution role (create log streams "
                "and write logs) from aws-cdk-lib; it grants nothing beyond their own logging",
            ),
            (
                "AwsSolutions-IAM5[Resource::*]",
                "the waiter state machine's role needs the cloudwatch logs delivery calls (logs:CreateLogDelivery, "
                "logs:DescribeLogGroups and the like) for its logging, which support no resource-level permissions",
            ),
            ("AwsSolutions-SF2", tracing),
            ("cdk-validator-cfnguard::step_functions_state_machine_tracing_enabled_check", tracing),  # CT.SFN.PR.2
        ]
        for name, logical in (*ids.items(), *framework_ids.items()):
            framework_findings.append(
                (
                    f"AwsSolutions-IAM5[Resource::<{logical}.Arn>:*]",
                    f"lambda:InvokeFunction on the versions and aliases of this provider's own {name} function only",
                )
            )
        acknowledge_all(self.provider, framework_findings)

    def allow_project(self, project_arn: str) -> None:
        """Let the handlers start and read builds of one staging project."""
        self.policy.add_statements(
            iam.PolicyStatement(actions=["codebuild:StartBuild", "codebuild:BatchGetBuilds"], resources=[project_arn])
        )


def _secret_arn(scope: Construct, secret_id: str, secret: secretsmanager.ISecret | None) -> str:
    """The ARN the job's role may read: a full ARN as given; a name (or a construct imported by name, which knows
    no full ARN) with Secrets Manager's six-character suffix as ``-??????``, the form the Secrets Manager user
    guide gives for a policy on a secret known by name."""
    if secret is not None:
        return secret.secret_full_arn or f"{secret.secret_arn}-??????"
    if is_unresolved(secret_id) or secret_id.startswith("arn:"):
        return secret_id
    return format_arn(
        Stack.of(scope),
        service="secretsmanager",
        resource="secret",
        resource_name=f"{secret_id}-??????",
        arn_format=ArnFormat.COLON_RESOURCE_NAME,
    )


class HubModelStaging(Construct):
    """Stages one hub model at one commit into the stack's data bucket at deploy time (see the module docstring).

    Parameters
    ----------
    scope, construct_id:
        Where it goes (an endpoint uses id ``WeightsStaging``).
    staging:
        The plan's staging decision: model id, revision, key prefix and the token secret.
    secret:
        The token secret as a construct, when the caller has one. Default: the job's role reads
        ``staging.secret.secret`` (a full ARN, or a name in this account and Region).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        staging: ModelStaging,
        secret: secretsmanager.ISecret | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.staging = staging
        provider = _StagingProvider.of(self)
        bucket = InferenceStorage.of(self).data
        token = staging.secret
        secret_arn = _secret_arn(self, token.secret, secret)
        target = f"s3://{bucket.bucket_name}/{staging.key_prefix}"
        asset = s3_assets.Asset(self, "JobSource", path=lambda_asset_path(_JOB_ASSET), exclude=["__pycache__", "*.pyc"])

        self.role = iam.Role(
            self,
            "JobRole",
            assumed_by=iam.ServicePrincipal("codebuild.amazonaws.com"),
            description="Stages one hub model into S3: reads its token secret, writes its prefix only",
        )
        self.log_group = logs.LogGroup(
            self, "JobLogGroup", retention=logs.RetentionDays.ONE_YEAR, encryption_key=provider.key
        )
        statements = [
            allow(["secretsmanager:GetSecretValue"], [secret_arn]),
            allow(["s3:PutObject", "s3:AbortMultipartUpload"], [f"{bucket.bucket_arn}/{staging.key_prefix}*"]),
            allow(["s3:GetObject", "s3:GetObjectVersion"], [asset.bucket.arn_for_objects(asset.s3_object_key)]),
            allow(["s3:GetBucketAcl", "s3:GetBucketLocation"], [asset.bucket.bucket_arn]),
            allow(["logs:CreateLogStream", "logs:PutLogEvents"], [f"{self.log_group.log_group_arn}:*"]),
            allow(["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"], [provider.key.key_arn]),
        ]
        if token.kms_key_arn:
            statements.append(
                allow(
                    ["kms:Decrypt"],
                    [token.kms_key_arn],
                    {"StringEquals": {"kms:ViaService": f"secretsmanager.{Stack.of(self).region}.amazonaws.com"}},
                )
            )
        self.policy = iam.ManagedPolicy(
            self,
            "JobPolicy",
            description="Hub model staging job: the token secret, the model's s3 prefix, the job source and logs",
            roles=[self.role],
            document=document(statements),
        )
        variable = codebuild.BuildEnvironmentVariable
        self.project = codebuild.Project(
            self,
            "Job",
            description=f"Stages {staging.model_id}@{staging.revision} from the Hugging Face Hub into S3",
            source=codebuild.Source.s3(bucket=asset.bucket, path=asset.s3_object_key),
            build_spec=codebuild.BuildSpec.from_object(
                {"version": "0.2", "phases": {"build": {"commands": [f"python3 {_JOB_ASSET}.py"]}}}
            ),
            environment=codebuild.BuildEnvironment(build_image=BUILD_IMAGE, compute_type=COMPUTE_TYPE),
            environment_variables={
                "MODEL_ID": variable(value=staging.model_id),
                "REVISION": variable(value=staging.revision),
                "TARGET": variable(value=target),
                "HF_TOKEN": variable(
                    type=codebuild.BuildEnvironmentVariableType.SECRETS_MANAGER, value=token.codebuild_reference
                ),
            },
            # Every permission is in JobPolicy above; the project adds none to an immutable view of the role.
            role=self.role.without_policy_updates(),
            encryption_key=provider.key,
            logging=codebuild.LoggingOptions(cloud_watch=codebuild.CloudWatchLoggingOptions(log_group=self.log_group)),
            timeout=BUILD_TIMEOUT,
            queued_timeout=QUEUED_TIMEOUT,
        )
        self.project.node.add_dependency(self.policy)
        provider.allow_project(self.project.project_arn)
        self.resource = CustomResource(
            self,
            "Resource",
            service_token=provider.provider.service_token,
            resource_type="Custom::HubModelStaging",
            properties={
                "ModelId": staging.model_id,
                "Revision": staging.revision,
                "KeyPrefix": staging.key_prefix,
                "Bucket": bucket.bucket_name,
                "ProjectName": self.project.project_name,
            },
        )
        self.resource.node.add_dependency(provider.policy)
        self._acknowledge(bucket.node.default_child)

    @property
    def s3_uri(self) -> str:
        """``s3://<data bucket>/hub-models/<model id>/<revision>/``, once staged (the resource's ``S3Uri``)."""
        return self.resource.get_att_string("S3Uri")

    def _acknowledge(self, bucket: IConstruct | None) -> None:
        stack = Stack.of(self)
        bucket_id = stack.get_logical_id(bucket)  # type: ignore[arg-type]
        log_id = stack.get_logical_id(self.log_group.node.default_child)  # type: ignore[arg-type]
        prefix = self.staging.key_prefix
        acknowledge_all(
            self.policy,
            [
                (
                    f"AwsSolutions-IAM5[Resource::<{bucket_id}.Arn>/{prefix}*]",
                    "the job writes the files of one model at one commit: only under that model's own prefix",
                ),
                (
                    f"AwsSolutions-IAM5[Resource::<{log_id}.Arn>:*]",
                    "logs:CreateLogStream/PutLogEvents on the log streams of this job's own log group only",
                ),
            ],
        )
        source = (
            "the source is one s3 object, the job's program uploaded as a cdk asset, not a repository url: there "
            "is no url that could carry credentials"
        )
        acknowledge_all(
            self.project,
            [
                ("HIPAA.Security-CodeBuildProjectSourceRepoUrl", source),
                ("NIST.800.53.R5-CodeBuildProjectSourceRepoUrl", source),
            ],
        )
