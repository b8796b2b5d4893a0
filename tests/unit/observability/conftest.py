"""Fixtures for the observability tests: a region-agnostic stack, and a synth that runs the three nag packs."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("CDK_DISABLE_CLI_TELEMETRY", "true")

from aws_cdk import App, Stack, Validations
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks

Synth = Callable[[App, Stack], dict[str, Any]]


@pytest.fixture
def app() -> App:
    return App()


@pytest.fixture
def stack(app: App) -> Stack:
    return Stack(app, "Observability")


@pytest.fixture
def synth() -> Synth:
    """Synthesize ``stack`` with AwsSolutions, NIST 800-53 R5 and HIPAA as validation plugins; return its template.

    A nag finding makes ``app.synth()`` raise, so a returned template has passed all three packs.
    """

    def _synth(app: App, stack: Stack) -> dict[str, Any]:
        Validations.of(app).add_plugins(AwsSolutionsChecks(app), NIST80053R5Checks(app), HIPAASecurityChecks(app))
        assembly = app.synth()
        template: dict[str, Any] = assembly.get_stack_artifact(stack.artifact_id).template
        return template

    return _synth


def cfn_lint(template: dict[str, Any]) -> list[str]:
    """cfn-lint errors and warnings (informational matches ignored) for a template, in us-east-1 and eu-west-1."""
    from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

    matches = lint(json.dumps(template), config=ManualArgs(regions=["us-east-1", "eu-west-1"]))
    return [str(m) for m in matches if m.rule.id[0] in ("E", "W")]


def dashboard_body(template: dict[str, Any]) -> dict[str, Any]:
    """The parsed body of the template's only dashboard, tokens replaced by placeholders."""
    from inference_constructs.observability.validate import resolve_to_string

    bodies = [
        r["Properties"]["DashboardBody"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::CloudWatch::Dashboard"
    ]
    assert len(bodies) == 1
    parsed: dict[str, Any] = json.loads(resolve_to_string(bodies[0]))
    return parsed
