"""bedrock.profiles validation (every rule fails with a clear message) and plan entries."""

from __future__ import annotations

import pytest
from aws_cdk import CfnParameter

from inference_constructs.bedrock import (
    ProfileSpec,
    Residency,
)
from inference_constructs.bedrock.inference_profile_plan import (
    check_profile_specs,
    plan_entries,
    profile_plan,
    validate_profile_specs,
)
from inference_constructs.errors import InferenceConfigError

from ._helpers import new_stack

SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"
PATH = r"bedrock\.profiles\[0\]"


def _spec(**overrides: object) -> ProfileSpec:
    values: dict[str, object] = {"name": "team-a-sonnet", "model": f"us.{SONNET}", "tags": {"team": "team-a"}}
    values.update(overrides)
    return ProfileSpec(**values)  # type: ignore[arg-type]


def test_valid_profiles_have_no_problems() -> None:
    # GIVEN one profile per team WHEN checked THEN nothing is wrong
    specs = [_spec(), _spec(name="team-b-haiku", model="anthropic.claude-3-haiku-20240307-v1:0")]
    assert check_profile_specs(specs) == []


def test_a_name_from_a_cfn_parameter_is_accepted() -> None:
    # GIVEN a name that is an unresolved CfnParameter token
    name = CfnParameter(new_stack(), "ProfileName").value_as_string
    # WHEN checked THEN it is not rejected by the name pattern
    assert check_profile_specs([_spec(name=name)]) == []


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"name": "x" * 65}, rf"{PATH}\.name: 'x+' is 65 characters long; use at most 64"),
        ({"name": "team a!"}, rf"{PATH}\.name: 'team a!' is not a valid profile name"),
        ({"name": ""}, rf"{PATH}\.name: '' is empty"),
        ({"name": "team--a"}, rf"{PATH}\.name: 'team--a' is not a valid profile name"),
        ({"model": "claude sonnet"}, rf"{PATH}\.model: 'claude sonnet' is not a foundation model id"),
        ({"tags": {"team": "a#b"}}, rf"{PATH}\.tags\.team: value 'a#b' has characters tags do not allow"),
        ({"tags": {"k" * 129: "v"}}, rf"{PATH}\.tags\.k+: key is 129 characters long"),
        ({"tags": {"team": "v" * 257}}, rf"{PATH}\.tags\.team: value is 257 characters long"),
        ({"tags": {"aws:team": "a"}}, rf"{PATH}\.tags\.aws:team: keys starting with 'aws:' are reserved"),
        ({"max_output_tokens": 0}, rf"{PATH}\.max_output_tokens: 0 is not allowed; use a whole number >= 1"),
        ({"description": "d" * 201}, rf"{PATH}\.description: is 201 characters long"),
        (
            {"invoke_role_arns": ("arn:aws:iam::123:user/bob",)},
            rf"{PATH}\.invoke_role_arns\[0\]: 'arn:aws:iam::123:user/bob' is not an IAM role ARN",
        ),
    ],
)
def test_fails_on_each_malformed_key(overrides: dict[str, object], message: str) -> None:
    # GIVEN one malformed key WHEN validated THEN one error names the key path, the value and the fix
    with pytest.raises(InferenceConfigError, match=message):
        validate_profile_specs([_spec(**overrides)])


def test_fails_on_duplicate_names() -> None:
    # GIVEN two profiles with one name WHEN validated THEN the second names the first
    with pytest.raises(InferenceConfigError, match=r"profiles\[1\]\.name: 'team-a-sonnet' is already used by .*\[0\]"):
        validate_profile_specs([_spec(), _spec(model=SONNET)])


@pytest.mark.parametrize("model", [f"us.{SONNET}", f"eu.{SONNET}", f"global.{SONNET}"])
def test_fails_on_cross_region_profile_with_single_region_residency(model: str) -> None:
    # GIVEN residency single-region and a cross-Region profile WHEN validated THEN it is an error
    with pytest.raises(InferenceConfigError, match=rf"{PATH}\.residency: .* is a cross-Region profile"):
        validate_profile_specs([_spec(model=model, residency=Residency.SINGLE_REGION)])


def test_single_region_residency_accepts_a_foundation_model() -> None:
    # GIVEN residency single-region and a plain foundation model WHEN checked THEN it is fine
    assert check_profile_specs([_spec(model=SONNET, residency=Residency.SINGLE_REGION)]) == []


