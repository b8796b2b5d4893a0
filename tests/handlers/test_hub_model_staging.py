"""Hub model staging custom resource: ``on_event`` starts a CodeBuild build, ``is_complete`` awaits it, against
botocore's real ``codebuild`` model (Stubber checks every request and response against it); and the build's own
program, with a fake hub and uploader."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from tests.handlers._load import LAMBDA_ROOT, load_handler

staging = load_handler("hub_model_staging", "hub_model_staging_under_test")
job = load_handler("hub_model_staging_job", "hub_model_staging_job_under_test")

PROJECT = "WeightsStagingJob-abc123"
BUILD_ID = f"{PROJECT}:8f4a3a0c-1111-2222-3333-444455556666"
BUCKET = "acme-hosting-data-bucket"
OLD_REVISION = "0e9e39f249a16976918f6564b8830bc894c89659"
NEW_REVISION = "5206a32e0bd3067aef1ce90f5528ade7d866253f"
LOG_LINK = "https://console.aws.amazon.com/cloudwatch/home?region=us-east-1#logEvent:group=g;stream=s"


def _props(revision: str = OLD_REVISION) -> dict[str, Any]:
    model = "meta-llama/Llama-3.1-8B-Instruct"
    return {
        "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:provider",
        "ModelId": model,
        "Revision": revision,
        "KeyPrefix": f"hub-models/{model}/{revision}/",
        "Bucket": BUCKET,
        "ProjectName": PROJECT,
    }


def _event(request: str, props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"RequestType": request, "ResourceProperties": props, **extra}


@pytest.fixture
def codebuild() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client("codebuild", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def _build(status: str, **extra: Any) -> dict[str, Any]:
    return {"builds": [{"id": BUILD_ID, "buildStatus": status, **extra}]}


def test_create_starts_the_build_and_names_the_prefix_it_writes(codebuild: tuple[Any, Stubber]) -> None:
    # GIVEN a create request
    client, stubber = codebuild
    stubber.add_response("start_build", {"build": {"id": BUILD_ID}}, {"projectName": PROJECT})
    # WHEN on_event runs
    answer = staging.on_event(_event("Create", _props()), client)
    # THEN the build started and the physical id / S3Uri is the revision's own prefix
    target = f"s3://{BUCKET}/hub-models/meta-llama/Llama-3.1-8B-Instruct/{OLD_REVISION}/"
    assert answer == {"PhysicalResourceId": target, "Data": {"BuildId": BUILD_ID, "S3Uri": target}}


def test_update_with_a_new_revision_stages_again_into_a_new_prefix(codebuild: tuple[Any, Stubber]) -> None:
    # GIVEN an update that changes the revision
    client, stubber = codebuild
    stubber.add_response("start_build", {"build": {"id": BUILD_ID}}, {"projectName": PROJECT})
    old = _props(OLD_REVISION)
    event = _event("Update", _props(NEW_REVISION), OldResourceProperties=old, PhysicalResourceId="s3://old/")
    # WHEN on_event runs
    answer = staging.on_event(event, client)
    # THEN a build started, and the new physical id (a replacement) is the new revision's prefix beside the old one
    assert answer["Data"]["BuildId"] == BUILD_ID
    assert answer["PhysicalResourceId"].endswith(f"/{NEW_REVISION}/")


def test_update_with_the_same_model_and_revision_starts_no_build(codebuild: tuple[Any, Stubber]) -> None:
    # GIVEN an update that only replaced the project (same model id, revision, prefix and bucket)
    client, _ = codebuild
    old = _props()
    new = {**_props(), "ProjectName": "ReplacedProject"}
    event = _event("Update", new, OldResourceProperties=old, PhysicalResourceId="s3://kept/")
    # WHEN on_event runs (the stubber has no response queued: any call would fail)
    answer = staging.on_event(event, client)
    # THEN nothing is staged and the physical id is kept
    assert answer["PhysicalResourceId"] == "s3://kept/"
    assert answer["Data"]["BuildId"] == ""
    assert staging.is_complete({**event, **answer}, client) == {"IsComplete": True}


def test_delete_keeps_the_weights_and_calls_nothing(codebuild: tuple[Any, Stubber]) -> None:
    client, _ = codebuild
    event = _event("Delete", _props(), PhysicalResourceId="s3://kept/")
    assert staging.on_event(event, client) == {"PhysicalResourceId": "s3://kept/"}
    assert staging.is_complete(event, client) == {"IsComplete": True}


def test_is_complete_waits_while_the_build_runs_and_completes_when_it_succeeds(
    codebuild: tuple[Any, Stubber],
) -> None:
    # GIVEN a build that runs, then succeeds
    client, stubber = codebuild
    stubber.add_response("batch_get_builds", _build("IN_PROGRESS", currentPhase="BUILD"), {"ids": [BUILD_ID]})
    stubber.add_response("batch_get_builds", _build("SUCCEEDED"), {"ids": [BUILD_ID]})
    event = _event("Create", _props(), Data={"BuildId": BUILD_ID, "S3Uri": "s3://b/p/"})
    # WHEN is_complete is polled twice
    # THEN it is not complete, then complete with the prefix
    assert staging.is_complete(event, client) == {"IsComplete": False}
    assert staging.is_complete(event, client) == {"IsComplete": True, "Data": {"S3Uri": "s3://b/p/"}}


def test_fails_with_the_build_log_link_when_the_build_failed(codebuild: tuple[Any, Stubber]) -> None:
    # GIVEN a build whose BUILD phase failed (e.g. the token cannot read the gated model)
    client, stubber = codebuild
    phases = [
        {"phaseType": "INSTALL", "phaseStatus": "SUCCEEDED"},
        {
            "phaseType": "BUILD",
            "phaseStatus": "FAILED",
            "contexts": [{"statusCode": "COMMAND_EXECUTION_ERROR", "message": "Error while executing command: exit 1"}],
        },
    ]
    stubber.add_response(
        "batch_get_builds", _build("FAILED", phases=phases, logs={"deepLink": LOG_LINK}), {"ids": [BUILD_ID]}
    )
    event = _event("Create", _props(), Data={"BuildId": BUILD_ID})
    # WHEN is_complete polls
    # THEN it raises (the provider fails the resource with this reason): status, phase, message and log link
    with pytest.raises(staging.StagingFailedError, match=r"ended FAILED in phase BUILD: Error while executing") as e:
        staging.is_complete(event, client)
    assert LOG_LINK in str(e.value)


def test_fails_with_the_build_log_link_when_the_build_timed_out(codebuild: tuple[Any, Stubber]) -> None:
    # GIVEN a build CodeBuild stopped at its timeout (50 minutes, before the provider's hour)
    client, stubber = codebuild
    stubber.add_response("batch_get_builds", _build("TIMED_OUT", logs={"deepLink": LOG_LINK}), {"ids": [BUILD_ID]})
    event = _event("Update", _props(), Data={"BuildId": BUILD_ID})
    # THEN the failure names the timeout and links the log
    with pytest.raises(staging.StagingFailedError, match=r"ended TIMED_OUT; logs: https://console"):
        staging.is_complete(event, client)


def test_fails_when_the_build_is_not_found(codebuild: tuple[Any, Stubber]) -> None:
    client, stubber = codebuild
    stubber.add_response("batch_get_builds", {"builds": [], "buildsNotFound": [BUILD_ID]}, {"ids": [BUILD_ID]})
    with pytest.raises(staging.StagingFailedError, match="not found"):
        staging.is_complete(_event("Create", _props(), Data={"BuildId": BUILD_ID}), client)


def test_fails_before_any_call_when_a_property_is_missing(codebuild: tuple[Any, Stubber]) -> None:
    client, _ = codebuild
    props = {k: v for k, v in _props().items() if k != "Revision"}
    with pytest.raises(staging.StagingFailedError, match="lacks Revision"):
        staging.on_event(_event("Create", props), client)


def test_every_failed_status_of_the_service_model_fails_the_resource() -> None:
    # The statuses that end a build without success are the service model's StatusType less the other two.
    statuses = set(boto3.client("codebuild", region_name="us-east-1").meta.service_model.shape_for("StatusType").enum)
    assert statuses - {"SUCCEEDED", "IN_PROGRESS"} == staging.FAILED_STATUSES


# ------------------------------------------------------------------------------------------ the build program


class _Reply(io.BytesIO):
    def __init__(self, body: bytes, headers: dict[str, str] | None = None) -> None:
        super().__init__(body)
        self.headers = headers or {}


def test_the_job_streams_each_file_of_the_pinned_commit_and_skips_duplicate_checkpoints() -> None:
    # GIVEN a hub repository at the pinned commit with safetensors weights and a duplicate original/ checkpoint
    siblings = ["config.json", "model-00001-of-00002.safetensors", "original/consolidated.00.pth", "README.md"]
    info = {"sha": OLD_REVISION, "siblings": [{"rfilename": n} for n in siblings]}
    seen: list[tuple[str, str]] = []
    uploaded: dict[str, bytes] = {}

    def get(url: str, token: str) -> _Reply:
        seen.append((url, token))
        if "/api/models/" in url:
            return _Reply(json.dumps(info).encode())
        return _Reply(b"weights:" + url.encode(), {"Content-Length": "5"})

    def upload(source: Any, target: str, size: int | None) -> None:
        uploaded[target] = source.read()

    # WHEN the job stages it
    copied = job.stage("meta-llama/Llama-3.1-8B-Instruct", OLD_REVISION, "s3://b/p/", "tok", get=get, upload=upload)
    # THEN it asked the hub for that commit with the token, copied every file but the duplicate, under the prefix
    assert seen[0][0] == f"https://huggingface.co/api/models/meta-llama/Llama-3.1-8B-Instruct/revision/{OLD_REVISION}"
    assert {t for _, t in seen} == {"tok"}
    assert copied == ["README.md", "config.json", "model-00001-of-00002.safetensors"]
    assert sorted(uploaded) == [f"s3://b/p/{n}" for n in copied]
    assert all(f"/resolve/{OLD_REVISION}/" in url for url, _ in seen[1:])


def test_the_job_refuses_a_revision_that_resolves_to_another_commit() -> None:
    def get(url: str, token: str) -> _Reply:
        return _Reply(json.dumps({"sha": NEW_REVISION, "siblings": []}).encode())

    with pytest.raises(RuntimeError, match="pin the full commit id"):
        job.stage("org/m", "main", "s3://b/p/", "tok", get=get, upload=lambda *a: None)


def test_the_job_keeps_pytorch_checkpoints_when_there_are_no_safetensors() -> None:
    assert job.files_to_copy(["pytorch_model.bin", "config.json"]) == ["config.json", "pytorch_model.bin"]


def test_the_job_does_not_send_the_token_to_another_host() -> None:
    # GIVEN a hub download that redirects to a content host
    import urllib.request

    handler = job._DropAuthorizationOffHost()
    request = urllib.request.Request(
        "https://huggingface.co/org/m/resolve/abc/f", headers={"Authorization": "Bearer t"}
    )
    same = handler.redirect_request(request, None, 302, "Found", {}, "https://huggingface.co/other")
    other = handler.redirect_request(request, None, 302, "Found", {}, "https://cdn-lfs.hf.co/blob")
    # THEN the token follows a redirect on the same host only
    assert same is not None and same.get_header("Authorization") == "Bearer t"
    assert other is not None and other.get_header("Authorization") is None


def test_both_asset_folders_exist_for_the_wheel() -> None:
    assert (LAMBDA_ROOT / "hub_model_staging" / "hub_model_staging.py").is_file()
    assert (LAMBDA_ROOT / "hub_model_staging_job" / "hub_model_staging_job.py").is_file()
