"""Cost allocation tag activation handler, against botocore's real Cost Explorer models (Stubber): the installed one
and the SDK floor's (``requirements-sdk-floor.txt``), the oldest a Lambda runtime may bundle."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.config import Config
from botocore.stub import Stubber

from tests.handlers import _models
from tests.handlers._load import load_handler

handler_module = load_handler("cost_allocation_tags", "cost_allocation_tags_handler")


@pytest.fixture(params=_models.MODELS)
def ce(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Stubber]]:
    client = _models.client("ce", request.param, config=Config())
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


class _Context:
    """The Lambda context's fields the handler reads; remaining time follows ``remaining_ms`` call by call."""

    function_name = "acme-cost-TagActivationFunction"

    def __init__(self, *remaining_ms: int) -> None:
        self._remaining = list(remaining_ms)

    def get_remaining_time_in_millis(self) -> int:
        return self._remaining.pop(0) if len(self._remaining) > 1 else self._remaining[0]


def test_too_little_time_left_makes_no_call_and_answers_with_every_key_pending(ce: tuple[Any, Stubber]) -> None:
    # GIVEN 30 s left: less than one call's timeout budget plus the time kept to answer CloudFormation
    client, _ = ce  # no stubbed response: any call fails the Stubber
    clock = handler_module.Clock.of(_Context(30_000))
    # WHEN the custom resource is created
    answer = handler_module.on_event(_cfn_event("Create", ["team", "cost-center"]), client, clock=clock)
    # THEN it answers SUCCESS at once, every key pending for the schedule, and says why
    assert answer["Status"] == "SUCCESS"
    assert answer["Data"]["PendingKeys"] == "team,cost-center"
    assert "30 s left" in answer["Data"]["Warning"]


def test_time_running_out_between_calls_leaves_the_rest_pending(ce: tuple[Any, Stubber]) -> None:
    # GIVEN 100 s before the list call, then 35 s: the update call would risk the answer's deadline
    client, stub = ce
    stub.add_response("list_cost_allocation_tags", _listed(("team", "Inactive"), ("cost-center", "Active")))
    clock = handler_module.Clock.of(_Context(100_000, 35_000))
    # WHEN activated
    result = handler_module.activate(client, ["team", "cost-center"], sleep=_no_sleep, clock=clock)
    # THEN the listed active key is reported active and the one not reached is pending
    assert (result.active, result.pending) == (["cost-center"], ["team"])
    assert any("35 s left" in w for w in result.warnings)


def test_no_backoff_wait_starts_that_would_outlast_the_deadline(ce: tuple[Any, Stubber]) -> None:
    # GIVEN a throttled first call, after which only 30 s remain
    client, stub = ce
    stub.add_client_error("list_cost_allocation_tags", "ThrottlingException", "Rate exceeded", 400)
    waits: list[float] = []
    clock = handler_module.Clock.of(_Context(100_000, 30_000))
    # WHEN activated THEN it neither waits nor retries, and the key is pending
    result = handler_module.activate(client, ["team"], sleep=waits.append, clock=clock)
    assert waits == []
    assert result.pending == ["team"]


def test_a_repeated_next_token_stops_pagination(ce: tuple[Any, Stubber]) -> None:
    # GIVEN Cost Explorer answers the second page with the token it already gave
    client, stub = ce
    request = {"TagKeys": ["team"], "Type": "UserDefined"}
    stub.add_response("list_cost_allocation_tags", {"CostAllocationTags": [], "NextToken": "t1"}, request)
    stub.add_response(
        "list_cost_allocation_tags", {"CostAllocationTags": [], "NextToken": "t1"}, {**request, "NextToken": "t1"}
    )
    # WHEN the custom resource is created THEN it stops after two calls and succeeds with the key pending
    answer = handler_module.on_event(_cfn_event("Create", ["team"]), client, sleep=_no_sleep)
    assert answer["Status"] == "SUCCESS"
    assert answer["Data"]["PendingKeys"] == "team"
    assert "repeated a NextToken after 1 page(s)" in answer["Data"]["Warning"]


def test_pagination_stops_after_the_page_limit(ce: tuple[Any, Stubber]) -> None:
    # GIVEN Cost Explorer returns a new token on every page
    client, stub = ce
    for page in range(handler_module.MAX_PAGES):
        stub.add_response("list_cost_allocation_tags", {"CostAllocationTags": [], "NextToken": f"t{page}"})
    # WHEN activated THEN it stops at the limit and leaves the key pending
    result = handler_module.activate(client, ["team"], sleep=_no_sleep)
    assert result.pending == ["team"]
    assert f"more than {handler_module.MAX_PAGES} pages" in result.warnings[0]


