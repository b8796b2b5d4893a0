"""Activate cost allocation tag keys, as a CloudFormation custom resource and on a schedule.

One function serves two callers:

* **CloudFormation** (``RequestType`` in the event; ``ResourceProperties.TagKeys``). Create and
  Update activate every key Cost Explorer already lists and answer ``SUCCESS`` with
  ``Data.ActiveKeys`` / ``Data.PendingKeys`` / ``Data.Warning``. Keys that are not visible yet
  (a new tag takes up to a day to appear), throttling that outlasts the retries, and access
  denied (a member account of an AWS Organization cannot activate tags) are reported in ``Data``
  and in the log, never as ``FAILED``: cost attribution must not roll back an inference platform.
  Delete answers ``SUCCESS`` at once and deactivates nothing, because other stacks and teams may
  rely on the same keys and deactivating them breaks their reports.
* **An EventBridge schedule** (``{"TagKeys": [...]}``): the same activation, retried every few
  hours, so pending keys become active once they appear. Once all keys are active a run costs one
  ``ListCostAllocationTags`` call; it also re-activates a key someone deactivated.

Cost Explorer is a global API served from ``us-east-1``. ``UpdateCostAllocationTagsStatus`` takes
1-20 keys per call and ``ListCostAllocationTags`` 1-100 (botocore ``ce`` model); throttling is
retried here with exponential backoff (botocore's own retries are switched off so the attempts
are counted in one place).

The function always answers CloudFormation, and in time:

* every call has a connect and read timeout, and no call or backoff wait starts unless the time
  it can take still leaves :data:`RESPONSE_RESERVE_S` to send the answer (the Lambda context's
  remaining time); keys not reached are reported pending, for the schedule to finish;
* pagination is bounded (:data:`MAX_PAGES` per request) and stops when a ``NextToken`` repeats;
* an ``Errors`` entry without a ``TagKey`` (the ``ce`` model makes every member optional) leaves
  the whole batch pending instead of being read as success;
* the response body is at most :data:`RESPONSE_LIMIT_BYTES` (CloudFormation's 4096-byte limit),
  counted in UTF-8 bytes: long key lists are summarized (``+N more``) and messages truncated;
* each run writes the number of pending and active keys as CloudWatch embedded-metric-format
  log lines (namespace :data:`METRIC_NAMESPACE`), which the construct alarms on.
"""

from __future__ import annotations

import json
import logging
import random
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

LOGGER = logging.getLogger(__name__)
LOGGER.setLevel(logging.INFO)

UPDATE_BATCH = 20
LIST_BATCH = 100
MAX_ATTEMPTS = 5
#: Pages followed per ``ListCostAllocationTags`` request before giving up (100 keys fit on one page).
MAX_PAGES = 10
#: Connect and read timeout of one Cost Explorer call, seconds: one call can take at most their sum.
CONNECT_TIMEOUT_S = 5
READ_TIMEOUT_S = 15
CALL_BUDGET_S = CONNECT_TIMEOUT_S + READ_TIMEOUT_S
#: Time kept back to send CloudFormation its answer (the PUT has a 15 s timeout), seconds.
RESPONSE_RESERVE_S = 20
#: CloudFormation rejects a custom resource response body above 4096 bytes.
RESPONSE_LIMIT_BYTES = 4096
METRIC_NAMESPACE = "InferenceConstructs/CostAllocationTags"
PENDING_METRIC = "PendingKeys"
ACTIVE_METRIC = "ActiveKeys"
PHYSICAL_ID = "cost-allocation-tags"
THROTTLING_CODES = frozenset(
    {"ThrottlingException", "Throttling", "TooManyRequestsException", "LimitExceededException", "RequestLimitExceeded"}
)
ACCESS_DENIED_CODES = frozenset(
    {"AccessDeniedException", "AccessDenied", "UnauthorizedOperation", "AuthorizationError"}
)
ACCESS_DENIED_MESSAGE = (
    "cost allocation tags can only be activated from the management (payer) account of an AWS Organization "
    "or from a standalone account, by a principal allowed ce:ListCostAllocationTags and "
    "ce:UpdateCostAllocationTagsStatus; this account got {code}. Activate {keys} in the management account "
    "(Billing and Cost Management > Cost allocation tags, or aws ce update-cost-allocation-tags-status), "
    "or deploy this stack there; the stack itself is unaffected"
)


