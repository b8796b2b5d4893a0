"""Bedrock model invocation logging as a CloudFormation custom resource.

There is no CloudFormation resource for ``PutModelInvocationLoggingConfiguration``, and the
configuration is one per account and Region, so this handler treats it as a shared singleton:

* **Create** reads the current configuration (``GetModelInvocationLoggingConfiguration``). If one with
  other destinations exists and ``OverwriteExisting`` is not ``true``, it answers ``FAILED`` and
  changes nothing. Otherwise it writes the new configuration and records the one it replaced in the
  physical resource id (compressed; CloudFormation keeps it and sends it back on Update and Delete).
* **Update** writes the new configuration when the current one is this stack's (old or new
  destinations) or overwriting is allowed. A configuration someone else wrote meanwhile is left
  alone with a warning and ``SUCCESS``: failing here would also fail the rollback's own update.
* **Delete** restores the recorded previous configuration, or deletes the configuration when there
  was none. It leaves a configuration someone else wrote meanwhile, and it always answers
  ``SUCCESS``: logging must never block a stack delete.

Every AWS call is retried on throttling, server errors and timeouts with exponential backoff and
full jitter, within the time the Lambda function has left minus a reserve for answering
CloudFormation; botocore's own retries are off so attempts are counted in one place. Answers stay
under CloudFormation's 4096-byte limit (physical id at most 1 KB, reason truncated).

The function runs on the SDK the Lambda runtime bundles, whose version AWS does not publish (it "depends on
the runtime version and your AWS Region"), so the handler assumes no more than botocore 1.31.57, the first
release with the ``bedrock`` client:

* ``videoDataDeliveryEnabled`` and ``audioDataDeliveryEnabled`` are sent only when true (an older SDK rejects
  an unknown member before sending anything); a true flag the bundled SDK does not know answers ``FAILED``
  before any call, naming the flag and the config key to change;
* a configuration restored on Delete drops the false newer flags, and the true ones the SDK does not know
  (said in the reason);
* right after the stack creates the delivery role, Bedrock rejects the write with ``ValidationException``
  "Failed to validate permissions for log group ..." until IAM has propagated the role: that one error is
  retried (at most :data:`PROPAGATION_MAX_ATTEMPTS` attempts and :data:`PROPAGATION_MAX_WAIT_SECONDS` of
  waiting, and never past the answer reserve); any other ``ValidationException`` fails at once.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import time
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

LOGGER = logging.getLogger(__name__)
LOGGER.setLevel(logging.INFO)

MAX_ATTEMPTS = 5
#: Seconds kept back for sending the answer to CloudFormation.
RESPONSE_RESERVE_SECONDS = 15.0
MAX_RESPONSE_BYTES = 4096
MAX_PHYSICAL_ID_BYTES = 1024
ID_PREFIX = "bedrock-invocation-logging"
NOT_OWNED_ID = f"{ID_PREFIX}:not-owned"
OWNED_NO_PREVIOUS_ID = f"{ID_PREFIX}:owned"
_PREVIOUS_MARK = ":previous:"
_UNRECORDED_ID = f"{ID_PREFIX}:owned:previous-not-recorded"
RETRYABLE_CODES = frozenset(
    {
        "ThrottlingException",
        "Throttling",
        "TooManyRequestsException",
        "InternalServerException",
        "ServiceUnavailableException",
        "RequestTimeout",
        "RequestTimeoutException",
    }
)
_TIMEOUT_ERRORS = ("ReadTimeoutError", "ConnectTimeoutError", "EndpointConnectionError", "ConnectionClosedError")
#: Flags every SDK with the Bedrock API knows (botocore 1.31.57 ``LoggingConfig``).
_BASE_FLAGS = ("textDataDeliveryEnabled", "imageDataDeliveryEnabled", "embeddingDataDeliveryEnabled")
#: Flags added to ``LoggingConfig`` later (audio: 2025-12-02); sent only when true.
NEWER_FLAGS = ("videoDataDeliveryEnabled", "audioDataDeliveryEnabled")
_FLAGS = _BASE_FLAGS + NEWER_FLAGS
#: Config key of each flag, for messages that say what to change.
_CONFIG_KEYS = {
    "videoDataDeliveryEnabled": "bedrock.invocation_logging.video_data",
    "audioDataDeliveryEnabled": "bedrock.invocation_logging.audio_data",
}
#: Bedrock's answer while IAM has not propagated the delivery role (the Terraform AWS provider retries the same
#: message): ``ValidationException: Failed to validate permissions for log group: <group>, with role: <role>.
#: Verify the IAM role permissions are correct.``
PROPAGATION_CODE = "ValidationException"
PROPAGATION_MESSAGE = "Failed to validate permissions for log group"
#: Bounds of the propagation retry: attempts in all, and seconds of waiting in all (the function has 120 s).
PROPAGATION_MAX_ATTEMPTS = 8
PROPAGATION_MAX_WAIT_SECONDS = 80.0
#: First wait, doubled after each attempt and capped at :data:`PROPAGATION_WAIT_CAP_SECONDS`.
PROPAGATION_FIRST_WAIT_SECONDS = 2.0
PROPAGATION_WAIT_CAP_SECONDS = 16.0


class GaveUpError(Exception):
    """A retryable error outlasted the attempts or the time left."""


@dataclass
class Answer:
    """What the handler tells CloudFormation."""

    status: str
    reason: str
    physical_id: str
    data: dict[str, str] = field(default_factory=dict)


@dataclass
class Clock:
    """Time left in the invocation (seconds) and how to wait; replaced in tests."""

    remaining: Callable[[], float]
    sleep: Callable[[float], None] = time.sleep


def _error_code(error: BaseException) -> str:
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return ""


def _retryable(error: BaseException) -> bool:
    return _error_code(error) in RETRYABLE_CODES or type(error).__name__ in _TIMEOUT_ERRORS


def _propagating(error: BaseException) -> bool:
    return _error_code(error) == PROPAGATION_CODE and PROPAGATION_MESSAGE in str(error)


def call(
    operation: Callable[..., dict[str, Any]], clock: Clock, *, retry_propagation: bool = False, **kwargs: Any
) -> dict[str, Any]:
    """Call ``operation``, retrying retryable errors while attempts and time remain.

    ``retry_propagation`` also retries Bedrock's IAM-propagation ``ValidationException`` (the delivery role was
    just created), with its own bounds: :data:`PROPAGATION_MAX_ATTEMPTS` and :data:`PROPAGATION_MAX_WAIT_SECONDS`.
    """
    attempt = 0
    propagation_attempts = 0
    propagation_waited = 0.0
    while True:
        try:
            return operation(**kwargs)
        except Exception as error:  # botocore ClientError / HTTPClientError: matched by name, import stays optional
            if retry_propagation and _propagating(error):
                propagation_attempts += 1
                growing = PROPAGATION_FIRST_WAIT_SECONDS * 2 ** (propagation_attempts - 1)
                wait = min(PROPAGATION_WAIT_CAP_SECONDS, growing)
                if (
                    propagation_attempts >= PROPAGATION_MAX_ATTEMPTS
                    or propagation_waited + wait > PROPAGATION_MAX_WAIT_SECONDS
                    or clock.remaining() - wait < RESPONSE_RESERVE_SECONDS
                ):
                    raise GaveUpError(
                        f"{PROPAGATION_CODE} after {propagation_attempts} attempts over {propagation_waited:.0f} s "
                        f"({error}); the delivery role's permissions did not take effect in time: check its trust "
                        "policy and its logs:CreateLogStream/PutLogEvents grant, then retry the deployment"
                    ) from error
                propagation_waited += wait
                clock.sleep(wait)
                continue
            if not _retryable(error):
                raise
            wait = random.uniform(0, min(4.0, 0.25 * 2**attempt))
            if attempt == MAX_ATTEMPTS - 1 or clock.remaining() - wait < RESPONSE_RESERVE_SECONDS:
                raise GaveUpError(
                    f"{_error_code(error) or type(error).__name__} after {attempt + 1} attempts"
                ) from error
            attempt += 1
            clock.sleep(wait)


def desired_config(properties: dict[str, Any]) -> dict[str, Any]:
    """``LoggingConfig`` from the resource properties (CloudFormation passes booleans as strings)."""
    raw = properties.get("LoggingConfig") or {}
    config: dict[str, Any] = {}
    for flag in _FLAGS:
        if flag in raw:
            config[flag] = str(raw[flag]).lower() == "true"
    config = _without_false_newer_flags(config)
    if raw.get("s3Config"):
        config["s3Config"] = dict(raw["s3Config"])
    if raw.get("cloudWatchConfig"):
        cloudwatch = dict(raw["cloudWatchConfig"])
        if cloudwatch.get("largeDataDeliveryS3Config"):
            cloudwatch["largeDataDeliveryS3Config"] = dict(cloudwatch["largeDataDeliveryS3Config"])
        config["cloudWatchConfig"] = cloudwatch
    return config


def _without_false_newer_flags(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without the newer flags that are false (absent delivers nothing of that kind either)."""
    return {k: v for k, v in config.items() if k not in NEWER_FLAGS or v is True}


