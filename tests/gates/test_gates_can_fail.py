"""The gates are real: a deliberately broken resource makes each of them fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk import App, Stack, aws_kms, aws_logs, aws_s3

from inference_constructs.compliance import GUARD_DISABLED_RULES, GUARD_PLUGIN, acknowledge, add_compliance_gates
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


def _guard_findings(tmp_path: Path) -> list[str]:
    return [
        f
        for f in violations(json.loads((tmp_path / "validation-report.json").read_text()))
        if f.startswith(f"{GUARD_PLUGIN}:")
    ]


def test_control_tower_gate_fails_synth_on_a_key_and_a_log_group_without_kms(tmp_path: Path) -> None:
    # GIVEN a KMS key without the CreateGrant deny statement and a log group without a KMS key
    app = App(outdir=str(tmp_path))
    stack = Stack(app, "Broken")
    aws_kms.Key(stack, "Key", enable_key_rotation=True)
    aws_logs.LogGroup(stack, "Logs", retention=aws_logs.RetentionDays.ONE_YEAR)
    add_compliance_gates(app)
    # WHEN synthesized THEN synth fails and the Control Tower plugin names both (CT.KMS.PR.3, CT.CLOUDWATCH.PR.3)
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    found = _guard_findings(tmp_path)
    assert f"{GUARD_PLUGIN}: kms_create_grant_aws_service_check at Broken/Key/Resource" in found
    assert f"{GUARD_PLUGIN}: cloudwatch_log_group_encrypted_check at Broken/Logs/Resource" in found


def test_control_tower_gate_passes_the_librarys_own_key(tmp_path: Path) -> None:
    # GIVEN the library's log key (deny-grants statement, service access scoped to this account) WHEN synthesized
    from inference_constructs._kms import log_group_key

    app = App(outdir=str(tmp_path))
    log_group_key(Stack(app, "Fixed"), "Key", description="a key made the library's way")
    add_compliance_gates(app)
    app.synth()
    # THEN no control reports it
    assert not (tmp_path / "validation-report.json").exists() or _guard_findings(tmp_path) == []


def test_control_tower_disabled_controls_are_only_the_documented_ones(tmp_path: Path) -> None:
    # GIVEN a bucket that breaks the two disabled controls (object lock, event notifications) and CT.S3.PR.2 (logging)
    app = App(outdir=str(tmp_path))
    aws_s3.Bucket(Stack(app, "Broken"), "Bucket", enforce_ssl=True)
    add_compliance_gates(app)
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    rules = {f.split(": ")[1].split(" at ")[0] for f in _guard_findings(tmp_path)}
    # THEN the disabled controls stay silent and an enabled one still fails the synth
    assert "s3_bucket_logging_enabled_check" in rules
    assert not rules & {"s3_bucket_object_lock_enabled_check", "s3_event_notifications_enabled_check"}
    assert sorted(GUARD_DISABLED_RULES) == ["ct-s3-pr-4", "ct-s3-pr-9"]
