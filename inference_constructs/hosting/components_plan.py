"""Inference components as a hosting kind: several models on one instance type, each with its own copies, sized
together, and LoRA adapters on a base component. Pure Python (no ``aws_cdk`` import).

:func:`plan_hosting` is the entry point of every endpoint request: a request with ``components`` is planned here
(:func:`plan_components_endpoint`), any other by :func:`~inference_constructs.hosting.decisions.plan_endpoint`.

The sizing: each component is sized on a candidate instance type by the same memory model as an endpoint
(:func:`~inference_constructs.sizing.choose_host` with that type: the devices of the smallest tensor parallel degree
that holds it, and the host RAM its weights need to load). One copy reserves those devices and that memory
(``ComputeResourceRequirements``). The minimum copies of every component (at least one each) are packed first-fit
decreasing onto instances of the type (its devices, and 90 % of its RAM, as a single-model component); the type fits
when every copy fits one instance and the packing needs at most ``capacity.max`` instances. ``instance_type: auto``
takes the type whose packing costs least per hour (then the cheaper type); an explicit type that does not fit is
refused with what would.

Sources:

- Adapter inference components: SageMaker developer guide, "Fine-tune models with adapter inference components"
  (https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-adapt.html): an adapter component names its
  base component and the adapter's S3 location and uses the base's compute resources; API reference
  ``InferenceComponentSpecification`` (``BaseInferenceComponentName``; ``Container.ArtifactUrl`` for the adapter's
  artifacts; ``ComputeResourceRequirements`` omitted for an adapter).
- Which engine loads adapters: deepjavalibrary/djl-serving serving/docs/adapters.md ("vLLM is the only backend that
  supports LoRA adapter hosting"; ``OPTION_ENABLE_LORA`` default false, ``OPTION_MAX_LORAS`` default 4,
  ``OPTION_MAX_LORA_RANK`` pass-through, default 16, LMI >= 0.27.0) and
  serving/docs/lmi/user_guides/vllm_user_guide.md ("LoRA Adapter Support"). No source read here documents
  adapter components for the TGI, vLLM DLC, Triton or Neuron images: they are refused.
- What the adapters reserve on the device: vLLM allocates, at start-up, an A and a B buffer per adapter slot for
  every LoRA-capable layer (``containers/compatibility.json`` ``lora``, with the files read); the sizing counts it
  in the base's copy (:func:`~inference_constructs.sizing.lora_buffers`), at the rank the plan writes.
- ``SchedulingConfig`` (``PlacementStrategy`` SPREAD | BINPACK; ``AvailabilityZoneBalance`` with ``EnforcementMode``
  PERMISSIVE and ``MaxImbalance`` 0..100, which the CloudFormation schema requires with a strategy) and
  ``DataCacheConfig.EnableCaching``: the AWS::SageMaker::InferenceComponent schema cfn-lint bundles, and API reference
  ``InferenceComponentSchedulingConfig``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.catalog.models import model_family
from inference_constructs.containers.compatibility import lora_rules
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.hosting.checks import S3_URI_PATTERN, key_path
from inference_constructs.hosting.decisions import _HOST_RAM_SHARE, COMPONENT_COPIES_AT_CREATE, plan_endpoint
from inference_constructs.hosting.endpoint_plan import (
    AdapterPlan,
    ComponentPlan,
    ComponentsPlan,
    EndpointPlan,
    ModelData,
    ModelDataKind,
)
from inference_constructs.hosting.request import (
    MAX_AZ_IMBALANCE,
    Capacity,
    ComponentRequest,
    ComponentsOptions,
    EndpointRequest,
)
from inference_constructs.hosting.serving_rules import host_problem
from inference_constructs.scaling.checks import check_capacity
from inference_constructs.sizing import HostDecision, choose_host
from inference_constructs.spec import Accelerator, EndpointKind, LoraSlots, ModelSourceKind, ModelSpec, Serving

__all__ = [
    "ADAPTER_ENGINES",
    "ComponentFit",
    "plan_components_endpoint",
    "plan_hosting",
]

#: The images whose engine loads LoRA adapters, and the container variables that turn it on (``{adapters}``: the
#: number of adapters on the base, ``{rank}``: its ``max_lora_rank``). Source: djl-serving serving/docs/adapters.md
#: (LMI >= 0.27.0, vLLM backend; ``option.max_lora_rank`` is passed through to vLLM's ``max_lora_rank``).
_ENABLE_VAR, _SLOTS_VAR, _RANK_VAR = "OPTION_ENABLE_LORA", "OPTION_MAX_LORAS", "OPTION_MAX_LORA_RANK"
ADAPTER_ENGINES: dict[str, dict[str, str]] = {
    "lmi-gpu": {_ENABLE_VAR: "true", _SLOTS_VAR: "{adapters}", _RANK_VAR: "{rank}"},
}

_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
_S3 = re.compile(S3_URI_PATTERN)


@dataclass(frozen=True)
class ComponentFit:
    """One component's copy on one instance type: the sizing's host decision and what a copy reserves."""

    host: HostDecision
    accelerator_devices: int
    memory_mb: int


def plan_hosting(
    request: EndpointRequest, *, host: HostDecision | None = None, catalog: Catalog | None = None, path: str = ""
) -> EndpointPlan:
    """The plan of any endpoint request: :func:`plan_components_endpoint` when it has ``components``, else
    :func:`~inference_constructs.hosting.decisions.plan_endpoint` (``host`` applies to the latter only)."""
    if request.components is None:
        return plan_endpoint(request, host=host, catalog=catalog, path=path)
    return plan_components_endpoint(request, catalog=catalog, path=path)


def plan_components_endpoint(
    request: EndpointRequest, *, catalog: Catalog | None = None, path: str = ""
) -> EndpointPlan:
    """Plan a real-time endpoint that hosts ``request.components`` on one instance type.

    The returned plan is the first component's (its container, host and rollback settings) with the variant's
    managed instance scaling in ``inference_component`` and every component in ``components``.

    Raises
    ------
    InferenceConfigError
        Every problem of the components block; a component that no host (or not the given ``instance_type``)
        holds; a set of minimum copies that does not fit ``capacity.max`` instances of the type.
    """
    opts = request.components
    assert opts is not None
    cat = catalog or load_catalog()
    p = ProblemCollector()
    _check(request, opts, p, path)
    p.raise_if_any()
    requests = [_component_request(request, opts, c, i) for i, c in enumerate(opts.components)]
    inst, fits, packing, passed_over = _choose_type(request, opts, requests, cat, path)
    plans: list[ComponentPlan] = []
    for i, (c, creq, fit) in enumerate(zip(opts.components, requests, fits, strict=True)):
        plan = plan_endpoint(
            replace(creq, instance_type=inst.name), host=fit.host, catalog=cat, path=key_path(path, f"components[{i}]")
        )
        reason = (
            f"{fit.accelerator_devices} {inst.accelerator.value} device(s) and {fit.memory_mb} MiB of host memory per "
            f"copy on {inst.name}: tensor parallel degree {fit.host.tensor_parallel_degree}, "
            f"{fit.host.memory_required_gb:.1f} GiB of accelerator memory needed of {fit.host.memory_available_gb:.1f}"
            + (f" ({fit.host.lora.summary()})" if fit.host.lora is not None else "")
            if inst.accelerator is not Accelerator.CPU
            else f"{fit.memory_mb} MiB of host memory per copy on {inst.name}"
        )
        plans.append(
            ComponentPlan(
                name=c.name,
                plan=plan,
                accelerator_devices=fit.accelerator_devices,
                min_memory_required_mb=fit.memory_mb,
                copies=c.copies,
                copy_count=COMPONENT_COPIES_AT_CREATE,
                reason=reason,
                model=_model_source(c.model),
            )
        )
    initial = len(_pack([(c.name, f) for c, f in zip(opts.components, fits, strict=True)], inst))
    at_min = len(
        _pack([(c.name, f) for c, f in zip(opts.components, fits, strict=True) for _ in range(c.copies.min)], inst)
    )
    billed = (
        f"; at their copies.min the components need {at_min} instance(s), more than capacity.min "
        f"{request.capacity.min}: the month at minimum is priced at {at_min}"
        if at_min > request.capacity.min
        else ""
    )
    components = ComponentsPlan(
        instance_type=inst.name,
        components=tuple(plans),
        adapters=tuple(
            AdapterPlan(a.name, a.base, a.s3_uri, ModelData(_adapter_data_kind(a.s3_uri), a.s3_uri))
            for a in opts.adapters
        ),
        packing=packing,
        initial_instance_count=initial,
        min_instance_count=request.capacity.min,
        max_instance_count=request.capacity.max,
        reason=(
            f"{inst.name}: the minimum copies of {len(plans)} component(s) pack onto {len(packing)} instance(s) "
            f"(capacity.max {request.capacity.max}) at ${inst.price_per_hour_usd * len(packing):.3f}/h"
            + ("" if request.instance_type else ", the least per hour of the catalog's instance types that fit")
            + billed
        ),
        placement=opts.placement,
        max_az_imbalance=opts.max_az_imbalance,
        data_cache=opts.data_cache,
        candidates=tuple(passed_over),
        instances_for_min_copies=at_min,
    )
    first = plans[0]
    primary = first.plan
    assert primary.inference_component is not None
    assert primary.host is not None
    sized = primary.host.reason if request.instance_type else primary.host.reason.replace(", given explicitly", "")
    return replace(
        primary,
        host=replace(primary.host, reason=f"{components.reason}; components[0] ({first.name}): {sized}"),
        capacity=first.copies,
        inference_component=replace(
            primary.inference_component,
            accelerator_devices=first.accelerator_devices,
            min_memory_required_mb=first.min_memory_required_mb,
            max_instance_count=request.capacity.max,
        ),
        components=components,
        reasons=(components.reason, *(f"components[{i}] ({c.name}): {c.reason}" for i, c in enumerate(plans))),
    )


# ------------------------------------------------------------------------------------------------ checks


def _check(req: EndpointRequest, opts: ComponentsOptions, p: ProblemCollector, path: str) -> None:
    """Every problem of the components block and of the endpoint keys it cannot take."""
    if req.kind is not EndpointKind.REALTIME:
        p.add(key_path(path, "components"), f"is not available to {req.kind.value} endpoints", "use type realtime")
    for name, given in (
        ("instance_pools", req.instance_pools),
        ("serverless", req.serverless),
        ("multi_model", req.multi_model),
        ("async", req.async_inference),
    ):
        if given is not None:
            p.add(key_path(path, name), "cannot be combined with components", f"remove {name}")
    check_capacity(p, path, kind=EndpointKind.REALTIME, min_capacity=req.capacity.min, max_capacity=req.capacity.max)
    if not opts.components:
        p.add(key_path(path, "components"), "is empty", "list at least one model")
    names: set[str] = set()
    for i, c in enumerate(opts.components):
        _check_component(c, names, p, key_path(path, f"components[{i}]"))
        token = c.model.hf_token
        if i and token is not None and not token.in_environment:
            p.add(
                key_path(path, f"components[{i}].model.hf_token"),
                "stages the weights into s3, which only the first component does",
                "make it the first component, stage the weights yourself (model.source s3), or set in_environment",
            )
    _check_adapters(req, opts, names, p, path)
    if opts.max_az_imbalance is not None:
        low, high = MAX_AZ_IMBALANCE
        if not low <= opts.max_az_imbalance <= high:
            p.add(key_path(path, "max_az_imbalance"), f"{opts.max_az_imbalance} is out of range", f"use {low}..{high}")
        if opts.placement is None:
            p.add(key_path(path, "max_az_imbalance"), "needs placement", "set placement: SPREAD or BINPACK")


def _check_component(c: ComponentRequest, names: set[str], p: ProblemCollector, key: str) -> None:
    if not _NAME.match(c.name):
        p.add(f"{key}.name", f"{c.name!r} is not allowed", "use lowercase letters, digits and hyphens, 1-40")
    if c.name in names:
        p.add(f"{key}.name", f"{c.name} is given twice", "give each component its own name")
    names.add(c.name)
    check_capacity(p, f"{key}.copies", kind=EndpointKind.REALTIME, min_capacity=c.copies.min, max_capacity=c.copies.max)
    if c.accelerators_per_copy is not None and c.accelerators_per_copy < 1:
        p.add(f"{key}.accelerators_per_copy", f"{c.accelerators_per_copy} is not allowed", "use 1 or more")
    if c.memory_mb_per_copy is not None and c.memory_mb_per_copy < 128:
        p.add(f"{key}.memory_mb_per_copy", f"{c.memory_mb_per_copy} is below 128", "use 128 or more (MiB)")
    ranks = lora_rules().ranks
    if c.max_lora_rank is not None and c.max_lora_rank not in ranks:
        p.add(
            f"{key}.max_lora_rank",
            f"{c.max_lora_rank} is not a rank vLLM takes",
            f"use one of {', '.join(map(str, ranks))} (at least the largest rank of the component's adapters)",
        )
    _check_lora_environment(c, p, key)


def _text(value: object) -> str | None:
    """An environment value if it is text, else None (a value that is not text is reported on its own)."""
    return value if isinstance(value, str) else None


def _check_lora_environment(c: ComponentRequest, p: ProblemCollector, key: str) -> None:
    """A component's own ``OPTION_MAX_LORA_RANK`` / ``OPTION_MAX_LORAS`` replace the plan's, so the sizing counts
    them: each must be a value the engine takes."""
    ranks = lora_rules().ranks
    for name, value in c.environment.items():
        if not isinstance(name, str) or not isinstance(value, str):
            shown = value if isinstance(name, str) else name
            p.add(
                f"{key}.environment.{name}",
                f"{shown!r} is not a string",
                "quote it: a container variable's name and value are text",
            )
    rank, slots = (_text(c.environment.get(k)) for k in (_RANK_VAR, _SLOTS_VAR))
    if rank is not None and not (rank.isdigit() and int(rank) in ranks):
        p.add(
            f"{key}.environment.{_RANK_VAR}",
            f"{rank!r} is not a rank vLLM takes",
            f"use one of {', '.join(map(str, ranks))}, or set max_lora_rank instead",
        )
    if slots is not None and not (slots.isdigit() and int(slots) >= 1):
        p.add(
            f"{key}.environment.{_SLOTS_VAR}",
            f"{slots!r} is not a number of adapter slots",
            "use 1 or more, or leave it to the plan (the adapters on the component)",
        )


def _check_adapters(
    req: EndpointRequest, opts: ComponentsOptions, names: set[str], p: ProblemCollector, path: str
) -> None:
    by_name = {c.name: c for c in opts.components}
    for i, a in enumerate(opts.adapters):
        key = key_path(path, f"adapters[{i}]")
        if not _NAME.match(a.name):
            p.add(f"{key}.name", f"{a.name!r} is not allowed", "use lowercase letters, digits and hyphens, 1-40")
        if a.name in names:
            p.add(f"{key}.name", f"{a.name} is already a component or adapter name", "give the adapter its own name")
        names.add(a.name)
        if not _S3.match(a.s3_uri):
            p.add(f"{key}.s3_uri", f"{a.s3_uri!r} is not an s3 uri", "use s3://bucket/prefix/")
        base = by_name.get(a.base)
        if base is None:
            p.add(f"{key}.base", f"{a.base!r} is no component of this endpoint", f"use one of {', '.join(by_name)}")
        elif base.serving is not Serving.LMI or req.accelerator.value in ("inferentia", "trainium", "cpu"):
            p.add(
                f"{key}.base",
                f"{a.base} runs serving {base.serving.value} on accelerator {req.accelerator.value}, whose engine has "
                "no documented lora adapter loading for inference components",
                "serve the base with serving lmi on gpu (vllm backend)",
            )
        elif (family := model_family(base.model)) in lora_rules().families_without_lora:
            p.add(
                f"{key}.base",
                f"{a.base} serves a {family} model, which vLLM loads no lora adapters for (its model class does not "
                "support LoRA)",
                "put the adapter on a base of another family (llama, mistral, qwen2, gemma2, phi3, ...)",
            )
    bases = {a.base for a in opts.adapters}
    for i, c in enumerate(opts.components):
        if c.max_lora_rank is not None and c.name not in bases:
            p.add(
                key_path(path, f"components[{i}].max_lora_rank"),
                f"is set on {c.name}, which has no adapters",
                "remove it, or add an adapter with base " + c.name,
            )


def _adapter_env(opts: ComponentsOptions, component: ComponentRequest) -> dict[str, str]:
    """The container variables that let a base component load its adapters (none without adapters)."""
    count = sum(1 for a in opts.adapters if a.base == component.name)
    if not count:
        return {}
    rank = component.max_lora_rank or lora_rules().default_rank
    return {k: v.format(adapters=count, rank=rank) for k, v in ADAPTER_ENGINES["lmi-gpu"].items()}


def _lora_slots(environment: dict[str, str]) -> LoraSlots | None:
    """The adapter slots and rank the engine reserves device memory for, read from a component's container
    variables as the engine reads them (the plan's, or the component's own that replace them); None when the
    engine loads no adapters."""
    if str(environment.get(_ENABLE_VAR, "")).lower() != "true":
        return None
    rules = lora_rules()
    slots, rank = (_text(environment.get(k)) for k in (_SLOTS_VAR, _RANK_VAR))
    return LoraSlots(
        slots=int(slots) if slots and slots.isdigit() else rules.default_slots,
        rank=int(rank) if rank and rank.isdigit() else rules.default_rank,
    )


def _model_source(model: ModelSpec) -> str:
    """Where a component's weights come from, as the plan shows it: the S3 URI, or the hub id (at its revision)."""
    if model.source is ModelSourceKind.S3:
        return model.s3_uri or ""
    label = model.id or ""
    return f"{label}@{model.revision}" if model.revision else label


