"""Bedrock invocation logging custom resource, against botocore's real ``bedrock`` models (Stubber), the installed
one and the SDK floor's (the oldest botocore with the API, which a Lambda runtime may bundle), and, for timeouts,
the real client stack with the HTTP send replaced by a raising or answering hook."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.exceptions import ReadTimeoutError
from botocore.stub import Stubber

from tests.handlers import _models
from tests.handlers._load import load_handler

h = load_handler("bedrock_invocation_logging", "bedrock_invocation_logging_handler")

ROLE = "arn:aws:iam::123456789012:role/acme-bedrock-BedrockLogsRole-ABC"
OURS = {
    "textDataDeliveryEnabled": True,
    "imageDataDeliveryEnabled": False,
    "embeddingDataDeliveryEnabled": False,
    "s3Config": {"bucketName": "acme-bedrock-logs-abc"},
    "cloudWatchConfig": {
        "logGroupName": "acme-bedrock-LogGroup-XYZ",
        "roleArn": ROLE,
        "largeDataDeliveryS3Config": {"bucketName": "acme-bedrock-logs-abc", "keyPrefix": "large-data"},
    },
}
THEIRS = {
    "textDataDeliveryEnabled": True,
    "imageDataDeliveryEnabled": True,
    "embeddingDataDeliveryEnabled": True,
    "s3Config": {"bucketName": "security-team-bedrock-audit", "keyPrefix": "org"},
}


def _client() -> Any:
    return boto3.client(
        "bedrock",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}),
    )


@pytest.fixture(params=_models.MODELS)
def bedrock(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Stubber]]:
    client = _models.client("bedrock", request.param)
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def _clock(seconds: float = 100.0, waits: list[float] | None = None) -> Any:
    sink = waits if waits is not None else []
    return h.Clock(remaining=lambda: seconds, sleep=sink.append)


def _as_cfn(config: dict[str, Any]) -> dict[str, Any]:
    """What CloudFormation hands the function: every scalar property as a string."""
    return json.loads(json.dumps(config), parse_constant=str, object_hook=lambda d: {k: _str(v) for k, v in d.items()})


def _str(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _event(
    request_type: str, config: dict[str, Any], *, physical_id: str | None = None, **extra: Any
) -> dict[str, Any]:
    event = {
        "RequestType": request_type,
        "ResponseURL": "https://cloudformation-custom-resource-response-useast1.s3.amazonaws.com/x",
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/acme-bedrock/guid",
        "RequestId": "req-1",
        "LogicalResourceId": "InvocationLoggingResource",
        "ResourceType": "Custom::BedrockInvocationLogging",
        "ResourceProperties": {"ServiceToken": "arn", "LoggingConfig": _as_cfn(config), **extra},
    }
    if physical_id is not None:
        event["PhysicalResourceId"] = physical_id
    return event


def test_create_without_a_configuration_writes_it_with_real_booleans(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN an account and Region without invocation logging
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {})
    stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": OURS})
    # WHEN the resource is created from CloudFormation's stringly-typed properties
    answer = h.on_event(_event("Create", OURS), client, _clock())
    # THEN the API got booleans (Stubber checks the params against the model) and the stack owns it
    assert (answer.status, answer.physical_id) == ("SUCCESS", h.OWNED_NO_PREVIOUS_ID)


def test_create_refuses_a_configuration_it_did_not_create(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN another team's configuration in the account and Region
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": THEIRS})
    # WHEN the resource is created without overwrite_existing
    answer = h.on_event(_event("Create", OURS), client, _clock())
    # THEN it fails, names the existing destination and the key to set, and writes nothing (no put stubbed)
    assert answer.status == "FAILED"
    assert answer.physical_id == h.NOT_OWNED_ID
    assert "security-team-bedrock-audit" in answer.reason
    assert "overwrite_existing: true" in answer.reason


def test_overwrite_records_the_previous_configuration_and_delete_restores_it(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN another configuration and overwrite allowed
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": THEIRS})
    stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": OURS})
    created = h.on_event(_event("Create", OURS, OverwriteExisting="true"), client, _clock())
    assert created.status == "SUCCESS"
    assert len(created.physical_id.encode()) <= h.MAX_PHYSICAL_ID_BYTES
    # WHEN the stack is deleted while our configuration is still in place
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": OURS})
    stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": THEIRS})
    deleted = h.on_event(_event("Delete", OURS, physical_id=created.physical_id), client, _clock())
    # THEN exactly the previous configuration is written back (Stubber compares the params)
    assert deleted.status == "SUCCESS"
    assert "restored" in deleted.reason


def test_delete_without_a_previous_configuration_deletes_logging(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": OURS})
    stub.add_response("delete_model_invocation_logging_configuration", {})
    answer = h.on_event(_event("Delete", OURS, physical_id=h.OWNED_NO_PREVIOUS_ID), client, _clock())
    assert (answer.status, answer.reason) == ("SUCCESS", "model invocation logging deleted")


def test_delete_after_a_refused_create_touches_nothing(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN the rollback of a create that was refused WHEN deleted THEN no call is made (none stubbed)
    client, _ = bedrock
    answer = h.on_event(_event("Delete", OURS, physical_id=h.NOT_OWNED_ID), client, _clock())
    assert answer.status == "SUCCESS"


def test_delete_leaves_a_configuration_changed_outside_the_stack(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": THEIRS})
    answer = h.on_event(_event("Delete", OURS, physical_id=h.OWNED_NO_PREVIOUS_ID), client, _clock())
    assert answer.status == "SUCCESS"
    assert "left alone" in answer.reason


@pytest.mark.parametrize("code", ["AccessDeniedException", "ValidationException"])
def test_delete_never_fails_even_when_bedrock_refuses(bedrock: tuple[Any, Stubber], code: str) -> None:
    # GIVEN a role that lost its permission (or a rejected restore)
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": OURS})
    stub.add_client_error("delete_model_invocation_logging_configuration", code, "denied", 403)
    # WHEN the stack is deleted THEN the delete goes on, and the reason says what to check
    answer = h.on_event(_event("Delete", OURS, physical_id=h.OWNED_NO_PREVIOUS_ID), client, _clock())
    assert answer.status == "SUCCESS"
    assert code in answer.reason
    assert "get-model-invocation-logging-configuration" in answer.reason


def test_create_fails_on_access_denied_without_retrying(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    stub.add_client_error("get_model_invocation_logging_configuration", "AccessDeniedException", "no", 403)
    waits: list[float] = []
    answer = h.on_event(_event("Create", OURS), client, _clock(waits=waits))
    assert answer.status == "FAILED"
    assert answer.physical_id == h.NOT_OWNED_ID
    assert "AccessDeniedException" in answer.reason
    assert waits == []


def test_throttling_is_retried_with_growing_backoff(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN Bedrock throttles twice, then answers
    client, stub = bedrock
    stub.add_client_error("get_model_invocation_logging_configuration", "ThrottlingException", "slow down", 429)
    stub.add_client_error("get_model_invocation_logging_configuration", "ThrottlingException", "slow down", 429)
    stub.add_response("get_model_invocation_logging_configuration", {})
    stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": OURS})
    waits: list[float] = []
    # WHEN created
    answer = h.on_event(_event("Create", OURS), client, _clock(waits=waits))
    # THEN two waits within the capped exponential bounds, and success
    assert answer.status == "SUCCESS"
    assert len(waits) == 2
    assert 0 <= waits[0] <= 0.25 and 0 <= waits[1] <= 0.5


def test_throttling_stops_when_the_time_left_reaches_the_answer_reserve(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN only the reserve for answering is left in the invocation
    client, stub = bedrock
    stub.add_client_error("get_model_invocation_logging_configuration", "ThrottlingException", "slow down", 429)
    waits: list[float] = []
    # WHEN created THEN it gives up after one attempt, without waiting, and still answers FAILED
    answer = h.on_event(_event("Create", OURS), client, _clock(seconds=h.RESPONSE_RESERVE_SECONDS, waits=waits))
    assert answer.status == "FAILED"
    assert "after 1 attempts" in answer.reason
    assert waits == []


def test_throttling_is_bounded_by_the_attempt_count(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    for _ in range(h.MAX_ATTEMPTS):
        stub.add_client_error("get_model_invocation_logging_configuration", "ThrottlingException", "slow down", 429)
    waits: list[float] = []
    answer = h.on_event(_event("Create", OURS), client, _clock(waits=waits))
    assert answer.status == "FAILED"
    assert len(waits) == h.MAX_ATTEMPTS - 1


class _Wire:
    """Replaces the HTTP send of a real client: raise a read timeout ``timeouts`` times, then answer 200."""

    def __init__(self, timeouts: int, body: bytes) -> None:
        self.timeouts = timeouts
        self.body = body
        self.calls = 0

    def __call__(self, request: Any, **_: Any) -> AWSResponse:
        self.calls += 1
        if self.calls <= self.timeouts:
            raise ReadTimeoutError(endpoint_url=request.url)
        raw = type("Raw", (), {"stream": lambda self, **_: iter([b""])})()
        response = AWSResponse(request.url, 200, {"Content-Type": "application/json"}, raw)
        response._content = self.body  # what urllib3 would have read
        return response


def test_read_timeouts_are_retried_through_the_real_client() -> None:
    # GIVEN a real client whose first GET times out
    client = _client()
    wire = _Wire(timeouts=1, body=json.dumps({"loggingConfig": THEIRS}).encode())
    client.meta.events.register("before-send.bedrock", wire)
    waits: list[float] = []
    # WHEN the current configuration is read
    current = h.call(client.get_model_invocation_logging_configuration, _clock(waits=waits))
    # THEN the second attempt's response is parsed with the real model
    assert wire.calls == 2
    assert len(waits) == 1
    assert current["loggingConfig"]["s3Config"]["bucketName"] == "security-team-bedrock-audit"


def test_delete_answers_success_when_every_attempt_times_out() -> None:
    client = _client()
    wire = _Wire(timeouts=100, body=b"{}")
    client.meta.events.register("before-send.bedrock", wire)
    answer = h.on_event(_event("Delete", OURS, physical_id=h.OWNED_NO_PREVIOUS_ID), client, _clock())
    assert answer.status == "SUCCESS"
    assert wire.calls == h.MAX_ATTEMPTS
    assert "ReadTimeoutError" in answer.reason


def test_update_leaves_a_foreign_configuration_and_succeeds(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN someone replaced the stack's configuration after it was created
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": THEIRS})
    event = _event("Update", OURS, physical_id=h.OWNED_NO_PREVIOUS_ID)
    event["OldResourceProperties"] = {"LoggingConfig": _as_cfn(OURS)}
    # WHEN the stack is updated without overwrite THEN nothing is written (so a rollback cannot fail on it either)
    answer = h.on_event(event, client, _clock())
    assert answer.status == "SUCCESS"
    assert "left alone" in answer.data["Warning"]


def test_update_of_its_own_configuration_keeps_the_physical_id(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    new = {**OURS, "imageDataDeliveryEnabled": True}
    stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": OURS})
    stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": new})
    physical_id = h.encode_owned_id(THEIRS)
    event = _event("Update", new, physical_id=physical_id)
    event["OldResourceProperties"] = {"LoggingConfig": _as_cfn(OURS)}
    answer = h.on_event(event, client, _clock())
    # THEN the id (and the recorded previous configuration in it) is unchanged: no replacement, no delete
    assert (answer.status, answer.physical_id) == ("SUCCESS", physical_id)
    assert h.decode_owned_id(answer.physical_id) == (True, THEIRS)


def test_a_previous_configuration_too_large_for_the_id_is_not_recorded() -> None:
    # GIVEN a previous configuration with maximal, incompressible names (log group 512, prefix 1024 characters)
    noise = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(48))
    huge = {
        "s3Config": {"bucketName": noise[:63], "keyPrefix": noise[:1024]},
        "cloudWatchConfig": {"logGroupName": noise[1024:1536], "roleArn": ROLE},
    }
    # WHEN encoded THEN the id stays within 1 KB, is still owned, and records no previous configuration
    physical_id = h.encode_owned_id(huge)
    assert len(physical_id.encode()) <= h.MAX_PHYSICAL_ID_BYTES
    assert h.decode_owned_id(physical_id) == (True, None)


def test_the_answer_stays_under_4096_bytes() -> None:
    # GIVEN a very long reason and data
    answer = h.Answer("FAILED", "x" * 10_000, h.encode_owned_id(THEIRS), {"Warning": "w" * 5000})
    # WHEN rendered THEN the body is under CloudFormation's 4096-byte limit and keeps the ids
    body = h.response_body(_event("Create", OURS), answer)
    assert len(body) < h.MAX_RESPONSE_BYTES
    document = json.loads(body)
    assert document["PhysicalResourceId"] == answer.physical_id
    assert document["RequestId"] == "req-1"


def test_handler_answers_cloudformation_even_on_an_unexpected_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a delete whose client cannot even be created
    sent: list[Any] = []
    monkeypatch.setattr(h, "_client", lambda: (_ for _ in ()).throw(RuntimeError("no region")))
    monkeypatch.setattr(h, "send", lambda event, answer: sent.append(answer))
    context = type("Context", (), {"get_remaining_time_in_millis": lambda self: 60_000})()
    # WHEN the handler runs THEN it still answers, SUCCESS for a delete
    result = h.handler(_event("Delete", OURS, physical_id=h.OWNED_NO_PREVIOUS_ID), context)
    assert result["Status"] == "SUCCESS"
    assert sent and sent[0].status == "SUCCESS"


# ---------------------------------------------------------------------------------- the bundled SDK and IAM propagation
WITH_NEWER_FLAGS_OFF = {**OURS, "videoDataDeliveryEnabled": False, "audioDataDeliveryEnabled": False}
PROPAGATING = (
    "Failed to validate permissions for log group: acme-bedrock-LogGroup-XYZ, with role: "
    f"{ROLE}. Verify the IAM role permissions are correct."
)


def test_false_video_and_audio_flags_are_not_sent(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN a template that still carries video and audio as false (what the library wrote before)
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {})
    # THEN the write carries neither (Stubber compares the params, and on the floor model rejects unknown members)
    stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": OURS})
    answer = h.on_event(_event("Create", WITH_NEWER_FLAGS_OFF), client, _clock())
    assert (answer.status, answer.reason) == ("SUCCESS", f"logging to {h._describe(OURS)}")


def test_a_true_flag_the_bundled_sdk_does_not_know_fails_before_any_call() -> None:
    # GIVEN the floor SDK (no audio member) and audio delivery asked for
    client = _models.client("bedrock", "floor")
    assert "audioDataDeliveryEnabled" not in _models.members(client, "LoggingConfig")
    with Stubber(client) as stub:
        # WHEN created THEN it fails at once (nothing stubbed: no call), naming the flag and the key to change
        answer = h.on_event(_event("Create", {**OURS, "audioDataDeliveryEnabled": True}), client, _clock())
        stub.assert_no_pending_responses()
    assert (answer.status, answer.physical_id) == ("FAILED", h.NOT_OWNED_ID)
    assert "audioDataDeliveryEnabled (bedrock.invocation_logging.audio_data)" in answer.reason
    assert "nothing was changed" in answer.reason


def test_a_true_audio_flag_is_sent_where_the_sdk_knows_it() -> None:
    client = _models.client("bedrock", "newest")
    wanted = {**OURS, "audioDataDeliveryEnabled": True}
    with Stubber(client) as stub:
        stub.add_response("get_model_invocation_logging_configuration", {})
        stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": wanted})
        answer = h.on_event(_event("Create", wanted), client, _clock())
        stub.assert_no_pending_responses()
    assert answer.status == "SUCCESS"


def test_the_iam_propagation_error_is_retried_until_the_role_works(bedrock: tuple[Any, Stubber]) -> None:
    # GIVEN Bedrock cannot use the just-created delivery role twice, then can
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {})
    for _ in range(2):
        stub.add_client_error("put_model_invocation_logging_configuration", "ValidationException", PROPAGATING, 400)
    stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": OURS})
    waits: list[float] = []
    # WHEN created THEN it waits 2 s, then 4 s, and succeeds
    answer = h.on_event(_event("Create", OURS), client, _clock(waits=waits))
    assert answer.status == "SUCCESS"
    assert waits == [2.0, 4.0]


def test_the_iam_propagation_retry_is_bounded_in_attempts_and_waiting(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {})
    for _ in range(h.PROPAGATION_MAX_ATTEMPTS):
        stub.add_client_error("put_model_invocation_logging_configuration", "ValidationException", PROPAGATING, 400)
    waits: list[float] = []
    answer = h.on_event(_event("Create", OURS), client, _clock(seconds=1000.0, waits=waits))
    # THEN it gives up after the attempt bound, having waited no more than the waiting bound, and says what to check
    assert answer.status == "FAILED"
    assert len(waits) == h.PROPAGATION_MAX_ATTEMPTS - 1
    assert sum(waits) <= h.PROPAGATION_MAX_WAIT_SECONDS
    assert f"after {h.PROPAGATION_MAX_ATTEMPTS} attempts" in answer.reason
    assert "trust policy" in answer.reason


def test_the_iam_propagation_retry_stops_at_the_answer_reserve(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {})
    stub.add_client_error("put_model_invocation_logging_configuration", "ValidationException", PROPAGATING, 400)
    waits: list[float] = []
    answer = h.on_event(_event("Create", OURS), client, _clock(seconds=h.RESPONSE_RESERVE_SECONDS + 1, waits=waits))
    assert answer.status == "FAILED"
    assert waits == []


def test_another_validation_error_is_not_retried(bedrock: tuple[Any, Stubber]) -> None:
    client, stub = bedrock
    stub.add_response("get_model_invocation_logging_configuration", {})
    stub.add_client_error("put_model_invocation_logging_configuration", "ValidationException", "bad bucket", 400)
    waits: list[float] = []
    answer = h.on_event(_event("Create", OURS), client, _clock(waits=waits))
    assert answer.status == "FAILED"
    assert "bad bucket" in answer.reason
    assert waits == []


def test_delete_restores_what_the_bundled_sdk_can_send_and_says_what_it_dropped() -> None:
    # GIVEN a recorded previous configuration with audio on (read by a newer SDK) and video off
    previous = {**THEIRS, "audioDataDeliveryEnabled": True, "videoDataDeliveryEnabled": False}
    client = _models.client("bedrock", "floor")
    with Stubber(client) as stub:
        stub.add_response("get_model_invocation_logging_configuration", {"loggingConfig": OURS})
        # THEN the floor SDK restores it without either newer flag
        stub.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": THEIRS})
        answer = h.on_event(_event("Delete", OURS, physical_id=h.encode_owned_id(previous)), client, _clock())
        stub.assert_no_pending_responses()
    assert answer.status == "SUCCESS"
    assert "without audioDataDeliveryEnabled" in answer.reason
