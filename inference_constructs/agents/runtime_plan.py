"""Amazon Bedrock AgentCore Runtime, decided in pure Python: the runtime's artifact, role, network and session
lifecycle, with cost-aware lifecycle defaults and the reason for each.

Facts (each written once, here):

- ``LifecycleConfiguration``: ``IdleRuntimeSessionTimeout`` (an idle session is terminated after it) and
  ``MaxLifetime`` (an instance is terminated and replaced after it), integers in seconds, default 900 and 28,800;
  60..28,800 on microVMs, 60..1,209,600 on a capacity provider's instances; the idle timeout must not exceed the
  lifetime (AgentCore developer guide, "Configure Amazon Bedrock AgentCore lifecycle settings":
  https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-lifecycle-settings.html; AgentCore
  control plane API reference ``LifecycleConfiguration``). The cfn-lint schema ``aws-bedrockagentcore-runtime.json``
  allows 60..1,209,600 for both.
- Billing: per second, on the CPU a session consumes and the peak memory up to that second, for the session's whole
  life from microVM start through idle periods until it is terminated (AgentCore pricing,
  https://aws.amazon.com/bedrock/agentcore/pricing/): CPU is not billed while the agent waits on I/O, memory is.
  So an idle session keeps costing memory until ``IdleRuntimeSessionTimeout`` ends it.
- ``AgentRuntimeName`` matches ``[a-zA-Z][a-zA-Z0-9_]{0,47}`` and is create-only; the artifact is a
  ``ContainerConfiguration.ContainerUri`` (an ECR image) or a ``CodeConfiguration`` (``Code.S3`` bucket and prefix,
  ``Runtime``, 1..2 ``EntryPoint``); ``NetworkConfiguration.NetworkMode`` is ``PUBLIC`` or ``VPC`` (then 1..16
  subnets and 1..16 security groups); ``ProtocolConfiguration`` is ``MCP``, ``HTTP``, ``A2A`` or ``AGUI``
  (cfn-lint schema ``aws-bedrockagentcore-runtime.json``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from inference_constructs.errors import ProblemCollector
from inference_constructs.observability.targets import key

__all__ = [
    "DEFAULT_IDLE_TIMEOUT_SECONDS",
    "DEFAULT_MAX_LIFETIME_SECONDS",
    "SHORT_CONVERSATION_IDLE_SECONDS",
    "AgentRuntimeSpec",
    "CodeArtifact",
    "LifecycleDecision",
    "check_agent_runtime",
    "decide_lifecycle",
    "runtime_name",
]

DEFAULT_IDLE_TIMEOUT_SECONDS = 900
DEFAULT_MAX_LIFETIME_SECONDS = 28_800
MIN_LIFECYCLE_SECONDS = 60
MAX_MICROVM_SECONDS = 28_800
MAX_INSTANCE_SECONDS = 1_209_600
#: The library's idle timeout for ``conversation: short`` (turns come within a minute or two of each other): an
#: abandoned session stops billing memory after 2 minutes instead of 15. A choice of this library, not an AWS
#: value; a turn that comes later starts a new session (a cold start).
SHORT_CONVERSATION_IDLE_SECONDS = 120
RUNTIME_NAME_PATTERN = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]{0,47}$")
CONTAINER_URI_PATTERN = re.compile(
    r"^(([0-9]{12})\.dkr\.ecr\.([a-z0-9-]+)\.([a-z0-9-]+(?:\.[a-z0-9-]+)+)|public\.ecr\.aws)/"
    r"((?:[a-z0-9]+(?:[._-][a-z0-9]+)*/)*[a-z0-9]+(?:[._-][a-z0-9]+)*)(?::([^:@]{1,300}))?(?:@(.+))?$"
)
MANAGED_RUNTIMES = ("PYTHON_3_10", "PYTHON_3_11", "PYTHON_3_12", "PYTHON_3_13", "PYTHON_3_14", "NODE_22")
PROTOCOLS = ("MCP", "HTTP", "A2A", "AGUI")
MAX_SUBNETS = MAX_SECURITY_GROUPS = 16


@dataclass(frozen=True)
class CodeArtifact:
    """Code deployed from S3: ``s3://bucket/prefix`` (a zip), the managed ``runtime`` and 1..2 entry points."""

    bucket: str
    prefix: str
    runtime: str = "PYTHON_3_12"
    entry_point: tuple[str, ...] = ("main.py",)


