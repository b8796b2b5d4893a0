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
        """CloudFormation ``Data`` (strings only; the whole response must stay under 4 KB)."""
        return {
            "ActiveKeys": ",".join(self.active)[:1000],
            "PendingKeys": ",".join(self.pending)[:1000],
            "Warning": " | ".join(self.warnings)[:1500],
        }


class _ThrottledError(Exception):
    """Throttling outlasted every attempt."""


def _error_code(error: Exception) -> str:
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return ""


def _call(
    operation: Callable[..., dict[str, Any]],
    sleep: Callable[[float], None],
    **kwargs: Any,
) -> dict[str, Any]:
    """Call ``operation``, retrying throttling with exponential backoff and full jitter."""
    for attempt in range(MAX_ATTEMPTS):
        try:
            return operation(**kwargs)
        except Exception as error:  # botocore ClientError; matched by code to keep the import optional
            if _error_code(error) not in THROTTLING_CODES:
                raise
            if attempt == MAX_ATTEMPTS - 1:
                raise _ThrottledError(_error_code(error)) from error
            sleep(random.uniform(0, min(8.0, 0.5 * 2**attempt)))
    raise AssertionError("unreachable")


def _statuses(client: Any, keys: Sequence[str], sleep: Callable[[float], None]) -> dict[str, str]:
    """Status (``Active``/``Inactive``) of every key Cost Explorer lists; absent keys are not visible yet."""
    found: dict[str, str] = {}
    for start in range(0, len(keys), LIST_BATCH):
        request: dict[str, Any] = {"TagKeys": list(keys[start : start + LIST_BATCH]), "Type": "UserDefined"}
        while True:
            page = _call(client.list_cost_allocation_tags, sleep, **request)
            for tag in page.get("CostAllocationTags", []):
                found[tag["TagKey"]] = tag["Status"]
            token = page.get("NextToken")
            if not token:
                break
            request["NextToken"] = token
    return found


def activate(client: Any, tag_keys: Sequence[str], *, sleep: Callable[[float], None] = time.sleep) -> ActivationResult:
    """Activate every visible key of ``tag_keys``; report the rest as pending. Never raises for AWS or network errors.

    Parameters
    ----------
    client:
        A boto3 Cost Explorer client (``us-east-1``).
    tag_keys:
        User-defined tag keys to activate; duplicates are ignored.
    sleep:
        Waits between throttled attempts. Default: :func:`time.sleep`.
    """
    keys = list(dict.fromkeys(tag_keys))
    result = ActivationResult()
    try:
        statuses = _statuses(client, keys, sleep)
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
                CostAllocationTagsStatus=[{"TagKey": k, "Status": "Active"} for k in batch],
            )
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
        failed = {e["TagKey"]: e for e in response.get("Errors", []) if "TagKey" in e}
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


def send_response(event: dict[str, Any], status: str, reason: str, physical_id: str, data: dict[str, str]) -> None:
    """PUT the custom resource's answer to CloudFormation's pre-signed URL."""
    body = json.dumps(
        {
            "Status": status,
            "Reason": reason[:1000],
            "PhysicalResourceId": physical_id,
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
            "Data": data,
        }
    ).encode()
    request = urllib.request.Request(
        event["ResponseURL"], data=body, method="PUT", headers={"Content-Type": "", "Content-Length": str(len(body))}
    )
    with urllib.request.urlopen(request, timeout=15) as reply:
        LOGGER.info("cloudformation response %s: %s", status, reply.status)


def on_event(event: dict[str, Any], client: Any, *, sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
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
    result = activate(client, keys, sleep=sleep)
    reason = "; ".join(result.warnings) or f"active: {', '.join(result.active)}"
    return {"Status": "SUCCESS", "Reason": reason, "PhysicalResourceId": physical_id, "Data": result.as_data()}


def _client() -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client("ce", region_name="us-east-1", config=Config(retries={"total_max_attempts": 1}))


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Lambda entry point for both the custom resource and the schedule."""
    if "RequestType" not in event:
        result = activate(_client(), _tag_keys(event))
        LOGGER.info(json.dumps({"active": result.active, "pending": result.pending, "warnings": result.warnings}))
        return {"active": result.active, "pending": result.pending}
    try:
        answer = on_event(event, _client())
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
    send_response(event, answer["Status"], answer["Reason"], answer["PhysicalResourceId"], answer["Data"])
    return answer
