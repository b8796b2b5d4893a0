"""The gates are real: a deliberately broken resource makes each of them fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk import App, Stack, aws_s3

from inference_constructs.compliance import acknowledge, add_compliance_gates
from tests.gates.synth import lint, violations


def test_nag_gate_fails_synth_on_an_unencrypted_bucket(tmp_path: Path) -> None:
    # GIVEN a stack with a bare bucket (no encryption, logging, SSL-only, versioning)
    app = App(outdir=str(tmp_path))
    aws_s3.CfnBucket(Stack(app, "Broken"), "Bucket")
    add_compliance_gates(app)
    # WHEN synthesized THEN synth fails and the report names the bucket under each pack
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    found = violations(json.loads((tmp_path / "validation-report.json").read_text()))
    assert "AwsSolutions: AwsSolutions-S1 at Broken/Bucket" in found
    assert any(f.startswith("NIST.800.53.R5: NIST.800.53.R5-S3BucketLoggingEnabled") for f in found)
    assert any(f.startswith("HIPAA.Security: HIPAA.Security-S3DefaultEncryptionKMS") for f in found)


def test_acknowledgment_without_a_specific_reason_is_refused(tmp_path: Path) -> None:
    app = App(outdir=str(tmp_path))
    bucket = aws_s3.CfnBucket(Stack(app, "Broken"), "Bucket")
    with pytest.raises(ValueError, match="needs a specific reason"):
        acknowledge(bucket, "AwsSolutions::AwsSolutions-S1", "fine")


def test_lint_gate_reports_an_invalid_property() -> None:
    # GIVEN a template whose endpoint config has a property CloudFormation does not know
    template = {
        "Resources": {
            "Config": {
                "Type": "AWS::SageMaker::EndpointConfig",
                "Properties": {
                    "ProductionVariants": [
                        {
                            "ModelName": "m",
                            "VariantName": "v",
                            "InitialInstanceCount": 1,
                            "InstanceType": "ml.g5.xlarge",
                        }
                    ],
                    "NotAProperty": True,
                },
            }
        }
    }
    # THEN cfn-lint reports it as an error
    assert any(p.startswith("E3002") for p in lint(template))


def test_lint_gate_reports_an_unknown_instance_type() -> None:
    variant = {"ModelName": "m", "VariantName": "v", "InitialInstanceCount": 1, "InstanceType": "ml.g99.huge"}
    template = {
        "Resources": {
            "Config": {"Type": "AWS::SageMaker::EndpointConfig", "Properties": {"ProductionVariants": [variant]}}
        }
    }
    assert any(p.startswith("E3030") for p in lint(template))


def test_required_cost_tags_gate_annotates_an_untagged_resource(tmp_path: Path) -> None:
    # GIVEN the read-only aspect requiring cost-center, and a taggable resource without it
    from aws_cdk import AspectPriority, Aspects

    from inference_constructs.cost import RequireCostTags
    from tests.gates.synth import Assembly

    app = App(outdir=str(tmp_path))
    aws_s3.Bucket(Stack(app, "Untagged"), "Bucket")
    Aspects.of(app).add(RequireCostTags(["cost-center"]), priority=AspectPriority.READONLY)
    # WHEN synthesized THEN the bucket carries an error annotation naming the missing key
    app.synth()
    errors = Assembly(outdir=tmp_path).error_annotations
    assert any("Bucket" in e and "cost-center" in e for e in errors), errors