def _adapter_data_kind(uri: str) -> ModelDataKind:
    return ModelDataKind.ARCHIVE if uri.endswith(".tar.gz") else ModelDataKind.PREFIX


def _component_request(
    req: EndpointRequest, opts: ComponentsOptions, c: ComponentRequest, index: int
) -> EndpointRequest:
    """The request one component's container is planned from: the endpoint's options with the component's model,
    serving stack and environment (endpoint-level data capture and metrics stay on the first)."""
    first = index == 0
    environment = {**_adapter_env(opts, c), **c.environment}
    slots = _lora_slots(environment)
    return EndpointRequest(
        kind=EndpointKind.REALTIME,
        model=c.model if slots is None else replace(c.model, lora=slots),
        serving=c.serving,
        accelerator=req.accelerator,
        instance_type=req.instance_type,
        capacity=Capacity(0, c.copies.max),
        kms_key_arn=req.kms_key_arn,
        vpc=req.vpc,
        network_isolation=req.network_isolation,
        data_capture=req.data_capture if first else None,
        deployment=req.deployment,
        environment=environment,
        host_ami=req.host_ami,
        metrics=req.metrics if first else None,
    )


# ------------------------------------------------------------------------------------------------ sizing


def _fit(
    creq: EndpointRequest, c: ComponentRequest, inst: InstanceType, cat: Catalog, key: str, *, explicit: bool
) -> ComponentFit:
    """What one copy of ``c`` reserves on ``inst`` (raises the sizing's refusal when it does not fit; on a type the
    plan chooses, also when the KV cache holds fewer max-length sequences than requested)."""
    host = choose_host(
        creq.model,
        serving=creq.serving,
        accelerator=creq.accelerator,
        instance_type=inst.name,
        catalog=cat,
        path=key,
        quantization_hint=False,
    )
    if not explicit and host.kv is not None and not host.kv.batch_fits:
        raise InferenceConfigError(
            f"{key}.model: {inst.name} holds {host.kv.max_length_sequences} of the {host.kv.requested_sequences} "
            "requested max-length sequences; the automatic choice holds them all"
        )
    needed = host.devices if inst.accelerator is not Accelerator.CPU else 0
    devices = needed
    if c.accelerators_per_copy is not None and inst.accelerator is not Accelerator.CPU:
        if c.accelerators_per_copy < needed:
            raise InferenceConfigError(
                f"{key}.accelerators_per_copy: {c.accelerators_per_copy} is fewer than the {needed} device(s) the "
                f"model needs on {inst.name}; use {needed} or more, or leave it to the plan"
            )
        devices = c.accelerators_per_copy
    if devices > inst.devices:
        raise InferenceConfigError(
            f"{key}.accelerators_per_copy: {devices} exceeds the {inst.devices} device(s) of {inst.name}"
        )
    needed_gb = max(host.host_ram_required_gb, host.weights_gb, 1.0)
    if inst.accelerator is Accelerator.CPU:
        needed_gb = max(needed_gb, host.memory_required_gb)
    memory = c.memory_mb_per_copy or max(128, math.ceil(needed_gb * 1024))
    if memory > _host_mb(inst):
        raise InferenceConfigError(
            f"{key}.memory_mb_per_copy: {memory} MiB per copy exceeds the {_host_mb(inst)} MiB a component may "
            f"reserve on {inst.name} (90% of its RAM)"
        )
    return ComponentFit(host, devices, memory)


