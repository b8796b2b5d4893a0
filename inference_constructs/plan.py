"""The plan: every decision for a platform config, made before any construct exists.

Pure Python (no ``aws_cdk`` import): ``python -m inference_constructs plan CONFIG`` prints it, every
synth writes it as ``inference-plan.json`` into the cloud assembly, and the stacks build from it.
All problems across the whole file are collected and raised as one :class:`InferenceConfigError`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from inference_constructs.aws_limits import ARNS
from inference_constructs.bedrock.governance_config import guardrail_spec, invocation_logging_spec
from inference_constructs.bedrock.logging_spec import InvocationLoggingSpec, check_invocation_logging
from inference_constructs.bedrock.logging_spec import plan_entry as logging_plan_entry
from inference_constructs.bedrock.model_source import ModelSource, Residency, source_region_requirement
from inference_constructs.bedrock.plan_sections import InvocationLoggingPlan, ProfilePlan, RouterPlan
from inference_constructs.bedrock.pricing import Workload, token_economics, workload_from_counts
from inference_constructs.bedrock.profiles import ProfileSpec, check_profile_specs, check_router_roles, plan_entries
from inference_constructs.bedrock.routing import RouterSpec, check_router_specs, router_plan
from inference_constructs.catalog import Catalog, load_catalog
from inference_constructs.config.constraints import dashboard_problems
from inference_constructs.config.schema import BedrockWorkload, Endpoint, PlatformConfig
from inference_constructs.containers.model_access import HfTokenSecret, ModelAccess
from inference_constructs.cost.capacity_tags import PLATFORM_TAG
from inference_constructs.cost.commitment import CapacitySchedule, CommitmentRecommendation, recommend_commitment
from inference_constructs.cost.scope import CostPlan, decide_cost
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.decisions import (
    AsyncOptions,
    Capacity,
    DataCaptureOptions,
    DeploymentOptions,
    DeploymentStrategy,
    EndpointPlan,
    EndpointRequest,
    MultiModelOptions,
    ServerlessOptions,
    VpcOptions,
    plan_endpoint,
)
from inference_constructs.layout import MAX_RESOURCES_PER_STACK, EndpointFootprint, assign_stacks
from inference_constructs.observability.decisions import (
    AlarmDecision,
    AlarmSettings,
    DashboardDecision,
    ObservabilityPlan,
    XRaySamplingDecision,
    delivery_failure_alarm,
    endpoint_alarm_prefix,
    endpoint_alarms,
    intervention_alarm,
    profile_alarms,
)
from inference_constructs.regions import (
    AccountRequirement,
    RegionRequirement,
    account_requirement,
    load_resource_regions,
    platform_requirements,
    region_problems,
)
from inference_constructs.scaling.decisions import ScalingPlan
from inference_constructs.scaling.from_config import plan_from_config
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import (
    Accelerator,
    AcceleratorChoice,
    EndpointKind,
    ModelArchitecture,
    ModelSourceKind,
    ModelSpec,
)

#: Hours in a billing month (AWS convention: 365 × 24 / 12).
HOURS_PER_MONTH = 730.0


def model_spec(endpoint: Endpoint) -> ModelSpec:
    """The typed :class:`ModelSpec` of a config endpoint."""
    m = endpoint.model
    arch = m.architecture
    return ModelSpec(
        source=ModelSourceKind(m.source),
        id=m.id,
        s3_uri=m.s3_uri,
        parameters_billion=m.parameters_billion,
        dtype=m.dtype,
        max_context_tokens=m.max_context_tokens,
        max_concurrent_sequences=m.max_concurrent_sequences,
        architecture=ModelArchitecture(**arch.model_dump()) if arch else None,
        neuron_compiled=m.neuron_compiled,
        revision=m.revision,
    )


def _env_value(value: str | int | float | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def endpoint_request(endpoint: Endpoint) -> EndpointRequest:
    """The hosting request (construct props) that a config endpoint describes."""
    e = endpoint
    token = e.model.hf_token
    return EndpointRequest(
        kind=e.type,
        model=model_spec(e),
        serving=e.serving,
        image=e.image,
        accelerator=AcceleratorChoice(e.accelerator),
        instance_type=None if e.instance_type == "auto" else e.instance_type,
        capacity=Capacity(min=e.capacity.min, max=e.capacity.max),
        serverless=(
            ServerlessOptions(
                e.serverless.memory_mb, e.serverless.max_concurrency, e.serverless.provisioned_concurrency
            )
            if e.serverless
            else None
        ),
        async_inference=(
            AsyncOptions(
                output_s3_uri=e.async_.output_s3_uri,
                max_concurrent_invocations_per_instance=e.async_.max_concurrent_invocations_per_instance,
            )
            if e.async_
            else None
        ),
        multi_model=MultiModelOptions(e.multi_model.model_data_prefix, e.multi_model.cache) if e.multi_model else None,
        kms_key_arn=e.kms_key_arn,
        vpc=(
            VpcOptions(tuple(e.vpc.subnet_ids), tuple(e.vpc.security_group_ids))
            if e.vpc.subnet_ids or e.vpc.security_group_ids
            else None
        ),
        network_isolation=e.network_isolation,
        data_capture=(
            DataCaptureOptions(sampling_percent=e.data_capture.sampling_percent, s3_uri=e.data_capture.s3_uri)
            if e.data_capture.sampling_percent
            else None
        ),
        deployment=DeploymentOptions(
            strategy=DeploymentStrategy(e.deployment.strategy), rollback_on_alarms=e.deployment.rollback_on_alarms
        ),
        environment={key: _env_value(value) for key, value in e.environment.items()},
        hf_token=(
            HfTokenSecret(token.secret, token.json_key, token.version_id, token.kms_key_arn, token.in_environment)
            if token
            else None
        ),
        host_ami=e.host_ami,
    )


def profile_specs(config: PlatformConfig) -> list[ProfileSpec]:
    """The Bedrock profile specs of a config, in config order."""
    return [
        ProfileSpec(
            name=p.name,
            model=p.model,
            tags=dict(p.tags),
            invoke_role_arns=tuple(p.invoke_role_arns),
            max_output_tokens=p.max_output_tokens,
            residency=Residency(p.residency),
            guardrail=guardrail_spec(config.name, p.name, p.guardrail),
        )
        for p in config.bedrock.profiles
    ]


def bedrock_workload(workload: BedrockWorkload | None, path: str) -> tuple[Workload | None, list[str]]:
    """The priced :class:`Workload` of a profile's or router's ``workload`` block, and its problems."""
    if workload is None:
        return None, []
    return workload_from_counts(path=path, **workload.model_dump())


def router_specs(config: PlatformConfig) -> tuple[list[RouterSpec], list[str]]:
    """The prompt router specs of a config, in config order, and the problems of their workloads."""
    specs: list[RouterSpec] = []
    problems: list[str] = []
    for i, r in enumerate(config.bedrock.routers):
        workload, found = bedrock_workload(r.workload, f"bedrock.routers[{i}].workload")
        problems += found
        specs.append(
            RouterSpec(
                name=r.name,
                models=tuple(r.models),
                fallback_model=r.fallback_model,
                response_quality_difference=r.response_quality_difference,
                description=r.description,
                tags=dict(r.tags),
                invoke_role_arns=tuple(r.invoke_role_arns),
                workload=workload,
            )
        )
    return specs, problems + check_router_specs(specs)


@dataclass(frozen=True)
class EndpointDecisions:
    """Every decision for one config endpoint: hosting (host, image, environment, timeouts, update policy),
    scaling, and the stack it is built in.

    ``host`` is None for serverless endpoints (SageMaker picks the compute; billing is per request).
    ``request`` is what the hosting plan was made from (the constructs take it with the plan), and
    ``schedule`` the weekly capacity schedule the commitment and the capacity tags are sized on (None for
    serverless), so the stacks read the plan only.
    """

    index: int
    config: Endpoint
    model: ModelSpec
    hosting: EndpointPlan
    scaling: ScalingPlan
    warnings: tuple[str, ...] = ()
    stack: str = ""
    request: EndpointRequest | None = None
    schedule: CapacitySchedule | None = None
    endpoint_name: str = ""
    """The SageMaker endpoint name clients invoke: ``<platform>-<endpoint>`` (stable across updates)."""
    alarms: tuple[AlarmDecision, ...] = ()
    """The endpoint's monitoring alarms (latency and traffic anomalies, error rate, backlog, cold start), built in
    its hosting stack on the platform's alarm topic."""

    @property
    def footprint(self) -> EndpointFootprint:
        """What decides this endpoint's resource count (for sharding)."""
        sp = self.scaling
        return EndpointFootprint(
            kind=self.kind,
            scaling_policies=len(sp.target_tracking),
            scaling_enabled=sp.enabled,
            wake_up=sp.wake_up is not None,
            inference_component=sp.uses_inference_component,
            rollback_alarms=self.hosting.deployment.rollback_on_alarms,
            staged=self.hosting.model_data.staging is not None,
        )

    @property
    def hosting_request(self) -> EndpointRequest:
        """The request the hosting plan was made from."""
        return self.request if self.request is not None else endpoint_request(self.config)

    @property
    def host(self) -> HostDecision | None:
        """The host decision, None for serverless."""
        return self.hosting.host

    @property
    def path(self) -> str:
        """Key path of this endpoint in the config file, e.g. ``endpoints[2]``."""
        return f"endpoints[{self.index}]"

    @property
    def name(self) -> str:
        """Endpoint name from the config."""
        return self.config.name

    @property
    def kind(self) -> EndpointKind:
        """Hosting option."""
        return self.config.type

    @property
    def price_per_hour_usd(self) -> float | None:
        """On-demand price of one instance per hour; None for serverless."""
        return self.host.price_per_hour_usd if self.host else None

    @property
    def monthly_usd_at_min(self) -> float | None:
        """On-demand cost of a month at minimum capacity (730 h); None for serverless."""
        price = self.price_per_hour_usd
        return None if price is None else round(price * self.config.capacity.min * HOURS_PER_MONTH, 2)

    @property
    def monthly_usd_at_max(self) -> float | None:
        """On-demand cost of a month at maximum capacity (730 h); None for serverless."""
        price = self.price_per_hour_usd
        return None if price is None else round(price * self.config.capacity.max * HOURS_PER_MONTH, 2)

    def to_json(self) -> dict[str, Any]:
        """The plan entry (``docs/config.md``, "The plan")."""
        host = self.host
        cfg = self.config
        if host is None:
            memory = self.hosting.serverless.memory_mb if self.hosting.serverless else None
            entry: dict[str, Any] = {
                "name": self.name,
                "type": self.kind.value,
                "instance_type": None,
                "accelerator": Accelerator.CPU.value,
                "devices": 0,
                "memory_required_gb": None,
                "memory_available_gb": round(memory / 1024, 2) if memory else None,
                "tensor_parallel_degree": 1,
                "price_per_hour_usd": None,
                "monthly_usd_at_min": None,
                "monthly_usd_at_max": None,
                "reason": "serverless: SageMaker provides CPU compute per request and bills per request duration "
                "and memory, so there is no host to choose and no idle instance cost",
                "rejected": [],
            }
        else:
            entry = {
                "name": self.name,
                "type": self.kind.value,
                "instance_type": host.instance.name,
                "accelerator": host.accelerator.value,
                "devices": host.devices,
                "memory_required_gb": round(host.memory_required_gb, 2),
                "memory_available_gb": round(host.memory_available_gb, 2),
                "tensor_parallel_degree": host.tensor_parallel_degree,
                "price_per_hour_usd": round(host.price_per_hour_usd, 4),
                "monthly_usd_at_min": self.monthly_usd_at_min,
                "monthly_usd_at_max": self.monthly_usd_at_max,
                "reason": host.reason,
                "rejected": [{"instance_type": r.instance_type, "reason": r.reason} for r in host.rejected],
                "weights_gb": round(host.weights_gb, 2),
                "kv_cache_gb": round(host.kv_cache_gb, 2),
                "price_is_estimate": host.instance.price_is_estimate,
                "architecture": host.architecture.to_dict() if host.architecture else None,
                "tensor_parallel": {
                    "degree": host.tensor_parallel_degree,
                    "attention_heads_per_shard": host.heads_per_shard,
                    "kv_heads_per_shard": host.kv_heads_per_shard,
                    "padding_gb": host.padding_gb,
                    "rejected_degrees": list(host.degree_rejections),
                },
                "margin_gb": round(host.margin_gb, 2),
                "kv_cache": host.kv.to_dict() if host.kv else None,
                "host_ram_required_gb": round(host.host_ram_required_gb, 2),
                "dtype_note": host.dtype_note or None,
            }
            hint = host.quantization_hint
            entry["quantization_hint"] = (
                None
                if hint is None
                else {
                    "dtype": hint.dtype.value,
                    "instance_type": hint.instance_type,
                    "price_per_hour_usd": hint.price_per_hour_usd,
                    "saving_percent": hint.saving_percent,
                    "caveat": hint.caveat,
                }
            )
        entry["stack"] = self.stack
        entry["endpoint_name"] = self.endpoint_name
        entry["capacity"] = {"min": cfg.capacity.min, "max": cfg.capacity.max}
        h = self.hosting
        entry["container"] = {
            "image": h.image.key if h.image else h.custom_image,
            "environment": dict(h.environment),
            "model_data_download_timeout_seconds": h.model_data_download_timeout_seconds,
            "container_startup_health_check_timeout_seconds": h.container_startup_health_check_timeout_seconds,
            "routing_strategy": h.routing_strategy,
        }
        entry["hosting"] = _hosting_json(h)
        entry["scaling"] = self.scaling.to_dict()
        entry["network_isolation"] = {"enabled": h.network_isolation, "reason": h.network_isolation_reason}
        # How a gated or private hub model's token is used: staged into S3 by a job, or (opt-in) in the environment.
        entry["model_access"] = h.model_access.to_json() if h.model_access else None
        entry["deployment"] = h.update_policy.to_dict()
        # Null unless real-time with capacity.min 0, and unless serverless.
        entry["inference_component"] = asdict(h.inference_component) if h.inference_component else None
        entry["serverless"] = asdict(h.serverless) if h.serverless else None
        entry["alarms"] = [a.to_dict() for a in self.alarms]
        entry["decisions"] = list(self.hosting.reasons)
        entry["warnings"] = list(self.warnings)
        return entry


