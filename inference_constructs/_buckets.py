"""The S3 buckets the library keeps its own data in (private).

Each is SSL only, private (public access blocked, ACLs disabled: the bucket owner owns every object), versioned,
and retained when its stack is deleted; what differs between them is their encryption and lifecycle.
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct

__all__ = ["retained_bucket"]


def retained_bucket(
    scope: Construct,
    construct_id: str,
    *,
    encryption: s3.BucketEncryption,
    lifecycle_rule: s3.LifecycleRule,
    encryption_key: kms.IKey | None = None,
) -> s3.Bucket:
    """A private, versioned, SSL-only bucket retained on stack deletion, with one lifecycle rule.

    Parameters
    ----------
    encryption:
        The bucket's default encryption.
    lifecycle_rule:
        When objects and their noncurrent versions expire.
    encryption_key:
        The customer managed key of ``BucketEncryption.KMS``; with one, S3 Bucket Keys are on (one data key per
        bucket rather than a KMS request per object). Default: none (the key ``encryption`` implies).
    """
    return s3.Bucket(
        scope,
        construct_id,
        encryption=encryption,
        encryption_key=encryption_key,
        bucket_key_enabled=True if encryption_key is not None else None,
        enforce_ssl=True,
        block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
        object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        versioned=True,
        removal_policy=RemovalPolicy.RETAIN,
        lifecycle_rules=[lifecycle_rule],
    )
