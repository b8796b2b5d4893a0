"""``diff OLD NEW``: per endpoint and profile what changes, the monthly cost deltas, and the cost gate's exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.__main__ import main
from inference_constructs.config import parse_config
from inference_constructs.diff import diff_plans
from inference_constructs.plan import HOURS_PER_MONTH, plan_platform


def _ep(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "serving": "sklearn",
        "model": {"source": "s3", "s3_uri": f"s3://acme-models/{name}.tar.gz"},
        "instance_type": "ml.m5.xlarge",
        "capacity": {"min": 1, "max": 2},
        **extra,
    }


PROFILE = {"name": "team-a", "model": "anthropic.claude-3-haiku-20240307-v1:0", "residency": "single-region"}
OLD: dict[str, Any] = {"name": "acme", "endpoints": [_ep("churn"), _ep("fraud")], "bedrock": {"profiles": [PROFILE]}}


def _doc(config: dict[str, Any]) -> dict[str, Any]:
    return plan_platform(parse_config(json.dumps(config))).to_json()


def _with(**changes: Any) -> dict[str, Any]:
    return {**OLD, **changes}


@pytest.fixture(scope="module")
def old() -> dict[str, Any]:
    return _doc(OLD)


@pytest.fixture(scope="module")
def price(old: dict[str, Any]) -> float:
    value: float = old["endpoints"][0]["price_per_hour_usd"]
    return value


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        pytest.param(
            _with(endpoints=[_ep("churn", capacity={"min": 1, "max": 5}), _ep("fraud")]),
            {("endpoint", "churn"): ("changed", [("capacity.max", 2, 5)], 0, 3)},
            id="capacity-change",
        ),
        pytest.param(
            _with(endpoints=[_ep("churn", instance_type="ml.m5.2xlarge"), _ep("fraud")]),
            {("endpoint", "churn"): ("changed", [("instance_type", "ml.m5.xlarge", "ml.m5.2xlarge")], None, None)},
            id="instance-type-change",
        ),
        pytest.param(
            _with(endpoints=[_ep("churn"), _ep("fraud"), _ep("spam")]),
            {("endpoint", "spam"): ("added", [], 1, 2)},
            id="endpoint-added",
        ),
        pytest.param(
            _with(endpoints=[_ep("churn")]),
            {("endpoint", "fraud"): ("removed", [], -1, -2)},
            id="endpoint-removed",
        ),
        pytest.param(_with(endpoints=[_ep("fraud"), _ep("churn")]), {}, id="reordered"),
        pytest.param(
            _with(endpoints=[_ep("churn", stack=2), _ep("fraud")]),
            {("endpoint", "churn"): ("changed", [("stack", "acme-hosting-1", "acme-hosting-2")], 0, 0)},
            id="stack-moved",
        ),
        pytest.param(
            _with(bedrock={"profiles": [{**PROFILE, "model": "anthropic.claude-3-5-haiku-20241022-v1:0"}]}),
            {
                ("profile", "team-a"): (
                    "changed",
                    [("model", PROFILE["model"], "anthropic.claude-3-5-haiku-20241022-v1:0")],
                    None,
                    None,
                )
            },
            id="profile-model-bump",
        ),
    ],
)
def test_diff_lists_what_changes_and_the_cost_in_instances(
    old: dict[str, Any], price: float, new: dict[str, Any], expected: dict[tuple[str, str], Any]
) -> None:
    # GIVEN a plan before and after a common change WHEN diffed
    result = diff_plans(old, _doc(new))
    # THEN only the changed items are listed, with their field changes and cost deltas (price x instances x 730 h)
    changed = {(i.kind, i.name): i for i in result.items if i.status != "unchanged"}
    assert set(changed) == set(expected)
    for key, (status, fields, at_min, at_max) in expected.items():
        item = changed[key]
        assert item.status == status
        assert [(c.field, c.old, c.new) for c in item.changes] == fields
        if at_min is not None:
            monthly = price * HOURS_PER_MONTH
            lo, hi = item.monthly_usd_at_min, item.monthly_usd_at_max
            assert (round(lo[1] - lo[0], 2), round(hi[1] - hi[0], 2)) == (
                round(monthly * at_min, 2),
                round(monthly * at_max, 2),
            )
    lo_total = result.monthly_usd_at_min
    assert round(lo_total[1] - lo_total[0], 2) == round(
        sum(i.monthly_usd_at_min[1] - i.monthly_usd_at_min[0] for i in result.items), 2
    )
    moved = any(c.field == "stack" for i in result.items for c in i.changes)
    assert any("replacement" in n for n in result.notes) is moved


def _files(tmp_path: Path, old: dict[str, Any]) -> tuple[str, str]:
    old_path = tmp_path / "old.json"
    old_path.write_text(json.dumps(old))
    new_path = tmp_path / "new.yaml"
    new_path.write_text(json.dumps(_with(endpoints=[_ep("churn", capacity={"min": 1, "max": 5}), _ep("fraud")])))
    return str(old_path), str(new_path)


@pytest.mark.parametrize(("slack", "code"), [(-0.01, 1), (0.0, 0)])
def test_cost_gate_exits_1_only_when_crossed(
    tmp_path: Path, old: dict[str, Any], price: float, slack: float, code: int, *, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN an old plan JSON and a new config that adds 3 instances at maximum
    old_path, new_path = _files(tmp_path, old)
    increase = round(price * 3 * HOURS_PER_MONTH, 2)
    # WHEN diffed with a limit just under, or exactly at, the increase
    rc = main(["diff", old_path, new_path, "--json", "--fail-over-usd", str(increase + slack)])
    # THEN the gate fails only when the increase is over the limit, and the JSON states the totals
    assert rc == code
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert totals["monthly_usd_at_max"]["delta"] == increase


def test_unreadable_input_exits_2_naming_the_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN a missing old file WHEN diffed THEN exit 2 and stderr names the tried path
    missing = tmp_path / "nope.json"
    assert main(["diff", str(missing), str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err
