"""A small evaluator of CloudFormation template ``Rules``, to test what a synthesized template lets a deploy into.

What it evaluates (CloudFormation user guide, "Rules" section and "Rule functions"): each rule's optional
``RuleCondition`` and each of its ``Assertions``; a deploy is refused by every assertion whose ``Assert`` is false in
a rule whose condition is true (or absent). Rule functions: ``Fn::And``, ``Fn::Or`` (2-10 conditions), ``Fn::Not``
(one), ``Fn::Equals`` (two values), ``Fn::Contains`` (a list and a value); values: strings, lists of strings and
``Ref`` of the pseudo parameters given (``AWS::Region``, ``AWS::AccountId``). Anything else raises, so a rule this
helper cannot read fails the test rather than passing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

BOOTSTRAP_RULE = "CheckBootstrapVersion"
"""The CDK synthesizer's own rule on the bootstrap stack's version (an SSM parameter value): not evaluated here."""


def _value(node: Any, params: Mapping[str, str]) -> Any:
    if isinstance(node, str):
        return node
    if isinstance(node, list):
        return [_value(v, params) for v in node]
    if isinstance(node, dict) and set(node) == {"Ref"}:
        return params[node["Ref"]]
    raise NotImplementedError(f"rule value {node!r} is not evaluated by this helper")


def holds(condition: Any, params: Mapping[str, str]) -> bool:
    """The truth of one rule condition for the pseudo parameters ``params``."""
    if not isinstance(condition, dict) or len(condition) != 1:
        raise NotImplementedError(f"rule condition {condition!r} is not evaluated by this helper")
    ((function, args),) = condition.items()
    if function == "Fn::And":
        assert 2 <= len(args) <= 10
        return all(holds(a, params) for a in args)
    if function == "Fn::Or":
        assert 2 <= len(args) <= 10
        return any(holds(a, params) for a in args)
    if function == "Fn::Not":
        (inner,) = args
        return not holds(inner, params)
    if function == "Fn::Equals":
        left, right = args
        return bool(_value(left, params) == _value(right, params))
    if function == "Fn::Contains":
        values, value = args
        listed = _value(values, params)
        assert isinstance(listed, list)
        return _value(value, params) in listed
    raise NotImplementedError(f"rule function {function} is not evaluated by this helper")


def refusals(template: Mapping[str, Any], *, region: str, account: str) -> list[str]:
    """The ``AssertDescription`` of every assertion that refuses a deploy of ``template`` to ``region`` in
    ``account`` (empty: CloudFormation would go on to create resources)."""
    params = {"AWS::Region": region, "AWS::AccountId": account, "AWS::Partition": "aws"}
    out: list[str] = []
    for name, rule in template.get("Rules", {}).items():
        if name == BOOTSTRAP_RULE:
            continue
        if "RuleCondition" in rule and not holds(rule["RuleCondition"], params):
            continue
        for assertion in rule["Assertions"]:
            if not holds(assertion["Assert"], params):
                out.append(assertion.get("AssertDescription", ""))
    return out
