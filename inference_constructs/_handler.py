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
from constructs import Construct

from inference_constructs._assets import lambda_asset_path
from inference_constructs._policy import Statement, allow, document

_ASSET_EXCLUDES = ["__pycache__", "*.pyc"]


def handler_function(
    scope: Construct,
    construct_id: str,
    *,
    asset: str,
    timeout: Duration,
    role: iam.IRole,
    log_group: logs.ILogGroup,
    description: str,
    entry: str = "handler",
) -> lambda_.Function:
    """A Python 3.14, 128 MB function running ``<asset>.<entry>`` from the Lambda asset folder ``asset``
    (``entry``: the module's function, ``handler`` unless given).

    ``lambda.Function`` adds a ``DependsOn`` on its role, which the ``GetAtt`` on the role already implies
    (cfn-lint W3005): it is removed.
    """
    function = lambda_.Function(
        scope,
        construct_id,
        runtime=lambda_.Runtime.PYTHON_3_14,
        handler=f"{asset}.{entry}",
        code=lambda_.Code.from_asset(lambda_asset_path(asset), exclude=_ASSET_EXCLUDES),
        timeout=timeout,
        memory_size=128,
        role=role,
        log_group=log_group,
        description=description,
    )
    cfn_function = function.node.default_child
    assert isinstance(cfn_function, lambda_.CfnFunction)
    cfn_function.add_deletion_override("DependsOn")
    return function


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
