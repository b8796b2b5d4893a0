"""Stack-level resources shared by every endpoint in a stack (private).

- ``InferenceImageRegistry``: one ``CfnMapping`` region -> registry account per image, plus the ECR
  domain, so image URIs are region-agnostic (``Fn::FindInMap`` on ``AWS::Region``).
- ``InferenceStorage``: an access-log bucket and a data bucket (async outputs, data capture),
  created on first use, encrypted, SSL-only, private, versioned and retained on stack deletion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aws_cdk import CfnMapping, Duration, Fn, Stack, Token
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct, IConstruct

from inference_constructs import _tokens
from inference_constructs._arns import kept_on_stack, stack_environment, stack_of
from inference_constructs._buckets import retained_bucket
from inference_constructs.compliance import acknowledge_all
from inference_constructs.containers import ContainerImage, load_snapshot
from inference_constructs.errors import InferenceConfigError
from inference_constructs.region_rules import RegionRules
from inference_constructs.regions import image_requirement

MAPPING_ID = "InferenceImageRegistry"
STORAGE_ID = "InferenceStorage"
_DOMAIN = "Domain"
# Keys of what is kept per stack (``_arns.kept_on_stack``): the columns (and domain rows) of its image mapping
# already written,
_WRITTEN = "_inference_constructs_written"
# its environment (see stack_env),
_ENV = "_inference_constructs_env"
# its image mapping,
_MAPPING = "_inference_constructs_image_mapping"
# each image's (URI, registry account) tokens, made once per stack and image, and its storage.
_URIS = "_inference_constructs_image_uris"
_STORAGE = "_inference_constructs_storage"


@dataclass(frozen=True)
class StackEnv:
    """A stack's partition, region and account as cdk-nag shows them in finding ids (a literal where the stack
    has one, else ``<AWS::Partition>``, ``<AWS::Region>``, ``<AWS::AccountId>``), and its region."""

    nag_partition: str
    nag_region: str
    nag_account: str
    region: str
    region_resolved: bool


def stack_env(stack: Stack) -> StackEnv:
    """The environment of ``stack`` (read once per stack by :func:`~inference_constructs._arns.stack_environment`)
    as the nag findings and image lookups need it, kept per stack."""

    def make() -> StackEnv:
        partition, region, account = stack_environment(stack)
        return StackEnv(
            nag_partition="<AWS::Partition>" if Token.is_unresolved(partition) else partition,
            nag_region="<AWS::Region>" if Token.is_unresolved(region) else region,
            nag_account="<AWS::AccountId>" if Token.is_unresolved(account) else account,
            region=region,
            region_resolved=not Token.is_unresolved(region),
        )

    return kept_on_stack(stack, _ENV, make)


def _written(stack: Stack) -> set[str]:
    """The columns (``<mapping key>``) and domain rows (``Domain:<region>``) of the stack's image mapping written."""
    written: set[str] = kept_on_stack(stack, _WRITTEN, set)
    return written


def _mapping(stack: Stack, image: ContainerImage, domains: Mapping[str, str]) -> CfnMapping:
    """The stack's image mapping (kept per stack); a new one holds ``image``'s column and the
    domains of its regions from the start, in the order ``image_uri`` writes them, in one round trip."""

    def make() -> CfnMapping:
        rows = sorted(image.accounts.items())
        mapping = CfnMapping(
            stack, MAPPING_ID, mapping={r: {image.mapping_key: account, _DOMAIN: domains[r]} for r, account in rows}
        )
        _written(stack).update({image.mapping_key, *(f"{_DOMAIN}:{r}" for r, _ in rows)})
        return mapping

    return kept_on_stack(stack, _MAPPING, make)