def _host_mb(inst: InstanceType) -> int:
    return math.floor(inst.memory_gib * 1024 * _HOST_RAM_SHARE)


def _pack(copies: list[tuple[str, ComponentFit]], inst: InstanceType) -> tuple[tuple[str, ...], ...]:
    """First-fit decreasing of the copies (devices, then memory) onto instances of ``inst``."""
    bins: list[tuple[int, int, list[str]]] = []
    for name, fit in sorted(copies, key=lambda x: (-x[1].accelerator_devices, -x[1].memory_mb)):
        for j, (devices, memory, names) in enumerate(bins):
            if fit.accelerator_devices <= devices and fit.memory_mb <= memory:
                bins[j] = (devices - fit.accelerator_devices, memory - fit.memory_mb, [*names, name])
                break
        else:
            bins.append((inst.devices - fit.accelerator_devices, _host_mb(inst) - fit.memory_mb, [name]))
    return tuple(tuple(names) for _, _, names in bins)


def _min_copies(opts: ComponentsOptions, fits: list[ComponentFit]) -> list[tuple[str, ComponentFit]]:
    return [(c.name, f) for c, f in zip(opts.components, fits, strict=True) for _ in range(max(1, c.copies.min))]


def _try(
    req: EndpointRequest,
    opts: ComponentsOptions,
    requests: list[EndpointRequest],
    inst: InstanceType,
    cat: Catalog,
    *,
    path: str,
) -> tuple[list[ComponentFit], tuple[tuple[str, ...], ...]]:
    """The fits and the packing of the minimum copies on ``inst``; raises why it does not fit."""
    fits: list[ComponentFit] = []
    problems: list[str] = []
    for i, (c, creq) in enumerate(zip(opts.components, requests, strict=True)):
        key = key_path(path, f"components[{i}]")
        problem = host_problem(creq, inst, explicit=req.instance_type is not None)
        if problem is not None:
            problems.append(f"{key} ({c.name}): {problem}")
            continue
        try:
            fits.append(_fit(creq, c, inst, cat, key, explicit=req.instance_type is not None))
        except InferenceConfigError as err:
            problems.extend(f"{c.name}: {x}" for x in err.problems)
    if opts.adapters and inst.accelerator is not Accelerator.GPU:
        problems.append(
            f"{key_path(path, 'adapters')}: {inst.name} is a {inst.accelerator.value} host; lora adapters load on "
            "lmi's vllm backend on gpu only"
        )
    if problems:
        raise InferenceConfigError(problems)
    packing = _pack(_min_copies(opts, fits), inst)
    if len(packing) > req.capacity.max:
        per_copy = ", ".join(
            f"{c.name} {f.accelerator_devices} device(s) + {f.memory_mb} MiB x {max(1, c.copies.min)}"
            for c, f in zip(opts.components, fits, strict=True)
        )
        raise InferenceConfigError(
            f"{key_path(path, 'instance_type')}: {inst.name} ({inst.devices} device(s), {_host_mb(inst)} MiB per "
            f"instance) needs {len(packing)} instances for the components' minimum copies ({per_copy}), "
            f"more than capacity.max {req.capacity.max}"
        )
    return fits, packing


