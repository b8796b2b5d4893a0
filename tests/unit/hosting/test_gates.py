"""Every scenario endpoint passes the gates: cdk-nag (AwsSolutions, NIST 800-53 R5, HIPAA), cfn-lint with no
errors or warnings, and byte-identical templates across synths."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import Stack

from inference_constructs.compliance import add_compliance_gates
from tests.unit.hosting.scenarios import build, new_app


def _synth(outdir: Path) -> tuple[str | None, dict[str, Any]]:
    app = new_app(str(outdir))
    add_compliance_gates(app)
    build(Stack(app, "Hosting"))
    try:
        app.synth()
        error = None
    except RuntimeError as exc:  # ValidationFailed: cdk-nag findings
        error = str(exc)
    return error, json.loads((outdir / "Hosting.template.json").read_text())


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> tuple[str | None, dict[str, Any], Path]:
    outdir = tmp_path_factory.mktemp("hosting")
    error, template = _synth(outdir)
    return error, template, outdir


def test_nag_packs_find_nothing_unacknowledged(synthesized: tuple[str | None, dict[str, Any], Path]) -> None:
    # GIVEN every scenario endpoint under the three nag packs WHEN synthesized THEN no violation remains
    error, _, outdir = synthesized
    report = (
        json.loads((outdir / "validation-report.json").read_text())
        if (outdir / "validation-report.json").exists()
        else {}
    )
    found = [
        f"{p['pluginName']}: {v['ruleName']} at {c.get('constructPath')}"
        for p in report.get("pluginReports", [])
        for v in p.get("violations", [])
        for c in v.get("violatingConstructs", [])
    ]
    assert (error, found) == (None, [])


def test_cfn_lint_has_no_errors_or_warnings(synthesized: tuple[str | None, dict[str, Any], Path]) -> None:
    # GIVEN the template WHEN linted for the regions the gates use THEN nothing is reported
    from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

    _, template, _ = synthesized
    matches = lint(json.dumps(template), config=ManualArgs(regions=["us-east-1", "us-west-2"]))
    assert [f"{m.rule.id} {m.path}: {m.message}" for m in matches if m.rule.id[0] in "EW"] == []


def test_synth_is_deterministic(synthesized: tuple[str | None, dict[str, Any], Path], tmp_path: Path) -> None:
    # GIVEN the same scenarios WHEN synthesized again THEN the template is byte-identical
    _, _, outdir = synthesized
    _synth(tmp_path)
    assert (tmp_path / "Hosting.template.json").read_bytes() == (outdir / "Hosting.template.json").read_bytes()


def test_resources_per_endpoint_stay_small(synthesized: tuple[str | None, dict[str, Any], Path]) -> None:
    # GIVEN 8 endpoints (1 async, 1 without rollback alarms) WHEN counted
    _, template, _ = synthesized
    counts = Counter(r["Type"] for r in template["Resources"].values())
    # THEN each endpoint is role + policy + model + config + endpoint + 2 alarms, async adds 2 topics + 1 policy,
    # and the stack shares 2 buckets with their policies
    assert counts["AWS::SageMaker::Endpoint"] == 8
    assert counts["AWS::CloudWatch::Alarm"] == 14
    assert (counts["AWS::SNS::Topic"], counts["AWS::SNS::TopicPolicy"]) == (2, 1)
    assert (counts["AWS::S3::Bucket"], counts["AWS::S3::BucketPolicy"]) == (2, 2)
    assert sum(counts.values()) == 8 * 5 + 14 + 3 + 4