def unknown_members(config: dict[str, Any], client: Any) -> list[str]:
    """Members of ``config`` the client's ``LoggingConfig`` shape (the bundled SDK's model) does not have."""
    try:
        known = set(client.meta.service_model.shape_for("LoggingConfig").members)
    except Exception:  # a client without a model (never in Lambda): let the call itself decide
        return []
    return [member for member in config if member not in known]


def _sdk_version() -> str:
    try:
        import botocore

        return f"botocore {botocore.__version__}"
    except Exception:
        return "its botocore"


def _unknown_flags_answer(unknown: list[str], physical_id: str) -> Answer:
    keys = ", ".join(f"{flag} ({_CONFIG_KEYS.get(flag, 'bedrock.invocation_logging')})" for flag in unknown)
    return Answer(
        "FAILED",
        f"the Lambda runtime's AWS SDK ({_sdk_version()}) does not know {keys}, so Bedrock cannot be asked for it; "
        "nothing was changed. Set that key to false, or deploy again once the runtime's SDK has it",
        physical_id,
    )


def destinations(config: dict[str, Any] | None) -> tuple[str, ...]:
    """The destinations a configuration names (bucket, prefix, log group, role); empty when logging is off."""
    if not config:
        return ()
    s3 = config.get("s3Config") or {}
    cloudwatch = config.get("cloudWatchConfig") or {}
    parts = (
        s3.get("bucketName") or "",
        s3.get("keyPrefix") or "",
        cloudwatch.get("logGroupName") or "",
        cloudwatch.get("roleArn") or "",
    )
    return parts if any(parts) else ()


