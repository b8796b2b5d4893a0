"""The CloudFormation resource schemas cfn-lint bundles (``cfnlint/data/schemas``): which properties of a
resource type are create-only, i.e. force a replacement when they change. Read straight from the JSON files,
independent of the library's own lists, so tests can hold those lists and the templates against them."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import cfnlint  # type: ignore[import-untyped]

SCHEMAS = Path(cfnlint.__file__).parent / "data" / "schemas"
#: Any commercial Region's provider index names the same schema files for the types the library uses.
REGION = "us-east-1"


@cache
def _index() -> dict[str, str]:
    return dict(json.loads((SCHEMAS / "providers" / f"{REGION}.json").read_text()))


@cache
def schema(resource_type: str) -> dict[str, Any]:
    """The resource schema of ``resource_type`` (KeyError for a type cfn-lint does not know)."""
    return dict(json.loads((SCHEMAS / "resources" / f"{_index()[resource_type]}.json").read_text()))


def create_only(resource_type: str) -> tuple[tuple[str, ...], ...]:
    """Create-only property paths of ``resource_type`` as tuples, e.g. ``("Budget", "BudgetName")``; custom
    resources (``Custom::*``) have none CloudFormation knows of."""
    if resource_type.startswith("Custom::") or resource_type == "AWS::CloudFormation::CustomResource":
        return ()
    paths = schema(resource_type).get("createOnlyProperties", [])
    return tuple(tuple(p.removeprefix("/properties/").split("/")) for p in paths)


def property_at(properties: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at ``path`` in a resource's ``Properties`` (None when absent; ``*`` paths are not used by
    the schemas the library's types have)."""
    value: Any = properties
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def name_properties(resource_type: str) -> tuple[tuple[str, ...], ...]:
    """The create-only properties that name the resource (``...Name``, or ``Name``): set in a template, they
    make it a custom-named resource CloudFormation cannot replace under the same name."""
    return tuple(p for p in create_only(resource_type) if p[-1].endswith("Name"))
