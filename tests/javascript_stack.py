"""A stack made in JavaScript, as construct code sees one: each read of it is a new Python proxy of the same stack."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from aws_cdk import App, Stack
from aws_cdk import cloudformation_include as include


def javascript_stack(tmp_path: Path) -> Callable[[], Stack]:
    """A nested stack that ``CfnInclude`` loads (stack ``Parent``, construct ``Include``, nested stack ``Child``),
    and a reader that reads it from the ``CfnInclude`` on each call."""
    child = tmp_path / "child.json"
    child.write_text(json.dumps({"Resources": {"Q": {"Type": "AWS::SNS::Topic"}}}))
    parent = tmp_path / "parent.json"
    parent.write_text(
        json.dumps({"Resources": {"Child": {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": "x"}}}})
    )
    included = include.CfnInclude(
        Stack(App(), "Parent"),
        "Include",
        template_file=str(parent),
        load_nested_stacks={"Child": include.CfnIncludeProps(template_file=str(child))},
    )
    return lambda: included.get_nested_stack("Child").stack