@dataclass
class ActivationResult:
    """What one activation run achieved."""

    active: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_data(self) -> dict[str, str]:
        """CloudFormation ``Data``, in full (:func:`response_body` fits it into 4096 bytes)."""
        return {
            "ActiveKeys": ",".join(self.active),
            "PendingKeys": ",".join(self.pending),
            "Warning": " | ".join(self.warnings),
        }


class _ThrottledError(Exception):
    """Throttling outlasted every attempt."""


class _OutOfTimeError(Exception):
    """Not enough time is left for another call (or wait) and the answer to CloudFormation."""


class _PaginationError(Exception):
    """Cost Explorer repeated a ``NextToken`` or returned more pages than any request needs."""


class Clock:
    """Seconds left before the function must have answered; ``None`` remaining means no limit.

    Parameters
    ----------
    remaining_ms:
        The Lambda context's ``get_remaining_time_in_millis``. Default: no limit (tests, local runs).
    """

    def __init__(self, remaining_ms: Callable[[], int] | None = None) -> None:
        self._remaining_ms = remaining_ms

    def require(self, seconds: float) -> None:
        """Raise :class:`_OutOfTimeError` unless ``seconds`` plus the answer's reserve are left."""
        if self._remaining_ms is None:
            return
        left = self._remaining_ms() / 1000
        if left < seconds + RESPONSE_RESERVE_S:
            raise _OutOfTimeError(f"{left:.0f} s left")

    @classmethod
    def of(cls, context: Any) -> Clock:
        """The clock of a Lambda ``context`` (no limit when it has none)."""
        remaining = getattr(context, "get_remaining_time_in_millis", None)
        return cls(remaining if callable(remaining) else None)


UNLIMITED = Clock()


def _error_code(error: Exception) -> str:
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return ""


def _call(
    operation: Callable[..., dict[str, Any]],
    sleep: Callable[[float], None],
    clock: Clock,
    **kwargs: Any,
) -> dict[str, Any]:
    """Call ``operation``, retrying throttling with exponential backoff and full jitter, within ``clock``."""
    for attempt in range(MAX_ATTEMPTS):
        clock.require(CALL_BUDGET_S)
        try:
            return operation(**kwargs)
        except Exception as error:  # botocore ClientError; matched by code to keep the import optional
            if _error_code(error) not in THROTTLING_CODES:
                raise
            if attempt == MAX_ATTEMPTS - 1:
                raise _ThrottledError(_error_code(error)) from error
            wait = random.uniform(0, min(8.0, 0.5 * 2**attempt))
            clock.require(wait + CALL_BUDGET_S)
            sleep(wait)
    raise AssertionError("unreachable")


def _statuses(client: Any, keys: Sequence[str], sleep: Callable[[float], None], clock: Clock) -> dict[str, str]:
    """Status (``Active``/``Inactive``) of every key Cost Explorer lists; absent keys are not visible yet."""
    found: dict[str, str] = {}
    for start in range(0, len(keys), LIST_BATCH):
        request: dict[str, Any] = {"TagKeys": list(keys[start : start + LIST_BATCH]), "Type": "UserDefined"}
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page = _call(client.list_cost_allocation_tags, sleep, clock, **request)
            for tag in page.get("CostAllocationTags", []):
                if "TagKey" in tag and "Status" in tag:
                    found[tag["TagKey"]] = tag["Status"]
            token = page.get("NextToken")
            if not token:
                break
            if token in seen:
                raise _PaginationError(f"ListCostAllocationTags repeated a NextToken after {len(seen)} page(s)")
            seen.add(token)
            request["NextToken"] = token
        else:
            raise _PaginationError(f"ListCostAllocationTags returned more than {MAX_PAGES} pages")
    return found


