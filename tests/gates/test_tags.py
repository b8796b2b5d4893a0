"""The final tag set of every taggable resource of the default platform, read from its synthesized
templates: the platform's tags everywhere, a Bedrock profile's own tags winning over them, the library's
``inference:*`` keys intact, and no resource over AWS's tag limits."""

from __future__ import annotations

from typing import Any

from inference_constructs import aws_limits as limits
from inference_constructs.config import load_config
from inference_constructs.cost.capacity_tags import CAPACITY_TAG, PLATFORM_TAG
from tests.gates.synth import ROOT, Assembly

DEFAULT = load_config(ROOT / "config" / "default.yaml")


def _tag_sets(assembly: Assembly) -> dict[str, tuple[str, dict[str, str]]]:
    """``<stack>/<logical id> -> (type, tags)`` of every resource that carries a Tags property."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for stack, template in assembly.templates.items():
        for logical_id, resource in template.get("Resources", {}).items():
            tags: Any = resource.get("Properties", {}).get("Tags")
            if tags is None:
                continue
            pairs = {t["Key"]: t["Value"] for t in tags} if isinstance(tags, list) else dict(tags)
            out[f"{stack}/{logical_id}"] = (resource["Type"], pairs)
    return out


def test_every_taggable_resource_carries_the_platform_tags(assemblies: dict[str, tuple[Assembly, Assembly]]) -> None:
    # GIVEN the default platform's templates WHEN every resource's final tags are read
    sets = _tag_sets(assemblies["default"][0])
    assert len(sets) > 50
    for where, (kind, tags) in sets.items():
        # THEN the platform tag holds the platform's name (no user tag replaced it)
        assert tags.get(PLATFORM_TAG) == DEFAULT.name, where
        # AND the platform's tags are there, except where a Bedrock profile's own value wins
        if kind != "AWS::Bedrock::ApplicationInferenceProfile":
            assert {k: tags.get(k) for k in DEFAULT.tags} == dict(DEFAULT.tags), where
        # AND no resource carries more tags than its service allows
        limit = limits.TAGS["bedrock" if kind.startswith("AWS::Bedrock::") else "common"].max_tags
        assert len(tags) <= limit, where


def test_profile_tags_win_over_platform_tags(assemblies: dict[str, tuple[Assembly, Assembly]]) -> None:
    # GIVEN both team profiles of the default platform (their own team and cost-center tags)
    sets = _tag_sets(assemblies["default"][0])
    profiles = {
        tags.get("team"): tags for kind, tags in sets.values() if kind == "AWS::Bedrock::ApplicationInferenceProfile"
    }
    # THEN each carries its own team and cost center, not the platform's ml-platform / 4711
    expected = {p.tags["team"]: p.tags for p in DEFAULT.bedrock.profiles}
    assert set(profiles) == set(expected) == {"team-a", "team-b"}
    for team, tags in profiles.items():
        assert tags["cost-center"] == expected[team]["cost-center"]
        assert tags[PLATFORM_TAG] == DEFAULT.name


def test_capacity_tags_only_on_instance_backed_endpoints(assemblies: dict[str, tuple[Assembly, Assembly]]) -> None:
    # GIVEN the SageMaker endpoints WHEN their tags are read THEN instance-backed ones carry the capacity tag
    sets = _tag_sets(assemblies["default"][0])
    endpoints = [tags for kind, tags in sets.values() if kind == "AWS::SageMaker::Endpoint"]
    assert len(endpoints) == len(DEFAULT.endpoints)
    with_capacity = [t for t in endpoints if CAPACITY_TAG in t]
    assert len(with_capacity) == sum(1 for e in DEFAULT.endpoints if e.type.value != "serverless")


def test_capacity_tags_stay_off_the_scalable_targets(assemblies: dict[str, tuple[Assembly, Assembly]]) -> None:
    # GIVEN the default platform's scalable targets (one per scaled endpoint, the chat endpoint's with floors)
    sets = _tag_sets(assemblies["default"][0])
    targets = [tags for kind, tags in sets.values() if kind == "AWS::ApplicationAutoScaling::ScalableTarget"]
    assert targets
    # THEN none carries a capacity tag (a changed value would update the target and re-register capacity.min),
    # while each keeps the platform's own tags
    assert all(not any(key.startswith("inference:") and key != PLATFORM_TAG for key in t) for t in targets)
    assert all(t.get("team") == "ml-platform" for t in targets)
