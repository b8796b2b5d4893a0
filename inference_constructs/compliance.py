"""Compliance gates: the cdk-nag packs every synth runs, and the one way to acknowledge a finding."""

from __future__ import annotations

from collections.abc import Iterable

from aws_cdk import Acknowledgment, Validations
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks
from constructs import IConstruct

#: The packs registered by :func:`add_compliance_gates`.
NAG_PACKS = ("AwsSolutions", "NIST.800.53.R5", "HIPAA.Security")


def add_compliance_gates(scope: IConstruct) -> None:
    """Register the AwsSolutions, NIST 800-53 rev 5 and HIPAA Security packs as validation plugins
    on ``scope`` (normally the App): any unacknowledged finding fails ``app.synth()`` / ``cdk synth``
    and is listed in ``cdk.out/policy-validation-report.json``."""
    Validations.of(scope).add_plugins(AwsSolutionsChecks(scope), NIST80053R5Checks(scope), HIPAASecurityChecks(scope))


def acknowledge(construct: IConstruct, rule_id: str, reason: str) -> None:
    """Acknowledge one granular cdk-nag finding on ``construct`` (and its children).

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