def encode_owned_id(previous: dict[str, Any] | None) -> str:
    """Physical id of a configuration this stack wrote, carrying the one it replaced (if it fits in 1 KB)."""
    if not destinations(previous):
        return OWNED_NO_PREVIOUS_ID
    packed = zlib.compress(json.dumps(previous, separators=(",", ":"), sort_keys=True).encode(), 9)
    physical_id = OWNED_NO_PREVIOUS_ID + _PREVIOUS_MARK + base64.urlsafe_b64encode(packed).decode().rstrip("=")
    return physical_id if len(physical_id.encode()) <= MAX_PHYSICAL_ID_BYTES else _UNRECORDED_ID


def decode_owned_id(physical_id: str) -> tuple[bool, dict[str, Any] | None]:
    """``(owned, previous configuration)`` from a physical id written by :func:`encode_owned_id`."""
    if not physical_id.startswith(OWNED_NO_PREVIOUS_ID):
        return False, None
    _, mark, packed = physical_id.partition(_PREVIOUS_MARK)
    if not mark:
        return True, None
    data = zlib.decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)))
    previous = json.loads(data)
    return True, previous if isinstance(previous, dict) else None


def _current(client: Any, clock: Clock) -> dict[str, Any]:
    return dict(call(client.get_model_invocation_logging_configuration, clock).get("loggingConfig") or {})


