"""AgentRuntime and the agents' plan: the artifact, role, network and session lifecycle written to the runtime,
cost-aware lifecycle defaults with their reason, and the refusals with the key path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Stack

from inference_constructs.agents import AgentRuntime, CodeArtifact, decide_lifecycle
from inference_constructs.config import load_config, validate_config
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform
from tests.cfn_schemas import schema
from tests.unit.observability.conftest import Synth, cfn_lint

EXAMPLE = Path(__file__).parents[3] / "config" / "examples" / "monitoring-two-accounts.yaml"
IMAGE = "999988887777.dkr.ecr.us-east-1.amazonaws.com/support-agent:1.4.0"
ROLE = "arn:aws:iam::999988887777:role/support-agent-runtime"


def _runtime(template: dict[str, Any]) -> dict[str, Any]:
    (props,) = [
        r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::BedrockAgentCore::Runtime"
    ]
    return props


def test_short_conversations_get_a_short_idle_timeout(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a container agent whose conversations are short
    AgentRuntime(stack, "Support", runtime_name="support", role_arn=ROLE, container_uri=IMAGE, conversation="short")
    template = synth(app, stack)
    # THEN the runtime idles out after 120 s (not AgentCore's 900 s) and keeps the 8-hour lifetime, and lints clean
    props = _runtime(template)
    assert props["LifecycleConfiguration"] == {"IdleRuntimeSessionTimeout": 120, "MaxLifetime": 28800}
    assert props["AgentRuntimeArtifact"] == {"ContainerConfiguration": {"ContainerUri": IMAGE}}
    assert props["NetworkConfiguration"] == {"NetworkMode": "PUBLIC"}
    assert props["RoleArn"] == ROLE
    assert cfn_lint(template) == []


def test_code_artifact_in_a_vpc(app: App, stack: Stack, synth: Synth) -> None:
    AgentRuntime(
        stack,
        "Research",
        runtime_name="research",
        role_arn=ROLE,
        code=CodeArtifact(bucket="agent-code", prefix="research/agent.zip", runtime="PYTHON_3_12"),
        network_mode="VPC",
        subnets=["subnet-0123456789abcdef0"],
        security_groups=["sg-0123456789abcdef0"],
        idle_timeout_seconds=300,
        max_lifetime_seconds=3600,
    )
    props = _runtime(synth(app, stack))
    assert props["AgentRuntimeArtifact"]["CodeConfiguration"] == {
        "Code": {"S3": {"Bucket": "agent-code", "Prefix": "research/agent.zip"}},
        "Runtime": "PYTHON_3_12",
        "EntryPoint": ["main.py"],
    }
    assert props["NetworkConfiguration"]["NetworkModeConfig"] == {
        "Subnets": ["subnet-0123456789abcdef0"],
        "SecurityGroups": ["sg-0123456789abcdef0"],
    }
    assert props["LifecycleConfiguration"] == {"IdleRuntimeSessionTimeout": 300, "MaxLifetime": 3600}


def test_defaults_are_agentcores() -> None:
    life = decide_lifecycle()
    assert (life.idle_timeout_seconds, life.max_lifetime_seconds) == (900, 28800)
    assert "memory" in life.to_dict()["memory_cost"]


def test_lifecycle_bounds_are_the_bundled_schemas() -> None:
    # GIVEN the cfn-lint schema of AWS::BedrockAgentCore::Runtime / THEN every property the construct writes
    # exists, and the lifecycle range is 60..1,209,600 (the microVM limit 28,800 is the developer guide's)
    runtime = schema("AWS::BedrockAgentCore::Runtime")
    assert {
        "AgentRuntimeName",
        "AgentRuntimeArtifact",
        "RoleArn",
        "NetworkConfiguration",
        "ProtocolConfiguration",
        "LifecycleConfiguration",
        "EnvironmentVariables",
        "CapacityProviderConfiguration",
        "Tags",
    } <= set(runtime["properties"])
    lifecycle = runtime["definitions"]["LifecycleConfiguration"]["properties"]
    for name in ("IdleRuntimeSessionTimeout", "MaxLifetime"):
        assert (lifecycle[name]["minimum"], lifecycle[name]["maximum"]) == (60, 1209600)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"idle_timeout_seconds": 30}, "idle_timeout_seconds: 30 is not allowed on microVMs; use 60..28800"),
        ({"max_lifetime_seconds": 86400}, "max_lifetime_seconds: 86400 is not allowed on microVMs"),
        ({"idle_timeout_seconds": 4000, "max_lifetime_seconds": 3600}, "4000 exceeds max_lifetime_seconds 3600"),
        ({"runtime_name": "has-hyphen"}, "makes the runtime name 'has-hyphen'"),
        ({"container_uri": "docker.io/agent:1"}, "container_uri: 'docker.io/agent:1' is not an ECR image uri"),
        ({"protocol": "GRPC"}, "protocol: 'GRPC' is not allowed"),
        ({"subnets": ["subnet-0123456789abcdef0"]}, "network: lists subnets or security groups in PUBLIC mode"),
    ],
)
def test_fails_runtime_settings_agentcore_refuses(stack: Stack, kwargs: dict[str, Any], match: str) -> None:
    props: dict[str, Any] = {"runtime_name": "support", "role_arn": ROLE, "container_uri": IMAGE, **kwargs}
    with pytest.raises(InferenceConfigError, match=match):
        AgentRuntime(stack, "Support", **props)


def test_capacity_provider_allows_two_weeks(stack: Stack) -> None:
    arn = "arn:aws:bedrock-agentcore:us-east-1:999988887777:capacity-provider/pool-a1B2c3D4e5"
    runtime = AgentRuntime(
        stack,
        "Long",
        runtime_name="long",
        role_arn=ROLE,
        container_uri=IMAGE,
        capacity_provider_arn=arn,
        idle_timeout_seconds=86400,
        max_lifetime_seconds=1209600,
    )
    assert runtime.lifecycle.max_lifetime_seconds == 1209600


def test_plan_lists_deployed_and_existing_agents() -> None:
    # GIVEN the shipped monitoring example: one agent deployed here, one referred to by id
    doc = plan_platform(load_config(EXAMPLE)).to_json()
    support, research = doc["agents"]
    # THEN the deployed one has its runtime name, artifact and lifecycle with the memory-cost explanation
    assert support["deployed"] and support["runtime_name"] == "ml_central_support"
    assert support["lifecycle"]["idle_timeout_seconds"] == 120
    assert "conversation: short" in support["lifecycle"]["reason"]
    assert "peak memory" in support["lifecycle"]["memory_cost"]
    # AND the existing one is listed by id, nothing deployed
    assert research == {**research, "deployed": False, "runtime_id": "research_agent-a1B2c3D4e5", "lifecycle": None}


def test_runtime_from_the_plan_keeps_its_decisions(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN the plan's spec of the shipped example's deployed agent
    support = next(a for a in plan_platform(load_config(EXAMPLE)).agents if a.deployed)
    # WHEN the runtime is built from it
    runtime = AgentRuntime.from_spec(stack, "Support", support)
    # THEN it keeps the plan's spec and lifecycle reason, and the template carries the planned lifecycle
    assert runtime.spec is support
    assert "conversation: short" in runtime.lifecycle.reason
    assert _runtime(synth(app, stack))["LifecycleConfiguration"] == {
        "IdleRuntimeSessionTimeout": 120,
        "MaxLifetime": 28800,
    }


def test_plan_without_agents_has_no_agents_key() -> None:
    doc = plan_platform(load_config(EXAMPLE.with_name("monitoring-account.yaml"))).to_json()
    assert "agents" not in doc


def _agent_config(**agent: Any) -> dict[str, Any]:
    return {"name": "acme", "agents": [{"name": "support", "container_uri": IMAGE, "role_arn": ROLE, **agent}]}


@pytest.mark.parametrize(
    ("agent", "match"),
    [
        ({"idle_timeout_seconds": 30000}, r"agents\[0\]\.idle_timeout_seconds: 30000 is not allowed on microVMs"),
        ({"role_arn": None}, r"agents\[0\]\.role_arn: is required"),
        ({"container_uri": None}, r"agents\[0\]: needs exactly one artifact"),
        ({"runtime_id": "other_agent-a1B2c3D4e5"}, r"agents\[0\]\.runtime_id: an existing runtime is only listed"),
    ],
)
def test_fails_agent_config_mistakes_with_the_key_path(agent: dict[str, Any], match: str) -> None:
    with pytest.raises(InferenceConfigError, match=match):
        plan_platform(validate_config(_agent_config(**agent)))
