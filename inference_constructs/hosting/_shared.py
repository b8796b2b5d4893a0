"""Stack-level resources shared by every endpoint in a stack (private).

- ``InferenceImageRegistry``: one ``CfnMapping`` region -> registry account per image, plus the ECR
  domain, so image URIs are region-agnostic (``Fn::FindInMap`` on ``AWS::Region``).
- ``InferenceStorage``: an access-log bucket and a data bucket (async outputs, data capture),
  created on first use, encrypted, SSL-only, private, versioned and retained on stack deletion.
"""

from __future__ import annotations

from aws_cdk import Aws, CfnMapping, Duration, Fn, RemovalPolicy, Stack, Token
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct, IConstruct

from inference_constructs.compliance import acknowledge
from inference_constructs.containers import ContainerImage, load_snapshot
from inference_constructs.errors import InferenceConfigError

MAPPING_ID = "InferenceImageRegistry"
STORAGE_ID = "InferenceStorage"
_DOMAIN = "Domain"
# Python-side record, on the mapping object, of the columns (and domain rows) already written.
_WRITTEN = "_inference_constructs_written"


def _mapping(stack: Stack) -> CfnMapping:
    found = stack.node.try_find_child(MAPPING_ID)
    if isinstance(found, CfnMapping):
        return found
    return CfnMapping(stack, MAPPING_ID, mapping={})


def image_uri(scope: IConstruct, image: ContainerImage, *, path: str = "serving") -> tuple[str, str]:
    """(image URI, registry account) of ``image`` in ``scope``'s stack.

    A stack with a concrete region gets literal strings; a region-agnostic stack gets
    ``Fn::FindInMap`` lookups in the shared mapping, which covers every region the image is published in.
    """
    stack = Stack.of(scope)
    snapshot = load_snapshot()
    region = stack.region
    if not Token.is_unresolved(region):
        if region not in image.accounts:
            raise InferenceConfigError(
                f"{path}: image {image.repository}:{image.tag} is not published in {region}; "
                f"use one of {', '.join(sorted(image.accounts))}, or serving custom with your own image"
            )
        return snapshot.uri(image.key, region), image.accounts[region]
    mapping = _mapping(stack)
    column = image.mapping_key
    # Each column is written once per stack: every set_value is a round trip to the jsii kernel, and
    # rewriting ~40 regions per endpoint was 40% of all jsii calls of a 50-endpoint synth.
    written: set[str] = getattr(mapping, _WRITTEN, None) or set()
    for r, account in sorted(image.accounts.items()):
        if column not in written:
            mapping.set_value(r, column, account)
        if f"{_DOMAIN}:{r}" not in written:
            mapping.set_value(r, _DOMAIN, snapshot.domains[r])
            written.add(f"{_DOMAIN}:{r}")
    written.add(column)
    setattr(mapping, _WRITTEN, written)
    account = mapping.find_in_map(Aws.REGION, column)
    domain = mapping.find_in_map(Aws.REGION, _DOMAIN)
    uri = Fn.join("", [account, ".dkr.ecr.", Aws.REGION, ".", domain, f"/{image.repository}:{image.tag}"])
    return uri, account


class InferenceStorage(Construct):
    """Buckets shared by the endpoints of one stack; find it with :meth:`of`."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self._data: s3.Bucket | None = None
        # Object ownership is enforced (ACLs disabled) and log delivery is granted by a bucket policy
        # (_deliver_access_logs), whatever @aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy says: without the flag
        # aws-cdk-lib would set the legacy AccessControl LogDeliveryWrite ACL instead (cfn-lint W3045).
        self.access_logs = s3.Bucket(
            self,
            "AccessLogs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            versioned=True,
            removal_policy=RemovalPolicy.RETAIN,
            lifecycle_rules=[
                s3.LifecycleRule(expiration=Duration.days(365), noncurrent_version_expiration=Duration.days(30))
            ],
        )
        acknowledge(
            self.access_logs,
            "NIST.800.53.R5-S3DefaultEncryptionKMS",
            "s3 server access log delivery only writes to buckets encrypted with sse-s3, not sse-kms",
        )
        acknowledge(
            self.access_logs,
            "HIPAA.Security-S3DefaultEncryptionKMS",
            "s3 server access log delivery only writes to buckets encrypted with sse-s3, not sse-kms",
        )
        self._no_replication(self.access_logs, "access logs of the inference buckets")

    @staticmethod
    def of(scope: IConstruct) -> InferenceStorage:
        """The stack's storage, created on first use."""
        stack = Stack.of(scope)
        found = stack.node.try_find_child(STORAGE_ID)
        if isinstance(found, InferenceStorage):
            return found
        return InferenceStorage(stack, STORAGE_ID)

    @property
    def data(self) -> s3.Bucket:
        """The data bucket (async outputs and data capture, one prefix per endpoint), created on first use."""
        if self._data is None:
            self._data = s3.Bucket(
                self,
                "Data",
                encryption=s3.BucketEncryption.KMS_MANAGED,
                enforce_ssl=True,
                block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
                object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
                versioned=True,
                removal_policy=RemovalPolicy.RETAIN,
                lifecycle_rules=[s3.LifecycleRule(noncurrent_version_expiration=Duration.days(30))],
            )
            self._deliver_access_logs(self._data, "data/")
            self._no_replication(self._data, "async inference results and captured requests")
        return self._data

    def _deliver_access_logs(self, source: s3.Bucket, prefix: str) -> None:
        """Log ``source``'s requests to the access-log bucket under ``prefix``, granted by bucket policy (no ACL).

        The same statement aws-cdk-lib writes with ``@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy``, set here
        explicitly so the template does not depend on the app's feature flags.
        """
        cfn_source = source.node.default_child
        assert isinstance(cfn_source, s3.CfnBucket)
        cfn_source.logging_configuration = s3.CfnBucket.LoggingConfigurationProperty(
            destination_bucket_name=self.access_logs.bucket_name, log_file_prefix=prefix
        )
        self.access_logs.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("logging.s3.amazonaws.com")],
                actions=["s3:PutObject"],
                resources=[self.access_logs.arn_for_objects(f"{prefix}*")],
                conditions={
                    "ArnLike": {"aws:SourceArn": source.bucket_arn},
                    "StringEquals": {"aws:SourceAccount": Stack.of(self).account},
                },
            )
        )

    @staticmethod
    def _no_replication(bucket: s3.Bucket, what: str) -> None:
        reason = (
            f"{what} are regional working data of endpoints in this region; cross-region replication would "
            "copy them out of the region (data residency) and double storage cost. versioning and retention "
            "on stack deletion protect them"
        )
        acknowledge(bucket, "NIST.800.53.R5-S3BucketReplicationEnabled", reason)
        acknowledge(bucket, "HIPAA.Security-S3BucketReplicationEnabled", reason)
