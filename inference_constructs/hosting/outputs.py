"""Where an endpoint writes: async inference outputs (with their success and error SNS topics) and data capture.

Both go to the location the plan names, else under this endpoint's own prefix of the stack's shared data
bucket (``async/<endpoint>``, ``capture/<endpoint>``); the execution policy gets the object writes (and the
input reads of async requests), acknowledged as limited to that prefix.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk import aws_sns as sns
from constructs import Construct

from inference_constructs import _tokens
from inference_constructs._policy import allow, document
from inference_constructs.hosting._shared import InferenceStorage
from inference_constructs.hosting.decisions import EndpointPlan
from inference_constructs.hosting.request import AsyncOptions, DataCaptureOptions
from inference_constructs.hosting.role import ExecutionStatements

__all__ = ["AsyncOutput", "DataCapture", "async_output", "data_capture"]


@dataclass(frozen=True)
class AsyncOutput:
    """The async inference configuration and what it created."""

    config: sagemaker.CfnEndpointConfig.AsyncInferenceConfigProperty
    output_s3_uri: str
    input_s3_prefix: str
    success_topic: sns.ITopic | None
    error_topic: sns.ITopic | None


@dataclass(frozen=True)
class DataCapture:
    """The data capture configuration and where it writes."""

    config: sagemaker.CfnEndpointConfig.DataCaptureConfigProperty
    s3_uri: str


def _data_uri(owner: Construct, endpoint_name: str, purpose: str) -> tuple[s3.IBucket, str]:
    """(shared data bucket, key prefix) for this endpoint's ``purpose`` (``async`` or ``capture``)."""
    bucket = InferenceStorage.of(owner).data
    return bucket, f"{purpose}/{endpoint_name}"


def async_output(
    owner: Construct,
    plan: EndpointPlan,
    endpoint_name: str,
    kms_key: kms.IKey | None,
    statements: ExecutionStatements,
) -> AsyncOutput:
    """The async inference config of ``owner`` (SNS topics ``SuccessTopic``/``ErrorTopic`` when notifications
    are on), with the grants it needs added to ``statements``."""
    options = plan.async_inference or AsyncOptions()
    if options.output_s3_uri:
        output = options.output_s3_uri.rstrip("/")
        bucket_name, _, key = output[len("s3://") :].partition("/")
        bucket_arn = f"arn:{_tokens.aws_partition()}:s3:::{bucket_name}"
        key_prefix = key
    else:
        bucket, key_prefix = _data_uri(owner, endpoint_name, "async")
        bucket_name, bucket_arn = bucket.bucket_name, bucket.bucket_arn
        output = f"s3://{bucket_name}/{key_prefix}"
    base = f"{bucket_arn}/{key_prefix}" if key_prefix else bucket_arn
    statements.append(allow(["s3:PutObject"], [f"{base}/*"]))
    statements.append(allow(["s3:GetObject"], [f"{base}/inputs/*"]))
    statements.acknowledge_objects(
        base, key_prefix, ["", "inputs/"], "async requests and results are objects sagemaker names per request"
    )
    notification = None
    success_topic: sns.ITopic | None = None
    error_topic: sns.ITopic | None = None
    if options.notifications:
        master_key: kms.IKey = kms_key or kms.Alias.from_alias_name(owner, "SnsKey", "alias/aws/sns")
        success_topic = sns.Topic(owner, "SuccessTopic", master_key=master_key)
        error_topic = sns.Topic(owner, "ErrorTopic", master_key=master_key)
        topics = [success_topic.topic_arn, error_topic.topic_arn]  # each read is a round trip: read once
        sns.CfnTopicPolicy(
            owner,
            "TopicPolicy",
            topics=topics,
            policy_document=document(
                [
                    {
                        "Sid": "AllowPublishThroughSSLOnly",
                        "Effect": "Deny",
                        "Principal": {"AWS": ["*"]},
                        "Action": ["sns:Publish"],
                        "Resource": topics,
                        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                    }
                ]
            ),
        )
        statements.append(allow(["sns:Publish"], topics))
        if kms_key is not None:
            statements.append(allow(["kms:GenerateDataKey"], [kms_key.key_arn]))
        notification = sagemaker.CfnEndpointConfig.AsyncInferenceNotificationConfigProperty(
            success_topic=topics[0], error_topic=topics[1]
        )
    elif kms_key is not None:
        statements.append(allow(["kms:GenerateDataKey"], [kms_key.key_arn]))
    config = sagemaker.CfnEndpointConfig.AsyncInferenceConfigProperty(
        output_config=sagemaker.CfnEndpointConfig.AsyncInferenceOutputConfigProperty(
            s3_output_path=output,
            s3_failure_path=f"{output}/failures",
            kms_key_id=kms_key.key_arn if kms_key else None,
            notification_config=notification,
        ),
        client_config=(
            sagemaker.CfnEndpointConfig.AsyncInferenceClientConfigProperty(
                max_concurrent_invocations_per_instance=plan.max_concurrent_invocations_per_instance
            )
            if plan.max_concurrent_invocations_per_instance
            else None
        ),
    )
    return AsyncOutput(config, output, f"{output}/inputs/", success_topic, error_topic)


def data_capture(
    owner: Construct,
    plan: EndpointPlan,
    endpoint_name: str,
    kms_key: kms.IKey | None,
    statements: ExecutionStatements,
) -> DataCapture:
    """The data capture config of ``owner`` (requests and responses), with the grants it needs added to
    ``statements``."""
    capture = plan.data_capture or DataCaptureOptions()
    if capture.s3_uri:
        destination = capture.s3_uri.rstrip("/")
        bucket_name, _, key = destination[len("s3://") :].partition("/")
        base = f"arn:{_tokens.aws_partition()}:s3:::{bucket_name}" + (f"/{key}" if key else "")
    else:
        bucket, key = _data_uri(owner, endpoint_name, "capture")
        destination = f"s3://{bucket.bucket_name}/{key}"
        base = f"{bucket.bucket_arn}/{key}"
    statements.append(allow(["s3:PutObject"], [f"{base}/*"]))
    if kms_key is not None:
        statements.append(allow(["kms:GenerateDataKey"], [kms_key.key_arn]))
    statements.acknowledge_objects(
        base, key, [""], "captured requests and responses are objects sagemaker names per hour"
    )
    config = sagemaker.CfnEndpointConfig.DataCaptureConfigProperty(
        capture_options=[
            sagemaker.CfnEndpointConfig.CaptureOptionProperty(capture_mode="Input"),
            sagemaker.CfnEndpointConfig.CaptureOptionProperty(capture_mode="Output"),
        ],
        destination_s3_uri=destination,
        initial_sampling_percentage=capture.sampling_percent,
        enable_capture=True,
        kms_key_id=kms_key.key_arn if kms_key else None,
    )
    return DataCapture(config, destination)