def activate(
    client: Any,
    tag_keys: Sequence[str],
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Clock = UNLIMITED,
) -> ActivationResult:
    """Activate every visible key of ``tag_keys``; report the rest as pending. Never raises for AWS or network errors.

    Parameters
    ----------
    client:
        A boto3 Cost Explorer client (``us-east-1``).
    tag_keys:
        User-defined tag keys to activate; duplicates are ignored.
    sleep:
        Waits between throttled attempts. Default: :func:`time.sleep`.
    clock:
        Time left to answer; no call or wait starts that could outlast it. Default: no limit.
    """
    keys = list(dict.fromkeys(tag_keys))
    result = ActivationResult()
    try:
        statuses = _statuses(client, keys, sleep, clock)
    except _OutOfTimeError as error:
        result.pending = keys
        result.warnings.append(f"stopped before listing the keys ({error}); all keys retried on the next schedule")
        return result
    except _PaginationError as error:
        result.pending = keys
        result.warnings.append(f"{error}; all keys retried on the next schedule")
        return result
    except _ThrottledError as error:
        result.pending = keys
        result.warnings.append(f"Cost Explorer kept throttling ({error}); all keys retried on the next schedule")
        return result
    except Exception as error:
        code = _error_code(error)
        if code in ACCESS_DENIED_CODES:
            result.pending = keys
            result.warnings.append(ACCESS_DENIED_MESSAGE.format(code=code, keys=", ".join(keys)))
            return result
        result.pending = keys
        result.warnings.append(
            f"ListCostAllocationTags failed with {code or type(error).__name__}: {error}; retried on the next schedule"
        )
        return result

    result.active = [k for k in keys if statuses.get(k) == "Active"]
    invisible = [k for k in keys if k not in statuses]
    if invisible:
        result.warnings.append(
            f"not yet visible to Cost Explorer (a new tag takes up to 24 hours to appear): {', '.join(invisible)}"
        )
    to_activate = [k for k in keys if statuses.get(k, "Active") != "Active"]
    pending = list(invisible)
    for start in range(0, len(to_activate), UPDATE_BATCH):
        batch = to_activate[start : start + UPDATE_BATCH]
        try:
            response = _call(
                client.update_cost_allocation_tags_status,
                sleep,
                clock,
                CostAllocationTagsStatus=[{"TagKey": k, "Status": "Active"} for k in batch],
            )
        except _OutOfTimeError as error:
            pending.extend(to_activate[start:])
            result.warnings.append(f"stopped with keys left to activate ({error}); retried on the next schedule")
            break
        except _ThrottledError as error:
            pending.extend(batch)
            result.warnings.append(f"Cost Explorer kept throttling ({error}); retried on the next schedule")
            continue
        except Exception as error:
            code = _error_code(error)
            pending.extend(batch)
            if code in ACCESS_DENIED_CODES:
                result.warnings.append(ACCESS_DENIED_MESSAGE.format(code=code, keys=", ".join(batch)))
            else:
                result.warnings.append(
                    f"UpdateCostAllocationTagsStatus failed with {code or type(error).__name__}: {error}"
                )
            continue
        errors = response.get("Errors", [])
        unattributed = [e for e in errors if e.get("TagKey") not in batch]
        if unattributed:
            pending.extend(batch)
            first = unattributed[0]
            result.warnings.append(
                f"UpdateCostAllocationTagsStatus returned an error for no key of the batch "
                f"({first.get('TagKey', 'no TagKey')}: {first.get('Code', '')} {first.get('Message', '')}); "
                "the batch's keys are left pending"
            )
            continue
        failed = {e["TagKey"]: e for e in errors}
        for key in batch:
            if key in failed:
                pending.append(key)
                result.warnings.append(f"{key}: {failed[key].get('Code', '')} {failed[key].get('Message', '')}".strip())
            else:
                result.active.append(key)
    result.pending = [k for k in keys if k in set(pending)]
    result.active = [k for k in keys if k in set(result.active)]
    return result


