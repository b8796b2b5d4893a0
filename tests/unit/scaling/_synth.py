"""Test helper: synthesize a stack with the three cdk-nag packs on, and lint its template with cfn-lint."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aws_cdk import App, Stack
from aws_cdk.assertions import Template
from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

from inference_constructs.compliance import add_compliance_gates


def synth_checked(build: Callable[[Stack], object]) -> Template:
    """Build a stack with ``build``, synthesize it with the nag packs as validation plugins (a finding
    fails the synth), assert cfn-lint reports nothing, and return the template."""
    app = App()
    add_compliance_gates(app)
    stack = Stack(app, "Test")
    build(stack)
    template: dict[str, Any] = app.synth().get_stack_by_name("Test").template
    findings = lint(json.dumps(template), config=ManualArgs(regions=["us-east-1"]))
    assert [str(f) for f in findings] == [], [str(f) for f in findings]
    return Template.from_json(template)
