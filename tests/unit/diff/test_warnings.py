"""Every plan warning gets a stable code; ``diff`` lists the warnings NEW has and OLD has not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.config import load_config, parse_config
from inference_constructs.diff import DiffReport, Gates, diff_plans
from inference_constructs.diff.warnings import UNCLASSIFIED, WARNING_CODES, classify, plan_warnings
from inference_constructs.plan import plan_platform
from inference_constructs.scaling.decisions import ASYNC_ZERO_WARNING, SCALE_TO_ZERO_WARNING, floor_reset_warning

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = [ROOT / "config" / "default.yaml", *sorted((ROOT / "config" / "examples").glob("*.yaml"))]

#: The published codes: a pipeline branches on them, so renaming one is a breaking change.
STABLE_CODES = [
    "scale_to_zero_fails_requests",
    "scale_to_zero_queues",
    "schedule_floor_stays",
    "fixed_capacity",
    "gpu_memory_scale_in",
    "leaves_region",
    "quota_exceeded",
    "workload_not_priced",
    "price_region",
    "logging_bucket_unmanaged",
    "logging_overwrite",
    "cost_tag_scope",
    "deny_role_account",
    "schedule_floor_reset_on_update",
    "budget_below_minimum_cost",
    "reservation_ends",
]


def test_codes_are_the_published_ones() -> None:
    assert list(WARNING_CODES) == STABLE_CODES


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_every_warning_of_a_shipped_config_has_a_code(config: Path) -> None:
    # GIVEN a shipped config WHEN planned THEN each of its warnings has a code other than unclassified
    warnings = plan_warnings(plan_platform(load_config(config)).to_json())
    assert [w.text for w in warnings if w.code == UNCLASSIFIED] == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (SCALE_TO_ZERO_WARNING, "scale_to_zero_fails_requests"),
        (ASYNC_ZERO_WARNING, "scale_to_zero_queues"),
        ("endpoints[1]: capacity.min equals capacity.max (2): scaling policies cannot change it", "fixed_capacity"),
        (
            "endpoints[0]: " + floor_reset_warning(1, 2),
            "schedule_floor_reset_on_update",
        ),
        ("something the library never wrote", UNCLASSIFIED),
    ],
)
def test_classify(text: str, code: str) -> None:
    assert classify(text) == code


def _ep(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "serving": "sklearn",
        "model": {"source": "s3", "s3_uri": f"s3://acme-models/{name}.tar.gz"},
        "instance_type": "ml.m5.xlarge",
        "capacity": {"min": 1, "max": 2},
        **extra,
    }


def _plan(*endpoints: dict[str, Any]) -> dict[str, Any]:
    return plan_platform(parse_config(json.dumps({"name": "acme", "endpoints": list(endpoints)}))).to_json()


def test_new_warning_is_listed_with_its_code_and_endpoint_name() -> None:
    # GIVEN churn's capacity fixed at 2 in NEW (a fixed_capacity warning) WHEN diffed
    result = diff_plans(
        _plan(_ep("churn"), _ep("fraud")),
        _plan(
            _ep("churn", capacity={"min": 2, "max": 2}, scaling={"invocations_per_instance_per_minute": 100}),
            _ep("fraud"),
        ),
    )
    # THEN the new warning names the endpoint, not its index
    assert [(w.code, w.subject) for w in result.new_warnings] == [("fixed_capacity", "endpoint churn")]


def test_reordering_endpoints_adds_no_warning() -> None:
    fixed = _ep("churn", capacity={"min": 2, "max": 2}, scaling={"invocations_per_instance_per_minute": 100})
    result = diff_plans(_plan(fixed, _ep("fraud")), _plan(_ep("fraud"), fixed))
    assert result.new_warnings == ()
    assert result.resolved_warnings == ()


def test_plan_update_warning_is_listed_and_crosses_the_replacement_gate() -> None:
    # GIVEN a scaled endpoint whose instance type changes
    scaled = {"scaling": {"invocations_per_instance_per_minute": 100}}
    old = _plan(_ep("churn", **scaled))
    new = _plan(_ep("churn", instance_type="ml.m5.2xlarge", **scaled))
    # WHEN diffed THEN the plan's update warning is carried with its code
    result = diff_plans(old, new)
    assert [(u.code, u.subject) for u in result.updates] == [("scaled-variant-instance-type", "churn")]
    # AND it crosses --fail-on-replacement, naming the code
    crossed = DiffReport(result, None, "plans only").crossed(Gates(fail_on_replacement=True))
    assert crossed[0] == "--fail-on-replacement: 1 plan update warning(s): scaled-variant-instance-type"
