"""Targets resolved against the default platform's plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.formats import StreamFormat
from inference_loadtest.target import Api, load_plan, resolve_target

CONFIG = Path(__file__).resolve().parents[3] / "config" / "default.yaml"


@pytest.fixture(scope="module")
def plan() -> dict[str, Any]:
    return load_plan(CONFIG)


def test_plan_endpoint_gives_name_format_price_and_scaling_target(plan: dict[str, Any]) -> None:
    # WHEN the default platform's chat endpoint is the target
    target = resolve_target(endpoint="chat", profile=None, plan=plan)
    # THEN it streams from the deployed name with the LMI format, at the plan's price, against its target
    assert (target.api, target.identifier, target.format) == (Api.STREAM, "acme-genai-chat", StreamFormat.LMI)
    assert (target.pricing.price_per_hour_usd, target.pricing.instances) == (2.61, 1)
    assert (target.scaling_target, target.target_key) == (12.0, "endpoints[0].scaling.concurrency_per_instance")


def test_plan_json_document_works_like_the_config(plan: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "inference-plan.json"
    path.write_text(json.dumps(plan))
    target = resolve_target(endpoint="acme-genai-summarize", profile=None, plan=load_plan(path), instances=2)
    assert (target.identifier, target.pricing.instances, target.scaling_target) == ("acme-genai-summarize", 2, 3.0)


def test_cpu_endpoint_is_invoked_without_streaming(plan: dict[str, Any]) -> None:
    target = resolve_target(endpoint="tenant-risk", profile=None, plan=plan)
    assert (target.api, target.format) == (Api.INVOKE, StreamFormat.AUTO)


def test_async_endpoint_is_invoked_asynchronously(plan: dict[str, Any]) -> None:
    target = resolve_target(endpoint="batch-extract", profile=None, plan=plan)
    assert (target.api, target.identifier, target.format) == (Api.ASYNC, "acme-genai-batch-extract", StreamFormat.LMI)


def test_plan_profile_name_is_resolved_later(plan: dict[str, Any]) -> None:
    target = resolve_target(endpoint=None, profile="team-a-sonnet", plan=plan)
    assert (target.api, target.profile_name, target.pricing.usd_per_hour) == (
        Api.CONVERSE_STREAM,
        "team-a-sonnet",
        None,
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"endpoint": None, "profile": None}, "name exactly one target"),
        ({"endpoint": "chat", "profile": "p"}, "name exactly one target"),
        ({"endpoint": "nope", "profile": None}, "'nope' is not an endpoint of the plan; use one of: chat, summarize"),
        ({"endpoint": "churn", "profile": None, "stream": True}, r"endpoints\[3\] is a serverless endpoint"),
    ],
)
def test_fails_for_targets_it_cannot_drive(plan: dict[str, Any], kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InferenceConfigError, match=message):
        resolve_target(plan=plan, **kwargs)


def test_fails_for_a_file_that_is_not_a_plan(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"a": 1}')
    with pytest.raises(InferenceConfigError, match="is not a plan document"):
        load_plan(path)
