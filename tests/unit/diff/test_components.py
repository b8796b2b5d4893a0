"""diff's plan side for an endpoint that hosts several inference components: each component and adapter is an
item (``<endpoint>/<name>``), and the update warnings name a deleted component and a new first component."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from inference_constructs.config import parse_config
from inference_constructs.diff.plans import diff_plans
from inference_constructs.plan import plan_platform
from inference_constructs.updates import UPDATE_WARNING_CODES

EXAMPLE = Path(__file__).resolve().parents[3] / "config" / "examples" / "inference-components.yaml"


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text())
    return loaded


def _plan(config: dict[str, Any]) -> dict[str, Any]:
    return plan_platform(parse_config(yaml.safe_dump(config))).to_json()


def _items(old: dict[str, Any], new: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(i.kind, i.name): i for i in diff_plans(_plan(old), _plan(new)).items}


def _components(config: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = config["endpoints"][0]["components"]
    return found


def test_an_unchanged_plan_lists_each_component_and_adapter_unchanged(config: dict[str, Any]) -> None:
    items = _items(config, config)
    assert {k: i.status for k, i in items.items() if k[0] in ("component", "adapter")} == {
        ("component", "assistants/chat"): "unchanged",
        ("component", "assistants/summarize"): "unchanged",
        ("adapter", "assistants/support-tone"): "unchanged",
    }
    assert diff_plans(_plan(config), _plan(config)).updates == ()


def test_a_change_of_copies_is_a_changed_component(config: dict[str, Any]) -> None:
    new = copy.deepcopy(config)
    _components(new)[1]["copies"]["max"] = 3
    item = _items(config, new)["component", "assistants/summarize"]
    assert item.status == "changed"
    assert [(c.field, c.old, c.new) for c in item.changes] == [("copies.max", 2, 3)]


def test_a_new_model_is_a_changed_component_whatever_its_source_or_engine(config: dict[str, Any]) -> None:
    # GIVEN the summarizer's model moved to S3, and (separately) served by the vLLM image with another hub id
    s3_old, s3_new = copy.deepcopy(config), copy.deepcopy(config)
    for doc, prefix in ((s3_old, "sum-v1"), (s3_new, "sum-v2")):
        _components(doc)[1]["model"].update(source="s3", s3_uri=f"s3://assistants-ml-artifacts/{prefix}/")
    vllm_old, vllm_new = copy.deepcopy(config), copy.deepcopy(config)
    for doc in (vllm_old, vllm_new):
        _components(doc)[1]["serving"] = "vllm"
    _components(vllm_new)[1]["model"].update(id="Qwen/Qwen2.5-0.5B-Instruct", parameters_billion=0.5)
    # THEN each is a model change of that component, with both values
    s3 = _items(s3_old, s3_new)["component", "assistants/summarize"]
    assert ("model", "s3://assistants-ml-artifacts/sum-v1/", "s3://assistants-ml-artifacts/sum-v2/") in [
        (c.field, c.old, c.new) for c in s3.changes
    ]
    vllm = _items(vllm_old, vllm_new)["component", "assistants/summarize"]
    assert ("model", "Qwen/Qwen2.5-1.5B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct") in [
        (c.field, c.old, c.new) for c in vllm.changes
    ]


def test_a_new_image_and_a_moved_adapter_are_changes(config: dict[str, Any]) -> None:
    new = copy.deepcopy(config)
    _components(new)[1]["serving"] = "vllm"
    new["endpoints"][0]["adapters"][0]["s3_uri"] = "s3://assistants-ml-artifacts/adapters/support-tone-v2/"
    items = _items(config, new)
    image = [(c.field, c.old, c.new) for c in items["component", "assistants/summarize"].changes if c.field == "image"]
    assert image == [("image", "lmi-gpu", "vllm-gpu")]
    adapter = items["adapter", "assistants/support-tone"]
    assert [(c.field, c.new) for c in adapter.changes] == [
        ("artifact_url", "s3://assistants-ml-artifacts/adapters/support-tone-v2/")
    ]


def test_a_change_of_the_adapter_rank_is_a_changed_base(config: dict[str, Any]) -> None:
    new = copy.deepcopy(config)
    _components(new)[0]["max_lora_rank"] = 64
    item = _items(config, new)["component", "assistants/chat"]
    assert ("max_lora_rank", 16, 64) in [(c.field, c.old, c.new) for c in item.changes]


def test_a_removed_component_is_listed_and_warned_about(config: dict[str, Any]) -> None:
    new = copy.deepcopy(config)
    del _components(new)[1]
    items = _items(config, new)
    assert items["component", "assistants/summarize"].status == "removed"
    (warning,) = diff_plans(_plan(config), _plan(new)).updates
    assert (warning.code, warning.subject) == ("component-removed", "assistants/summarize")
    assert "InferenceComponentName" in warning.message


def test_a_renamed_component_is_a_removal_and_an_addition(config: dict[str, Any]) -> None:
    new = copy.deepcopy(config)
    _components(new)[1]["name"] = "digest"
    items = _items(config, new)
    assert (items["component", "assistants/summarize"].status, items["component", "assistants/digest"].status) == (
        "removed",
        "added",
    )
    assert [(w.code, w.subject) for w in diff_plans(_plan(config), _plan(new)).updates] == [
        ("component-removed", "assistants/summarize")
    ]


def test_a_new_first_component_is_warned_about_and_the_old_second_loses_its_own(config: dict[str, Any]) -> None:
    # GIVEN the two components swapped: summarize is first (the endpoint's own inference component), chat second
    new = copy.deepcopy(config)
    _components(new).reverse()
    new["endpoints"][0]["adapters"] = []
    changes = _items(config, new)["component", "assistants/chat"].changes
    assert ("first", True, False) in [(c.field, c.old, c.new) for c in changes]
    warnings = [(w.code, w.subject) for w in diff_plans(_plan(config), _plan(new)).updates]
    # THEN the endpoint's own component serves another model, summarize's own component is deleted, and so is the
    # removed adapter's
    assert warnings == [
        ("first-component-changed", "assistants"),
        ("component-removed", "assistants/summarize"),
        ("component-removed", "assistants/support-tone"),
    ]


def test_every_warning_a_component_change_gives_has_a_listed_code(config: dict[str, Any]) -> None:
    # GIVEN every component change above at once
    new = copy.deepcopy(config)
    _components(new).reverse()
    new["endpoints"][0]["adapters"] = []
    codes = {w.code for w in diff_plans(_plan(config), _plan(new)).updates}
    # THEN each code is one of the stable codes, and both component codes occur
    assert codes == {"component-removed", "first-component-changed"}
    assert codes <= set(UPDATE_WARNING_CODES)
