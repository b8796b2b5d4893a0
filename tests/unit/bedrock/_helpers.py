"""Test helpers: synthesize a small stack and render ARN joins as readable strings."""

from __future__ import annotations

from typing import Any

from aws_cdk import App, Stack
from aws_cdk.assertions import Template


def render(value: Any) -> Any:
    """Turn ``Fn::Join``/``Ref``/``Fn::GetAtt`` into ``${...}`` strings, recursively."""
    if isinstance(value, dict):
        if set(value) == {"Fn::Join"}:
            sep, parts = value["Fn::Join"]
            return sep.join(str(render(p)) for p in parts)
        if set(value) == {"Ref"}:
            return "${" + value["Ref"] + "}"
        if set(value) == {"Fn::GetAtt"}:
            return "${" + ".".join(value["Fn::GetAtt"]) + "}"
        return {k: render(v) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v) for v in value]
    return value


def new_stack() -> Stack:
    return Stack(App(), "TestStack")


def resources(stack: Stack, type_name: str) -> dict[str, Any]:
    return render(Template.from_stack(stack).find_resources(type_name))  # type: ignore[no-any-return]


def statements(stack: Stack) -> list[dict[str, Any]]:
    """Every statement of every IAM policy in the stack, rendered."""
    found: list[dict[str, Any]] = []
    for type_name in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
        for res in resources(stack, type_name).values():
            found += res["Properties"]["PolicyDocument"]["Statement"]
    return found
