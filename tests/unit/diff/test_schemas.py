"""The replacement rules are the bundled cfn-lint schemas' create-only properties, regenerated, not hand-edited."""

from __future__ import annotations

import json
from pathlib import Path

from inference_constructs.diff.schemas import _SNAPSHOT, EXTRA_TYPES, generate
from inference_constructs.regions import TRACKED_TYPES


def test_snapshot_matches_the_installed_cfn_lint(tmp_path: Path) -> None:
    # GIVEN the pinned cfn-lint WHEN the table is regenerated THEN it equals the committed file
    fresh = generate(tmp_path / "create_only.json")
    assert fresh == json.loads(_SNAPSHOT.read_text())


def test_snapshot_covers_every_type_the_stacks_write() -> None:
    types = json.loads(_SNAPSHOT.read_text())["types"]
    assert set(types) == {*TRACKED_TYPES, *EXTRA_TYPES}


def test_name_properties_are_the_resources_own_names() -> None:
    types = json.loads(_SNAPSHOT.read_text())["types"]
    assert types["AWS::SageMaker::Endpoint"]["name_properties"] == ["/properties/EndpointName"]
    assert types["AWS::Bedrock::ApplicationInferenceProfile"]["name_properties"] == ["/properties/InferenceProfileName"]
    assert types["AWS::SSM::Parameter"]["name_properties"] == ["/properties/Name"]
    # FunctionName of a permission names another resource, not the permission
    assert types["AWS::Lambda::Permission"]["name_properties"] == []
