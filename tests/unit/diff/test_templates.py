"""Template diff on small templates: each rule (create-only replacement, propagation through references, custom
names, moves between stacks, exports in use, registered variants) asserted on the resource it concerns."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from inference_constructs.diff.schemas import load_type_rules
from inference_constructs.diff.templates import diff_templates
from tests.unit.diff.templates import hosting as _hosting


def _by_id(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return {c.logical_id: c for c in diff_templates(old, new).changes}


def test_image_change_replaces_model_and_config_and_updates_the_endpoint() -> None:
    # GIVEN a new image WHEN diffed
    changes = _by_id({"h": _hosting()}, {"h": _hosting(image="img:2")})
    # THEN the model is replaced for its container, the config because it names the replaced model
    assert changes["Model"].forced_by == ("PrimaryContainer (direct)",)
    assert changes["Config"].status == "replaced"
    assert changes["Config"].forced_by == ("ProductionVariants (refers to Model, replaced)",)
    # AND the endpoint moves to the new config in place, and nothing is refused
    assert changes["Endpoint"].status == "updated"
    assert changes["Endpoint"].changed == ("EndpointConfigName",)
    assert changes["Endpoint"].blockers == ()
    assert "Target" not in changes


def test_instance_type_change_on_a_registered_variant_is_refused() -> None:
    changes = _by_id({"h": _hosting()}, {"h": _hosting("ml.g5.2xlarge")})
    assert changes["Config"].forced_by == ("ProductionVariants (direct)",)
    (blocker,) = changes["Endpoint"].blockers
    assert "AllTraffic from ml.g5.xlarge to ml.g5.2xlarge" in blocker
    assert "Application Auto Scaling" in blocker


def test_capacity_change_updates_the_target_in_place() -> None:
    new = _hosting()
    new["Resources"]["Target"]["Properties"]["MaxCapacity"] = 4
    changes = _by_id({"h": _hosting()}, {"h": new})
    assert (changes["Target"].status, changes["Target"].changed) == ("updated", ("MaxCapacity",))


def test_replacement_keeping_a_custom_name_is_refused_and_a_new_name_is_not() -> None:
    # GIVEN a profile whose model changes, once keeping its name and once with a new one
    profile = {
        "Type": "AWS::Bedrock::ApplicationInferenceProfile",
        "Properties": {"InferenceProfileName": "team-a", "ModelSource": {"CopyFrom": "arn:1"}},
    }
    bumped = copy.deepcopy(profile)
    bumped["Properties"]["ModelSource"] = {"CopyFrom": "arn:2"}
    renamed = copy.deepcopy(bumped)
    renamed["Properties"]["InferenceProfileName"] = "team-a-1a2b"
    before = {"b": {"Resources": {"P": profile}}}
    # WHEN diffed THEN both are user-facing replacements; only the one that keeps its name is refused
    kept = _by_id(before, {"b": {"Resources": {"P": bumped}}})["P"]
    assert kept.status == "replaced" and kept.user_facing is not None
    assert "custom name team-a stays" in kept.blockers[0]
    fresh = _by_id(before, {"b": {"Resources": {"P": renamed}}})["P"]
    assert fresh.forced_by == ("InferenceProfileName (direct)", "ModelSource (direct)")
    assert fresh.blockers == ()


def test_endpoint_moving_stack_is_a_move_and_its_kept_name_is_refused() -> None:
    old = {"hosting-1": _hosting(), "hosting-2": {"Resources": {}}}
    new = {"hosting-1": {"Resources": {}}, "hosting-2": _hosting()}
    result = diff_templates(old, new)
    moved = {c.logical_id: c for c in result.changes if c.status == "moved"}
    assert set(moved) == {"Model", "Config", "Endpoint", "Target"}
    assert moved["Endpoint"].old_stack == "hosting-1"
    assert moved["Endpoint"].forced_by == ("stack hosting-1 -> hosting-2",)
    assert "acme-chat" in moved["Endpoint"].blockers[0]
    assert {c.resource_type for c in result.user_facing_replacements} == {
        "AWS::SageMaker::Endpoint",
        "AWS::ApplicationAutoScaling::ScalableTarget",
    }


def _exporting(source: str) -> dict[str, Any]:
    return {
        "Resources": {
            "P": {
                "Type": "AWS::Bedrock::ApplicationInferenceProfile",
                "Properties": {"InferenceProfileName": "team-a", "ModelSource": {"CopyFrom": source}},
            }
        },
        "Outputs": {"Id": {"Value": {"Fn::GetAtt": ["P", "InferenceProfileId"]}, "Export": {"Name": "b:ProfileId"}}},
    }


IMPORTER = {
    "Resources": {"A": {"Type": "AWS::CloudWatch::Alarm", "Properties": {"X": {"Fn::ImportValue": "b:ProfileId"}}}}
}


@pytest.mark.parametrize(
    ("new_bedrock", "expected"),
    [
        pytest.param(_exporting("arn:2"), "changes value (it refers to P, replaced)", id="replaced-producer"),
        pytest.param({"Resources": _exporting("arn:1")["Resources"]}, "is removed", id="export-removed"),
    ],
)
def test_export_in_use_that_changes_or_disappears_is_refused(new_bedrock: dict[str, Any], expected: str) -> None:
    result = diff_templates({"b": _exporting("arn:1"), "o": IMPORTER}, {"b": new_bedrock, "o": IMPORTER})
    assert any(expected in b and "o imports it" in b for b in result.blockers)


def test_unknown_type_is_an_update_that_names_the_missing_rules() -> None:
    old = {"s": {"Resources": {"X": {"Type": "AWS::Foo::Bar", "Properties": {"A": 1}}}}}
    new = {"s": {"Resources": {"X": {"Type": "AWS::Foo::Bar", "Properties": {"A": 2}}}}}
    (change,) = diff_templates(old, new).changes
    assert change.status == "updated"
    assert "no create-only rules known" in change.may_replace[0]


def test_rules_come_from_the_bundled_schemas() -> None:
    rules, source = load_type_rules()
    assert source.startswith("cfn-lint ")
    assert "/properties/ModelSource" in rules["AWS::Bedrock::ApplicationInferenceProfile"].create_only
    assert rules["AWS::SageMaker::Endpoint"].create_only == ("/properties/EndpointName",)
    assert rules["AWS::SageMaker::InferenceComponent"].create_only == ()
