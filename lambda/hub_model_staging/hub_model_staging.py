"""Stage a gated or private Hugging Face model into S3 at deploy time: the two handlers of a CDK
``custom_resources.Provider`` (``on_event`` starts a CodeBuild build, ``is_complete`` awaits it).

The build (project per model, ``lambda/hub_model_staging_job``) reads the token from Secrets Manager itself (a
CodeBuild ``SECRETS_MANAGER`` environment variable) and copies the model at one pinned commit into the stack's
data bucket under ``hub-models/<model id>/<revision>/``; the SageMaker Model then loads that prefix. Neither
handler ever sees the token.

* **Create**: start the build; the physical id is the ``s3://`` prefix it writes.
* **Update**: a new ``ModelId`` / ``Revision`` / ``KeyPrefix`` starts a new build into the new prefix (a new
  physical id, so CloudFormation deletes the old resource after the Model moved); the same model and revision
  (e.g. only the project was replaced) starts nothing.
* **Delete**: nothing is removed. The data bucket is retained, and during a rollback the previous Model still
  loads its prefix; remove an old ``hub-models/<model id>/<revision>/`` prefix yourself when no Model uses it.

``is_complete`` reads the build with ``BatchGetBuilds``: ``IN_PROGRESS`` is not complete, ``SUCCEEDED`` is, and
any other status (``FAILED``, ``FAULT``, ``STOPPED``, ``TIMED_OUT``; botocore ``codebuild`` model ``StatusType``)
raises, which the provider framework reports as the resource's failure reason, with the failed phase's message
and the build's CloudWatch Logs link (``logs.deepLink``) in it.
"""

from __future__ import annotations

import logging
from typing import Any

LOGGER = logging.getLogger(__name__)
LOGGER.setLevel(logging.INFO)

#: ``Build.buildStatus`` values that end a build without success (botocore ``codebuild`` ``StatusType``).
FAILED_STATUSES = frozenset({"FAILED", "FAULT", "STOPPED", "TIMED_OUT"})
#: The properties that identify what is staged: a change of any of them stages again.
IDENTITY = ("ModelId", "Revision", "KeyPrefix")
#: CloudFormation rejects a failure reason above 4096 bytes with the rest of the response; keep well below.
MAX_REASON_CHARS = 2000


class StagingFailedError(Exception):
    """The staging build ended without success; the message is the custom resource's failure reason."""


def _client() -> Any:
    import boto3

    return boto3.client("codebuild")


def _target(props: dict[str, Any]) -> str:
    return f"s3://{props['Bucket']}/{props['KeyPrefix']}"


def on_event(event: dict[str, Any], client: Any = None) -> dict[str, Any]:
    """Start the staging build for Create, and for an Update that changes the model id, revision or prefix."""
    request = event["RequestType"]
    props: dict[str, Any] = event.get("ResourceProperties", {})
    if request == "Delete":
        LOGGER.info("delete %s: the staged weights are kept", event.get("PhysicalResourceId"))
        return {"PhysicalResourceId": event["PhysicalResourceId"]}
    missing = [k for k in (*IDENTITY, "Bucket", "ProjectName") if not props.get(k)]
    if missing:
        raise StagingFailedError(f"ResourceProperties lacks {', '.join(missing)}")
    target = _target(props)
    if request == "Update":
        old: dict[str, Any] = event.get("OldResourceProperties", {})
        if all(old.get(k) == props.get(k) for k in (*IDENTITY, "Bucket")):
            LOGGER.info("update of %s: same model and revision, nothing to stage", target)
            return {"PhysicalResourceId": event["PhysicalResourceId"], "Data": {"BuildId": "", "S3Uri": target}}
    build = (client or _client()).start_build(projectName=props["ProjectName"])["build"]
    LOGGER.info("%s: build %s stages %s@%s to %s", request, build["id"], props["ModelId"], props["Revision"], target)
    return {"PhysicalResourceId": target, "Data": {"BuildId": build["id"], "S3Uri": target}}


def _failure(build: dict[str, Any]) -> str:
    status = build.get("buildStatus", "")
    failed = [p for p in build.get("phases", []) if p.get("phaseStatus") in FAILED_STATUSES and p.get("phaseType")]
    detail = ""
    if failed:
        phase = failed[-1]
        messages = "; ".join(c.get("message", "") for c in phase.get("contexts", []) if c.get("message"))
        detail = f" in phase {phase['phaseType']}" + (f": {messages}" if messages else "")
    link = build.get("logs", {}).get("deepLink") or "no log link (the build did not start logging)"
    reason = f"staging build {build.get('id', '')} ended {status}{detail}; logs: {link}"
    if len(reason) > MAX_REASON_CHARS:
        keep = MAX_REASON_CHARS - len(link) - 10
        reason = reason[:keep] + "…; logs: " + link
    return reason


def is_complete(event: dict[str, Any], client: Any = None) -> dict[str, Any]:
    """True once the build succeeded; raise with the build's log link once it ended any other way."""
    if event["RequestType"] == "Delete":
        return {"IsComplete": True}
    data: dict[str, Any] = event.get("Data", {})
    build_id = data.get("BuildId")
    if not build_id:
        return {"IsComplete": True}
    answer = (client or _client()).batch_get_builds(ids=[build_id])
    builds = answer.get("builds", [])
    if not builds:
        raise StagingFailedError(f"staging build {build_id} not found ({', '.join(answer.get('buildsNotFound', []))})")
    build = builds[0]
    status = build.get("buildStatus")
    if status == "SUCCEEDED":
        LOGGER.info("build %s succeeded: %s", build_id, data.get("S3Uri"))
        return {"IsComplete": True, "Data": {"S3Uri": data.get("S3Uri", "")}}
    if status in FAILED_STATUSES:
        reason = _failure(build)
        LOGGER.error(reason)
        raise StagingFailedError(reason)
    LOGGER.info("build %s is %s (phase %s)", build_id, status, build.get("currentPhase"))
    return {"IsComplete": False}


def on_event_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Lambda entry point of the provider's ``onEvent``."""
    return on_event(event)


def is_complete_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Lambda entry point of the provider's ``isComplete``."""
    return is_complete(event)
