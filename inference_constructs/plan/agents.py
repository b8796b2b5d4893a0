"""From the config file's ``agents:`` list to the plan's :class:`AgentRuntimeSpec` entries (the runtimes the agents
stack deploys, and the existing ones the plan only lists)."""

from __future__ import annotations

from inference_constructs.agents.runtime_plan import (
    AgentRuntimeSpec,
    CodeArtifact,
    check_agent_runtime,
    decide_lifecycle,
    runtime_name,
)
from inference_constructs.config.schema import Agent, PlatformConfig

__all__ = ["agent_specs", "agents_stack_name"]


def agents_stack_name(platform: str) -> str:
    """The stack of the platform's agent runtimes: ``<platform>-agents``."""
    return f"{platform}-agents"


def _code(agent: Agent) -> CodeArtifact | None:
    if agent.code is None:
        return None
    bucket, _, prefix = agent.code.s3_uri.removeprefix("s3://").partition("/")
    return CodeArtifact(
        bucket=bucket, prefix=prefix, runtime=agent.code.runtime, entry_point=tuple(agent.code.entry_point)
    )


def agent_specs(config: PlatformConfig) -> tuple[tuple[AgentRuntimeSpec, ...], list[str]]:
    """Each ``agents[]`` entry as a spec (lifecycle decided), and every problem (``agents[i].<key>: ...``)."""
    specs: list[AgentRuntimeSpec] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for i, agent in enumerate(config.agents):
        path = f"agents[{i}]"
        if agent.name in seen:
            problems.append(
                f"{path}.name: {agent.name!r} is used by agents[{seen[agent.name]}]; give each agent its own name"
            )
        seen.setdefault(agent.name, i)
        existing = agent.runtime_id is not None
        if existing and (agent.container_uri or agent.code or agent.role_arn):
            problems.append(
                f"{path}.runtime_id: an existing runtime is only listed; remove container_uri, code and role_arn, or "
                "remove runtime_id to deploy it here"
            )
        spec = AgentRuntimeSpec(
            name=agent.name,
            runtime_name=runtime_name(config.name, agent.name),
            role_arn=agent.role_arn,
            container_uri=agent.container_uri,
            code=_code(agent),
            network_mode=agent.network.mode,
            subnets=tuple(agent.network.subnets),
            security_groups=tuple(agent.network.security_groups),
            protocol=agent.protocol,
            lifecycle=decide_lifecycle(
                conversation=agent.conversation,
                idle_timeout_seconds=agent.idle_timeout_seconds,
                max_lifetime_seconds=agent.max_lifetime_seconds,
            ),
            capacity_provider_arn=agent.capacity_provider_arn,
            environment=dict(agent.environment),
            tags=dict(agent.tags),
            runtime_id=agent.runtime_id,
        )
        problems.extend(check_agent_runtime(spec, path=path).problems)
        specs.append(spec)
    return tuple(specs), problems
