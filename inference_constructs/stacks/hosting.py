"""Hosting stacks: the SageMaker endpoints of the platform with their alarms and capacity tags, sharded
so no stack nears CloudFormation's 500-resource limit.

The platform's alarm topic arrives through the SSM parameter the observability stack writes, not through an
export: the stacks of a platform stay independently updatable (see ``_handoff``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import CfnOutput, Stack, aws_sns
from constructs import Construct

from inference_constructs._coerce import props_of
from inference_constructs.cost import apply_cost_tags, capacity_tags
from inference_constructs.hosting import InferenceEndpoint, endpoint_from_request
from inference_constructs.hosting.components import scale_components
from inference_constructs.observability import InferenceAlarms, MonitoredEndpoint
from inference_constructs.observability.decisions import AlarmSettings
from inference_constructs.observability.targets import enhanced_metrics_on, with_components
from inference_constructs.plan import EndpointDecisions, capacity_schedule
from inference_constructs.region_rules import add_region_rules
from inference_constructs.regions import RegionRequirement
from inference_constructs.stacks._handoff import local_topic

#: Capacity tags stay off this type (see HostingStack).
SCALABLE_TARGET = "AWS::ApplicationAutoScaling::ScalableTarget"


def endpoint_name(platform: str, decisions: EndpointDecisions) -> str:
    """The SageMaker endpoint name clients invoke: ``<platform>-<endpoint>`` (stable across updates), as planned."""
    return decisions.endpoint_name or f"{platform}-{decisions.name}"


def monitored(
    platform: str, decisions: EndpointDecisions, endpoint: InferenceEndpoint | None = None
) -> MonitoredEndpoint:
    """What the dashboard and the alarms need to know of an endpoint (with the built ``endpoint``: the name of
    the inference component that serves a scale-to-zero endpoint, whose invocation metrics it carries)."""
    component = endpoint.inference_component if endpoint is not None else None
    return MonitoredEndpoint(
        name=endpoint_name(platform, decisions),
        variant_name=decisions.hosting.variant_name,
        kind=decisions.kind,
        gpu_count=decisions.hosting.gpu_count,
        instance_type=decisions.hosting.instance_type,
        inference_component_name=component.inference_component_name if component is not None else None,
        enhanced_metrics=enhanced_metrics_on(decisions.hosting),
    )


def async_input_output_id(endpoint: str) -> str:
    """Id of the stack output holding an async endpoint's input prefix, e.g. ``batchXextractAsyncInputPrefix``:
    output ids are alphanumeric, and endpoint names are lowercase, so ``-`` becomes ``X`` without collisions."""
    return endpoint.replace("-", "X") + "AsyncInputPrefix"


class HostingStack(Stack):
    """One shard of the platform's endpoints, each with its scaling, capacity tags and alarms.
    Composition only: every decision comes from the plan."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        platform: str,
        endpoints: Sequence[EndpointDecisions],
        alarm_topic: aws_sns.ITopic,
        alarm_settings: AlarmSettings,
        capacity_tagging: bool,
        region_requirements: Sequence[RegionRequirement] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        alarm_topic = local_topic(self, alarm_topic)
        # the plan's requirements first, so the rule's descriptions name the config keys that need them
        add_region_rules(self, region_requirements)
        self.endpoints: dict[str, InferenceEndpoint] = {}
        for decisions in endpoints:
            endpoint = endpoint_from_request(
                self,
                decisions.name,
                decisions.hosting_request,
                endpoint_name=endpoint_name(platform, decisions),
                path=decisions.path,
                plan=decisions.hosting,
            )
            self.endpoints[decisions.name] = endpoint
            endpoint.auto_scale_from_plan(decisions.scaling)
            if decisions.hosting.components is not None:
                names = tuple(c.name for c in decisions.hosting.components.components[1:])
                scale_components(endpoint.components, names, decisions.component_scaling)
            if capacity_tagging and decisions.host is not None:
                tags = capacity_tags(
                    capacity_schedule(decisions).baseline_instances,
                    decisions.hosting.capacity.max,
                    price_per_hour_usd=decisions.host.price_per_hour_usd,
                )
                # Not on the scalable target: it costs nothing, and a changed value (a new price, a new
                # capacity) would update it, which re-registers capacity.min during a raised scheduled floor.
                apply_cost_tags(
                    endpoint, tags, path=f"{decisions.path}.capacity", exclude_resource_types=[SCALABLE_TARGET]
                )
        for decisions in endpoints:
            prefix = self.endpoints[decisions.name].async_input_s3_prefix
            if prefix is not None:
                CfnOutput(
                    self,
                    async_input_output_id(decisions.name),
                    value=prefix,
                    description=(
                        f"S3 prefix where callers put request payloads for {endpoint_name(platform, decisions)} "
                        "(InvokeEndpointAsync InputLocation): the endpoint may read only objects under it"
                    ),
                )
        topic_arn = alarm_topic.topic_arn  # one round trip to the jsii kernel, not two per alarm
        for endpoint in self.endpoints.values():
            # The rollback alarms also notify the platform's topic: when one fires, a deployment was rolled back
            # or the endpoint is failing (CT.CLOUDWATCH.PR.1: every alarm has an action).
            for alarm in endpoint.rollback_alarms:
                alarm.alarm_actions = [topic_arn]
                alarm.ok_actions = [topic_arn]
        self.monitored: dict[str, list[MonitoredEndpoint]] = {
            d.name: with_components(self.endpoints[d.name], monitored(platform, d, self.endpoints[d.name]))
            for d in endpoints
        }
        """What the alarms (and the platform's dashboard) watch of each endpoint, by config name: the endpoint, then
        each of its inference components after the first."""
        self.alarms = InferenceAlarms(
            self,
            "Alarms",
            endpoints=[m for d in endpoints for m in self.monitored[d.name]],
            **props_of(alarm_settings),
            topic=alarm_topic,
        )
