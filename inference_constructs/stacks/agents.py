"""Agents stack: the AgentCore runtimes the plan deploys (``agents:`` entries without ``runtime_id``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aws_cdk import Stack
from constructs import Construct

from inference_constructs._ids import construct_id as construct_id_of
from inference_constructs.agents import AgentRuntimeSpec
from inference_constructs.region_rules import add_region_rules
from inference_constructs.regions import RegionRequirement

if TYPE_CHECKING:
    from inference_constructs.agents.runtime import AgentRuntime


class AgentsStack(Stack):
    """Composition of the plan's deployed ``agents``; :attr:`runtimes` by agent name."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        agents: Sequence[AgentRuntimeSpec],
        region_requirements: Sequence[RegionRequirement] = (),
        **kwargs: Any,
    ) -> None:
        # AgentCore's bindings (aws_cdk.aws_bedrockagentcore) take about 0.17 s to import: only a platform that
        # deploys a runtime pays it, not every synth.
        from inference_constructs.agents.runtime import AgentRuntime

        super().__init__(scope, construct_id, **kwargs)
        add_region_rules(self, region_requirements)
        self.runtimes: dict[str, AgentRuntime] = {
            a.name: AgentRuntime.from_spec(self, construct_id_of(a.name), a) for a in agents if a.deployed
        }