def _choose_type(
    req: EndpointRequest, opts: ComponentsOptions, requests: list[EndpointRequest], cat: Catalog, path: str
) -> tuple[InstanceType, list[ComponentFit], tuple[tuple[str, ...], ...], list[str]]:
    """The given instance type (checked), or the one whose packing of the minimum copies costs least per hour."""
    key = key_path(path, "instance_type")
    if req.instance_type is not None:
        inst = cat.get(req.instance_type)
        if inst is None:
            raise InferenceConfigError(f"{key}: {req.instance_type} is not in the instance catalog; use auto")
        try:
            fits, packing = _try(req, opts, requests, inst, cat, path=path)
        except InferenceConfigError as err:
            best = _cheapest(req, opts, requests, cat, path)
            fix = (
                f"the cheapest instance type that fits them all is {best[0].name} ({len(best[2])} instance(s) at "
                f"minimum copies)"
                if best is not None
                else "no catalog instance type fits them; lower copies.min, raise capacity.max or quantize"
            )
            raise InferenceConfigError(
                f"{key}: {req.instance_type} cannot hold the components: {'; '.join(err.problems)}; {fix}"
            ) from None
        return inst, fits, packing, []
    best = _cheapest(req, opts, requests, cat, path)
    if best is None:
        raise InferenceConfigError(
            f"{key_path(path, 'components')}: no catalog instance type holds the components' minimum copies on at "
            f"most capacity.max {req.capacity.max} instance(s); lower copies.min, raise capacity.max or quantize"
        )
    return best