def test_every_problem_is_reported_at_once() -> None:
    # GIVEN a profile with three mistakes WHEN validated THEN one error lists all three
    with pytest.raises(InferenceConfigError) as caught:
        validate_profile_specs([_spec(name="x" * 70, model="bad model", max_output_tokens=-1)])
    assert len(caught.value.problems) == 3


def test_plan_entry_flags_a_profile_that_leaves_the_region() -> None:
    # GIVEN a us. profile WHEN its plan entry is built for a region-agnostic stack
    entry = profile_plan(_spec(max_output_tokens=4096)).to_json()
    # THEN it records the geography, the destination Regions and a residency warning
    assert entry["leaves_region"] is True
    assert entry["geography"] == "us"
    assert entry["destination_regions"] == ["us-east-1", "us-east-2", "us-west-1", "us-west-2"]
    assert entry["warnings"] == [
        "bedrock profile team-a-sonnet: requests can leave the deploy Region "
        "(us geography: requests may be served in us-east-1, us-east-2, us-west-1, us-west-2)"
    ]


def test_plan_entry_flags_global_with_any_region() -> None:
    # GIVEN a global profile WHEN planned THEN destination Regions are unbounded and it is flagged
    entry = profile_plan(_spec(model=f"global.{SONNET}")).to_json()
    assert (entry["destination_regions"], entry["leaves_region"]) == (None, True)
    assert "any commercial Region worldwide" in entry["warnings"][0]


def test_plan_entry_of_foundation_model_stays_in_deploy_region() -> None:
    # GIVEN a foundation model and a known deploy Region WHEN planned THEN no warning, one Region
    entry = profile_plan(_spec(model=SONNET), deploy_region="eu-west-1").to_json()
    assert (entry["leaves_region"], entry["destination_regions"], entry["warnings"]) == (False, ["eu-west-1"], [])


def test_plan_entries_keep_config_order() -> None:
    # GIVEN two profiles WHEN planned THEN entries follow config order
    names = [e.name for e in plan_entries([_spec(name="b"), _spec(name="a")])]
    assert names == ["b", "a"]


# ------------------------------------------------------------------ physical name (update safety)


def test_profile_create_only_properties_are_those_of_the_resource_schema() -> None:
    # GIVEN the CloudFormation resource schema cfn-lint bundles THEN the library's list is the schema's
    from inference_constructs.bedrock.inference_profile_plan import PROFILE_CREATE_ONLY_PROPERTIES
    from tests.cfn_schemas import create_only

    assert sorted(PROFILE_CREATE_ONLY_PROPERTIES) == sorted(
        p[0] for p in create_only("AWS::Bedrock::ApplicationInferenceProfile")
    )


def test_physical_name_changes_with_the_model_only() -> None:
    # GIVEN the same profile before and after a model bump, and after a tag change
    before = _spec()
    bumped = _spec(model="us.anthropic.claude-sonnet-4-5-20250929-v2:0")
    retagged = _spec(tags={"team": "team-z"})
    # THEN the name carries a hash that changes with the create-only model source only
    assert before.physical_name.startswith("team-a-sonnet-")
    assert bumped.physical_name != before.physical_name
    assert retagged.physical_name == before.physical_name


def test_physical_name_of_the_longest_allowed_name_fits_the_schema() -> None:
    import re

    from inference_constructs.bedrock.inference_profile_plan import MAX_BASE_NAME
    from tests.cfn_schemas import schema

    # GIVEN the name limits of the resource schema
    limits = schema("AWS::Bedrock::ApplicationInferenceProfile")["properties"]["InferenceProfileName"]
    # WHEN the configured name has the most characters the plan allows
    name = _spec(name="a" * MAX_BASE_NAME).physical_name
    # THEN the physical name is within the schema's length and pattern
    assert len(name) == limits["maxLength"]
    assert re.fullmatch(limits["pattern"].strip("^$"), name)
    assert check_profile_specs([_spec(name="a" * MAX_BASE_NAME)]) == []


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a" * 56, r"has 56 characters; use at most 55 \(the plan appends '-' and an 8-character hash"),
        ("team-a_", r"'team-a_' ends in '_'; end it with a letter or digit"),
    ],
)
def test_fails_names_that_leave_no_room_for_the_hash(name: str, message: str) -> None:
    with pytest.raises(InferenceConfigError, match=rf"{PATH}\.name: .*{message}"):
        validate_profile_specs([_spec(name=name)])


def test_plan_entry_states_the_profile_name_and_why() -> None:
    entry = profile_plan(_spec()).to_json()
    assert entry["profile_name"] == _spec().physical_name
    assert "create-only" in entry["replacement"] and _spec().replace_only_hash() in entry["replacement"]
