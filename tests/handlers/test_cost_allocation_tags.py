"""Cost allocation tag activation handler, against botocore's real Cost Explorer model (Stubber)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from tests.handlers._load import load_handler

handler_module = load_handler("cost_allocation_tags", "cost_allocation_tags_handler")


@pytest.fixture
def ce() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client("ce", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def _no_sleep(_: float) -> None:
    return None


def _listed(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"CostAllocationTags": [{"TagKey": k, "Type": "UserDefined", "Status": s} for k, s in pairs]}


def _cfn_event(request_type: str, keys: list[str]) -> dict[str, Any]:
    return {
        "RequestType": request_type,
        "ResponseURL": "https://cloudformation-custom-resource-response-useast1.s3.amazonaws.com/x",
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/acme/guid",
        "RequestId": "req-1",
        "LogicalResourceId": "TagActivation",
        "PhysicalResourceId": "cost-allocation-tags",
        "ResourceType": "Custom::CostAllocationTags",
        "ResourceProperties": {"ServiceToken": "arn", "TagKeys": keys},
    }


def test_activates_inactive_keys_and_reports_them_active(ce: tuple[Any, Stubber]) -> None:
    # GIVEN two visible keys, one inactive
    client, stub = ce
    keys = ["team", "cost-center"]
    stub.add_response(
        "list_cost_allocation_tags",
        _listed(("team", "Inactive"), ("cost-center", "Active")),
        {"TagKeys": keys, "Type": "UserDefined"},
    )
    stub.add_response(
        "update_cost_allocation_tags_status",
        {"Errors": []},
        {"CostAllocationTagsStatus": [{"TagKey": "team", "Status": "Active"}]},
    )
    # WHEN the custom resource is created
    answer = handler_module.on_event(_cfn_event("Create", keys), client, sleep=_no_sleep)
    # THEN it succeeds with both keys active and nothing pending
    assert answer["Status"] == "SUCCESS"
    assert answer["Data"]["ActiveKeys"] == "team,cost-center"
    assert answer["Data"]["PendingKeys"] == ""


def test_keys_not_yet_visible_are_pending_and_the_stack_still_succeeds(ce: tuple[Any, Stubber]) -> None:
    # GIVEN a key Cost Explorer does not list yet (tag applied less than a day ago)
    client, stub = ce
    stub.add_response(
        "list_cost_allocation_tags",
        _listed(("team", "Inactive")),
        {"TagKeys": ["team", "inference:capacity"], "Type": "UserDefined"},
    )
    stub.add_response(
        "update_cost_allocation_tags_status",
        {"Errors": []},
        {"CostAllocationTagsStatus": [{"TagKey": "team", "Status": "Active"}]},
    )
    # WHEN the custom resource is created
    answer = handler_module.on_event(_cfn_event("Create", ["team", "inference:capacity"]), client, sleep=_no_sleep)
    # THEN it succeeds, activates what it can, and reports the invisible key as pending with the reason
    assert answer["Status"] == "SUCCESS"
    assert answer["Data"]["ActiveKeys"] == "team"
    assert answer["Data"]["PendingKeys"] == "inference:capacity"
    assert "up to 24 hours" in answer["Data"]["Warning"]


def test_throttling_is_retried_with_backoff_then_succeeds(ce: tuple[Any, Stubber]) -> None:
    # GIVEN Cost Explorer throttles twice before answering
    client, stub = ce
    params = {"TagKeys": ["team"], "Type": "UserDefined"}
    stub.add_client_error("list_cost_allocation_tags", "ThrottlingException", "Rate exceeded", 400, None, params)
    stub.add_client_error("list_cost_allocation_tags", "LimitExceededException", "Too many", 400, None, params)
    stub.add_response("list_cost_allocation_tags", _listed(("team", "Active")), params)
    waits: list[float] = []
    # WHEN activated
    result = handler_module.activate(client, ["team"], sleep=waits.append)
    # THEN it waited twice, with growing caps, and the key is active
    assert len(waits) == 2
    assert result.active == ["team"]
    assert result.pending == []


def test_throttling_that_outlasts_every_attempt_leaves_keys_pending(ce: tuple[Any, Stubber]) -> None:
    # GIVEN Cost Explorer throttles on every attempt
    client, stub = ce
    for _ in range(handler_module.MAX_ATTEMPTS):
        stub.add_client_error("list_cost_allocation_tags", "ThrottlingException", "Rate exceeded", 400)
    # WHEN the custom resource is updated
    answer = handler_module.on_event(_cfn_event("Update", ["team"]), client, sleep=_no_sleep)
    # THEN it still succeeds and leaves the key for the schedule
    assert answer["Status"] == "SUCCESS"
    assert answer["Data"]["PendingKeys"] == "team"
    assert "kept throttling" in answer["Data"]["Warning"]


def test_access_denied_in_a_member_account_succeeds_with_a_clear_message(ce: tuple[Any, Stubber]) -> None:
    # GIVEN a member account, which Cost Explorer refuses
    client, stub = ce
    stub.add_client_error(
        "list_cost_allocation_tags",
        "AccessDeniedException",
        "Linked account doesn't have access to cost allocation tags",
        400,
    )
    # WHEN the custom resource is created
    answer = handler_module.on_event(_cfn_event("Create", ["team", "cost-center"]), client, sleep=_no_sleep)
    # THEN the stack is not broken and the message says where to activate the keys
    assert answer["Status"] == "SUCCESS"
    assert answer["Data"]["PendingKeys"] == "team,cost-center"
    assert "management (payer) account" in answer["Reason"]
    assert "team, cost-center" in answer["Reason"]


def test_more_than_twenty_keys_are_activated_in_batches_of_twenty(ce: tuple[Any, Stubber]) -> None:
    # GIVEN 45 visible inactive keys
    client, stub = ce
    keys = [f"key-{i:02d}" for i in range(45)]
    stub.add_response(
        "list_cost_allocation_tags",
        _listed(*((k, "Inactive") for k in keys)),
        {"TagKeys": keys, "Type": "UserDefined"},
    )
    for start in (0, 20, 40):
        batch = keys[start : start + 20]
        stub.add_response(
            "update_cost_allocation_tags_status",
            {"Errors": []},
            {"CostAllocationTagsStatus": [{"TagKey": k, "Status": "Active"} for k in batch]},
        )
    # WHEN activated THEN three calls of at most 20 keys activate all of them (Stubber checks each batch)
    result = handler_module.activate(client, keys, sleep=_no_sleep)
    assert result.active == keys


def test_more_than_a_hundred_keys_are_listed_in_pages_of_a_hundred(ce: tuple[Any, Stubber]) -> None:
    # GIVEN 120 keys, all active already
    client, stub = ce
    keys = [f"k{i:03d}" for i in range(120)]
    for start in (0, 100):
        page = keys[start : start + 100]
        stub.add_response(
            "list_cost_allocation_tags",
            _listed(*((k, "Active") for k in page)),
            {"TagKeys": page, "Type": "UserDefined"},
        )
    # WHEN activated THEN nothing is updated and every key is active
    assert handler_module.activate(client, keys, sleep=_no_sleep).active == keys


def test_per_key_errors_leave_that_key_pending(ce: tuple[Any, Stubber]) -> None:
    # GIVEN Cost Explorer rejects one key of a batch
    client, stub = ce
    stub.add_response("list_cost_allocation_tags", _listed(("a", "Inactive"), ("b", "Inactive")))
    stub.add_response(
        "update_cost_allocation_tags_status",
        {"Errors": [{"TagKey": "b", "Code": "TagKeyNotFound", "Message": "not found"}]},
    )
    # WHEN activated THEN the other key is active and the rejected one is pending with its reason
    result = handler_module.activate(client, ["a", "b"], sleep=_no_sleep)
    assert (result.active, result.pending) == (["a"], ["b"])
    assert "b: TagKeyNotFound not found" in result.warnings


def test_delete_succeeds_without_calling_cost_explorer(ce: tuple[Any, Stubber]) -> None:
    # GIVEN a delete request and no stubbed responses (any call would fail the Stubber)
    client, _ = ce
    # WHEN the custom resource is deleted THEN it succeeds and keeps the physical id
    answer = handler_module.on_event(_cfn_event("Delete", ["team"]), client)
    assert answer["Status"] == "SUCCESS"
    assert answer["PhysicalResourceId"] == "cost-allocation-tags"


def test_delete_succeeds_even_when_the_handler_breaks(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN on_event fails unexpectedly and CloudFormation's URL is captured
    sent: list[tuple[str, str]] = []

    def broken(*_: Any, **__: Any) -> dict[str, Any]:
        raise RuntimeError("boom")

    monkeypatch.setattr(handler_module, "on_event", broken)
    monkeypatch.setattr(handler_module, "_client", lambda: None)
    monkeypatch.setattr(handler_module, "send_response", lambda _e, status, reason, *_a: sent.append((status, reason)))
    # WHEN a delete arrives THEN CloudFormation still hears SUCCESS
    handler_module.handler(_cfn_event("Delete", ["team"]), None)
    assert sent == [("SUCCESS", "unexpected error: boom")]


def test_handler_answers_cloudformation_on_its_presigned_url(
    ce: tuple[Any, Stubber], monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a create request and a captured HTTP PUT
    client, stub = ce
    stub.add_response("list_cost_allocation_tags", _listed(("team", "Active")))
    requests: list[Any] = []

    class _Reply:
        status = 200

        def __enter__(self) -> _Reply:
            return self

        def __exit__(self, *_: object) -> None:
            return None

    def fake_urlopen(request: Any, timeout: float) -> _Reply:
        requests.append(request)
        return _Reply()

    monkeypatch.setattr(handler_module, "_client", lambda: client)
    monkeypatch.setattr(handler_module.urllib.request, "urlopen", fake_urlopen)
    # WHEN the Lambda handler runs
    handler_module.handler(_cfn_event("Create", ["team"]), None)
    # THEN one PUT carries SUCCESS, the request ids and the Data
    (request,) = requests
    body = json.loads(request.data)
    assert request.get_method() == "PUT"
    assert body["Status"] == "SUCCESS"
    assert body["RequestId"] == "req-1"
    assert body["Data"]["ActiveKeys"] == "team"


def test_scheduled_retry_activates_keys_that_appeared_since(
    ce: tuple[Any, Stubber], monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN the EventBridge schedule's event and a key that is now visible
    client, stub = ce
    stub.add_response("list_cost_allocation_tags", _listed(("inference:capacity", "Inactive")))
    stub.add_response("update_cost_allocation_tags_status", {"Errors": []})
    monkeypatch.setattr(handler_module, "_client", lambda: client)
    # WHEN the schedule invokes the function THEN the key is activated, without any CloudFormation response
    assert handler_module.handler({"TagKeys": ["inference:capacity"]}, None) == {
        "active": ["inference:capacity"],
        "pending": [],
    }


def test_fails_create_without_tag_keys(ce: tuple[Any, Stubber]) -> None:
    # GIVEN a create request without keys WHEN handled THEN the error says what to pass
    client, _ = ce
    answer = handler_module.on_event(_cfn_event("Create", []), client)
    assert answer["Status"] == "FAILED"
    assert "TagKeys is empty" in answer["Reason"]