@dataclass(frozen=True)
class LifecycleDecision:
    """The session lifecycle, and what it costs: memory is billed for a session's whole life, idle included."""

    idle_timeout_seconds: int = DEFAULT_IDLE_TIMEOUT_SECONDS
    max_lifetime_seconds: int = DEFAULT_MAX_LIFETIME_SECONDS
    reason: str = "AgentCore's defaults"

    def to_dict(self) -> dict[str, Any]:
        """The lifecycle's plan entry, with what each setting costs."""
        return {
            "idle_timeout_seconds": self.idle_timeout_seconds,
            "max_lifetime_seconds": self.max_lifetime_seconds,
            "reason": self.reason,
            "memory_cost": (
                f"each session is billed its peak memory until it ends: up to {self.idle_timeout_seconds} s after its "
                f"last request (idle timeout), and never past {self.max_lifetime_seconds} s (max lifetime); CPU is "
                "billed only while it runs"
            ),
        }


def decide_lifecycle(
    *,
    conversation: str | None = None,
    idle_timeout_seconds: int | None = None,
    max_lifetime_seconds: int | None = None,
) -> LifecycleDecision:
    """The lifecycle: the given values; else for ``conversation: short`` an idle timeout of
    :data:`SHORT_CONVERSATION_IDLE_SECONDS`; else AgentCore's defaults (900 s idle, 28,800 s lifetime)."""
    lifetime = max_lifetime_seconds if max_lifetime_seconds is not None else DEFAULT_MAX_LIFETIME_SECONDS
    if idle_timeout_seconds is not None:
        return LifecycleDecision(idle_timeout_seconds, lifetime, "set in the config")
    if conversation == "short":
        idle = min(SHORT_CONVERSATION_IDLE_SECONDS, lifetime)
        return LifecycleDecision(
            idle,
            lifetime,
            f"conversation: short: an idle session stops billing memory after {idle} s instead of AgentCore's "
            f"{DEFAULT_IDLE_TIMEOUT_SECONDS} s default",
        )
    idle = min(DEFAULT_IDLE_TIMEOUT_SECONDS, lifetime)
    return LifecycleDecision(idle, lifetime, "AgentCore's default idle timeout (conversation not short)")


@dataclass(frozen=True)
class AgentRuntimeSpec:
    """One ``agents[]`` entry: a runtime the platform deploys, or (``runtime_id``) one deployed elsewhere that it
    only lists.

    Attributes
    ----------
    name:
        The agent's name in the config; the runtime is ``<platform>_<name>`` (``runtime_name``).
    runtime_name:
        ``AgentRuntimeName`` of a deployed runtime.
    container_uri, code:
        The artifact: an ECR image, or code in S3 (exactly one, unless ``runtime_id``).
    role_arn:
        The execution role the runtime assumes.
    network_mode, subnets, security_groups:
        ``PUBLIC``, or ``VPC`` with its subnets and security groups.
    protocol:
        ``HTTP`` (default), ``MCP``, ``A2A`` or ``AGUI``.
    lifecycle:
        The session lifecycle (:func:`decide_lifecycle`).
    environment:
        Environment variables of the runtime (never secrets: they are in the template).
    tags:
        Tags of the runtime beyond the platform's.
    runtime_id:
        An existing runtime's id: nothing is deployed.
    """

    name: str
    runtime_name: str
    role_arn: str | None = None
    container_uri: str | None = None
    code: CodeArtifact | None = None
    network_mode: str = "PUBLIC"
    subnets: tuple[str, ...] = ()
    security_groups: tuple[str, ...] = ()
    protocol: str = "HTTP"
    lifecycle: LifecycleDecision = field(default_factory=LifecycleDecision)
    capacity_provider_arn: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)
    runtime_id: str | None = None

    @property
    def deployed(self) -> bool:
        """True when the platform deploys this runtime (no ``runtime_id``)."""
        return self.runtime_id is None

    def to_dict(self) -> dict[str, Any]:
        """The agent's plan entry."""
        return {
            "name": self.name,
            "deployed": self.deployed,
            "runtime_name": self.runtime_name if self.deployed else None,
            "runtime_id": self.runtime_id,
            "artifact": None
            if not self.deployed
            else ({"container_uri": self.container_uri} if self.container_uri else {"code": _code_dict(self.code)}),
            "role_arn": self.role_arn,
            "network_mode": self.network_mode,
            "protocol": self.protocol,
            "lifecycle": self.lifecycle.to_dict() if self.deployed else None,
        }


def _code_dict(code: CodeArtifact | None) -> dict[str, Any] | None:
    if code is None:
        return None
    return {
        "bucket": code.bucket,
        "prefix": code.prefix,
        "runtime": code.runtime,
        "entry_point": list(code.entry_point),
    }


