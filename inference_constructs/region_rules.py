"""CloudFormation ``Rules`` that stop an environment-agnostic stack's deploy, before any resource exists, in a region
that lacks what the stack needs (a serving image, a resource type, the source Regions of a Bedrock system profile)
or in an account other than that of the roles it names: see :mod:`inference_constructs.regions`.

The constructs register what they need themselves (an endpoint its image, inference components and SageMaker
hosting; an application inference profile the source Regions of what it copies and the account of its
``invoke_role_arns``; a budget the account of its deny roles), so a stack built from Python carries the rules too;
the platform registers the plan's requirements first, so their descriptions name the config keys."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Aws, CfnRule, Fn, Stack, Token

from inference_constructs._arns import kept_on_stack
from inference_constructs.regions import AccountRequirement, RegionRequirement

__all__ = ["ACCOUNT_RULE_ID", "RULE_ID", "RegionRules", "add_region_rules"]

RULE_ID = "InferenceRegions"
"""Logical id of the region rule (one per stack)."""
ACCOUNT_RULE_ID = "InferenceAccount"
"""Logical id of the account rule (one per stack)."""

_ATTR = "_inference_constructs_region_rules"


class RegionRules:
    """The ``InferenceRegions`` and ``InferenceAccount`` rules of one stack: one assertion per requirement id.

    A region requirement is asserted on ``AWS::Region`` in ``InferenceRegions``: ``Fn::Contains`` of the regions
    that have it (an image's registries, a system profile's source Regions) or ``Fn::Not`` of ``Fn::Contains`` of
    the regions known to lack it (a resource type). An account requirement is asserted in ``InferenceAccount`` as
    ``Fn::Equals`` of ``AWS::AccountId`` and the roles' account. Nothing is added for the region of a stack with a
    concrete region, nor for the account of a stack with a concrete account (the plan, or the construct, has already
    refused what would not deploy there). Find it with :meth:`of`.
    """

    def __init__(self, stack: Stack) -> None:
        self._stack = stack
        self._active = Token.is_unresolved(stack.region)
        self._account_active = Token.is_unresolved(stack.account)
        self._ids: set[str] = set()
        self.rule: CfnRule | None = None
        """The region rule, once a requirement was added (logical id ``InferenceRegions``)."""
        self.account_rule: CfnRule | None = None
        """The account rule, once an account requirement was added (logical id ``InferenceAccount``)."""

    @staticmethod
    def of(stack: Stack) -> RegionRules:
        """The rules of ``stack``, kept per stack (``_arns.kept_on_stack``; created on first use)."""
        return kept_on_stack(stack, _ATTR, lambda: RegionRules(stack))

    def require(self, requirement: RegionRequirement | None) -> None:
        """Assert ``requirement`` (once per ``rule_id``; the first registration's description stays)."""
        if requirement is None or not self._active or requirement.rule_id in self._ids:
            return
        self._ids.add(requirement.rule_id)
        if requirement.allowed:
            condition = Fn.condition_contains(list(requirement.allowed), Aws.REGION)
        else:
            condition = Fn.condition_not(Fn.condition_contains(list(requirement.excluded), Aws.REGION))
        if self.rule is None:
            self.rule = CfnRule(self._stack, RULE_ID)
        self.rule.add_assertion(condition, requirement.assert_description)

    def require_account(self, requirement: AccountRequirement | None) -> None:
        """Assert that the deploy account is ``requirement.account`` (once per account; the first description
        stays)."""
        if requirement is None or not self._account_active or requirement.rule_id in self._ids:
            return
        self._ids.add(requirement.rule_id)
        if self.account_rule is None:
            self.account_rule = CfnRule(self._stack, ACCOUNT_RULE_ID)
        self.account_rule.add_assertion(
            Fn.condition_equals(Aws.ACCOUNT_ID, requirement.account), requirement.assert_description
        )


def add_region_rules(
    stack: Stack,
    requirements: Sequence[RegionRequirement],
    accounts: Sequence[AccountRequirement] = (),
) -> CfnRule | None:
    """Assert every requirement on ``stack`` (see :class:`RegionRules`); returns the region rule, or None when none
    exists (the account rule is :attr:`RegionRules.account_rule`)."""
    rules = RegionRules.of(stack)
    for requirement in requirements:
        rules.require(requirement)
    for account in accounts:
        rules.require_account(account)
    return rules.rule
