"""CloudFormation ``Rules`` that stop a region-agnostic stack's deploy, before any resource exists, in a region
that lacks what the stack needs (a serving image, a resource type): see :mod:`inference_constructs.regions`.

The endpoint constructs register what they need themselves (their image, inference components, SageMaker
hosting), so a stack built from Python carries the rule too; the platform registers the plan's requirements first,
so their descriptions name the config keys."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Aws, CfnRule, Fn, Stack, Token

from inference_constructs.regions import RegionRequirement

__all__ = ["RULE_ID", "RegionRules", "add_region_rules"]

RULE_ID = "InferenceRegions"
"""Logical id of the rule (one per stack)."""

_ATTR = "_inference_constructs_region_rules"


class RegionRules:
    """The ``InferenceRegions`` rule of one stack: one assertion per requirement id, on ``AWS::Region``.

    An image requirement asserts ``Fn::Contains`` of the regions that publish it; a resource-type requirement
    asserts ``Fn::Not`` of ``Fn::Contains`` of the regions known to lack it. Nothing is added to a stack with a
    concrete region (the plan has already refused a region that lacks something). Find it with :meth:`of`.
    """

    def __init__(self, stack: Stack) -> None:
        self._stack = stack
        self._active = Token.is_unresolved(stack.region)
        self._ids: set[str] = set()
        self.rule: CfnRule | None = None
        """The rule, once a requirement was added (logical id ``InferenceRegions``)."""

    @staticmethod
    def of(stack: Stack) -> RegionRules:
        """The rules of ``stack``, kept on the stack object (created on first use)."""
        found = getattr(stack, _ATTR, None)
        if not isinstance(found, RegionRules):
            found = RegionRules(stack)
            setattr(stack, _ATTR, found)
        return found

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


def add_region_rules(stack: Stack, requirements: Sequence[RegionRequirement]) -> CfnRule | None:
    """Assert every requirement on ``stack`` (see :class:`RegionRules`); returns the rule, or None when none exists."""
    rules = RegionRules.of(stack)
    for requirement in requirements:
        rules.require(requirement)
    return rules.rule