@dataclass(frozen=True)
class PlatformPlan:
    """Every decision for one config: what the stacks build and what ``inference-plan.json`` holds."""

    config: PlatformConfig
    endpoints: tuple[EndpointDecisions, ...]
    catalog: Catalog
    warnings: tuple[str, ...] = ()
    savings_plan: CommitmentRecommendation | None = None
    """The Savings Plan commitment sized to the instance-backed endpoints' schedules (None without any)."""
    bedrock: tuple[ProfilePlan, ...] = ()
    """What the plan says of each Bedrock profile, in config order."""
    profiles: tuple[ProfileSpec, ...] = ()
    """The Bedrock profiles to create, in config order."""
    bedrock_routers: tuple[RouterPlan, ...] = ()
    """What the plan says of each Bedrock prompt router, in config order."""
    routers: tuple[RouterSpec, ...] = ()
    """The Bedrock prompt routers to create, in config order."""
    regions: dict[str, tuple[RegionRequirement, ...]] = field(default_factory=dict)
    accounts: dict[str, tuple[AccountRequirement, ...]] = field(default_factory=dict)
    """What each part (a hosting stack's name, ``bedrock``, ``cost``) needs that not every region has."""
    bedrock_invocation_logging: InvocationLoggingPlan | None = None
    """What the plan says of the account's Bedrock model invocation logging; None when off."""
    cost: CostPlan = field(default_factory=CostPlan)
    """What the cost stack builds: activated keys, the budget, the anomaly monitor, the required tags."""
    name: str = ""
    """The platform's name: it prefixes every stack and endpoint name."""
    account: str | None = None
    """The account the stacks are bound to; None: environment-agnostic templates."""
    region: str | None = None
    """The Region the stacks are bound to; None: environment-agnostic templates."""
    tags: dict[str, str] = field(default_factory=dict)
    """Tags applied to every taggable resource: ``inference:platform`` = the platform's name, then the config's."""
    invocation_logging: InvocationLoggingSpec | None = None
    """The account's Bedrock model invocation logging (destinations, retention, data flags); None when off."""
    observability: ObservabilityPlan = field(default_factory=ObservabilityPlan)
    """Alarm topic subscription, alarm thresholds, the dashboard, X-Ray sampling, and the alarms outside the
    hosting stacks."""

    @property
    def needs_bedrock_stack(self) -> bool:
        """True when the plan has any Bedrock profile, prompt router or invocation logging."""
        return bool(self.profiles or self.routers or self.invocation_logging is not None)

    def endpoints_by_stack(self) -> dict[str, list[EndpointDecisions]]:
        """Endpoints grouped by the hosting stack they were planned into, in stack order."""
        out: dict[str, list[EndpointDecisions]] = {}
        for e in self.endpoints:
            out.setdefault(e.stack, []).append(e)
        return out

    @property
    def baseline_usd_per_hour(self) -> float:
        """On-demand $/h of the always-on capacity (every endpoint at its minimum)."""
        return round(sum((e.price_per_hour_usd or 0.0) * e.config.capacity.min for e in self.endpoints), 4)

    def to_json(self) -> dict[str, Any]:
        """The plan document (``docs/config.md``, "The plan")."""
        doc: dict[str, Any] = {
            "name": self.name,
            "account": self.account,
            "tags": dict(self.tags),
            "prices_as_of": self.catalog.prices_as_of,
            "prices_region": self.catalog.region,
            "price_source": self.catalog.price_source,
            "endpoints": [e.to_json() for e in self.endpoints],
            "baseline_usd_per_hour": self.baseline_usd_per_hour,
            "savings_plan": self.savings_plan.to_dict() if self.savings_plan is not None else None,
            "bedrock": [p.to_json() for p in self.bedrock],
            "bedrock_invocation_logging": None
            if self.bedrock_invocation_logging is None
            else self.bedrock_invocation_logging.to_json(),
            "regions": self.regions_json(),
            "bedrock_routers": [r.to_json() for r in self.bedrock_routers],
            "cost": self.cost.to_json(),
            "observability": self.observability.to_dict(),
            "warnings": list(self.warnings) + [w for e in self.endpoints for w in e.warnings],
        }
        return doc

    def region_requirements(self, part: str) -> tuple[RegionRequirement, ...]:
        """What ``part`` (a hosting stack's name, ``bedrock`` or ``cost``) needs that not every region has."""
        return self.regions.get(part, ())

    def account_requirements(self, part: str) -> tuple[AccountRequirement, ...]:
        """The accounts ``part`` (``bedrock`` or ``cost``) must be deployed to: those of the roles it names."""
        return self.accounts.get(part, ())

    def regions_json(self) -> dict[str, Any]:
        """The plan's ``regions`` entry: the regions every requirement allows (of those the data covers), and why;
        the account the named roles need (``deployable_accounts``), and why."""
        reqs = [r for part in self.regions.values() for r in part]
        accounts = [a for part in self.accounts.values() for a in part]
        covered = load_resource_regions().regions
        return {
            "deploy_region": self.config.region,
            "deployable_regions": [r for r in covered if all(req.available_in(r) for req in reqs)],
            "requirements": [
                {"needs": req.what, "needed_by": list(req.needed_by), "rule": req.assert_description} for req in reqs
            ],
            "deploy_account": self.config.account,
            "deployable_accounts": sorted({a.account for a in accounts}),
            "account_requirements": [
                {"account": a.account, "needed_by": list(a.needed_by), "rule": a.assert_description} for a in accounts
            ],
        }

    def to_json_text(self) -> str:
        """The plan document as deterministic, indented JSON."""
        return json.dumps(self.to_json(), indent=2, sort_keys=False) + "\n"

    def table(self) -> str:
        """A short human-readable table of the endpoint decisions."""
        head = (
            "endpoint",
            "type",
            "host",
            "accel",
            "dev",
            "TP",
            "need GiB",
            "have GiB",
            "$/h",
            "$/month min",
            "$/month max",
        )
        rows = [head]
        for e in self.endpoints:
            j = e.to_json()
            rows.append(
                (
                    e.name,
                    e.kind.value,
                    j["instance_type"] or "serverless",
                    j["accelerator"],
                    str(j["devices"]),
                    str(j["tensor_parallel_degree"]),
                    _num(j["memory_required_gb"]),
                    _num(j["memory_available_gb"]),
                    _num(j["price_per_hour_usd"], 3),
                    _num(j["monthly_usd_at_min"], 0),
                    _num(j["monthly_usd_at_max"], 0),
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        reasons = [f"why {e.name}: {e.to_json()['reason']}" for e in self.endpoints]
        reasons.extend(
            f"host AMI {e.name}: {e.hosting.host_ami.reason}" for e in self.endpoints if e.hosting.inference_ami_version
        )
        access = [_access_line(e.name, e.hosting.model_access) for e in self.endpoints if e.hosting.model_access]
        footer = [
            *reasons,
            *access,
            f"baseline on-demand: ${self.baseline_usd_per_hour:.3f}/h; prices {self.catalog.region} "
            f"as of {self.catalog.prices_as_of}",
        ]
        sp = self.savings_plan.to_dict() if self.savings_plan is not None else None
        if sp is not None and sp["commitment_usd_per_hour"] is not None:
            footer.append(
                f"savings plan: commit ${sp['commitment_usd_per_hour']}/h, saves ${sp['monthly_saving_usd']}/month"
            )
        footer.extend(_guardrail_lines(self.bedrock))
        footer.extend(_bedrock_lines(self.bedrock, self.bedrock_routers))
        warnings = self.to_json()["warnings"]
        footer.extend(f"warning: {w}" for w in warnings)
        return "\n".join(lines + footer) + "\n"


def _access_line(name: str, access: ModelAccess) -> str:
    """One line of the table's footer: how the endpoint's gated model is reached."""
    if access.staging is not None:
        return (
            f"model access {name}: staged to <data bucket>/{access.staging.key_prefix} by a codebuild job reading "
            f"secret {access.secret.secret}"
        )
    return f"model access {name}: token in the container environment (opt-in, secret {access.secret.secret})"


def _hosting_json(h: EndpointPlan) -> dict[str, Any]:
    """The endpoint's variant, storage, encryption, network and data settings for the plan document."""
    a, c, v = h.async_inference, h.data_capture, h.vpc
    return {
        "variant_name": h.variant_name,
        "initial_instance_count": h.initial_instance_count,
        "volume_size_gb": h.volume_size_gb,
        "kms_key_arn": h.kms_key_arn,
        "kms_omitted_reason": h.kms_omitted_reason,
        "inference_ami_version": h.inference_ami_version,
        "inference_ami": h.host_ami.to_dict(),
        "network_isolation": h.network_isolation,
        "vpc": None
        if v is None
        else {"subnet_ids": list(v.subnet_ids), "security_group_ids": list(v.security_group_ids)},
        "model_data": {
            "kind": h.model_data.kind.value,
            "uri": h.model_data.uri,
            # Staged hub weights: the stack's data bucket is created with the stack, so only the key prefix is known.
            "staged_key_prefix": h.model_data.staging.key_prefix if h.model_data.staging else None,
        },
        "multi_model_cache": None if h.multi_model is None else h.multi_model.cache,
        "async_inference": (
            None
            if a is None
            else {
                # As written: without a trailing slash; null = the stack's data bucket under async/<endpoint>.
                "output_s3_uri": a.output_s3_uri.rstrip("/") if a.output_s3_uri else None,
                "notifications": a.notifications,
                "max_concurrent_invocations_per_instance": h.max_concurrent_invocations_per_instance,
            }
        ),
        "data_capture": (
            None
            if c is None or not h.data_capture_enabled
            else {"sampling_percent": c.sampling_percent, "s3_uri": c.s3_uri.rstrip("/") if c.s3_uri else None}
        ),
    }


def _guardrail_lines(profiles: Sequence[ProfilePlan]) -> list[str]:
    """One line per Bedrock profile naming the guardrail its grants enforce."""
    lines = []
    for p in profiles:
        g = p.guardrail
        if g:
            which = f"{g['id']} version {g['version']}" if g["source"] == "existing" else f"{g['name']} (created)"
            lines.append(f"bedrock profile {p.name}: enforces guardrail {which}")
    return lines


def _bedrock_lines(bedrock: Sequence[ProfilePlan], routers: Sequence[RouterPlan]) -> list[str]:
    """One line per priced Bedrock profile and per prompt router."""
    lines = []
    for entry in bedrock:
        econ = entry.token_economics
        if not econ:
            continue
        options = ", ".join(f"{o['option']} ${o['monthly_usd']:,.2f}" for o in econ["options"])
        usd = econ["monthly_usd"]
        head = f"bedrock {entry.name}: " + ("unpriced" if usd is None else f"{econ['recommended']} ${usd:,.2f}/month")
        line = f"{head} ({options}); {econ['reason']}" if options else f"{head}; {econ['reason']}"
        glob = econ.get("global_profile")
        if glob and glob["monthly_saving_usd"] > 0:
            line += f"; on-demand through the global profile: ${glob['monthly_usd']:,.2f} (any commercial Region)"
        lines.append(line)
    for router in routers:
        cost = router.cost_range or {}
        low, high = cost.get("all_cheapest_monthly_usd"), cost.get("all_fallback_monthly_usd")
        span = (
            f"${low:,.2f} (all cheapest) to ${high:,.2f} (all fallback)/month"
            if low is not None and high is not None
            else "no workload priced"
        )
        lines.append(f"bedrock router {router.name} ({router.router_name}): {span}")
    return lines


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def decide_endpoint(index: int, endpoint: Endpoint, catalog: Catalog) -> EndpointDecisions:
    """Every decision for one config endpoint. Raises InferenceConfigError listing its problems."""
    path = f"endpoints[{index}]"
    request = endpoint_request(endpoint)
    hosting = plan_endpoint(request, catalog=catalog, path=path)
    host = hosting.host
    scaling = plan_from_config(
        path,
        endpoint,
        gpu_count=hosting.gpu_count,
        burstable=bool(host and host.instance.burstable),
        instance_type=hosting.instance_type,
        inference_component=hosting.uses_inference_component,
    )
    if scaling.owns_variant_instance_count:
        # Application Auto Scaling owns the instance count: an update keeps it (see hosting.deployment).
        hosting = replace(hosting, update_policy=replace(hosting.update_policy, retain_all_variant_properties=True))
    return EndpointDecisions(
        index=index,
        config=endpoint,
        model=model_spec(endpoint),
        hosting=hosting,
        scaling=scaling,
        warnings=tuple(scaling.warnings) + hosting.warnings,
        request=request,
        schedule=_capacity_schedule(endpoint, hosting) if host is not None else None,
    )


def plan_platform(
    config: PlatformConfig, *, catalog: Catalog | None = None, max_resources_per_stack: int = MAX_RESOURCES_PER_STACK
) -> PlatformPlan:
    """Make every decision for ``config``.

    Raises
    ------
    InferenceConfigError
        Listing every problem found across all endpoints and profiles.
    """
    cat = catalog or load_catalog()
    problems: list[str] = []
    endpoints: list[EndpointDecisions] = []
    for index, endpoint in enumerate(config.endpoints):
        try:
            endpoints.append(decide_endpoint(index, endpoint, cat))
        except InferenceConfigError as exc:
            problems.extend(exc.problems)
    specs = profile_specs(config)
    problems.extend(check_profile_specs(specs))
    logging = invocation_logging_spec(config.bedrock.invocation_logging)
    if logging is not None:
        problems.extend(check_invocation_logging(logging))
    workloads = []
    for i, profile in enumerate(config.bedrock.profiles):
        workload, found = bedrock_workload(profile.workload, f"bedrock.profiles[{i}].workload")
        workloads.append(workload)
        problems.extend(found)
    routers, router_problems = router_specs(config)
    problems.extend(router_problems)
    problems.extend(check_router_roles(specs, routers))
    savings_plan: CommitmentRecommendation | None = None
    hosted = [e for e in endpoints if e.host is not None]
    try:
        savings_plan = recommend_commitment(
            [capacity_schedule(e) for e in hosted],
            term_years=config.cost.savings_plan.term_years,
            payment=config.cost.savings_plan.payment,
            paths=[e.path for e in hosted],
        )
    except InferenceConfigError as exc:
        problems.extend(exc.problems)
    cost, cost_problems = decide_cost(config)
    problems.extend(cost_problems)
    gpu_endpoints = sum(1 for e in endpoints if e.hosting.gpu_count > 0 and e.kind is not EndpointKind.SERVERLESS)
    problems.extend(dashboard_problems(config, gpu_endpoints))
    numbers, stack_problems = assign_stacks(
        [e.footprint for e in endpoints],
        [e.config.stack for e in endpoints],
        [e.path for e in endpoints],
        max_resources=max_resources_per_stack,
    )
    problems.extend(stack_problems)
    alarm_settings = AlarmSettings(anomaly_std_devs=config.observability.anomaly_std_devs)
    for i, number in enumerate(numbers):
        endpoint_name = f"{config.name}-{endpoints[i].name}"
        hosting = endpoints[i].hosting
        endpoints[i] = replace(
            endpoints[i],
            stack=hosting_stack_name(config.name, number),
            endpoint_name=endpoint_name,
            alarms=endpoint_alarms(
                endpoints[i].kind,
                prefix=endpoint_alarm_prefix(endpoint_name, hosting.variant_name),
                label=f"endpoint {endpoint_name}",
                settings=alarm_settings,
                inference_component=hosting.uses_inference_component,
            ),
        )
    requirements = region_requirements(config, endpoints)
    if config.region:
        problems.extend(region_problems(config.region, requirements))
    # with ``account`` set, a role of another account is refused by the config constraints (``arn_account``, same
    # reason text); the account requirements become rules of environment-agnostic stacks only
    accounts = account_requirements(config)
    if problems:
        raise InferenceConfigError(problems)
    unpriced = plan_entries(specs, deploy_region=config.region)
    bedrock = [
        entry.priced(
            None
            if workload is None
            else token_economics(
                ModelSource.parse(spec.model),
                workload,
                deploy_region=config.region,
                global_allowed=spec.residency is Residency.ANY,
            )
        )
        for entry, spec, workload in zip(unpriced, specs, workloads, strict=True)
    ]
    logging_entry = logging_plan_entry(logging) if logging is not None else None
    warnings = (
        tuple(w for entry in bedrock for w in entry.warnings)
        + (logging_entry.warnings if logging_entry is not None else ())
        + cost.warnings
    )
    return PlatformPlan(
        config=config,
        endpoints=tuple(endpoints),
        catalog=cat,
        warnings=warnings,
        savings_plan=savings_plan,
        bedrock=tuple(bedrock),
        profiles=tuple(specs),
        bedrock_routers=tuple(router_plan(r) for r in routers),
        routers=tuple(routers),
        regions=requirements,
        accounts=accounts,
        bedrock_invocation_logging=logging_entry,
        cost=cost,
        name=config.name,
        account=config.account,
        region=config.region,
        tags={PLATFORM_TAG: config.name, **config.tags},
        invocation_logging=logging,
        observability=decide_observability(config, endpoints, specs, logging, alarm_settings),
    )


def decide_observability(
    config: PlatformConfig,
    endpoints: Sequence[EndpointDecisions],
    profiles: Sequence[ProfileSpec],
    logging: InvocationLoggingSpec | None,
    settings: AlarmSettings,
) -> ObservabilityPlan:
    """The ``observability`` section: topic subscription, dashboard, sampling rule, and the alarms of the
    observability stack (per profile) and of the Bedrock stack (invocation-log delivery, guardrail interventions)."""
    obs = config.observability
    gpu = tuple(e.endpoint_name for e in endpoints if e.hosting.gpu_count > 0 and e.kind is not EndpointKind.SERVERLESS)
    x = obs.xray_sampling
    guarded = [p for p in profiles if p.guardrail is not None]
    governance = tuple(delivery_failure_alarm(d) for d in (logging.delivery_paths if logging else ())) + tuple(
        intervention_alarm(i, p.name, p.guardrail.intervention_alarm_percent)
        for i, p in enumerate(guarded)
        if p.guardrail is not None
    )
    return ObservabilityPlan(
        alarm_email=obs.alarm_email,
        settings=settings,
        dashboard=DashboardDecision(
            gpu_endpoints=gpu,
            profiles=tuple(p.name for p in profiles),
            source_account_ids=tuple(obs.source_account_ids),
        )
        if obs.dashboard
        else None,
        xray_sampling=None
        if x is None
        else XRaySamplingDecision(x.service_name, x.url_path, x.fixed_rate, x.priority, x.reservoir_size),
        alarms=tuple(a for p in profiles for a in profile_alarms(p.name, settings=settings)),
        governance_alarms=governance,
        governance_dashboard=obs.dashboard and bool(governance),
    )


def region_requirements(
    config: PlatformConfig, endpoints: Sequence[EndpointDecisions]
) -> dict[str, tuple[RegionRequirement, ...]]:
    """What each part of the platform needs that not every region has (by hosting stack, ``bedrock``, ``cost``)."""
    budget = config.cost.budget
    return platform_requirements(
        [(e.path, e.stack, e.hosting.image, e.hosting.uses_inference_component) for e in endpoints],
        staged=[(e.path, e.stack) for e in endpoints if e.hosting.model_data.staging is not None],
        profiles=len(config.bedrock.profiles),
        routers=len(config.bedrock.routers),
        guardrails=[
            f"bedrock.profiles[{i}].guardrail"
            for i, p in enumerate(config.bedrock.profiles)
            if p.guardrail is not None and p.guardrail.id is None
        ],
        budget=bool(budget.monthly_limit_usd),
        budget_action=bool(budget.monthly_limit_usd and budget.deny_role_arns),
        anomaly_monitor=bool(config.cost.anomaly_monitor.notify_email),
        profile_sources=_profile_sources(config),
    )


def _profile_sources(config: PlatformConfig) -> list[RegionRequirement]:
    """The source-Region requirement of each system profile a profile or router copies (an invalid model is reported
    elsewhere)."""
    found: list[RegionRequirement] = []
    for i, profile in enumerate(config.bedrock.profiles):
        try:
            source = ModelSource.parse(profile.model)
        except InferenceConfigError:
            continue
        requirement = source_region_requirement(source, [f"bedrock.profiles[{i}].model"])
        if requirement is not None:
            found.append(requirement)
    for i, router in enumerate(config.bedrock.routers):
        for j, model in enumerate(router.models):
            try:
                source = ModelSource.parse(model)
            except InferenceConfigError:
                continue
            requirement = source_region_requirement(source, [f"bedrock.routers[{i}].models[{j}]"])
            if requirement is not None:
                found.append(requirement)
    return found


def account_requirements(config: PlatformConfig) -> dict[str, tuple[AccountRequirement, ...]]:
    """The account each part must be deployed to, from the roles it names by ARN: ``bedrock`` attaches a managed
    policy to every ``invoke_role_arns`` role (a policy attaches to roles of its own account only), ``cost`` names
    the budget deny roles (``IamActionDefinition.Roles`` takes names, resolved in the budget's account)."""
    bedrock_roles = [
        (f"bedrock.profiles[{i}].invoke_role_arns[{j}]", arn)
        for i, profile in enumerate(config.bedrock.profiles)
        for j, arn in enumerate(profile.invoke_role_arns)
    ] + [
        (f"bedrock.routers[{i}].invoke_role_arns[{j}]", arn)
        for i, router in enumerate(config.bedrock.routers)
        for j, arn in enumerate(router.invoke_role_arns)
    ]
    budget = config.cost.budget
    deny_roles = (
        [(f"cost.budget.deny_role_arns[{j}]", arn) for j, arn in enumerate(budget.deny_role_arns)]
        if budget.monthly_limit_usd
        else []
    )
    parts = {
        "bedrock": account_requirement(ARNS["invoke_role_arns"].why, bedrock_roles),
        "cost": account_requirement(ARNS["deny_role_arns"].why, deny_roles),
    }
    return {part: tuple(reqs) for part, reqs in parts.items() if reqs}


def hosting_stack_name(platform: str, number: int) -> str:
    """Name of the ``number``-th hosting stack (1-based): ``<platform>-hosting-<number>``."""
    return f"{platform}-hosting-{number}"


def capacity_schedule(decisions: EndpointDecisions) -> CapacitySchedule:
    """The weekly capacity schedule of an instance-backed endpoint (min, scheduled floors, max, price)."""
    if decisions.schedule is not None:
        return decisions.schedule
    return _capacity_schedule(decisions.config, decisions.hosting)


def _capacity_schedule(cfg: Endpoint, hosting: EndpointPlan) -> CapacitySchedule:
    return CapacitySchedule(
        price_per_hour_usd=hosting.host.price_per_hour_usd if hosting.host else 0.0,
        min_capacity=cfg.capacity.min,
        max_capacity=cfg.capacity.max,
        floors=tuple((floor.cron, floor.min) for floor in cfg.scaling.schedule),
        name=cfg.name,
    )
