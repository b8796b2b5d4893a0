"""A production variant's instance pools from the sizing's ranked hosts. Pure Python (no ``aws_cdk`` import).

Sources (the CloudFormation resource provider schema of ``AWS::SageMaker::EndpointConfig`` as cfn-lint 1.58.0
bundles it, and the SageMaker developer guide):

- ``ProductionVariant.InstancePools``: 1-5 items of ``{InstanceType, Priority, ModelNameOverride}``; ``Priority``
  1-5, "SageMaker attempts to provision instances in order of priority, starting with the lowest value";
  ``ModelNameOverride`` "a SageMaker model to use for this instance pool instead of the model specified for the
  production variant"; ``VariantInstanceProvisionTimeoutInSeconds`` 300-3600, the time SageMaker keeps retrying the
  next pool on an insufficient capacity error.
- Which endpoints take pools: "Instance pools support both real-time and asynchronous inference endpoints. You can
  use them with single-model endpoints and with inference components" (developer guide, "Deploy to multiple
  instance types with instance pools", realtime-endpoints-heterogeneous.html). Multi-model and serverless
  endpoints are not named there, so they are refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from inference_constructs.catalog import Catalog, InstanceType
from inference_constructs.containers import ServingParameters, container_environment
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.hosting.checks import key_path, refuse_with_inference_component
from inference_constructs.hosting.host_ami import host_ami_problem
from inference_constructs.hosting.request import EndpointRequest
from inference_constructs.hosting.serving_rules import host_filter, host_problem, sized_model
from inference_constructs.sizing import Fit, HostDecision, choose_host, feasible_hosts
from inference_constructs.spec import Accelerator, EndpointKind
from inference_constructs.units import HOURS_PER_MONTH

__all__ = [
    "AUTO_POOL_COUNT",
    "MAX_POOLS",
    "POOL_KINDS",
    "PROVISION_TIMEOUT_SECONDS",
    "InstancePool",
    "InstancePoolsPlan",
    "LeftOutHost",
    "check_instance_pools",
    "plan_instance_pools",
    "ranked_first_host",
]

MAX_POOLS = 5
"""``InstancePools`` maxItems, and ``Priority`` 1..5 (schema)."""
AUTO_POOL_COUNT = 3
"""Pools ``instance_pools: auto`` asks for: the cheapest host and two fallbacks (a library choice: each further
pool raises the worst-case price; give a count or a list for more)."""
PROVISION_TIMEOUT_SECONDS = (300, 3600)
"""``VariantInstanceProvisionTimeoutInSeconds`` minimum and maximum (schema)."""
POOL_KINDS = frozenset({EndpointKind.REALTIME, EndpointKind.ASYNC})
"""Endpoint kinds the developer guide names for instance pools (real-time and asynchronous)."""
_LEFT_OUT_SHOWN = 3
"""Hosts left out that the plan table names (the plan document lists every one)."""
_INSTANCE = re.compile(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")


@dataclass(frozen=True)
class InstancePool:
    """One ``InstancePools`` item: the host, its priority (1 first) and the engine settings it runs with.

    ``own_model`` is True when the engine settings on this host differ from the variant's (another tensor parallel
    degree): the pool then gets its own Model (``ModelNameOverride``) with ``environment``.
    """

    priority: int
    instance_type: str
    price_per_hour_usd: float
    devices: int
    tensor_parallel_degree: int
    memory_required_gb: float
    memory_available_gb: float
    environment: Mapping[str, str]
    own_model: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """The plan's pool entry."""
        return {
            "priority": self.priority,
            "instance_type": self.instance_type,
            "price_per_hour_usd": round(self.price_per_hour_usd, 4),
            "devices": self.devices,
            "tensor_parallel_degree": self.tensor_parallel_degree,
            "memory_required_gb": round(self.memory_required_gb, 2),
            "memory_available_gb": round(self.memory_available_gb, 2),
            "model_override": self.own_model,
            "environment": dict(self.environment) if self.own_model else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class LeftOutHost:
    """A host that fits the model but cannot join the variant's pools, and why."""

    instance_type: str
    reason: str


@dataclass(frozen=True)
class InstancePoolsPlan:
    """The variant's instance pools, cheapest (priority 1, the sizing's choice) first."""

    pools: tuple[InstancePool, ...]
    left_out: tuple[LeftOutHost, ...]
    requested: str
    """What was asked: ``auto``, a count, or ``explicit`` (a ranked list)."""
    provision_timeout_seconds: int | None = None

    @property
    def reason(self) -> str:
        """The decision in one sentence for the plan's reasons."""
        listed = ", ".join(f"{p.priority} {p.instance_type}" for p in self.pools)
        how = "in the listed order" if self.requested == "explicit" else "by price, cheapest first"
        short = ""
        if self.requested != "explicit" and len(self.pools) < (
            AUTO_POOL_COUNT if self.requested == "auto" else int(self.requested)
        ):
            short = f"; only {len(self.pools)} fitting host(s) can share the variant's settings"
        return (
            f"instance pools {listed} ({how}); SageMaker provisions from the first pool with capacity"
            f"{short}; {len(self.left_out)} other fitting host(s) left out"
        )

    @property
    def worst_price_per_hour_usd(self) -> float:
        """The dearest pool's price: what an instance costs when capacity falls through to it."""
        return max(p.price_per_hour_usd for p in self.pools)

    def summary(self, capacity_min: int, capacity_max: int) -> str:
        """One line for the plan table: the pools by priority, the worst case, and what was left out."""
        pools = ", ".join(
            f"{p.priority} {p.instance_type} ${p.price_per_hour_usd:.3f}/h TP {p.tensor_parallel_degree}"
            + (" (own model)" if p.own_model else "")
            for p in self.pools
        )
        d = self.to_dict(capacity_min, capacity_max)
        worst = (
            f"worst case ${d['worst_case_price_per_hour_usd']:.3f}/h: ${d['worst_case_monthly_usd_at_min']:,.0f} to "
            f"${d['worst_case_monthly_usd_at_max']:,.0f}/month"
        )
        left = "; ".join(f"{h.instance_type} left out: {h.reason}" for h in self.left_out[:_LEFT_OUT_SHOWN])
        if len(self.left_out) > _LEFT_OUT_SHOWN:
            left += f"; {len(self.left_out) - _LEFT_OUT_SHOWN} more left out (the plan document lists each)"
        return "; ".join(x for x in (pools, worst, left) if x)

    def to_dict(self, capacity_min: int, capacity_max: int) -> dict[str, Any]:
        """The plan's ``hosting.instance_pools`` block, with the worst-case monthly cost."""
        worst = self.worst_price_per_hour_usd
        return {
            "requested": self.requested,
            "pools": [p.to_dict() for p in self.pools],
            "left_out": [{"instance_type": h.instance_type, "reason": h.reason} for h in self.left_out],
            "variant_instance_provision_timeout_seconds": self.provision_timeout_seconds,
            "worst_case_price_per_hour_usd": round(worst, 4),
            "worst_case_monthly_usd_at_min": round(worst * capacity_min * HOURS_PER_MONTH, 2),
            "worst_case_monthly_usd_at_max": round(worst * capacity_max * HOURS_PER_MONTH, 2),
            "cost_note": "monthly_usd_at_min and monthly_usd_at_max price the first pool; every instance "
            "SageMaker provisions from a later pool costs that pool's price instead",
        }


# ------------------------------------------------------------------------------------------------ checks


def _explicit_pools(req: EndpointRequest) -> tuple[str, ...] | None:
    pools = req.instance_pools
    return tuple(pools) if isinstance(pools, tuple | list) else None


def ranked_first_host(req: EndpointRequest) -> EndpointRequest:
    """``req`` with a ranked pool list's first host as its ``instance_type`` (checked like an explicit host)."""
    listed = _explicit_pools(req)
    if listed and req.instance_type is None:
        return replace(req, instance_type=listed[0])
    return req


def pool_count(req: EndpointRequest) -> int:
    """How many pools the request asks for (0: none)."""
    pools = req.instance_pools
    if pools is None:
        return 0
    if isinstance(pools, str):
        return AUTO_POOL_COUNT
    if isinstance(pools, int):
        return pools
    return len(pools)


def check_instance_pools(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    key = key_path(path, "instance_pools")
    pools = req.instance_pools
    if req.instance_provision_timeout_seconds is not None:
        low, high = PROVISION_TIMEOUT_SECONDS
        t = req.instance_provision_timeout_seconds
        if pools is None:
            p.add(
                key_path(path, "instance_provision_timeout_seconds"),
                "is set without instance_pools",
                "set instance_pools, or remove the timeout",
                code="conflict",
            )
        elif not low <= t <= high:
            p.add(
                key_path(path, "instance_provision_timeout_seconds"),
                f"{t} is not allowed",
                f"use {low}..{high} (VariantInstanceProvisionTimeoutInSeconds)",
                code="range",
            )
    if pools is None:
        return
    if req.kind not in POOL_KINDS:
        p.add(
            key,
            f"{req.kind.value} endpoints take no instance pools",
            "use instance pools on realtime or async endpoints (the only kinds SageMaker documents them for)",
            code="conflict",
        )
        return
    refuse_with_inference_component(
        req,
        p,
        key,
        option="instance_pools",
        why=", whose copies reserve the first host's devices and memory; pools are not planned for it",
    )
    if isinstance(pools, str):
        if pools != "auto":
            p.add(key, f"{pools!r} is not allowed", "use auto, a count 1..5 or a list of instance types", code="choice")
    elif isinstance(pools, int):
        if isinstance(pools, bool) or not 1 <= pools <= MAX_POOLS:
            p.add(key, f"{pools} is not allowed", f"use 1..{MAX_POOLS} (InstancePools holds at most 5)", code="range")
    else:
        _check_pool_list(req, tuple(pools), p, key)


def _check_pool_list(req: EndpointRequest, pools: tuple[str, ...], p: ProblemCollector, key: str) -> None:
    if not 1 <= len(pools) <= MAX_POOLS:
        p.add(
            key, f"{len(pools)} instance types", f"list 1..{MAX_POOLS} (InstancePools holds at most 5)", code="length"
        )
    for i, name in enumerate(pools):
        if not isinstance(name, str) or not _INSTANCE.match(name):
            p.add(
                f"{key}[{i}]", f"{str(name)[:60]!r} is not an instance type", "use ml.<family>.<size>", code="pattern"
            )
    dupes = sorted({n for n in pools if pools.count(n) > 1})
    if dupes:
        p.add(key, f"{dupes[0]} is listed twice", "list each instance type once", code="duplicate")
    if pools and req.instance_type is not None and req.instance_type != pools[0]:
        p.add(
            key,
            f"starts with {pools[0]}, but instance_type is {req.instance_type}",
            "leave instance_type auto (the list's first host is the variant's) or list it first",
            code="conflict",
        )


# ------------------------------------------------------------------------------------------------ decisions


@dataclass(frozen=True)
class _Variant:
    """What every pool of one variant shares: the first host's settings."""

    host: HostDecision
    image_key: str | None
    ami_version: str | None
    volume_size_gb: int | None
    kms_key: bool
    environment: Mapping[str, str]


def _mismatch(inst: InstanceType, v: _Variant, volume_for: Callable[[InstanceType, float], int | None]) -> str | None:
    """Why ``inst`` cannot share the variant's settings (None when it can)."""
    first = v.host.instance
    if inst.accelerator is not first.accelerator:
        return (
            f"accelerator {inst.accelerator.value}: the pools of one variant are planned for one accelerator kind "
            f"(its image, InferenceAmiVersion, start-up timeouts and engine settings), here "
            f"{first.accelerator.value} for {first.name}"
        )
    if inst.architecture != first.architecture:
        return f"an {inst.architecture} host: the variant's image is built for {first.architecture}"
    if inst.accelerator is Accelerator.GPU and inst.devices != first.devices:
        return (
            f"{inst.devices} GPUs, {first.name} has {first.devices}: GPU metrics run 0-100 x the GPU count, and the "
            "variant's scaling targets and dashboard divide by one count"
        )
    if v.ami_version is not None:
        problem = host_ami_problem(v.ami_version, v.image_key, inst)
        if problem is not None:
            return f"the variant's InferenceAmiVersion {v.ami_version} does not run it: {problem[0]}"
    volume = volume_for(inst, v.host.weights_gb + v.host.draft_weights_gb)  # a speculative draft is stored too
    if volume != v.volume_size_gb:
        if v.volume_size_gb is None:
            return f"needs a {volume} GB ML storage volume, which the variant (on {first.name}) does not set"
        return (
            f"has local NVMe storage, which refuses the variant's VolumeSizeInGB {v.volume_size_gb}"
            if inst.local_nvme
            else f"needs a {volume} GB volume, the variant sets {v.volume_size_gb}"
        )
    if v.kms_key and inst.local_nvme != first.local_nvme:
        return (
            "the endpoint config's KmsKeyId is written for EBS-only hosts and left off on hosts with local NVMe "
            f"storage; {inst.name} and {first.name} differ"
        )
    return None


def _pool(
    priority: int,
    fit: Fit | HostDecision,
    *,
    v: _Variant,
    environment_for: Callable[[int], Mapping[str, str]],
    why: str,
) -> InstancePool:
    tp = fit.tensor_parallel_degree
    env = environment_for(tp)
    own = dict(env) != dict(v.environment)
    if own:
        why += f"; its own model: tensor parallel degree {tp} (the variant's is {v.host.tensor_parallel_degree})"
    inst = fit.instance
    return InstancePool(
        priority,
        inst.name,
        inst.price_per_hour_usd,
        fit.devices,
        tp,
        fit.memory_required_gb,
        fit.memory_available_gb,
        env,
        own,
        why,
    )


def _fits(fit: Fit | HostDecision) -> str:
    return (
        f"fits with {fit.memory_required_gb:.1f} of {fit.memory_available_gb:.1f} GiB at "
        f"${fit.instance.price_per_hour_usd:.3f}/h"
    )


def plan_instance_pools(
    req: EndpointRequest,
    host: HostDecision | None,
    *,
    catalog: Catalog,
    path: str,
    image_key: str | None,
    ami_version: str | None,
    volume_size_gb: int | None,
    parameters: ServingParameters,
    extra_env: Mapping[str, str],
    volume_for: Callable[[InstanceType, float], int | None],
) -> InstancePoolsPlan | None:
    """The variant's pools: the chosen host first, then (``auto`` or a count) the next cheapest hosts the sizing
    finds the model (with its speculative draft) fits, each left out with its reason when it cannot share the
    variant's image, AMI, volume, key or GPU count; or (a list) the listed hosts in their order, each checked like an
    explicit host. Every pool host passes the primary host's rules
    (:func:`~inference_constructs.hosting.serving_rules.host_problem`: image and kind, the serving options' prefix
    caching, AMI). A pool's container
    environment is the variant's (``parameters`` with ``extra_env``: the serving options' variables, the user's and
    the token's) at that pool's tensor parallel degree; ``volume_for(host, weights_gb)`` is the ML storage volume a
    host would get. None without pools or a host.

    Raises
    ------
    InferenceConfigError
        A listed host that does not fit the model, whose engine cannot run it, or that cannot share the variant's
        settings.
    """
    count = pool_count(req)
    if not count or host is None:
        return None

    def environment_for(degree: int) -> Mapping[str, str]:
        return container_environment(replace(parameters, tensor_parallel_degree=max(1, degree)), dict(extra_env))

    environment = environment_for(host.tensor_parallel_degree)
    filtered = host_filter(req, explicit=False)
    v = _Variant(host, image_key, ami_version, volume_size_gb, req.kms_key_arn is not None, environment)
    first = _pool(1, host, v=v, environment_for=environment_for, why=f"priority 1: the sizing's host; {_fits(host)}")
    listed = _explicit_pools(req)
    if listed is not None:
        pools = _listed_pools(
            req,
            listed,
            first,
            v=v,
            catalog=catalog,
            path=path,
            environment_for=environment_for,
            volume_for=volume_for,
        )
        return InstancePoolsPlan(pools, (), "explicit", req.instance_provision_timeout_seconds)
    chosen, left_out = [first], []
    for fit in feasible_hosts(
        sized_model(req), serving=req.serving, accelerator=req.accelerator, catalog=catalog, predicate=filtered
    ):
        if len(chosen) == count:
            break
        if fit.instance.name == host.instance.name:
            continue
        why = _mismatch(fit.instance, v, volume_for)
        if why is not None:
            left_out.append(LeftOutHost(fit.instance.name, why))
            continue
        n = len(chosen) + 1
        chosen.append(
            _pool(
                n, fit, v=v, environment_for=environment_for, why=f"priority {n}: the next cheapest that {_fits(fit)}"
            )
        )
    requested = "auto" if isinstance(req.instance_pools, str) else str(count)
    return InstancePoolsPlan(tuple(chosen), tuple(left_out), requested, req.instance_provision_timeout_seconds)


def _listed_pools(
    req: EndpointRequest,
    listed: tuple[str, ...],
    first: InstancePool,
    *,
    v: _Variant,
    catalog: Catalog,
    path: str,
    environment_for: Callable[[int], Mapping[str, str]],
    volume_for: Callable[[InstanceType, float], int | None],
) -> tuple[InstancePool, ...]:
    """The pools of a ranked list: each listed host checked like an explicit ``instance_type``; a host that cannot
    join is an error (it was asked for), not left out."""
    key = key_path(path, "instance_pools")
    p = ProblemCollector()
    pools = [first]
    for i, name in enumerate(listed[1:], start=1):
        try:
            d = choose_host(
                sized_model(req),
                serving=req.serving,
                accelerator=req.accelerator,
                instance_type=name,
                catalog=catalog,
                path=f"{key}[{i}]",
                quantization_hint=False,
            )
        except InferenceConfigError as err:
            p.extend(str(x).replace(f"{key}[{i}].instance_type", f"{key}[{i}]") for x in err.problems)
            continue
        why = _mismatch(d.instance, v, volume_for) or host_problem(req, d.instance, explicit=False)
        if why is not None:
            p.add(
                f"{key}[{i}]",
                f"{name} cannot be a pool of this variant: {why}",
                "list hosts that share the first host's accelerator, image, AMI, storage and GPU count and run "
                "its serving options",
            )
            continue
        pools.append(_pool(i + 1, d, v=v, environment_for=environment_for, why=f"priority {i + 1}: listed; {_fits(d)}"))
    p.raise_if_any()
    return tuple(pools)
