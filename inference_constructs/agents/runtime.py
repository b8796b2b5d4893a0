"""``AgentRuntime``: an Amazon Bedrock AgentCore Runtime (``AWS::BedrockAgentCore::Runtime``) with an explicit,
cost-aware session lifecycle. The sources of every rule are in ``runtime_plan``; docs/observability.md, "Agents".

CloudFormation: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-bedrockagentcore-runtime.html
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import aws_bedrockagentcore as agentcore
from constructs import Construct

from inference_constructs.agents.runtime_plan import (
    AgentRuntimeSpec,
    CodeArtifact,
    LifecycleDecision,
    check_agent_runtime,
    decide_lifecycle,
)

__all__ = ["AgentRuntime"]


class AgentRuntime(Construct):
    """An AgentCore runtime: its artifact (container image or code in S3), execution role, network and session
    lifecycle, with its ``DEFAULT`` endpoint (AgentCore creates it).

    Parameters
    ----------
    scope, construct_id:
        Where the runtime is created.
    runtime_name:
        ``AgentRuntimeName`` (letters, digits, ``_``; at most 48; changing it replaces the runtime).
    role_arn:
        The execution role the runtime assumes (ECR pull, logs, the models and tools the agent calls).
    container_uri:
        An ECR image (``<account>.dkr.ecr.<region>.amazonaws.com/<repository>:<tag>``). Default: none (give
        ``code``).
    code:
        Code in S3 with its managed runtime and entry point. Default: none (give ``container_uri``).
    network_mode, subnets, security_groups:
        ``PUBLIC`` (default), or ``VPC`` with 1..16 subnets and 1..16 security groups.
    protocol:
        ``HTTP`` (default), ``MCP``, ``A2A`` or ``AGUI``.
    conversation:
        ``"short"`` lowers the default idle timeout to 120 s (an abandoned session stops billing memory
        sooner; a later turn starts a new session). Default: none, AgentCore's 900 s.
    idle_timeout_seconds, max_lifetime_seconds:
        The session lifecycle, 60..28,800 s on microVMs (60..1,209,600 on a capacity provider). Default: from
        ``conversation``, else 900 and 28,800 (AgentCore's defaults), always written to the template.
    capacity_provider_arn:
        Run on a capacity provider's instances. Default: AgentCore's microVMs.
    environment:
        Environment variables (in the template in plain text: never secrets). Default: none.
    tags:
        Tags of the runtime. Default: none besides those applied to the stack.

    Raises
    ------
    InferenceConfigError
        For a value AgentCore refuses (name, artifact, network, protocol, lifecycle range or order).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        runtime_name: str,
        role_arn: str,
        container_uri: str | None = None,
        code: CodeArtifact | None = None,
        network_mode: str = "PUBLIC",
        subnets: Sequence[str] = (),
        security_groups: Sequence[str] = (),
        protocol: str = "HTTP",
        conversation: str | None = None,
        idle_timeout_seconds: int | None = None,
        max_lifetime_seconds: int | None = None,
        capacity_provider_arn: str | None = None,
        environment: Mapping[str, str] | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        spec = AgentRuntimeSpec(
            name=construct_id,
            runtime_name=runtime_name,
            role_arn=role_arn,
            container_uri=container_uri,
            code=code,
            network_mode=network_mode,
            subnets=tuple(subnets),
            security_groups=tuple(security_groups),
            protocol=protocol,
            lifecycle=decide_lifecycle(
                conversation=conversation,
                idle_timeout_seconds=idle_timeout_seconds,
                max_lifetime_seconds=max_lifetime_seconds,
            ),
            capacity_provider_arn=capacity_provider_arn,
            environment=dict(environment or {}),
            tags=dict(tags or {}),
        )
        self._build(spec)

    @classmethod
    def from_spec(cls, scope: Construct, construct_id: str, spec: AgentRuntimeSpec) -> AgentRuntime:
        """The runtime a plan's :class:`AgentRuntimeSpec` describes, as the plan decided it (lifecycle and reason
        included)."""
        assert spec.role_arn is not None, "a deployed runtime has a role"
        # The spec is already what __init__ would build from keyword arguments: skip that step, not the checks.
        runtime = cls.__new__(cls)
        Construct.__init__(runtime, scope, construct_id)
        runtime._build(spec)
        return runtime

    def _build(self, spec: AgentRuntimeSpec) -> None:
        """Check ``spec`` and create the runtime it describes."""
        check_agent_runtime(spec).raise_if_any()
        self.spec: AgentRuntimeSpec = spec
        """What was built."""
        self.lifecycle: LifecycleDecision = spec.lifecycle
        """The session lifecycle and its reason."""
        self.resource = _cfn_runtime(self, spec)
        """The ``AWS::BedrockAgentCore::Runtime``."""

    @property
    def runtime_id(self) -> str:
        """The runtime's id (``Fn::GetAtt AgentRuntimeId``)."""
        return self.resource.attr_agent_runtime_id

    @property
    def runtime_arn(self) -> str:
        """The runtime's ARN (``Fn::GetAtt AgentRuntimeArn``)."""
        return self.resource.attr_agent_runtime_arn


def _cfn_runtime(scope: Construct, spec: AgentRuntimeSpec) -> agentcore.CfnRuntime:
    """The ``CfnRuntime`` (id ``Resource``) of ``spec``."""
    if spec.container_uri is not None:
        artifact = agentcore.CfnRuntime.AgentRuntimeArtifactProperty(
            container_configuration=agentcore.CfnRuntime.ContainerConfigurationProperty(
                container_uri=spec.container_uri
            )
        )
    else:
        assert spec.code is not None
        artifact = agentcore.CfnRuntime.AgentRuntimeArtifactProperty(
            code_configuration=agentcore.CfnRuntime.CodeConfigurationProperty(
                code=agentcore.CfnRuntime.CodeProperty(
                    s3=agentcore.CfnRuntime.S3LocationProperty(bucket=spec.code.bucket, prefix=spec.code.prefix)
                ),
                runtime=spec.code.runtime,
                entry_point=list(spec.code.entry_point),
            )
        )
    vpc = (
        agentcore.CfnRuntime.VpcConfigProperty(subnets=list(spec.subnets), security_groups=list(spec.security_groups))
        if spec.network_mode == "VPC"
        else None
    )
    assert spec.role_arn is not None
    return agentcore.CfnRuntime(
        scope,
        "Resource",
        agent_runtime_name=spec.runtime_name,
        agent_runtime_artifact=artifact,
        role_arn=spec.role_arn,
        network_configuration=agentcore.CfnRuntime.NetworkConfigurationProperty(
            network_mode=spec.network_mode, network_mode_config=vpc
        ),
        protocol_configuration=spec.protocol,
        lifecycle_configuration=agentcore.CfnRuntime.LifecycleConfigurationProperty(
            idle_runtime_session_timeout=spec.lifecycle.idle_timeout_seconds,
            max_lifetime=spec.lifecycle.max_lifetime_seconds,
        ),
        capacity_provider_configuration=None
        if spec.capacity_provider_arn is None
        else agentcore.CfnRuntime.CapacityProviderConfigurationProperty(
            capacity_provider_arn=spec.capacity_provider_arn
        ),
        environment_variables=dict(spec.environment) or None,
        tags=dict(spec.tags) or None,
    )