def _tag_keys(source: dict[str, Any]) -> list[str]:
    keys = source.get("TagKeys", [])
    if isinstance(keys, str):
        keys = [k for k in keys.split(",") if k]
    return [str(k) for k in keys]


#: ``Data`` fields holding comma-separated tag keys (a tag key cannot contain a comma), summarized as
#: ``a,b,+N more`` when they do not fit; other fields are cut with an ellipsis.
_KEY_LISTS = frozenset({"ActiveKeys", "PendingKeys"})


def _json_bytes(text: str) -> int:
    """UTF-8 bytes ``text`` takes inside the JSON body, quotes excluded."""
    return len(json.dumps(text, ensure_ascii=False).encode()) - 2


def _clip(text: str, budget: int) -> str:
    """The longest prefix of ``text`` (plus an ellipsis) whose JSON form fits in ``budget`` bytes."""
    if _json_bytes(text) <= budget:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _json_bytes(text[:middle] + "…") <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low] + "…" if _json_bytes("…") <= budget else ""


def _summarize_keys(text: str, budget: int) -> str:
    """``text``'s keys, or as many as fit in ``budget`` bytes followed by ``+N more``."""
    if _json_bytes(text) <= budget:
        return text
    keys = text.split(",")
    for shown in range(len(keys) - 1, -1, -1):
        summary = ",".join([*keys[:shown], f"+{len(keys) - shown} more"])
        if _json_bytes(summary) <= budget:
            return summary
    return ""


def response_body(event: dict[str, Any], status: str, reason: str, physical_id: str, data: dict[str, str]) -> bytes:
    """The JSON answer to CloudFormation, at most :data:`RESPONSE_LIMIT_BYTES` bytes of UTF-8.

    The fixed fields are kept whole; the bytes left are shared fairly between ``Reason`` and the
    ``Data`` values (a short field keeps all it needs and leaves the rest to the others)."""
    body: dict[str, Any] = {
        "Status": status,
        "Reason": "",
        "PhysicalResourceId": physical_id,
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
        "Data": dict.fromkeys(data, ""),
    }
    fields = {"Reason": reason, **{f"Data.{k}": v for k, v in data.items()}}
    left = RESPONSE_LIMIT_BYTES - len(json.dumps(body, ensure_ascii=False).encode())
    for index, (name, text) in enumerate(sorted(fields.items(), key=lambda item: _json_bytes(item[1]))):
        share = max(0, left) // (len(fields) - index)
        key = name.removeprefix("Data.")
        fitted = _summarize_keys(text, share) if key in _KEY_LISTS else _clip(text, share)
        left -= _json_bytes(fitted)
        if name == "Reason":
            body["Reason"] = fitted
        else:
            body["Data"][key] = fitted
    encoded = json.dumps(body, ensure_ascii=False).encode()
    if len(encoded) > RESPONSE_LIMIT_BYTES:  # the fixed fields alone are too long: answer without detail
        body["Data"] = {}
        body["Reason"] = ""
        encoded = json.dumps(body, ensure_ascii=False).encode()
    return encoded


def send_response(event: dict[str, Any], status: str, reason: str, physical_id: str, data: dict[str, str]) -> None:
    """PUT the custom resource's answer to CloudFormation's pre-signed URL."""
    body = response_body(event, status, reason, physical_id, data)
    request = urllib.request.Request(
        event["ResponseURL"], data=body, method="PUT", headers={"Content-Type": "", "Content-Length": str(len(body))}
    )
    with urllib.request.urlopen(request, timeout=15) as reply:
        LOGGER.info("cloudformation response %s: %s", status, reply.status)


