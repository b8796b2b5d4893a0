"""An endpoint's execution policy: the statements its container and SageMaker need, and the cdk-nag findings
their wildcards cause.

Image pull (from the plan's image, or the ECR repository a custom image URI names), model data read,
logs and metrics, VPC network interfaces, and the object writes of async output and data capture
(:mod:`inference_constructs.hosting.outputs` adds those). Every wildcard is acknowledged on the endpoint
with the reason it is safe.
"""

from __future__ import annotations

import re

from aws_cdk import ArnFormat, Stack, Token
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs import _tokens
from inference_constructs._arns import format_arn, stack_of
from inference_constructs._policy import Statement, allow, document
from inference_constructs.compliance import acknowledge, acknowledge_all
from inference_constructs.hosting._shared import InferenceStorage, image_uri, stack_env
from inference_constructs.hosting.decisions import EndpointPlan, ModelData, ModelDataKind
from inference_constructs.observability.metric_definitions import SAGEMAKER_NAMESPACE

__all__ = ["ExecutionStatements", "execution_image"]

_ECR_URI = re.compile(r"^(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.[a-z0-9.-]+/(?P<repo>[^:@]+)")


class ExecutionStatements:
    """The statements of one endpoint's execution policy, collected while the endpoint is built (as IAM JSON, so
    the whole policy document crosses to the jsii kernel in one round trip: :meth:`document`).

    The IAM5 wildcard findings they cause are collected too and acknowledged on ``owner`` in one call
    (:meth:`acknowledge_collected`); a finding added after that is acknowledged at once.

    Parameters
    ----------
    owner:
        The endpoint construct the findings are acknowledged on (and whose stack's data bucket holds
        its async outputs and captures).
    """

    def __init__(self, owner: Construct) -> None:
        self._owner = owner
        self.statements: list[Statement] = []
        """The policy statements, in the order they were added: IAM JSON (``inference_constructs._policy.allow``)
        or ``iam.PolicyStatement`` objects."""
        self._wildcards: list[tuple[str, str]] | None = []

    def append(self, statement: Statement) -> None:
        """Add one statement: IAM JSON, or an ``iam.PolicyStatement``."""
        self.statements.append(statement)

    def document(self) -> iam.PolicyDocument:
        """The policy document of the statements, in their order (one round trip when all are IAM JSON)."""
        return document(self.statements)

    def acknowledge_collected(self) -> None:
        """Acknowledge every wildcard finding collected so far on the owner, in one call."""
        acknowledge_all(self._owner, self._wildcards or [])
        self._wildcards = None

    def acknowledge_wildcard(self, finding: str, reason: str) -> None:
        """Acknowledge ``AwsSolutions-IAM5[<finding>]`` on the owner with ``reason``."""
        rule = f"AwsSolutions-IAM5[{finding}]"
        if self._wildcards is None:
            acknowledge(self._owner, rule, reason)
        else:
            self._wildcards.append((rule, reason))

    def acknowledge_objects(self, base: str, key_prefix: str, subpaths: list[str], reason: str) -> None:
        """Acknowledge the object wildcards under this endpoint's own prefix (``<base>/<subpath>*``)."""
        given_bucket = f"arn:{_tokens.aws_partition()}:s3:::"
        if base.startswith(given_bucket):  # a bucket the user named: only the partition is a token
            shown = "arn:<AWS::Partition>:s3:::" + base[len(given_bucket) :]
        elif Token.is_unresolved(base):
            bucket = InferenceStorage.of(self._owner).data
            logical_id = stack_of(self._owner).get_logical_id(bucket.node.default_child)  # type: ignore[arg-type]
            shown = f"<{logical_id}.Arn>/{key_prefix}"
        else:
            shown = base
        for sub in subpaths:
            self.acknowledge_wildcard(f"Resource::{shown}/{sub}*", f"{reason}, under this endpoint's prefix only")

    def grant_image_pull(self, repository_arn: str) -> None:
        """Pull the image from ``repository_arn`` (and get the ECR authorization token, which has no resource)."""
        self.statements.append(
            allow(
                ["ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"], [repository_arn]
            )
        )
        self.statements.append(allow(["ecr:GetAuthorizationToken"], ["*"]))
        self.acknowledge_wildcard(
            "Resource::*",
            "ecr:GetAuthorizationToken, the ec2 network interface calls of a vpc endpoint, and "
            "cloudwatch:PutMetricData (limited to the sagemaker namespaces by condition) support no resource-level "
            "permissions; every other statement names its resource",
        )

    def grant_model_data(self, data: ModelData) -> None:
        """Read the model: the archive object, or every object under the prefix (for staged hub weights, their
        prefix in the stack's data bucket)."""
        if data.staging is not None:
            self._grant_staged(data.key_prefix)
            return
        if data.kind is ModelDataKind.NONE or data.bucket is None:
            return
        bucket_arn = f"arn:{_tokens.aws_partition()}:s3:::{data.bucket}"
        prefix = data.key_prefix
        if data.kind is ModelDataKind.ARCHIVE:
            self.statements.append(allow(["s3:GetObject"], [f"{bucket_arn}/{prefix}"]))
            return
        self.statements.append(allow(["s3:GetObject"], [f"{bucket_arn}/{prefix}*"]))
        self.statements.append(allow(["s3:ListBucket"], [bucket_arn], {"StringLike": {"s3:prefix": [f"{prefix}*"]}}))
        self.acknowledge_wildcard(
            f"Resource::arn:<AWS::Partition>:s3:::{data.bucket}/{prefix}*",
            "the model is an s3 prefix (uncompressed weights or multi-model archives): read is limited to that prefix",
        )

    def _grant_staged(self, prefix: str) -> None:
        bucket = InferenceStorage.of(self._owner).data
        bucket_arn = bucket.bucket_arn
        self.statements.append(allow(["s3:GetObject"], [f"{bucket_arn}/{prefix}*"]))
        self.statements.append(allow(["s3:ListBucket"], [bucket_arn], {"StringLike": {"s3:prefix": [f"{prefix}*"]}}))
        self.acknowledge_objects(
            bucket_arn,
            prefix.rstrip("/"),
            [""],
            "the model is the staged copy of a hub model (an s3 prefix of uncompressed weights): read is limited "
            "to that model's prefix",
        )

    def grant_logs_and_metrics(self, stack: Stack, endpoint_name: str) -> None:
        """Write the endpoint's own log group, and metrics in the SageMaker namespaces."""
        group = f"/aws/sagemaker/Endpoints/{endpoint_name}"
        group_arn = format_arn(
            stack, service="logs", resource="log-group", resource_name=group, arn_format=ArnFormat.COLON_RESOURCE_NAME
        )
        self.statements.append(
            allow(
                ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:DescribeLogStreams", "logs:PutLogEvents"],
                [group_arn, f"{group_arn}:log-stream:*"],
            )
        )
        self.acknowledge_wildcard(
            f"Resource::{_nag_arn(stack, 'logs')}:log-group:{group}:log-stream:*",
            "sagemaker names one log stream per instance at run time; access is limited to this endpoint's log group",
        )
        self.statements.append(
            allow(
                ["cloudwatch:PutMetricData"],
                ["*"],
                {"StringLike": {"cloudwatch:namespace": [SAGEMAKER_NAMESPACE, "/aws/sagemaker/*"]}},
            )
        )

    def grant_vpc(self) -> None:
        """Create and delete the network interfaces of a VPC endpoint (these calls have no resource)."""
        self.statements.append(
            allow(
                [
                    "ec2:CreateNetworkInterface",
                    "ec2:CreateNetworkInterfacePermission",
                    "ec2:DeleteNetworkInterface",
                    "ec2:DeleteNetworkInterfacePermission",
                    "ec2:DescribeDhcpOptions",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeSecurityGroups",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeVpcs",
                ],
                ["*"],
            )
        )


