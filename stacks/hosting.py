"""Hosting stacks: the SageMaker endpoints of the platform, sharded so no stack nears CloudFormation's
500-resource limit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs.hosting import InferenceEndpoint, endpoint_from_request
from inference_constructs.plan import EndpointDecisions, endpoint_request

#: Resources one stack may hold (CloudFormation allows 500; the rest is headroom for shared resources).
MAX_RESOURCES_PER_STACK = 450


class HostingStack(Stack):
    """One shard of the platform's endpoints. Composition only: every decision comes from the plan."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        platform: str,
        endpoints: Sequence[EndpointDecisions],
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.endpoints: dict[str, InferenceEndpoint] = {}
        for decisions in endpoints:
            self.endpoints[decisions.name] = endpoint_from_request(
                self,
                decisions.name,
                endpoint_request(decisions.config),
                host=decisions.host,
                endpoint_name=f"{platform}-{decisions.name}",
                path=decisions.path,
            )