def _describe(config: dict[str, Any]) -> str:
    s3 = (config.get("s3Config") or {}).get("bucketName")
    cloudwatch = (config.get("cloudWatchConfig") or {}).get("logGroupName")
    parts = [f"S3 bucket {s3}" if s3 else "", f"log group {cloudwatch}" if cloudwatch else ""]
    return " and ".join(p for p in parts if p) or "no destination"


def on_create(event: dict[str, Any], client: Any, clock: Clock) -> Answer:
    """Write the configuration unless another one exists and overwriting is not allowed."""
    properties = event.get("ResourceProperties", {})
    desired = desired_config(properties)
    unknown = unknown_members(desired, client)
    if unknown:
        return _unknown_flags_answer(unknown, NOT_OWNED_ID)
    overwrite = str(properties.get("OverwriteExisting", "false")).lower() == "true"
    try:
        current = _current(client, clock)
    except Exception as error:
        return Answer("FAILED", f"could not read the current configuration: {_why(error)}", NOT_OWNED_ID)
    foreign = bool(destinations(current)) and destinations(current) != destinations(desired)
    if foreign and not overwrite:
        return Answer(
            "FAILED",
            f"this account and Region already log model invocations to {_describe(current)}, which this stack did "
            "not create; nothing was changed. Set bedrock.invocation_logging.overwrite_existing: true to replace it "
            "(it is restored when the stack is deleted), or remove invocation_logging",
            NOT_OWNED_ID,
        )
    try:
        call(client.put_model_invocation_logging_configuration, clock, retry_propagation=True, loggingConfig=desired)
    except Exception as error:
        return Answer("FAILED", f"PutModelInvocationLoggingConfiguration failed: {_why(error)}", NOT_OWNED_ID)
    physical_id = encode_owned_id(current if foreign else None)
    data = {"Replaced": _describe(current) if foreign else "", "Destinations": _describe(desired)}
    if physical_id == _UNRECORDED_ID:
        data["Warning"] = "the replaced configuration is too large to record; deleting the stack deletes logging"
    return Answer("SUCCESS", f"logging to {_describe(desired)}", physical_id, data)


def on_update(event: dict[str, Any], client: Any, clock: Clock) -> Answer:
    """Write the new configuration when the current one is this stack's or overwriting is allowed."""
    physical_id = str(event.get("PhysicalResourceId", ""))
    owned, _ = decode_owned_id(physical_id)
    if not owned:
        return on_create(event, client, clock)
    properties = event.get("ResourceProperties", {})
    desired = desired_config(properties)
    unknown = unknown_members(desired, client)
    if unknown:
        return _unknown_flags_answer(unknown, physical_id)
    old = desired_config(event.get("OldResourceProperties", {}))
    overwrite = str(properties.get("OverwriteExisting", "false")).lower() == "true"
    try:
        current = _current(client, clock)
    except Exception as error:
        return Answer("FAILED", f"could not read the current configuration: {_why(error)}", physical_id)
    ours = destinations(current) in {(), destinations(old), destinations(desired)}
    if not ours and not overwrite:
        warning = (
            f"the configuration was changed outside this stack (now {_describe(current)}); it was left alone. Set "
            "overwrite_existing: true to replace it"
        )
        return Answer("SUCCESS", warning, physical_id, {"Warning": warning, "Destinations": _describe(current)})
    try:
        call(client.put_model_invocation_logging_configuration, clock, retry_propagation=True, loggingConfig=desired)
    except Exception as error:
        return Answer("FAILED", f"PutModelInvocationLoggingConfiguration failed: {_why(error)}", physical_id)
    return Answer("SUCCESS", f"logging to {_describe(desired)}", physical_id, {"Destinations": _describe(desired)})


