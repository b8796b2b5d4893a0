"""The aws-cdk forms of an endpoint's network and identity props: ``vpc`` (``ec2.IVpc``), ``vpc_subnets``
(``ec2.SubnetSelection``), ``security_groups`` (``ec2.ISecurityGroup``) and ``role`` (``iam.IRole``).

The config file gives subnet and security group ids (:class:`~inference_constructs.hosting.request.VpcOptions`);
Python callers give the aws-cdk objects, which this module turns into the same ids before the plan is made, so
the plan and its checks (at most 16 subnets and 5 security groups) see one shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.request import VpcOptions

__all__ = ["VpcLike", "owned_role", "resolve_vpc"]

#: What a ``vpc`` prop may be: the config layer's ids, or an aws-cdk VPC.
VpcLike = VpcOptions | ec2.IVpc


def resolve_vpc(
    owner: Construct,
    vpc: VpcLike | None,
    vpc_subnets: ec2.SubnetSelection | None,
    security_groups: Sequence[ec2.ISecurityGroup] | None,
    *,
    path: str,
) -> tuple[VpcOptions | None, list[ec2.ISecurityGroup]]:
    """The subnet and security group ids of the endpoint's network interfaces, and its security groups.

    With an ``ec2.IVpc``: the subnets ``vpc_subnets`` selects (default: the VPC's private subnets, as aws-cdk
    selects them), and ``security_groups`` (default: one new group ``SecurityGroup`` under ``owner`` in that VPC,
    no inbound rule, all outbound: the container reaches S3, ECR and CloudWatch through the VPC's endpoints or
    NAT). With ``VpcOptions``: its ids, and no security group object.

    Raises
    ------
    InferenceConfigError
        ``vpc_subnets`` or ``security_groups`` without an ``ec2.IVpc``.
    """
    prefix = f"{path}." if path else ""
    if vpc is None or isinstance(vpc, VpcOptions):
        if vpc_subnets is not None or security_groups is not None:
            raise InferenceConfigError(
                f"{prefix}vpc_subnets: vpc_subnets and security_groups need vpc=<ec2.IVpc>; "
                "pass the VPC, or give VpcOptions(subnet_ids=..., security_group_ids=...) alone"
            )
        return vpc, []
    if not hasattr(vpc, "select_subnets"):
        raise InferenceConfigError(f"{prefix}vpc: {vpc!r} is not an ec2.IVpc or VpcOptions")
    groups = list(security_groups or [])
    if not groups:
        groups = [
            ec2.SecurityGroup(
                owner,
                "SecurityGroup",
                vpc=vpc,
                description="Network interfaces of one SageMaker endpoint (no inbound rule)",
                allow_all_outbound=True,
            )
        ]
    chosen = vpc_subnets or ec2.SubnetSelection()
    subnets = vpc.select_subnets(
        availability_zones=chosen.availability_zones,
        one_per_az=chosen.one_per_az,
        subnet_filters=chosen.subnet_filters,
        subnet_group_name=chosen.subnet_group_name,
        subnets=chosen.subnets,
        subnet_type=chosen.subnet_type,
    ).subnet_ids
    return VpcOptions(tuple(subnets), tuple(g.security_group_id for g in groups)), groups


def owned_role(role: iam.IRole) -> iam.Role | None:
    """``role`` when this app creates it (its policies may be attached here), None for an imported role."""
    return role if isinstance(role, iam.Role) else None
