"""CloudFormation ``Rules`` that stop a region-agnostic stack's deploy, before any resource exists, in a region
that lacks what the stack needs (a serving image, a resource type): see :mod:`inference_constructs.regions`."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Aws, CfnRule, CfnRuleAssertion, Fn, Stack, Token

from inference_constructs.regions import RegionRequirement

__all__ = ["RULE_ID", "add_region_rules"]

RULE_ID = "InferenceRegions"
"""Logical id of the rule (one per stack)."""


def add_region_rules(stack: Stack, requirements: Sequence[RegionRequirement]) -> CfnRule | None:
    """Add one ``Rules`` entry to ``stack`` with an assertion per requirement, on ``AWS::Region``.

    An image requirement asserts ``Fn::Contains`` of the regions that publish it; a resource-type requirement
    asserts ``Fn::Not`` of ``Fn::Contains`` of the regions known to lack it. Nothing is added when the stack has a
    concrete region (the plan has already refused a region that lacks something) or needs nothing.

    Returns
    -------
    CfnRule or None
        The rule (logical id ``InferenceRegions``), or None when none was added.
    """
    if not requirements or not Token.is_unresolved(stack.region):
        return None
    assertions = []
    for req in requirements:
        if req.allowed:
            condition = Fn.condition_contains(list(req.allowed), Aws.REGION)
        else:
            condition = Fn.condition_not(Fn.condition_contains(list(req.excluded), Aws.REGION))
        assertions.append(CfnRuleAssertion(assert_=condition, assert_description=req.assert_description))
    return CfnRule(stack, RULE_ID, assertions=assertions)
