"""Regions gate: in every region a synthesized template may reach (those its Rules let through), every mapping
lookup has a value and every resource type exists; and the region data covers every type the templates hold."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from inference_constructs.containers import load_snapshot
from inference_constructs.region_rules import RULE_ID
from inference_constructs.regions import TRACKED_TYPES, load_resource_regions
from tests.gates.conftest import config_ids
from tests.gates.synth import Assembly

CONFIG_IDS = config_ids()
_REGION = {"Ref": "AWS::Region"}


def _allows(assertion: dict[str, Any], region: str) -> bool:
    """Evaluate one InferenceRegions assertion (Fn::Contains, or Fn::Not of it, on AWS::Region) for ``region``."""
    condition = assertion["Assert"]
    negate = "Fn::Not" in condition
    if negate:
        condition = condition["Fn::Not"][0]
    regions, value = condition["Fn::Contains"]
    assert value == _REGION
    return (region in regions) is not negate


def _reachable(template: dict[str, Any], deploy_region: str | None) -> list[str]:
    """The deploy region of a config that sets one; else every known region the template's rule lets a deploy into."""
    if deploy_region:
        return [deploy_region]
    known = sorted(set(load_resource_regions().regions) | set(load_snapshot().domains))
    assertions = template.get("Rules", {}).get(RULE_ID, {}).get("Assertions", [])
    return [r for r in known if all(_allows(a, r) for a in assertions)]


def _find_in_map(node: Any) -> Iterator[list[Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "Fn::FindInMap":
                yield value
            yield from _find_in_map(value)
    elif isinstance(node, list):
        for item in node:
            yield from _find_in_map(item)


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_every_mapping_lookup_has_a_value_in_every_reachable_region(
    assemblies: dict[str, tuple[Assembly, Assembly]], config: str
) -> None:
    # GIVEN each synthesized template and the regions its Rules let a deploy into
    first, _ = assemblies[config]
    for name, template in first.templates.items():
        reachable = _reachable(template, first.plan["regions"]["deploy_region"])
        # WHEN each Fn::FindInMap on AWS::Region is looked up in each of them
        missing = [
            (name, mapping, column, region)
            for mapping, key, column in _find_in_map(template.get("Resources", {}))
            if key == _REGION
            for region in reachable
            if column not in template["Mappings"][mapping].get(region, {})
        ]
        # THEN every lookup has a value
        assert missing == []


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_every_resource_type_exists_in_every_reachable_region(
    assemblies: dict[str, tuple[Assembly, Assembly]], config: str
) -> None:
    # GIVEN each template's resource types and the region data
    first, _ = assemblies[config]
    data = load_resource_regions()
    for name, template in first.templates.items():
        types = {r["Type"] for r in template.get("Resources", {}).values() if not r["Type"].startswith("Custom::")}
        # THEN the data covers every type, and no reachable region lacks one of them
        assert types <= set(TRACKED_TYPES), (name, types - set(TRACKED_TYPES))
        reachable = set(_reachable(template, first.plan["regions"]["deploy_region"]))
        assert {(name, t, r) for t in types for r in data.lacking(t) if r in reachable} == set()