def on_event(
    event: dict[str, Any],
    client: Any,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Clock = UNLIMITED,
) -> dict[str, Any]:
    """Answer one CloudFormation request: status, reason, physical id and Data."""
    request_type = event.get("RequestType")
    physical_id = str(event.get("PhysicalResourceId") or PHYSICAL_ID)
    if request_type == "Delete":
        return {
            "Status": "SUCCESS",
            "Reason": "cost allocation tags are left active: other stacks may rely on them",
            "PhysicalResourceId": physical_id,
            "Data": {},
        }
    keys = _tag_keys(event.get("ResourceProperties", {}))
    if not keys:
        return {
            "Status": "FAILED",
            "Reason": "ResourceProperties.TagKeys is empty; pass at least one tag key",
            "PhysicalResourceId": physical_id,
            "Data": {},
        }
    result = activate(client, keys, sleep=sleep, clock=clock)
    reason = "; ".join(result.warnings) or f"active: {', '.join(result.active)}"
    return {"Status": "SUCCESS", "Reason": reason, "PhysicalResourceId": physical_id, "Data": result.as_data()}


def _client() -> Any:
    import boto3
    from botocore.config import Config

    config = Config(retries={"total_max_attempts": 1}, connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S)
    return boto3.client("ce", region_name="us-east-1", config=config)


def metric_line(function_name: str, *, active: int, pending: int, timestamp_ms: int) -> str:
    """One CloudWatch embedded-metric-format record: ``PendingKeys`` and ``ActiveKeys`` per function."""
    return json.dumps(
        {
            "_aws": {
                "Timestamp": timestamp_ms,
                "CloudWatchMetrics": [
                    {
                        "Namespace": METRIC_NAMESPACE,
                        "Dimensions": [["FunctionName"]],
                        "Metrics": [
                            {"Name": PENDING_METRIC, "Unit": "Count"},
                            {"Name": ACTIVE_METRIC, "Unit": "Count"},
                        ],
                    }
                ],
            },
            "FunctionName": function_name,
            PENDING_METRIC: pending,
            ACTIVE_METRIC: active,
        },
        separators=(",", ":"),
    )


def _publish(context: Any, data: dict[str, str]) -> None:
    """Write the pending/active counts as an embedded-metric-format line (stdout goes to the log group)."""
    name = str(getattr(context, "function_name", "") or "")
    if not name:
        return
    counts = {k: len([key for key in data.get(k, "").split(",") if key]) for k in ("ActiveKeys", "PendingKeys")}
    line = metric_line(
        name, active=counts["ActiveKeys"], pending=counts["PendingKeys"], timestamp_ms=int(time.time() * 1000)
    )
    print(line, flush=True)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Lambda entry point for both the custom resource and the schedule."""
    clock = Clock.of(context)
    if "RequestType" not in event:
        result = activate(_client(), _tag_keys(event), clock=clock)
        LOGGER.info(json.dumps({"active": result.active, "pending": result.pending, "warnings": result.warnings}))
        _publish(context, result.as_data())
        return {"active": result.active, "pending": result.pending}
    try:
        answer = on_event(event, _client(), clock=clock)
    except Exception as error:  # answer anyway: a custom resource that never answers hangs the stack for an hour
        LOGGER.exception("unexpected error")
        status = "SUCCESS" if event.get("RequestType") == "Delete" else "FAILED"
        answer = {
            "Status": status,
            "Reason": f"unexpected error: {error}",
            "PhysicalResourceId": str(event.get("PhysicalResourceId") or PHYSICAL_ID),
            "Data": {},
        }
    log = LOGGER.warning if answer["Data"].get("Warning") or answer["Status"] == "FAILED" else LOGGER.info
    log("%s %s: %s", event.get("RequestType"), answer["Status"], answer["Reason"])
    if event.get("RequestType") != "Delete":
        _publish(context, answer["Data"])
    send_response(event, answer["Status"], answer["Reason"], answer["PhysicalResourceId"], answer["Data"])
    return answer
