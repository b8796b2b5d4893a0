"""update_warnings: what CloudFormation cannot apply in one deploy, from two plan documents."""

from __future__ import annotations

import copy
from typing import Any

from inference_constructs.updates import UPDATE_WARNING_CODES, update_warnings


def _plan() -> dict[str, Any]:
    return {
        "endpoints": [
            {
                "name": "chat",
                "instance_type": "ml.g6e.xlarge",
                "stack": "p-hosting-1",
                "scaling": {"enabled": True, "scalable_dimension": "sagemaker:variant:DesiredInstanceCount"},
            },
            {
                "name": "churn",
                "instance_type": None,
                "stack": "p-hosting-1",
                "scaling": {"enabled": False, "scalable_dimension": "sagemaker:variant:DesiredInstanceCount"},
            },
        ],
        "bedrock": [{"name": "team-a", "model": "m1", "profile_name": "team-a-00000001"}],
    }


def test_an_unchanged_plan_has_no_warnings() -> None:
    assert update_warnings(_plan(), _plan()) == []


def test_a_new_host_on_a_scaled_variant_is_announced_with_the_two_deploys() -> None:
    new = copy.deepcopy(_plan())
    new["endpoints"][0]["instance_type"] = "ml.g6e.2xlarge"
    (warning,) = update_warnings(_plan(), new)
    assert warning.code == "scaled-variant-instance-type" and warning.subject == "chat"
    assert "ml.g6e.xlarge -> ml.g6e.2xlarge" in warning.message and "two deploys" in warning.message


def test_a_new_host_after_the_scaling_was_released_is_not_announced() -> None:
    released = copy.deepcopy(_plan())
    released["endpoints"][0]["scaling"]["enabled"] = False
    new = copy.deepcopy(_plan())
    new["endpoints"][0]["instance_type"] = "ml.g6e.2xlarge"
    assert update_warnings(released, new) == []


def test_a_stack_move_and_a_profile_replacement_are_announced() -> None:
    new = copy.deepcopy(_plan())
    new["endpoints"][1]["stack"] = "p-hosting-2"
    new["bedrock"][0].update(model="m2", profile_name="team-a-00000002")
    warnings = update_warnings(_plan(), new)
    assert [(w.code, w.subject) for w in warnings] == [
        ("endpoint-moves-stack", "churn"),
        ("profile-replaced", "team-a"),
    ]
    assert "team-a-00000002" in str(warnings[1])
    assert {w.code for w in warnings} <= set(UPDATE_WARNING_CODES)
