"""CloudWatch cross-account observability: ``ObservabilitySink`` in the monitoring account, ``ObservabilityLink`` in
each source account (Observability Access Manager). Once a source account is linked, the monitoring account's
dashboards, alarms and queries read its metrics (and, when shared, its log groups and traces) directly.

The sink and its links are regional, and a link names the sink by ARN, which AWS generates when the sink is
created: a link in another account cannot take it from a CloudFormation reference, so a link's ``sink_arn`` is
given once the sink exists (the platform's ``observability.cross_account.sink_arn``). See
``cross_account_plan`` for the sources of every rule here, and docs/observability.md.

CloudFormation: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-oam-sink.html and
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-oam-link.html
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import CfnOutput, Stack
from aws_cdk import aws_oam as oam
from constructs import Construct

from inference_constructs.observability.cross_account_plan import (
    DEFAULT_LABEL_TEMPLATE,
    METRICS,
    check_link,
    check_sink,
    sink_policy,
)

__all__ = ["ObservabilityLink", "ObservabilitySink"]


class ObservabilitySink(Construct):
    """The sink of a CloudWatch cross-account observability monitoring account, with a policy that admits exactly
    ``source_account_ids`` (or every account of ``organization_id``) to link, sharing only ``resource_types``.

    Parameters
    ----------
    scope, construct_id:
        Where the sink is created (a stack of the monitoring account, in the Region the links will use).
    sink_name:
        Name of the sink (1..255 letters, digits, ``_``, ``.``, ``-``; changing it replaces the sink, and every
        link then needs the new ARN). An account holds one sink per Region.
    source_account_ids:
        Accounts allowed to create and update a link to this sink. Default: none (then ``organization_id`` is
        required).
    organization_id:
        An AWS Organizations id (``o-...``): every account of the organization may link (``aws:PrincipalOrgID``),
        instead of the listed accounts. Default: the listed accounts only.
    resource_types:
        What links may share (``AWS::CloudWatch::Metric``, ``AWS::Logs::LogGroup``, ``AWS::XRay::Trace``, ...);
        a link asking for more is refused. Default: metrics only, what the dashboards and alarms read.
    tags:
        Tags of the sink. Default: none besides those applied to the stack.
    output:
        Add a stack output ``<construct_id>Arn`` holding the sink ARN, which each link needs. Default: on.

    Raises
    ------
    InferenceConfigError
        For a name, organization id or resource type AWS refuses, or a policy that admits nobody.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        sink_name: str,
        source_account_ids: Sequence[str] = (),
        organization_id: str | None = None,
        resource_types: Sequence[str] = (METRICS,),
        tags: Mapping[str, str] | None = None,
        output: bool = True,
    ) -> None:
        super().__init__(scope, construct_id)
        check_sink(
            sink_name=sink_name,
            source_account_ids=source_account_ids,
            organization_id=organization_id,
            resource_types=resource_types,
        ).raise_if_any()
        self.source_account_ids: tuple[str, ...] = () if organization_id else tuple(source_account_ids)
        """Accounts the policy names (empty when it admits an organization)."""
        self.resource_types: tuple[str, ...] = tuple(resource_types)
        """What links may share."""
        self.resource = oam.CfnSink(
            self,
            "Resource",
            name=sink_name,
            policy=sink_policy(self.source_account_ids, organization_id, self.resource_types),
            tags=dict(tags) if tags else None,
        )
        """The ``AWS::Oam::Sink``."""
        if output:
            CfnOutput(
                Stack.of(self),
                f"{construct_id}Arn",
                value=self.sink_arn,
                description="ARN of the CloudWatch cross-account observability sink: each source account's link "
                "names it (observability.cross_account.sink_arn)",
            )

    @property
    def sink_arn(self) -> str:
        """ARN of the sink (``Fn::GetAtt Arn``)."""
        return self.resource.attr_arn


class ObservabilityLink(Construct):
    """A source account's link to a monitoring account's sink: the monitoring account then reads this account's
    ``resource_types`` in the link's Region.

    Parameters
    ----------
    scope, construct_id:
        Where the link is created (a stack of the source account, in the sink's Region).
    sink_arn:
        ARN of the sink (``arn:aws:oam:<region>:<account>:sink/<id>``); changing it replaces the link.
    resource_types:
        What this account shares; the sink policy must allow each. Default: metrics only.
    label_template:
        How the monitoring account labels this account (1..64 characters; ``$AccountName``, ``$AccountEmail``,
        ``$AccountEmailNoDomain``); changing it replaces the link. Default: ``$AccountName``.
    tags:
        Tags of the link. Default: none besides those applied to the stack.

    Raises
    ------
    InferenceConfigError
        For an ARN that is not a sink's, a sink in another Region than the link's stack, a resource type AWS
        refuses, or a label outside 1..64 characters.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        sink_arn: str,
        resource_types: Sequence[str] = (METRICS,),
        label_template: str = DEFAULT_LABEL_TEMPLATE,
        tags: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        check_link(
            sink_arn=sink_arn,
            resource_types=resource_types,
            label_template=label_template,
            region=Stack.of(self).region,
        ).raise_if_any()
        self.resource = oam.CfnLink(
            self,
            "Resource",
            sink_identifier=sink_arn,
            resource_types=list(resource_types),
            label_template=label_template,
            tags=dict(tags) if tags else None,
        )
        """The ``AWS::Oam::Link``."""

    @property
    def link_arn(self) -> str:
        """ARN of the link (``Fn::GetAtt Arn``)."""
        return self.resource.attr_arn