def _cheapest(
    req: EndpointRequest, opts: ComponentsOptions, requests: list[EndpointRequest], cat: Catalog, path: str
) -> tuple[InstanceType, list[ComponentFit], tuple[tuple[str, ...], ...], list[str]] | None:
    """The candidate type whose packed minimum copies cost least per hour (ties: the cheaper type), and a few of the
    cheaper types passed over."""
    best: tuple[float, float, InstanceType, list[ComponentFit], tuple[tuple[str, ...], ...]] | None = None
    passed: list[tuple[float, str]] = []
    for inst in cat.by_price:
        if inst.burstable or not inst.chosen_automatically:
            continue
        if best is not None and inst.price_per_hour_usd >= best[0]:
            break  # one instance of it costs more than the best packing
        try:
            fits, packing = _try(replace(req, instance_type=None), opts, requests, inst, cat, path=path)
        except InferenceConfigError as err:
            passed.append((inst.price_per_hour_usd, f"{inst.name}: {err.problems[0]}"))
            continue
        cost = inst.price_per_hour_usd * len(packing)
        if best is None or (cost, inst.price_per_hour_usd) < (best[0], best[1]):
            best = (cost, inst.price_per_hour_usd, inst, fits, packing)
    if best is None:
        return None
    cheaper = [why for price, why in passed if price < best[1]][:5]
    return best[2], best[3], best[4], cheaper