def execution_image(
    owner: Construct, plan: EndpointPlan, path: str, stack: Stack, statements: ExecutionStatements
) -> tuple[str, str]:
    """(image uri, ECR repository ARN) for the plan's image; a custom image URI only known at deploy time gets
    this account's repositories in this region (acknowledged on ``statements``)."""
    if plan.image is not None:
        uri, account = image_uri(owner, plan.image, path=f"{path}.serving" if path else "serving", stack=stack)
        arn = format_arn(
            stack, service="ecr", resource="repository", resource_name=plan.image.repository, account=account
        )
        return uri, arn
    custom = plan.custom_image or ""
    match = None if Token.is_unresolved(custom) else _ECR_URI.match(custom)
    if match is not None:
        arn = format_arn(
            stack,
            service="ecr",
            resource="repository",
            resource_name=match["repo"],
            account=match["account"],
            region=match["region"],
        )
        return custom, arn
    arn = format_arn(stack, service="ecr", resource="repository", resource_name="*")
    statements.acknowledge_wildcard(
        f"Resource::{_nag_arn(stack, 'ecr')}:repository/*",
        "the custom image uri is only known at deploy time (e.g. a cdk docker image asset), so image pull is "
        "allowed on this account's repositories in this region only",
    )
    return custom, arn


def _nag_arn(stack: Stack, service: str) -> str:
    """``arn:<partition>:<service>:<region>:<account>`` as cdk-nag shows it in a finding id: literals where
    ``@aws-cdk/core:enablePartitionLiterals`` and an environment-bound stack make them literals, else the
    ``<AWS::...>`` pseudo parameters."""
    env = stack_env(stack)
    return f"arn:{env.nag_partition}:{service}:{env.nag_region}:{env.nag_account}"
