"""The custom resources' handler functions and the tag activation schedule are written as L1 resources; these tests
hold them to what aws-cdk-lib's ``lambda.Function`` and ``events.Rule`` with a ``LambdaFunction`` target write for
the same inputs: the same logical ids, properties and assets, so the library's templates do not depend on which
one renders them."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Duration, RemovalPolicy, Stack, Tags
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import custom_resources as cr
from aws_cdk.assertions import Template

from inference_constructs._assets import lambda_asset_path
from inference_constructs._handler import HandlerFunction
from inference_constructs.cost.tag_activation import CostAllocationTagActivation

_ENV = {"account": "111122223333", "region": "eu-west-1"}


def _identity(stack: Stack) -> tuple[iam.Role, logs.LogGroup]:
    role = iam.Role(stack, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    return role, logs.LogGroup(stack, "Logs")


def _template(stack: Stack) -> dict[str, Any]:
    return dict(Template.from_stack(stack).to_json())


def _function(stack: Stack, render: str, asset: str, entry: str = "handler") -> lambda_.IFunction:
    """Function ``Fn`` running ``<asset>.<entry>`` with a new role and log group, written by the library
    (``render="ours"``) or by aws-cdk's ``lambda.Function`` without its ``DependsOn`` on the role (``"theirs"``)."""
    role, log_group = _identity(stack)
    common: dict[str, Any] = {"timeout": Duration.minutes(2), "role": role, "log_group": log_group, "description": "d"}
    if render == "ours":
        return HandlerFunction(stack, "Fn", asset=asset, entry=entry, **common)
    function = lambda_.Function(
        stack,
        "Fn",
        runtime=lambda_.Runtime.PYTHON_3_14,
        handler=f"{asset}.{entry}",
        code=lambda_.Code.from_asset(lambda_asset_path(asset), exclude=["__pycache__", "*.pyc"]),
        memory_size=128,
        **common,
    )
    function.node.default_child.add_deletion_override("DependsOn")  # type: ignore[union-attr]
    return function


@pytest.mark.parametrize(("asset", "entry"), [("cost_allocation_tags", "handler"), ("hub_model_staging", "on_event")])
def test_handler_function_renders_as_lambda_function_does(asset: str, entry: str) -> None:
    ours, theirs = Stack(App(), "S", env=_ENV), Stack(App(), "S", env=_ENV)
    _function(ours, "ours", asset, entry)
    _function(theirs, "theirs", asset, entry)
    assert _template(ours) == _template(theirs)


def test_handler_function_carries_the_asset_metadata_when_the_app_asks_for_it() -> None:
    stack = Stack(App(context={"aws:cdk:enable-asset-metadata": True}), "S", env=_ENV)
    fn = _function(stack, "ours", "cost_allocation_tags")
    assert isinstance(fn, HandlerFunction)
    metadata = _template(stack)["Resources"][stack.get_logical_id(fn.resource)]["Metadata"]
    assert metadata["aws:asset:property"] == "Code"
    assert metadata["aws:asset:path"].startswith("asset.")


@pytest.mark.parametrize("env", [_ENV, None], ids=["account-bound", "environment-agnostic"])
def test_handler_function_grants_invoke_and_adds_permissions_as_lambda_function_does(env: Any) -> None:
    def build(render: str) -> dict[str, Any]:
        stack = Stack(App(), "S", env=env)
        fn = _function(stack, render, "cost_allocation_tags")
        fn.grant_invoke(iam.Role(stack, "Caller", assumed_by=iam.AccountRootPrincipal()))
        fn.add_permission("FromEvents", principal=iam.ServicePrincipal("events.amazonaws.com"))
        return _template(stack)

    assert build("ours") == build("theirs")


