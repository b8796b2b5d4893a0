"""Bedrock model invocation logging: what the account-and-Region configuration holds, and its rules.

Pure Python (no ``aws_cdk`` import). The construct (:mod:`.invocation_logging`) creates the destinations
and a custom resource that calls ``PutModelInvocationLoggingConfiguration``; :func:`logging_config` builds
the API's ``loggingConfig`` (botocore ``bedrock`` model, shape ``LoggingConfig``).

Facts (Bedrock user guide, "Monitor model invocation using CloudWatch Logs and Amazon S3"):

* one configuration per account and Region; destinations must be in the same account and Region;
* S3 delivery writes ``<prefix>/AWSLogs/<account>/BedrockModelInvocationLogs/*`` as the
  ``bedrock.amazonaws.com`` service principal, scoped by ``aws:SourceAccount`` and ``aws:SourceArn``;
* CloudWatch Logs delivery assumes a role the caller names (``cloudWatchConfig.roleArn``), trusted by
  ``bedrock.amazonaws.com`` with the same conditions, allowed ``logs:CreateLogStream`` and
  ``logs:PutLogEvents`` on the log stream ``aws/bedrock/modelinvocations``; data over 100 KB or binary
  goes to ``largeDataDeliveryS3Config``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inference_constructs.aws_limits import broken_bucket_rules
from inference_constructs.bedrock.plan_sections import InvocationLoggingPlan

#: CloudWatch Logs retention values (CFN AWS::Logs::LogGroup RetentionInDays enum, cfn-lint 1.58 schema).
RETENTION_DAYS = (
    1,
    3,
    5,
    7,
    14,
    30,
    60,
    90,
    120,
    150,
    180,
    365,
    400,
    545,
    731,
    1096,
    1827,
    2192,
    2557,
    2922,
    3288,
    3653,
)
#: The log stream Bedrock writes to in the configured log group (user guide, CloudWatch Logs destination).
LOG_STREAM = "aws/bedrock/modelinvocations"
#: The key prefix Bedrock appends under the bucket (user guide, S3 destination bucket policy).
S3_LOG_PREFIX = "AWSLogs/{account}/BedrockModelInvocationLogs/"
#: Prefix of the large-data objects of CloudWatch Logs delivery in the same bucket (library choice).
LARGE_DATA_PREFIX = "large-data"
#: botocore ``BucketName``: 3-63 characters; the S3 naming rules (lowercase, digits, '.' and '-').
#: ``LoggingConfig`` flags, config key -> API member (botocore ``bedrock`` model).
DATA_FLAGS = {
    "text_data": "textDataDeliveryEnabled",
    "image_data": "imageDataDeliveryEnabled",
    "embedding_data": "embeddingDataDeliveryEnabled",
    "video_data": "videoDataDeliveryEnabled",
    "audio_data": "audioDataDeliveryEnabled",
}
#: Flags newer than the Bedrock control-plane API itself: botocore 1.31.57 (the first release with ``bedrock``)
#: knows only text, image and embedding, and an SDK that does not know a member rejects the whole call
#: (ParamValidationError) before it is sent. So these go into ``loggingConfig`` only when true; an absent flag
#: delivers nothing of that kind ("Set to include ... data in the log delivery", API ``LoggingConfig``).
#: ``audioDataDeliveryEnabled`` arrived in the AWS SDKs on 2025-12-02 (SDK changelogs, Bedrock), so any Lambda
#: runtime bundled before then rejects it; see docs/runtime-rules.md.
NEWER_DATA_FLAGS = ("video_data", "audio_data")


@dataclass(frozen=True)
class InvocationLoggingSpec:
    """``bedrock.invocation_logging``: destinations, retention, which data is delivered, and ownership.

    ``s3``: True creates an encrypted bucket; a string names an existing bucket (its policy and
    encryption are the owner's business); False delivers to CloudWatch Logs only.
    """

    s3: bool | str = True
    cloudwatch_logs: bool = True
    retention_days: int = 365
    text_data: bool = True
    image_data: bool = False
    embedding_data: bool = False
    video_data: bool = False
    audio_data: bool = False
    overwrite_existing: bool = False

    @property
    def creates_bucket(self) -> bool:
        """True when the construct creates the S3 destination."""
        return self.s3 is True

    @property
    def existing_bucket(self) -> str | None:
        """Name of an existing destination bucket, or None."""
        return self.s3 if isinstance(self.s3, str) else None

    @property
    def destinations(self) -> list[str]:
        """``s3`` and/or ``cloudwatch_logs``, in that order."""
        return [d for d, on in (("s3", bool(self.s3)), ("cloudwatch_logs", self.cloudwatch_logs)) if on]

    @property
    def delivery_paths(self) -> list[str]:
        """What delivers (and can fail): the destinations, plus ``large_data`` (CloudWatch Logs delivery's objects
        over 100 KB or binary) when a bucket takes them."""
        large = ["large_data"] if self.cloudwatch_logs and self.s3 else []
        return self.destinations + large


def check_invocation_logging(spec: InvocationLoggingSpec, *, path: str = "bedrock.invocation_logging") -> list[str]:
    """Every problem in ``spec`` as ``<key path>: <what>; <fix>`` lines."""
    problems: list[str] = []
    if not spec.destinations:
        problems.append(f"{path}: no destination; set s3 (true or a bucket name) and/or cloudwatch_logs: true")
    if spec.retention_days not in RETENTION_DAYS:
        problems.append(
            f"{path}.retention_days: {spec.retention_days} is not a CloudWatch Logs retention; use one of "
            + ", ".join(str(d) for d in RETENTION_DAYS)
        )
    bucket = spec.existing_bucket
    broken = broken_bucket_rules(bucket) if bucket is not None else []
    if broken:
        problems.append(
            f"{path}.s3: {bucket!r} is not a bucket name S3 allows; use true to create one, or a name with "
            + "; ".join(broken)
        )
    if not any(getattr(spec, k) for k in DATA_FLAGS):
        problems.append(
            f"{path}: every data flag is false, so only metadata would be logged; set text_data: true (or another "
            "*_data flag), or remove invocation_logging"
        )
    return problems


def logging_config(
    spec: InvocationLoggingSpec, *, bucket_name: str | None, log_group_name: str | None, role_arn: str | None
) -> dict[str, Any]:
    """The API's ``loggingConfig`` for ``spec`` with the destinations' names (tokens in a template).

    Text, image and embedding flags are always sent (every SDK with the Bedrock API knows them); video and audio
    only when true (:data:`NEWER_DATA_FLAGS`), so the handler runs on a Lambda runtime whose bundled SDK predates them.
    """
    config: dict[str, Any] = {
        api: getattr(spec, key) for key, api in DATA_FLAGS.items() if key not in NEWER_DATA_FLAGS or getattr(spec, key)
    }
    if bucket_name is not None:
        config["s3Config"] = {"bucketName": bucket_name}
    if log_group_name is not None and role_arn is not None:
        cloudwatch: dict[str, Any] = {"logGroupName": log_group_name, "roleArn": role_arn}
        if bucket_name is not None:
            cloudwatch["largeDataDeliveryS3Config"] = {"bucketName": bucket_name, "keyPrefix": LARGE_DATA_PREFIX}
        config["cloudWatchConfig"] = cloudwatch
    return config


def plan_entry(spec: InvocationLoggingSpec) -> InvocationLoggingPlan:
    """What the plan says of the account's invocation logging (the ``bedrock_invocation_logging`` section)."""
    warnings = []
    if spec.existing_bucket:
        warnings.append(
            f"bedrock invocation logging: bucket {spec.existing_bucket} is not managed here; its policy must allow "
            "bedrock.amazonaws.com s3:PutObject under AWSLogs/<account>/BedrockModelInvocationLogs/ and its KMS key "
            "(if any) must allow Bedrock to generate data keys"
        )
    if spec.overwrite_existing:
        warnings.append(
            "bedrock invocation logging: overwrite_existing is true, so a configuration this stack did not create is "
            "replaced (and restored when the stack is deleted)"
        )
    return InvocationLoggingPlan(
        destinations=tuple(spec.destinations),
        bucket="created" if spec.creates_bucket else spec.existing_bucket,
        retention_days=spec.retention_days,
        data={key.removesuffix("_data"): getattr(spec, key) for key in DATA_FLAGS},
        overwrite_existing=spec.overwrite_existing,
        scope="account and Region singleton",
        warnings=tuple(warnings),
    )