@pytest.mark.parametrize(
    "error",
    [
        {"Code": "InternalFailure", "Message": "something failed"},
        {"TagKey": "not-in-this-batch", "Code": "TagKeyNotFound", "Message": "not found"},
    ],
    ids=["no-tag-key", "foreign-tag-key"],
)
def test_an_error_entry_for_no_key_of_the_batch_is_not_read_as_success(
    ce: tuple[Any, Stubber], error: dict[str, str]
) -> None:
    # GIVEN an update whose Errors entry names no key of the batch (every member is optional in the model)
    client, stub = ce
    stub.add_response("list_cost_allocation_tags", _listed(("a", "Inactive"), ("b", "Inactive")))
    stub.add_response("update_cost_allocation_tags_status", {"Errors": [error]})
    # WHEN activated THEN no key of the batch is reported active, and the warning carries the error
    result = handler_module.activate(client, ["a", "b"], sleep=_no_sleep)
    assert (result.active, result.pending) == ([], ["a", "b"])
    assert error["Code"] in result.warnings[0]


KEY_SETS = {
    "ascii-fits": [f"team-{i}" for i in range(5)],
    "100-long-ascii": [f"k{i:03d}-" + "x" * 120 for i in range(100)],
    "100-long-two-byte": [f"é{i:03d}" + "é" * 124 for i in range(100)],
    "100-long-three-byte": [f"鍵{i:03d}" + "鍵" * 124 for i in range(100)],
}


@pytest.mark.parametrize("name", sorted(KEY_SETS))
def test_response_body_stays_within_cloudformation_limit(name: str) -> None:
    # GIVEN a result with these keys half active, half pending, and a warning naming every key
    keys = KEY_SETS[name]
    half = len(keys) // 2
    result = handler_module.ActivationResult(
        active=keys[:half], pending=keys[half:], warnings=[f"not yet visible: {', '.join(keys)}"]
    )
    event = _cfn_event("Create", keys)
    # WHEN the answer is encoded
    body = handler_module.response_body(
        event, "SUCCESS", "; ".join(result.warnings), "cost-allocation-tags", result.as_data()
    )
    # THEN it is at most 4096 bytes of UTF-8, valid JSON, with every fixed field whole
    assert len(body) <= handler_module.RESPONSE_LIMIT_BYTES
    answer = json.loads(body.decode("utf-8"))
    assert (answer["Status"], answer["RequestId"], answer["StackId"]) == ("SUCCESS", "req-1", event["StackId"])
    # AND each key list is its keys in order, or a prefix of them and how many more there are
    for field, expected in (("ActiveKeys", keys[:half]), ("PendingKeys", keys[half:])):
        shown = answer["Data"][field].split(",")
        if shown[-1].startswith("+"):
            assert shown[:-1] == expected[: len(shown) - 1]
            assert shown[-1] == f"+{len(expected) - len(shown) + 1} more"
        else:
            assert shown == expected


def test_a_small_answer_is_sent_whole() -> None:
    # GIVEN a short answer WHEN encoded THEN nothing is cut
    data = {"ActiveKeys": "team,cost-center", "PendingKeys": "", "Warning": ""}
    body = handler_module.response_body(_cfn_event("Create", ["team"]), "SUCCESS", "active: team", "id", data)
    assert json.loads(body)["Data"] == data
    assert json.loads(body)["Reason"] == "active: team"


def test_each_run_publishes_pending_and_active_counts_as_embedded_metrics(
    ce: tuple[Any, Stubber], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a scheduled run where one key is active and one not yet visible
    client, stub = ce
    stub.add_response("list_cost_allocation_tags", _listed(("team", "Active")))
    monkeypatch.setattr(handler_module, "_client", lambda: client)
    # WHEN the function runs
    handler_module.handler({"TagKeys": ["team", "inference:platform"]}, _Context(120_000))
    # THEN stdout holds one embedded-metric-format record with the counts for this function
    (record,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    (directive,) = record["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == handler_module.METRIC_NAMESPACE
    assert directive["Dimensions"] == [["FunctionName"]]
    assert {m["Name"] for m in directive["Metrics"]} == {"PendingKeys", "ActiveKeys"}
    assert (record["FunctionName"], record["PendingKeys"], record["ActiveKeys"]) == (
        _Context.function_name,
        1,
        1,
    )


def test_the_construct_alarms_on_the_metric_the_handler_writes() -> None:
    # GIVEN the construct's and the handler's copies of the metric's identity THEN they are the same
    from inference_constructs.cost import tag_activation

    assert (tag_activation.METRIC_NAMESPACE, tag_activation.PENDING_METRIC) == (
        handler_module.METRIC_NAMESPACE,
        handler_module.PENDING_METRIC,
    )