def image_uri(
    scope: IConstruct, image: ContainerImage, *, path: str = "serving", stack: Stack | None = None
) -> tuple[str, str]:
    """(image URI, registry account) of ``image`` in ``scope``'s stack.

    A stack with a concrete region gets literal strings; a region-agnostic stack gets
    ``Fn::FindInMap`` lookups in the shared mapping, which covers every region the image is published in, and an
    assertion in the stack's ``InferenceRegions`` rule that the deploy region is one of them.
    """
    stack = stack or stack_of(scope)
    snapshot = load_snapshot()
    env = stack_env(stack)
    region = env.region
    if env.region_resolved:
        if region not in image.accounts:
            raise InferenceConfigError(
                f"{path}: image {image.repository}:{image.tag} is not published in {region}; "
                f"use one of {', '.join(sorted(image.accounts))}, or serving custom with your own image"
            )
        return snapshot.uri(image.key, region), image.accounts[region]
    user = path.removesuffix(".serving") if path != "serving" else scope.node.path
    RegionRules.of(stack).require(image_requirement(image.key, image.repository, image.tag, image.accounts, [user]))
    uris: dict[tuple[str, str, str], tuple[str, str]] = kept_on_stack(stack, _URIS, dict)
    pinned = (image.key, image.repository, image.tag)
    if pinned in uris:
        # The same lookups, already in the mapping: the tokens are reused (three jsii round trips per endpoint).
        return uris[pinned]
    mapping = _mapping(stack, image, snapshot.domains)
    column = image.mapping_key
    # Each column is written once per stack: every set_value is a round trip to the jsii kernel, and
    # rewriting ~40 regions per endpoint was 40% of all jsii calls of a 50-endpoint synth.
    written = _written(stack)
    for r, account in sorted(image.accounts.items()):
        if column not in written:
            mapping.set_value(r, column, account)
        if f"{_DOMAIN}:{r}" not in written:
            mapping.set_value(r, _DOMAIN, snapshot.domains[r])
            written.add(f"{_DOMAIN}:{r}")
    written.add(column)
    aws_region = _tokens.aws_region()
    account = mapping.find_in_map(aws_region, column)
    domain = mapping.find_in_map(aws_region, _DOMAIN)
    uri = Fn.join("", [account, ".dkr.ecr.", aws_region, ".", domain, f"/{image.repository}:{image.tag}"])
    uris[pinned] = (uri, account)
    return uri, account


class InferenceStorage(Construct):
    """Buckets shared by the endpoints of one stack; find it with :meth:`of`."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self._data: s3.Bucket | None = None
        # Object ownership is enforced (ACLs disabled) and log delivery is granted by a bucket policy
        # (_deliver_access_logs), whatever @aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy says: without the flag
        # aws-cdk-lib would set the legacy AccessControl LogDeliveryWrite ACL instead (cfn-lint W3045).
        self.access_logs = retained_bucket(
            self,
            "AccessLogs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            lifecycle_rule=s3.LifecycleRule(
                expiration=Duration.days(365), noncurrent_version_expiration=Duration.days(30)
            ),
        )
        sse_s3 = "s3 server access log delivery only writes to buckets encrypted with sse-s3, not sse-kms"
        acknowledge_all(
            self.access_logs,
            [
                ("NIST.800.53.R5-S3DefaultEncryptionKMS", sse_s3),
                ("HIPAA.Security-S3DefaultEncryptionKMS", sse_s3),
                ("cdk-validator-cfnguard::s3_bucket_default_encryption_kms_check", sse_s3),  # CT.S3.PR.10
                (
                    "cdk-validator-cfnguard::s3_bucket_logging_enabled_check",  # CT.S3.PR.2
                    "this is the access-log bucket itself: logging its own requests into itself would log each "
                    "log delivery again, an endless chain of log objects",
                ),
                *self._no_replication("access logs of the inference buckets"),
            ],
        )

    @staticmethod
    def of(scope: IConstruct) -> InferenceStorage:
        """The stack's storage, created on first use."""
        stack = stack_of(scope)

        def make() -> InferenceStorage:
            found = stack.node.try_find_child(STORAGE_ID)  # made directly under its id
            return found if isinstance(found, InferenceStorage) else InferenceStorage(stack, STORAGE_ID)

        return kept_on_stack(stack, _STORAGE, make)  # saves two round trips per use

    @property
    def data(self) -> s3.Bucket:
        """The data bucket (async outputs and data capture, one prefix per endpoint), created on first use."""
        if self._data is None:
            self._data = retained_bucket(
                self,
                "Data",
                encryption=s3.BucketEncryption.KMS_MANAGED,
                lifecycle_rule=s3.LifecycleRule(noncurrent_version_expiration=Duration.days(30)),
            )
            self._deliver_access_logs(self._data, "data/")
            acknowledge_all(self._data, self._no_replication("async inference results and captured requests"))
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
    def _no_replication(what: str) -> list[tuple[str, str]]:
        """The replication findings of a bucket holding ``what``, with their reason."""
        reason = (
            f"{what} are regional working data of endpoints in this region; cross-region replication would "
            "copy them out of the region (data residency) and double storage cost. versioning and retention "
            "on stack deletion protect them"
        )
        return [
            ("NIST.800.53.R5-S3BucketReplicationEnabled", reason),
            ("HIPAA.Security-S3BucketReplicationEnabled", reason),
        ]
