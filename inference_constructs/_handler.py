"""The Lambda functions behind the library's custom resources (private): one shape for every handler, and one for
the role, log group and policy they run with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct, Node

from inference_constructs._assets import lambda_asset_path
from inference_constructs._policy import Statement, allow, document

_ASSET_EXCLUDES = ["__pycache__", "*.pyc"]


#: The handlers' runtime (``lambda.Runtime.PYTHON_3_14``).
RUNTIME = lambda_.Runtime.PYTHON_3_14
#: Memory of every handler, in MB.
MEMORY_MB = 128


class HandlerFunction(lambda_.FunctionBase):
    """One custom resource handler: a Python 3.14, 128 MB ``IFunction`` running ``<asset>.<entry>`` from the Lambda
    asset folder ``asset`` (``entry``: the module's function, ``handler`` unless given) with ``role``, logging to
    ``log_group``; its ``AWS::Lambda::Function`` is ``Resource`` and its code asset ``Code``.

    Rendered as ``lambda.Function`` renders a function with an existing role and log group (same construct
    paths, logical ids, properties and asset), without that L2: its first use in a process cost about a quarter
    of a second of synth, more than the rest of a small platform's custom resource. As a ``FunctionBase`` in the
    stack's account and Region it grants, adds permissions and gives metrics as ``lambda.Function`` does. There is
    no ``DependsOn`` on the role: the ``GetAtt`` on its ARN already implies it (cfn-lint W3005).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        asset: str,
        timeout: Duration,
        role: iam.IRole,
        log_group: logs.ILogGroup,
        description: str,
        entry: str = "handler",
    ) -> None:
        super().__init__(scope, construct_id)
        self._role = role
        code = s3_assets.Asset(self, "Code", path=lambda_asset_path(asset), exclude=_ASSET_EXCLUDES, deploy_time=True)
        self.resource = lambda_.CfnFunction(
            self,
            "Resource",
            code=lambda_.CfnFunction.CodeProperty(s3_bucket=code.s3_bucket_name, s3_key=code.s3_object_key),
            role=role.role_arn,
            description=description,
            handler=f"{asset}.{entry}",
            logging_config=lambda_.CfnFunction.LoggingConfigProperty(log_group=log_group.log_group_name),
            memory_size=MEMORY_MB,
            runtime=RUNTIME.name,
            timeout=int(timeout.to_seconds()),
        )
        """The ``AWS::Lambda::Function``."""
        code.add_resource_metadata(self.resource, "Code")

    @property
    def function_arn(self) -> str:
        """The function's ARN (``Fn::GetAtt Arn``)."""
        return self.resource.attr_arn

    @property
    def function_name(self) -> str:
        """The function's name (``Ref``; CloudFormation generates it)."""
        return self.resource.ref

    @property
    def role(self) -> iam.IRole:
        """The role the function runs with."""
        return self._role

    @property
    def grant_principal(self) -> iam.IPrincipal:
        """The function's role, as the principal grants go to."""
        return self._role

    @property
    def permissions_node(self) -> Node:
        """Where ``add_permission`` puts the ``AWS::Lambda::Permission`` resources: under this construct."""
        return self.node

    @property
    def architecture(self) -> lambda_.Architecture:
        """x86_64, CloudFormation's default (no ``Architectures`` property)."""
        return lambda_.Architecture.X86_64

    @property
    def resource_arns_for_grant_invoke(self) -> list[str]:
        """The function's ARN and its versions' and aliases' ARNs, as ``lambda.Function`` grants invoke on."""
        return [self.function_arn, f"{self.function_arn}:*"]

    @property
    def tenancy_config(self) -> lambda_.TenancyConfig | None:
        """None: the function has no tenant isolation."""
        return None

    @property
    def _can_create_permissions(self) -> bool:
        return True


@dataclass(frozen=True)
class HandlerIdentity:
    """What the handler functions of one custom resource run with (see :func:`handler_identity`)."""

    log_group: logs.LogGroup
    role: iam.Role
    policy: iam.ManagedPolicy


def handler_identity(
    scope: Construct,
    *,
    retention: logs.RetentionDays,
    encryption_key: kms.IKey,
    role_description: str,
    policy_description: str,
    statements: Sequence[Statement] = (),
) -> HandlerIdentity:
    """The log group ``LogGroup`` (encrypted with ``encryption_key``), the role ``Role`` that Lambda assumes, and
    the customer-managed policy ``Policy`` attached to it: ``statements`` (IAM JSON or ``iam.PolicyStatement``), then
    writing the log group's streams."""
    log_group = logs.LogGroup(scope, "LogGroup", retention=retention, encryption_key=encryption_key)
    role = iam.Role(
        scope, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"), description=role_description
    )
    policy = iam.ManagedPolicy(
        scope,
        "Policy",
        description=policy_description,
        roles=[role],
        document=document(
            [*statements, allow(["logs:CreateLogStream", "logs:PutLogEvents"], [f"{log_group.log_group_arn}:*"])]
        ),
    )
    return HandlerIdentity(log_group, role, policy)
