"""The aws-cdk forms of the network and identity props: ``vpc`` (ec2.IVpc), ``vpc_subnets``, ``security_groups``
and ``role`` (bring your own execution role) map to the template properties the id strings of the YAML map to."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Template

from inference_constructs import (
    InferenceConfigError,
    ModelSourceKind,
    ModelSpec,
    MultiModelEndpoint,
    RealtimeEndpoint,
    ServerlessEndpoint,
    VpcOptions,
)
from inference_constructs.hosting import ServerlessOptions

TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")


def _only(template: Mapping[str, Any], type_name: str) -> dict[str, Any]:
    (resource,) = [r for r in template["Resources"].values() if r["Type"] == type_name]
    return resource  # type: ignore[no-any-return]


def _ref(stack: Stack, construct: Any) -> dict[str, str]:
    return {"Ref": stack.get_logical_id(construct.node.default_child)}


def test_an_ec2_vpc_puts_the_model_in_its_private_subnets_behind_a_new_security_group() -> None:
    # GIVEN a VPC with public and private subnets
    stack = Stack(App(), "S")
    vpc = ec2.Vpc(
        stack,
        "Vpc",
        max_azs=2,
        nat_gateways=0,
        subnet_configuration=[
            ec2.SubnetConfiguration(name="Public", subnet_type=ec2.SubnetType.PUBLIC),
            ec2.SubnetConfiguration(name="Private", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
        ],
    )
    # WHEN an endpoint is given the VPC only
    endpoint = RealtimeEndpoint(stack, "Churn", model=TABULAR, serving="sklearn", vpc=vpc)
    template = Template.from_stack(stack).to_json()
    # THEN the Model's VpcConfig lists the private subnets and one new security group of that VPC
    config = _only(template, "AWS::SageMaker::Model")["Properties"]["VpcConfig"]
    private = [_ref(stack, s) for s in vpc.isolated_subnets]
    assert config["Subnets"] == private
    group = endpoint.node.find_child("SecurityGroup")
    assert config["SecurityGroupIds"] == [
        {"Fn::GetAtt": [stack.get_logical_id(group.node.default_child), "GroupId"]}  # type: ignore[arg-type]
    ]
    assert endpoint.connections.security_groups[0].node.path == group.node.path


def test_vpc_subnets_and_security_groups_are_used_as_given() -> None:
    # GIVEN a VPC, a subnet selection (its public subnets) and a security group of one's own
    stack = Stack(App(), "S")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=0)
    group = ec2.SecurityGroup(stack, "Mine", vpc=vpc)
    # WHEN a multi-model endpoint is given them
    MultiModelEndpoint(
        stack,
        "Tenants",
        model_data_prefix="s3://my-models/tenants/",
        vpc=vpc,
        vpc_subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PUBLIC),
        security_groups=[group],
    )
    template = Template.from_stack(stack).to_json()
    # THEN those subnets and that group, and no other security group is created
    config = _only(template, "AWS::SageMaker::Model")["Properties"]["VpcConfig"]
    assert config["Subnets"] == [_ref(stack, s) for s in vpc.public_subnets]
    assert config["SecurityGroupIds"] == [{"Fn::GetAtt": [stack.get_logical_id(group.node.default_child), "GroupId"]}]  # type: ignore[arg-type]
    assert len([r for r in template["Resources"].values() if r["Type"] == "AWS::EC2::SecurityGroup"]) == 1


def test_vpc_options_of_ids_still_work_as_in_the_config() -> None:
    # GIVEN subnet and security group ids WHEN given as VpcOptions THEN the Model carries them as they are
    stack = Stack(App(), "S")
    ids = VpcOptions(subnet_ids=("subnet-0123456789abcdef0",), security_group_ids=("sg-0123456789abcdef0",))
    RealtimeEndpoint(stack, "Churn", model=TABULAR, serving="sklearn", vpc=ids)
    config = _only(Template.from_stack(stack).to_json(), "AWS::SageMaker::Model")["Properties"]["VpcConfig"]
    assert config == {"Subnets": ["subnet-0123456789abcdef0"], "SecurityGroupIds": ["sg-0123456789abcdef0"]}


def test_fails_vpc_subnets_without_an_ec2_vpc() -> None:
    # GIVEN a subnet selection but VpcOptions (or no vpc) WHEN the endpoint is built THEN one error says what to pass
    stack = Stack(App(), "S")
    with pytest.raises(InferenceConfigError, match=re.escape("vpc_subnets and security_groups need vpc=<ec2.IVpc>")):
        RealtimeEndpoint(
            stack,
            "Churn",
            model=TABULAR,
            serving="sklearn",
            vpc_subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PUBLIC),
        )


def test_an_own_role_is_used_and_gets_the_execution_policy() -> None:
    # GIVEN an execution role created in the app
    stack = Stack(App(), "S")
    role = iam.Role(stack, "Mine", assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"))
    # WHEN a serverless endpoint is given it
    endpoint = ServerlessEndpoint(stack, "Churn", model=TABULAR, role=role)
    template = Template.from_stack(stack).to_json()
    # THEN no role is created, the Model runs as that role, and the execution policy is attached to it
    assert endpoint.node.try_find_child("ExecutionRole") is None
    assert len([r for r in template["Resources"].values() if r["Type"] == "AWS::IAM::Role"]) == 1
    role_arn = {"Fn::GetAtt": [stack.get_logical_id(role.node.default_child), "Arn"]}  # type: ignore[arg-type]
    assert _only(template, "AWS::SageMaker::Model")["Properties"]["ExecutionRoleArn"] == role_arn
    policy = _only(template, "AWS::IAM::ManagedPolicy")
    assert policy["Properties"]["Roles"] == [_ref(stack, role)]


def test_an_imported_role_is_used_and_left_unchanged() -> None:
    # GIVEN a role imported by ARN (owned by another team)
    stack = Stack(App(), "S")
    arn = "arn:aws:iam::111122223333:role/sagemaker-execution"
    role = iam.Role.from_role_arn(stack, "Theirs", arn)
    # WHEN an endpoint is given it
    endpoint = ServerlessEndpoint(stack, "Churn", model=TABULAR, role=role)
    template = Template.from_stack(stack).to_json()
    # THEN the Model runs as that role, no role is created, and the execution policy is created but not attached
    assert _only(template, "AWS::SageMaker::Model")["Properties"]["ExecutionRoleArn"] == arn
    assert not [r for r in template["Resources"].values() if r["Type"] in ("AWS::IAM::Role", "AWS::IAM::Policy")]
    assert "Roles" not in _only(template, "AWS::IAM::ManagedPolicy")["Properties"]
    assert endpoint.policy.document.statement_count > 0


@pytest.mark.parametrize(
    ("keywords", "expected"),
    [
        ({}, ServerlessOptions()),
        (
            {"memory_size_in_mb": 3072, "max_concurrency": 5, "provisioned_concurrency": 2},
            ServerlessOptions(memory_mb=3072, max_concurrency=5, provisioned_concurrency=2),
        ),
        ({"max_concurrency": 50}, ServerlessOptions(max_concurrency=50)),
    ],
    ids=["defaults", "all-given", "one-given"],
)
def test_a_serverless_endpoint_takes_serverless_options_defaults(keywords: Any, expected: ServerlessOptions) -> None:
    # GIVEN a serverless endpoint built with some, all or none of its serverless keywords
    stack = Stack(App(), "S")
    endpoint = ServerlessEndpoint(stack, "Churn", model=TABULAR, **keywords)
    # WHEN its request and its endpoint config are read
    config = _only(Template.from_stack(stack).to_json(), "AWS::SageMaker::EndpointConfig")
    (variant,) = config["Properties"]["ProductionVariants"]
    # THEN what was not given is ServerlessOptions' own default, and the config says so
    plan = endpoint.plan.serverless
    assert plan is not None
    assert (plan.max_concurrency, plan.provisioned_concurrency) == (
        expected.max_concurrency,
        expected.provisioned_concurrency,
    )
    assert expected.memory_mb in (None, plan.memory_mb)
    assert variant["ServerlessConfig"]["MaxConcurrency"] == expected.max_concurrency
    assert variant["ServerlessConfig"].get("ProvisionedConcurrency", 0) == expected.provisioned_concurrency