def runtime_name(platform: str, agent: str) -> str:
    """``AgentRuntimeName`` of a platform's agent: ``<platform>_<agent>``, hyphens as underscores (the name
    allows letters, digits and ``_`` only)."""
    return f"{platform}_{agent}".replace("-", "_")


def check_agent_runtime(spec: AgentRuntimeSpec, *, path: str = "") -> ProblemCollector:
    """Every problem with a runtime's settings, as ``<path>.<key>: ...`` (config keys: ``container_uri``, ``code``,
    ``role_arn``, ``network``, ``idle_timeout_seconds``, ``max_lifetime_seconds``...)."""
    problems = ProblemCollector()
    if not spec.deployed:
        return problems
    if not RUNTIME_NAME_PATTERN.match(spec.runtime_name):
        problems.add(
            key(path, "name"),
            f"makes the runtime name {spec.runtime_name!r}, which AgentCore refuses",
            "use letters, digits and '_' so that <platform>_<name> is at most 48 characters",
            code="name",
        )
    if spec.role_arn is None:
        problems.add(
            key(path, "role_arn"),
            "is required for a runtime the platform deploys",
            "give the execution role's arn",
            code="missing",
        )
    if spec.protocol not in PROTOCOLS:
        problems.add(
            key(path, "protocol"),
            f"{spec.protocol!r} is not allowed",
            f"use one of {', '.join(PROTOCOLS)}",
            code="choice",
        )
    _artifact_problems(problems, spec, path)
    _network_problems(problems, spec, path)
    _lifecycle_problems(problems, spec, path)
    return problems


def _artifact_problems(problems: ProblemCollector, spec: AgentRuntimeSpec, path: str) -> None:
    if (spec.container_uri is None) == (spec.code is None):
        problems.add(path or "agent", "needs exactly one artifact", "give container_uri or code", code="conflict")
    if spec.container_uri is not None and not CONTAINER_URI_PATTERN.match(spec.container_uri):
        problems.add(
            key(path, "container_uri"),
            f"{spec.container_uri!r} is not an ECR image uri",
            "use <account>.dkr.ecr.<region>.amazonaws.com/<repository>:<tag>",
            code="pattern",
        )
    if spec.code is not None and spec.code.runtime not in MANAGED_RUNTIMES:
        problems.add(
            key(path, "code.runtime"),
            f"{spec.code.runtime!r} is not a managed runtime",
            f"use one of {', '.join(MANAGED_RUNTIMES)}",
            code="choice",
        )
    if spec.code is not None and not 1 <= len(spec.code.entry_point) <= 2:
        problems.add(
            key(path, "code.entry_point"), f"has {len(spec.code.entry_point)} entries", "give 1 or 2", code="length"
        )


def _network_problems(problems: ProblemCollector, spec: AgentRuntimeSpec, path: str) -> None:
    if spec.network_mode == "VPC":
        for name, values, most in (
            ("subnets", spec.subnets, MAX_SUBNETS),
            ("security_groups", spec.security_groups, MAX_SECURITY_GROUPS),
        ):
            if not 1 <= len(values) <= most:
                problems.add(
                    key(path, f"network.{name}"),
                    f"has {len(values)} entries",
                    f"give 1..{most} in VPC mode",
                    code="length",
                )
    elif spec.subnets or spec.security_groups:
        problems.add(
            key(path, "network"),
            "lists subnets or security groups in PUBLIC mode",
            "set mode: VPC, or remove them",
            code="conflict",
        )


def _lifecycle_problems(problems: ProblemCollector, spec: AgentRuntimeSpec, path: str) -> None:
    most = MAX_INSTANCE_SECONDS if spec.capacity_provider_arn else MAX_MICROVM_SECONDS
    where = "on a capacity provider's instances" if spec.capacity_provider_arn else "on microVMs"
    life = spec.lifecycle
    for name, value in (
        ("idle_timeout_seconds", life.idle_timeout_seconds),
        ("max_lifetime_seconds", life.max_lifetime_seconds),
    ):
        if not MIN_LIFECYCLE_SECONDS <= value <= most:
            problems.add(
                key(path, name), f"{value} is not allowed {where}", f"use {MIN_LIFECYCLE_SECONDS}..{most}", code="range"
            )
    if life.idle_timeout_seconds > life.max_lifetime_seconds:
        problems.add(
            key(path, "idle_timeout_seconds"),
            f"{life.idle_timeout_seconds} exceeds max_lifetime_seconds {life.max_lifetime_seconds}",
            "keep the idle timeout at or below the lifetime",
            code="conflict",
        )
