"""Compliance gates: the cdk-nag packs and the AWS Control Tower proactive controls every synth runs, and the one
way to acknowledge a finding."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from aws_cdk import Acknowledgment, IPolicyValidationPlugin, Validations
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks
from cdklabs.cdk_validator_cfnguard import CfnGuardValidator
from constructs import IConstruct

#: The cdk-nag packs registered by :func:`add_compliance_gates`.
NAG_PACKS = ("AwsSolutions", "NIST.800.53.R5", "HIPAA.Security")
#: Name of the Control Tower plugin in ``validation-report.json``; its acknowledgment ids are
#: ``cdk-validator-cfnguard::<rule name>`` (e.g. ``cdk-validator-cfnguard::lambda_inside_vpc_check``).
GUARD_PLUGIN = "cdk-validator-cfnguard"
#: Room for cfn-guard's JSON report (the plugin's default, 1 MiB, is exceeded by a few hundred findings and then
#: fails the synth with ENOBUFS instead of listing them).
GUARD_MAX_OUTPUT_BYTES = 64 * 1024 * 1024

#: Control Tower proactive controls switched off for every template, by the rule file name the plugin reads
#: (control id ``CT.S3.PR.9`` is file ``ct-s3-pr-9``), with the reason. A control is listed here only when it
#: does not fit any bucket or resource this platform makes; a finding on one resource is acknowledged on that
#: resource instead (:func:`acknowledge`), so the control still checks everything else.
GUARD_DISABLED_RULES: dict[str, str] = {
    # CT.S3.PR.9: S3 Object Lock. The platform's buckets hold async inference results and access logs that
    # lifecycle rules expire; Object Lock (WORM retention) would forbid those deletes, and it cannot be turned
    # off once on. Results are reproducible by re-invoking the endpoint; nothing here is a record to retain.
    "ct-s3-pr-9": "object lock: results and access logs are expired by lifecycle rules, not retained records",
    # CT.S3.PR.4 (S3 event notifications): SageMaker
    # async inference itself notifies completion through its own SNS success/error topics, configured on the
    # endpoint; bucket notifications would duplicate them and need a consumer the platform does not have.
    "ct-s3-pr-4": "event notifications: async inference reports completion through its own notification config",
}


def add_compliance_gates(scope: IConstruct) -> None:
    """Register the validation plugins on ``scope`` (normally the App): cdk-nag's AwsSolutions, NIST 800-53
    rev 5 and HIPAA Security packs, and the AWS Control Tower proactive controls (cfn-guard rules bundled by
    ``cdk-validator-cfnguard``, run by its bundled cfn-guard binary; no network) less
    :data:`GUARD_DISABLED_RULES`. Any unacknowledged finding fails ``app.synth()`` / ``cdk synth`` and is
    listed in ``cdk.out/validation-report.json``."""
    # The plugin implements the structurally identical IPolicyValidationPluginBeta1 interface, which the jsii
    # kernel accepts here; only the static types differ.
    guard = cast(
        IPolicyValidationPlugin,
        CfnGuardValidator(disabled_rules=sorted(GUARD_DISABLED_RULES), max_buffer=GUARD_MAX_OUTPUT_BYTES),
    )
    Validations.of(scope).add_plugins(
        AwsSolutionsChecks(scope), NIST80053R5Checks(scope), HIPAASecurityChecks(scope), guard
    )


def acknowledge(construct: IConstruct, rule_id: str, reason: str) -> None:
    """Acknowledge one granular finding on ``construct`` (and its children): a cdk-nag rule
    (``AwsSolutions-IAM5[Resource::*]``) or a Control Tower control (``cdk-validator-cfnguard::<rule name>``).

    ``reason`` must say why this resource is safe; an empty or generic reason is refused.
    """
    acknowledge_all(construct, [(rule_id, reason)])


def acknowledge_all(construct: IConstruct, findings: Iterable[tuple[str, str]]) -> None:
    """Acknowledge several ``(rule id, reason)`` findings on ``construct`` (and its children) at once.

    Same as :func:`acknowledge` for each finding, in one round trip to the jsii kernel instead of one per
    finding (a synth acknowledges hundreds). Every reason is checked before anything is acknowledged.
    """
    acks = []
    for rule_id, reason in findings:
        if len(reason.strip()) < 20:
            raise ValueError(f"acknowledgment of {rule_id} needs a specific reason, got {reason!r}")
        acks.append(Acknowledgment(id=rule_id, reason=reason))
    if acks:
        Validations.of(construct).acknowledge(*acks)