def on_delete(event: dict[str, Any], client: Any, clock: Clock) -> Answer:
    """Restore the previous configuration (or delete ours); always SUCCESS."""
    physical_id = str(event.get("PhysicalResourceId", ""))
    try:
        owned, previous = decode_owned_id(physical_id)
    except (ValueError, zlib.error) as error:
        return Answer("SUCCESS", f"unreadable physical id, nothing changed: {error}", physical_id)
    if not owned:
        return Answer("SUCCESS", "this stack never owned the configuration; nothing changed", physical_id)
    desired = desired_config(event.get("ResourceProperties", {}))
    try:
        current = _current(client, clock)
        if destinations(current) not in {(), destinations(desired)}:
            return Answer(
                "SUCCESS",
                f"the configuration was changed outside this stack (now {_describe(current)}); it was left alone",
                physical_id,
            )
        if previous is not None:
            restore = _without_false_newer_flags(previous)
            dropped = unknown_members(restore, client)
            restore = {k: v for k, v in restore.items() if k not in dropped}
            call(
                client.put_model_invocation_logging_configuration, clock, retry_propagation=True, loggingConfig=restore
            )
            note = (
                f", without {', '.join(dropped)}, which the Lambda runtime's AWS SDK ({_sdk_version()}) does not know: "
                "set it again"
                if dropped
                else ""
            )
            return Answer("SUCCESS", f"restored the previous configuration ({_describe(previous)}){note}", physical_id)
        call(client.delete_model_invocation_logging_configuration, clock)
        return Answer("SUCCESS", "model invocation logging deleted", physical_id)
    except Exception as error:  # never block a stack delete
        return Answer(
            "SUCCESS",
            f"could not restore or delete the configuration ({_why(error)}); check it with "
            "aws bedrock get-model-invocation-logging-configuration",
            physical_id,
        )


def _why(error: BaseException) -> str:
    return f"{_error_code(error) or type(error).__name__}: {error}"[:600]


def on_event(event: dict[str, Any], client: Any, clock: Clock) -> Answer:
    """Dispatch one CloudFormation request."""
    request_type = event.get("RequestType")
    if request_type == "Create":
        return on_create(event, client, clock)
    if request_type == "Update":
        return on_update(event, client, clock)
    return on_delete(event, client, clock)


def response_body(event: dict[str, Any], answer: Answer) -> bytes:
    """The JSON CloudFormation expects, cut to stay under 4096 bytes (reason and data values shortened)."""
    document: dict[str, Any] = {
        "Status": answer.status,
        "Reason": answer.reason[:1500],
        "PhysicalResourceId": answer.physical_id,
        "StackId": event.get("StackId", ""),
        "RequestId": event.get("RequestId", ""),
        "LogicalResourceId": event.get("LogicalResourceId", ""),
        "Data": {k: v[:300] for k, v in answer.data.items()},
    }
    body = json.dumps(document).encode()
    while len(body) >= MAX_RESPONSE_BYTES and document["Reason"]:
        document["Reason"] = document["Reason"][
            : max(0, len(document["Reason"]) - (len(body) - MAX_RESPONSE_BYTES) - 64)
        ]
        document["Data"] = {}
        body = json.dumps(document).encode()
    return body


def send(event: dict[str, Any], answer: Answer) -> None:
    """PUT the answer to CloudFormation's pre-signed URL."""
    body = response_body(event, answer)
    request = urllib.request.Request(
        event["ResponseURL"], data=body, method="PUT", headers={"Content-Type": "", "Content-Length": str(len(body))}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        LOGGER.info("cloudformation answer %s: HTTP %s", answer.status, reply.status)


def _client() -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client("bedrock", config=Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=15))


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Lambda entry point: always answers CloudFormation, within the function's remaining time."""
    clock = Clock(remaining=lambda: context.get_remaining_time_in_millis() / 1000.0)
    try:
        answer = on_event(event, _client(), clock)
    except Exception as error:  # answer anyway: a custom resource that never answers hangs the stack
        LOGGER.exception("unexpected error")
        status = "SUCCESS" if event.get("RequestType") == "Delete" else "FAILED"
        answer = Answer(
            status, f"unexpected error: {_why(error)}", str(event.get("PhysicalResourceId") or NOT_OWNED_ID)
        )
    log = LOGGER.warning if answer.status == "FAILED" or "Warning" in answer.data else LOGGER.info
    log("%s %s: %s", event.get("RequestType"), answer.status, answer.reason)
    send(event, answer)
    return {"Status": answer.status, "PhysicalResourceId": answer.physical_id}