@pytest.mark.parametrize("keys", [["team"], ["team", "cost-center", "équipe"]])
@pytest.mark.parametrize("hours", [1, 6, 48])
def test_tag_activation_schedule_renders_as_an_events_rule_with_a_lambda_target(keys: list[str], hours: int) -> None:
    stack = Stack(App(), "S", env=_ENV)
    activation = CostAllocationTagActivation(stack, "Tags", tag_keys=keys, retry_interval=Duration.hours(hours))
    ours = _template(stack)["Resources"]
    rule_id = stack.get_logical_id(activation.schedule.node.default_child)  # type: ignore[arg-type]

    reference = Stack(App(), "S", env=_ENV)
    holder = CostAllocationTagActivation(reference, "Tags", tag_keys=keys, retry_interval=Duration.hours(hours))
    rule = events.Rule(
        holder,
        "ReferenceSchedule",
        description="Retries cost allocation tag activation until every key is active",
        schedule=events.Schedule.rate(Duration.hours(hours)),
        targets=[
            targets.LambdaFunction(
                holder.function,
                event=events.RuleTargetInput.from_object({"TagKeys": keys}),
                retry_attempts=2,
            )
        ],
    )
    theirs = _template(reference)["Resources"]
    assert ours[rule_id]["Properties"] == theirs[reference.get_logical_id(rule.node.default_child)]["Properties"]  # type: ignore[arg-type]
    [permission] = [r for lid, r in ours.items() if r["Type"] == "AWS::Lambda::Permission"]
    reference_permissions = [
        r for lid, r in theirs.items() if r["Type"] == "AWS::Lambda::Permission" and "ReferenceSchedule" in lid
    ]
    assert len(reference_permissions) == 1
    expected = reference_permissions[0]["Properties"]
    expected["SourceArn"] = {"Fn::GetAtt": [rule_id, "Arn"]}
    assert permission["Properties"] == expected


def test_what_a_user_does_through_the_schedule_and_function_reaches_their_resources() -> None:
    stack = Stack(App(), "S", env=_ENV)
    activation = CostAllocationTagActivation(stack, "Tags", tag_keys=["team"])
    rule, function = activation.schedule.node.default_child, activation.function.node.default_child
    assert isinstance(rule, events.CfnRule) and isinstance(function, lambda_.CfnFunction)
    rule_id, function_id = stack.get_logical_id(rule), stack.get_logical_id(function)
    Tags.of(activation.schedule).add("owner", "platform")
    activation.schedule.apply_removal_policy(RemovalPolicy.RETAIN)
    bucket = s3.CfnBucket(stack, "Bucket")
    bucket.node.add_dependency(activation.schedule)
    assert stack.resolve(activation.schedule.rule_name) == {"Ref": rule_id}
    assert stack.resolve(activation.schedule.rule_arn) == {"Fn::GetAtt": [rule_id, "Arn"]}
    assert stack.resolve(activation.function.function_arn) == {"Fn::GetAtt": [function_id, "Arn"]}
    resources = _template(stack)["Resources"]
    assert {"Key": "owner", "Value": "platform"} in resources[rule_id]["Properties"]["Tags"]
    assert resources[rule_id]["DeletionPolicy"] == "Retain"
    assert rule_id in resources[stack.get_logical_id(bucket)]["DependsOn"]
    assert sum(r["Type"] == "AWS::Lambda::Function" for r in resources.values()) == 1
    assert sum(r["Type"] == "AWS::Events::Rule" for r in resources.values()) == 1


@pytest.mark.parametrize("env", [_ENV, None], ids=["account-bound", "environment-agnostic"])
def test_provider_framework_invokes_a_handler_function_as_it_invokes_lambda_function(env: Any) -> None:
    def build(render: str) -> dict[str, Any]:
        stack = Stack(App(), "S", env=env)
        fn = _function(stack, render, "hub_model_staging", "on_event_handler")
        cr.Provider(stack, "Provider", on_event_handler=fn, is_complete_handler=fn, total_timeout=Duration.hours(1))
        return _template(stack)

    ours, theirs = build("ours"), build("theirs")
    assert ours == theirs
    assert not [r for r in ours["Resources"].values() if r["Type"] == "AWS::Lambda::Permission"]
