"""Test helper: build endpoints in a bare app (no cdk.json feature flags), synthesize with the three nag packs,
and lint the template with cfn-lint for the regions the gates use."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aws_cdk import App, Stack
from aws_cdk.assertions import Template
from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

from inference_constructs.compliance import add_compliance_gates

REGIONS = ["us-east-1", "us-west-2"]


def lint_findings(template: dict[str, Any]) -> list[str]:
    """Every cfn-lint error and warning of ``template`` as ``<rule> <path>: <message>``."""
    matches = lint(json.dumps(template), config=ManualArgs(regions=REGIONS))
    return [f"{m.rule.id} {m.path}: {m.message}" for m in matches if m.rule.id[0] in "EW"]


def synth_checked(build: Callable[[Stack], object]) -> tuple[Template, dict[str, Any]]:
    """Build a stack with ``build`` in a bare app, synthesize it with the nag packs as validation plugins (a finding
    fails the synth), assert cfn-lint reports no error or warning, and return the template (and its JSON)."""
    app = App()
    add_compliance_gates(app)
    stack = Stack(app, "Test")
    build(stack)
    template: dict[str, Any] = app.synth().get_stack_by_name("Test").template
    findings = lint_findings(template)
    assert findings == [], findings
    return Template.from_json(template), template


def logical_ids(template: dict[str, Any], type_: str) -> list[str]:
    """Logical ids of the resources of ``type_``, in template order."""
    return [k for k, r in template["Resources"].items() if r["Type"] == type_]
