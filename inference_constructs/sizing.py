"""Right-sizing: the cheapest SageMaker host whose accelerator memory fits a model, with the reason.

Pure Python (never imports ``aws_cdk``): used by the hosting constructs, the ``plan`` command and
the benchmarks. The memory model and the choice rule are documented in ``docs/sizing.md``.

Memory model (all sizes GiB = 2**30 bytes)::

    weights   = parameters x bytes_per_parameter(dtype)
    kv_cache  = 2 x layers x kv_heads x head_dim x kv_bytes x max_context_tokens x max_concurrent_sequences
                (architecture given), else the same formula with an estimated shape (see
                :func:`estimated_architecture`: 8 KV heads x 128, Llama 3 / Qwen 2.5 layer counts)
    required  = (weights + kv_cache) x (1 + RUNTIME_OVERHEAD_FRACTION) + RUNTIME_OVERHEAD_PER_SHARD_GIB x shards
    available = usable fraction x memory of each shard (a GPU, or a NeuronCore's share of its device) x shards

A host fits when ``required <= available`` for some tensor parallel degree (1, 2, 4, 8 GPUs up to
the device count; powers of two and the full core count in NeuronCores) and its host RAM holds
``weights x host_ram_factor + HOST_RAM_RESERVE_GIB``. The choice is the cheapest fitting host per
hour among the allowed accelerator kinds; ties go to fewer devices.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.errors import InferenceConfigError
from inference_constructs.spec import (
    Accelerator,
    AcceleratorChoice,
    DType,
    ModelArchitecture,
    ModelSpec,
    Serving,
)

__all__ = [
    "CLASSICAL_DEFAULT_FOOTPRINT_GIB",
    "CPU_USABLE_FRACTION",
    "ESTIMATED_LAYERS",
    "GIB",
    "GPU_TP_DEGREES",
    "GPU_USABLE_FRACTION",
    "HOST_RAM_RESERVE_GIB",
    "HOST_RAM_WEIGHTS_FACTOR",
    "NEURON_USABLE_FRACTION",
    "QUANTIZATION_CAVEAT",
    "RUNTIME_OVERHEAD_FRACTION",
    "RUNTIME_OVERHEAD_PER_SHARD_GIB",
    "Fit",
    "HostDecision",
    "MemoryEstimate",
    "QuantizationHint",
    "Rejection",
    "RejectionKind",
    "choose_host",
    "estimated_architecture",
    "evaluate_host",
    "feasible_hosts",
    "memory_estimate",
]

GIB = float(2**30)
"""Bytes in a GiB."""

GPU_USABLE_FRACTION = 0.90
"""Share of each GPU's memory the server may use (vLLM's default ``gpu_memory_utilization`` is 0.9)."""

NEURON_USABLE_FRACTION = 0.90
"""Share of each Neuron device's memory the server may use (runtime and collectives keep the rest)."""

CPU_USABLE_FRACTION = 0.80
"""Share of host RAM a model may use on a CPU host (OS, container, server workers keep the rest)."""

RUNTIME_OVERHEAD_FRACTION = 0.05
"""Activations and temporary buffers, as a share of weights + KV cache."""

RUNTIME_OVERHEAD_PER_SHARD_GIB = 1.0
"""Fixed cost per shard (CUDA context and NCCL buffers on a GPU; runtime buffers on a NeuronCore)."""

HOST_RAM_RESERVE_GIB = 4.0
"""Host RAM for the OS, the container and the server process, before any weights."""

HOST_RAM_WEIGHTS_FACTOR: dict[Accelerator, float] = {
    Accelerator.GPU: 1.0,
    Accelerator.INFERENTIA: 2.0,
    Accelerator.TRAINIUM: 2.0,
    Accelerator.CPU: 0.0,
}
"""Host RAM needed per GiB of weights while loading: GPU servers stage the checkpoint through host
memory once; Neuron compilation holds the checkpoint and the compiled shards (a 7B model is
OOM-killed on inf2.xlarge, an 8B compile fails on trn1.2xlarge's 32 GiB)."""

CLASSICAL_DEFAULT_FOOTPRINT_GIB = 2.0
"""Resident size assumed for a classical model (scikit-learn, XGBoost, PyTorch on CPU) whose parameter
count is not given: the model plus the framework runtime and the serving workers."""

GPU_TP_DEGREES = (1, 2, 4, 8)
"""Tensor parallel degrees tried over GPUs (never above the instance's GPU count)."""

_NEURON_TP_DEGREES = (1, 2, 4, 8, 16, 32, 64, 128)

_ESTIMATED_KV_WIDTH = 1024
"""KV heads x head dim assumed without an architecture: 8 x 128, the grouped-query shape of Llama 3,
Mistral and Qwen 2.5 (7B-405B)."""

QUANTIZATION_CAVEAT = (
    "not applied: weight-only int8/int4 (AWQ, GPTQ, bitsandbytes) needs a quantized checkpoint or runtime "
    "quantization and can lower output quality; evaluate it on your own prompts before switching"
)


class RejectionKind(StrEnum):
    """Why a candidate host was not chosen."""

    ACCELERATOR = "accelerator"
    """The host's accelerator kind is not allowed for this serving stack / request."""
    DEVICES = "devices"
    """The host has more devices than allowed (e.g. multi-model endpoints: single GPU only)."""
    BURSTABLE = "burstable"
    """Burstable ml.t* hosts are not chosen unless allowed."""
    EXCLUDED = "excluded"
    """The caller's predicate excluded the host."""
    DEVICE_MEMORY = "device_memory"
    """The model does not fit the accelerator memory at any allowed tensor parallel degree."""
    HOST_MEMORY = "host_memory"
    """The host RAM cannot load the weights."""


@dataclass(frozen=True)
class Rejection:
    """A cheaper (or explicitly requested) candidate that was not chosen, and why."""

    instance_type: str
    reason: str
    kind: RejectionKind = RejectionKind.DEVICE_MEMORY
    price_per_hour_usd: float = 0.0


@dataclass(frozen=True)
class MemoryEstimate:
    """Memory a model needs, independent of the host (GiB).

    ``per_shard_overhead_gb`` is added once per GPU / NeuronCore shard when fitted to a host.
    """

    weights_gb: float
    kv_cache_gb: float
    overhead_fraction: float
    per_shard_overhead_gb: float
    kv_estimated: bool
    footprint_default: bool

    @property
    def base_gb(self) -> float:
        """Weights + KV cache + proportional overhead, before per-shard overhead."""
        return (self.weights_gb + self.kv_cache_gb) * (1.0 + self.overhead_fraction)

    def required_gb(self, shards: int) -> float:
        """Total memory needed when split over ``shards`` devices or NeuronCores."""
        return self.base_gb + self.per_shard_overhead_gb * shards


@dataclass(frozen=True)
class Fit:
    """How a model fits one host (or why it does not)."""

    instance: InstanceType
    fits: bool
    devices: int
    tensor_parallel_degree: int
    memory_required_gb: float
    memory_available_gb: float
    host_ram_required_gb: float
    rejection: Rejection | None


@dataclass(frozen=True)
class QuantizationHint:
    """A cheaper host that int8 or int4 weights would fit. Never applied automatically."""

    dtype: DType
    instance_type: str
    price_per_hour_usd: float
    saving_percent: float
    caveat: str = QUANTIZATION_CAVEAT

    def __str__(self) -> str:
        return (
            f"{self.dtype.value} weights would fit {self.instance_type} at ${self.price_per_hour_usd:.3f}/h "
            f"({self.saving_percent:.0f}% cheaper); {self.caveat}"
        )


@dataclass(frozen=True)
class HostDecision:
    """The chosen host, what it uses, and why.

    ``devices`` counts the GPUs or Neuron devices one model copy uses; ``tensor_parallel_degree`` is
    in GPUs, or in NeuronCores on Inferentia/Trainium. ``memory_available_gb`` is the usable
    accelerator memory of the shards used (host RAM x usable fraction on CPU hosts). ``rejected``
    lists the cheaper candidates that were passed over (a few per reason), cheapest first.
    """

    instance: InstanceType
    accelerator: Accelerator
    devices: int
    tensor_parallel_degree: int
    memory_required_gb: float
    memory_available_gb: float
    weights_gb: float
    kv_cache_gb: float
    price_per_hour_usd: float
    reason: str
    rejected: tuple[Rejection, ...]
    quantization_hint: QuantizationHint | None
    explicit: bool = False
    model_copies: int = 1
    host_ram_required_gb: float = 0.0
    kv_estimated: bool = False

    @property
    def instance_type(self) -> str:
        """The SageMaker instance type name, e.g. ``ml.g5.xlarge``."""
        return self.instance.name

    @property
    def price_per_month_usd(self) -> float:
        """On-demand price of one instance for 730 hours."""
        return self.price_per_hour_usd * 730.0


# --------------------------------------------------------------------------------------------- memory model


ESTIMATED_LAYERS: tuple[tuple[float, int], ...] = (
    (1.0, 16),  # Llama 3.2 1B
    (3.0, 28),  # Llama 3.2 3B
    (8.0, 32),  # Llama 3.1 8B
    (14.0, 48),  # Qwen 2.5 14B
    (32.0, 64),  # Qwen 2.5 32B
    (70.0, 80),  # Llama 3.1 70B
    (405.0, 126),  # Llama 3.1 405B
)
"""(parameters in billions, layers) of grouped-query models with 8 KV heads x 128 dims, from their
model cards: the envelope the KV-cache estimate follows when no architecture is given."""


def estimated_architecture(parameters_billion: float) -> ModelArchitecture:
    """Transformer shape assumed when none is given.

    Grouped-query attention with 8 KV heads of 128 dims (the widest common GQA shape: Llama 3,
    Qwen 2.5 14B+) and the layer count of :data:`ESTIMATED_LAYERS`, interpolated linearly in
    log(parameters) and rounded up (16 below 1B; extrapolated above 405B). Multi-head-attention
    models (e.g. Llama 2 7B/13B) have up to 5x larger KV caches: give their ``architecture``.
    """
    p = max(parameters_billion, 1e-6)
    points = ESTIMATED_LAYERS
    if p <= points[0][0]:
        layers = float(points[0][1])
    else:
        lo, hi = points[-2], points[-1]
        for left, right in itertools.pairwise(points):
            if p <= right[0]:
                lo, hi = left, right
                break
        t = (math.log(p) - math.log(lo[0])) / (math.log(hi[0]) - math.log(lo[0]))
        layers = lo[1] + t * (hi[1] - lo[1])
    return ModelArchitecture(layers=max(1, math.ceil(layers - 1e-9)), kv_heads=8, head_dim=_ESTIMATED_KV_WIDTH // 8)


def _kv_bytes(dtype: DType) -> float:
    # Weight-only quantization (int8/int4/fp8 weights) keeps a 16-bit KV cache by default.
    return 4.0 if dtype is DType.FP32 else 2.0


@lru_cache(maxsize=4096)
def memory_estimate(model: ModelSpec, *, llm: bool = True) -> MemoryEstimate:
    """Memory ``model`` needs (GiB), per the documented model.

    ``llm=False`` (classical serving) counts weights only (no KV cache), and a model without
    ``parameters_billion`` gets :data:`CLASSICAL_DEFAULT_FOOTPRINT_GIB`. An LLM without
    ``parameters_billion`` cannot be sized: the caller must reject it or take an explicit host.
    """
    if model.parameters_billion is None:
        return MemoryEstimate(
            weights_gb=CLASSICAL_DEFAULT_FOOTPRINT_GIB,
            kv_cache_gb=0.0,
            overhead_fraction=0.0,
            per_shard_overhead_gb=0.0,
            kv_estimated=False,
            footprint_default=True,
        )
    weights = model.parameters_billion * 1e9 * model.dtype.bytes_per_parameter / GIB
    if not llm:
        return MemoryEstimate(weights, 0.0, RUNTIME_OVERHEAD_FRACTION, 0.0, False, False)
    arch = model.architecture or estimated_architecture(model.parameters_billion)
    per_token = 2.0 * arch.layers * arch.kv_heads * arch.head_dim * _kv_bytes(model.dtype)
    kv = per_token * model.max_context_tokens * model.max_concurrent_sequences / GIB
    return MemoryEstimate(
        weights_gb=weights,
        kv_cache_gb=kv,
        overhead_fraction=RUNTIME_OVERHEAD_FRACTION,
        per_shard_overhead_gb=RUNTIME_OVERHEAD_PER_SHARD_GIB,
        kv_estimated=model.architecture is None,
        footprint_default=False,
    )


# --------------------------------------------------------------------------------------------- feasibility


def _tp_degrees(inst: InstanceType) -> tuple[int, ...]:
    if inst.accelerator is Accelerator.GPU:
        return tuple(d for d in GPU_TP_DEGREES if d <= inst.devices)
    if inst.accelerator.is_neuron:
        cores = inst.neuron_cores
        return tuple(sorted({d for d in _NEURON_TP_DEGREES if d <= cores} | {cores}))
    return (1,)


def _shard_memory(inst: InstanceType) -> float:
    """Usable GiB of one shard: a GPU, a NeuronCore's share of its device, or the host RAM of a CPU host."""
    if inst.accelerator is Accelerator.GPU:
        return inst.device_memory_gib * GPU_USABLE_FRACTION
    if inst.accelerator.is_neuron:
        return inst.memory_per_neuron_core_gib * NEURON_USABLE_FRACTION
    return inst.memory_gib * CPU_USABLE_FRACTION


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def evaluate_host(estimate: MemoryEstimate, inst: InstanceType) -> Fit:
    """Whether ``estimate`` fits ``inst``: the smallest tensor parallel degree whose shards hold it, and
    enough host RAM to load the weights. Accelerator-kind rules are the caller's."""
    usable = _shard_memory(inst)
    host_ram_needed = estimate.weights_gb * HOST_RAM_WEIGHTS_FACTOR[inst.accelerator] + HOST_RAM_RESERVE_GIB
    if inst.accelerator is Accelerator.CPU:
        host_ram_needed = 0.0
    degrees = _tp_degrees(inst)
    chosen = 0
    for tp in degrees:
        if estimate.required_gb(tp) <= usable * tp + 1e-9:
            chosen = tp
            break
    if not chosen:
        tp = degrees[-1]
        need, have = estimate.required_gb(tp), usable * tp
        if inst.accelerator is Accelerator.CPU:
            why = f"needs {_fmt(need)} GB of host memory, has {_fmt(have)} GB usable"
        else:
            unit = "NeuronCore" if inst.accelerator.is_neuron else "GPU"
            why = f"needs {_fmt(need)} GB, has {_fmt(have)} GB usable on {_plural(tp, unit)}"
        return Fit(inst, False, 0, 0, need, have, host_ram_needed, _reject(inst, RejectionKind.DEVICE_MEMORY, why))
    need, have = estimate.required_gb(chosen), usable * chosen
    devices = _devices_for(inst, chosen)
    if host_ram_needed > inst.memory_gib:
        why = (
            f"host RAM {_fmt(inst.memory_gib)} GB cannot load {_fmt(estimate.weights_gb)} GB of weights; "
            f"needs {_fmt(host_ram_needed)} GB"
        )
        return Fit(
            inst, False, devices, chosen, need, have, host_ram_needed, _reject(inst, RejectionKind.HOST_MEMORY, why)
        )
    return Fit(inst, True, devices, chosen, need, have, host_ram_needed, None)


def _devices_for(inst: InstanceType, tp: int) -> int:
    if inst.accelerator is Accelerator.GPU:
        return tp
    if inst.accelerator.is_neuron:
        return max(1, math.ceil(tp / max(1, inst.neuron_cores_per_device)))
    return 0


def _reject(inst: InstanceType, kind: RejectionKind, why: str) -> Rejection:
    return Rejection(inst.name, why, kind, inst.price_per_hour_usd)


# --------------------------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class _Rules:
    allowed: frozenset[Accelerator]
    max_devices: int | None
    allow_burstable: bool
    predicate: Callable[[InstanceType], bool] | None

    @property
    def screening_key(self) -> tuple[frozenset[Accelerator], int | None, bool]:
        return self.allowed, self.max_devices, self.allow_burstable


@dataclass(frozen=True, eq=False)
class _Host:
    """Per-instance constants of the fit test, precomputed once per catalog."""

    inst: InstanceType
    usable: float
    degrees: tuple[int, ...]
    ram_factor: float
    is_cpu: bool


@lru_cache(maxsize=32)
def _hosts(cat: Catalog) -> tuple[_Host, ...]:
    return tuple(
        _Host(
            i,
            _shard_memory(i),
            _tp_degrees(i),
            HOST_RAM_WEIGHTS_FACTOR[i.accelerator],
            i.accelerator is Accelerator.CPU,
        )
        for i in cat.by_price
    )


def _screen(inst: InstanceType, rules: _Rules, serving: Serving) -> Rejection | None:
    if inst.accelerator not in rules.allowed:
        kinds = ", ".join(sorted(a.value for a in rules.allowed))
        return _reject(
            inst, RejectionKind.ACCELERATOR, f"{inst.accelerator.value} host; {serving.value} may use {kinds}"
        )
    if rules.max_devices is not None and inst.devices > rules.max_devices:
        return _reject(inst, RejectionKind.DEVICES, f"{inst.devices} devices; at most {rules.max_devices} allowed")
    if inst.burstable and not rules.allow_burstable:
        return _reject(inst, RejectionKind.BURSTABLE, "burstable ml.t* host; not chosen for autoscaled endpoints")
    return None


def _excluded(inst: InstanceType) -> Rejection:
    return _reject(inst, RejectionKind.EXCLUDED, "excluded by the caller's instance filter")


_REJECTIONS_PER_KIND = 3


def feasible_hosts(
    model: ModelSpec,
    *,
    serving: Serving,
    accelerator: AcceleratorChoice = AcceleratorChoice.AUTO,
    catalog: Catalog | None = None,
    max_devices: int | None = None,
    allow_burstable: bool = False,
    predicate: Callable[[InstanceType], bool] | None = None,
) -> tuple[Fit, ...]:
    """Every catalog host the model fits under the same rules as :func:`choose_host`, cheapest first."""
    cat = catalog or load_catalog()
    rules = _Rules(serving.accelerators(accelerator), max_devices, allow_burstable, predicate)
    est = memory_estimate(model, llm=_is_llm_sizing(model, serving))
    out = []
    for host in _screened(cat, rules.screening_key, serving)[0]:
        if predicate is None or predicate(host.inst):
            fit = evaluate_host(est, host.inst)
            if fit.fits:
                out.append(fit)
    return tuple(out)


# --------------------------------------------------------------------------------------------- choice


def _is_llm_sizing(model: ModelSpec, serving: Serving) -> bool:
    return serving.is_llm or (serving in (Serving.CUSTOM, Serving.TRITON) and model.parameters_billion is not None)


def choose_host(
    model: ModelSpec,
    *,
    serving: Serving,
    accelerator: AcceleratorChoice = AcceleratorChoice.AUTO,
    instance_type: str | None = None,
    catalog: Catalog | None = None,
    path: str = "model",
    max_devices: int | None = None,
    allow_burstable: bool = False,
    predicate: Callable[[InstanceType], bool] | None = None,
    quantization_hint: bool = True,
) -> HostDecision:
    """The cheapest host per hour whose accelerator memory fits ``model``, or check an explicit one.

    Parameters
    ----------
    model:
        What is served; ``parameters_billion``, ``dtype``, ``max_context_tokens``,
        ``max_concurrent_sequences`` and ``architecture`` drive the memory model.
    serving:
        Serving stack; ``serving.accelerators(accelerator)`` is the set of accelerator kinds allowed
        (auto: any accelerator for LLM stacks, CPU for classical ones).
    accelerator:
        Narrow the accelerator kind. Default: ``auto``.
    instance_type:
        An explicit host to check instead of choosing. Default: the cheapest fitting host is chosen.
    catalog:
        Instance facts and prices. Default: the packaged us-east-1 catalog.
    path:
        Key path of the endpoint in the config, used in error messages (e.g. ``endpoints[0]``).
    max_devices:
        Only hosts with at most this many devices (``1`` for multi-model endpoints on GPU, which need
        single-GPU instance types). Default: no limit.
    allow_burstable:
        Also consider burstable ``ml.t*`` hosts (never for autoscaled endpoints). Default: they are skipped.
    predicate:
        Extra filter on candidate hosts. Default: every catalog host is a candidate.
    quantization_hint:
        Compute :attr:`HostDecision.quantization_hint`. Default: yes.

    Returns
    -------
    HostDecision
        The host, devices, tensor parallel degree, memory figures, price, reason, the cheaper
        candidates rejected (a few per reason) and a quantization hint.

    Raises
    ------
    InferenceConfigError
        No allowed accelerator for ``serving``; an LLM without ``parameters_billion`` and no
        ``instance_type``; an unknown or disallowed ``instance_type``, or one that cannot hold the
        model (with the numbers); no catalog host fits.
    """
    cat = catalog or load_catalog()
    allowed = serving.accelerators(accelerator)
    if not allowed:
        supported = sorted(a.value for a in Serving.accelerators(serving, AcceleratorChoice.AUTO))
        raise InferenceConfigError(
            f"{path}.accelerator: {accelerator.value} is not available for serving {serving.value}; "
            f"use auto or one of {', '.join(supported)}"
        )
    llm = _is_llm_sizing(model, serving)
    rules = _Rules(allowed, max_devices, allow_burstable, predicate)
    if instance_type is not None:
        return _check_explicit(
            model,
            serving=serving,
            accelerator=accelerator,
            name=instance_type,
            cat=cat,
            path=path,
            rules=rules,
            llm=llm,
            want_hint=quantization_hint,
        )
    if llm and model.parameters_billion is None:
        raise InferenceConfigError(
            f"{path}.model.parameters_billion: unknown, so the host cannot be sized; "
            f"give parameters_billion or an explicit instance_type"
        )
    est = memory_estimate(model, llm=llm)
    decision = _cheapest(est, cat, rules, serving)
    if decision is None:
        raise InferenceConfigError(_no_fit_message(est, cat, rules, serving, path))
    fit, rejected = decision
    hint = (
        _quantization_hint(model, llm=llm, cat=cat, rules=rules, serving=serving, chosen=fit)
        if quantization_hint
        else None
    )
    return _decision(est, fit, rejected, hint, explicit=False, serving=serving)


def _cheapest(
    est: MemoryEstimate, cat: Catalog, rules: _Rules, serving: Serving
) -> tuple[Fit, tuple[Rejection, ...]] | None:
    """Scan the candidates cheapest first and stop at the first host that fits. Rejections are the
    cheaper hosts passed over, at most a few per reason (messages are only built for those)."""
    candidates, screened = _screened(cat, rules.screening_key, serving)
    counts: dict[RejectionKind, int] = {}
    passed_over: list[Rejection] = []

    def keep(kind: RejectionKind) -> bool:
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        return n < _REJECTIONS_PER_KIND

    predicate = rules.predicate
    base, per_shard, weights = est.base_gb, est.per_shard_overhead_gb, est.weights_gb
    for host in candidates:
        if predicate is not None and not predicate(host.inst):
            if keep(RejectionKind.EXCLUDED):
                passed_over.append(_excluded(host.inst))
            continue
        room = host.usable - per_shard
        tp = 0
        if room > 0 and base <= room * host.degrees[-1] + 1e-9:
            tp = next(d for d in host.degrees if base <= room * d + 1e-9)
            if host.is_cpu or host.inst.memory_gib >= weights * host.ram_factor + HOST_RAM_RESERVE_GIB:
                price = host.inst.price_per_hour_usd
                early = _first_per_kind(r for r in screened if r.price_per_hour_usd <= price)
                rejected = sorted((*early, *passed_over), key=lambda r: r.price_per_hour_usd)
                return evaluate_host(est, host.inst), tuple(rejected)
        if keep(RejectionKind.HOST_MEMORY if tp else RejectionKind.DEVICE_MEMORY):
            fit = evaluate_host(est, host.inst)
            assert fit.rejection is not None
            passed_over.append(fit.rejection)
    return None


def _first_per_kind(rejections: Iterable[Rejection]) -> list[Rejection]:
    counts: dict[RejectionKind, int] = {}
    out = []
    for r in rejections:
        n = counts.get(r.kind, 0)
        if n < _REJECTIONS_PER_KIND:
            out.append(r)
            counts[r.kind] = n + 1
    return out


@lru_cache(maxsize=256)
def _screened(
    cat: Catalog, key: tuple[frozenset[Accelerator], int | None, bool], serving: Serving
) -> tuple[tuple[_Host, ...], tuple[Rejection, ...]]:
    """(candidate hosts, screening rejections), both cheapest first; cached per rule set."""
    rules = _Rules(key[0], key[1], key[2], None)
    candidates: list[_Host] = []
    rejected: list[Rejection] = []
    for h in _hosts(cat):
        why = _screen(h.inst, rules, serving)
        if why is None:
            candidates.append(h)
        else:
            rejected.append(why)
    return tuple(candidates), tuple(rejected)


def _no_fit_message(est: MemoryEstimate, cat: Catalog, rules: _Rules, serving: Serving, path: str) -> str:
    kinds = ", ".join(sorted(a.value for a in rules.allowed))
    biggest = 0.0
    for inst in cat.instances:
        if _screen(inst, rules, serving) is None and (rules.predicate is None or rules.predicate(inst)):
            usable = _shard_memory(inst)
            biggest = max(biggest, usable * _tp_degrees(inst)[-1])
    return (
        f"{path}.model: no {kinds} host in the catalog holds the model; needs at least "
        f"{_fmt(est.required_gb(1))} GB, the largest allowed host has {_fmt(biggest)} GB usable; "
        f"quantize (int8/int4), shorten max_context_tokens or max_concurrent_sequences, or allow another accelerator"
    )


def _check_explicit(
    model: ModelSpec,
    *,
    serving: Serving,
    accelerator: AcceleratorChoice,
    name: str,
    cat: Catalog,
    path: str,
    rules: _Rules,
    llm: bool,
    want_hint: bool,
) -> HostDecision:
    inst = cat.get(name)
    key = f"{path}.instance_type"
    if inst is None:
        raise InferenceConfigError(f"{key}: {name} {_unknown_instance_hint(name, cat)}")
    if inst.accelerator not in rules.allowed:
        kinds = ", ".join(sorted(a.value for a in rules.allowed))
        raise InferenceConfigError(
            f"{key}: {name} is a {inst.accelerator.value} host; serving {serving.value} "
            f"with accelerator {accelerator.value} may use {kinds}"
        )
    if rules.max_devices is not None and inst.devices > rules.max_devices:
        raise InferenceConfigError(
            f"{key}: {name} has {inst.devices} devices; at most {rules.max_devices} allowed here "
            f"(multi-model endpoints on GPU need a single-GPU instance type)"
        )
    if llm and model.parameters_billion is None:
        # Unknown size: trust the user, state that nothing was checked.
        shards = max(1, inst.devices if inst.accelerator is Accelerator.GPU else inst.neuron_cores)
        usable = _shard_memory(inst)
        return HostDecision(
            instance=inst,
            accelerator=inst.accelerator,
            devices=inst.devices,
            tensor_parallel_degree=shards,
            memory_required_gb=0.0,
            memory_available_gb=usable * shards,
            weights_gb=0.0,
            kv_cache_gb=0.0,
            price_per_hour_usd=inst.price_per_hour_usd,
            reason=f"{name} given explicitly; parameters_billion unknown, so the memory fit was not checked",
            rejected=(),
            quantization_hint=None,
            explicit=True,
            model_copies=1,
        )
    est = memory_estimate(model, llm=llm)
    fit = evaluate_host(est, inst)
    if not fit.fits:
        assert fit.rejection is not None
        if fit.rejection.kind is RejectionKind.HOST_MEMORY:
            what = f"{name} cannot load the model; {fit.rejection.reason}"
        else:
            what = f"{name} cannot hold the model; {fit.rejection.reason}"
        cheapest = _cheapest(est, cat, rules, serving)
        fix = (
            f"use {cheapest[0].instance.name} or larger, or quantize" if cheapest else "quantize or pick a larger host"
        )
        raise InferenceConfigError(f"{key}: {what}; {fix}")
    hint = _quantization_hint(model, llm=llm, cat=cat, rules=rules, serving=serving, chosen=fit) if want_hint else None
    return _decision(est, fit, (), hint, explicit=True, serving=serving)


def _unknown_instance_hint(name: str, cat: Catalog) -> str:
    parts = name.split(".")
    family = parts[1] if len(parts) == 3 and parts[0] == "ml" else ""
    sizes = [i.name for i in cat.instances if i.family == family]
    what = "is not a sagemaker hosting instance type in the catalog"
    if sizes:
        return f"{what}; {family} sizes: {', '.join(sizes)}"
    families = sorted({i.family for i in cat.instances})
    return f"{what}; use ml.<family>.<size> with a family of {', '.join(families)}"


_QUANTIZED = (DType.INT8, DType.INT4)


def _quantization_hint(
    model: ModelSpec, *, llm: bool, cat: Catalog, rules: _Rules, serving: Serving, chosen: Fit
) -> QuantizationHint | None:
    if not llm or model.parameters_billion is None:
        return None
    current = model.dtype.bytes_per_parameter
    for dtype in _QUANTIZED:
        if dtype.bytes_per_parameter >= current:
            continue
        est = memory_estimate(replace(model, dtype=dtype), llm=True)
        found = _cheapest(est, cat, rules, serving)
        if found is None:
            continue
        fit = found[0]
        price, base = fit.instance.price_per_hour_usd, chosen.instance.price_per_hour_usd
        if price < base - 1e-9:
            return QuantizationHint(dtype, fit.instance.name, price, round(100.0 * (base - price) / base, 1))
    return None


def _decision(
    est: MemoryEstimate,
    fit: Fit,
    rejected: tuple[Rejection, ...],
    hint: QuantizationHint | None,
    *,
    explicit: bool,
    serving: Serving,
) -> HostDecision:
    inst = fit.instance
    copies = 1
    if inst.accelerator is Accelerator.GPU and fit.tensor_parallel_degree:
        copies = max(1, inst.devices // fit.tensor_parallel_degree)
    elif inst.accelerator.is_neuron and fit.tensor_parallel_degree:
        copies = max(1, inst.neuron_cores // fit.tensor_parallel_degree)
    return HostDecision(
        instance=inst,
        accelerator=inst.accelerator,
        devices=fit.devices,
        tensor_parallel_degree=fit.tensor_parallel_degree,
        memory_required_gb=round(fit.memory_required_gb, 3),
        memory_available_gb=round(fit.memory_available_gb, 3),
        weights_gb=round(est.weights_gb, 3),
        kv_cache_gb=round(est.kv_cache_gb, 3),
        price_per_hour_usd=inst.price_per_hour_usd,
        reason=_reason(est, fit, rejected, explicit, serving),
        rejected=rejected,
        quantization_hint=hint,
        explicit=explicit,
        model_copies=copies,
        host_ram_required_gb=round(fit.host_ram_required_gb, 3),
        kv_estimated=est.kv_estimated,
    )


def _reason(est: MemoryEstimate, fit: Fit, rejected: tuple[Rejection, ...], explicit: bool, serving: Serving) -> str:
    inst = fit.instance
    if inst.accelerator is Accelerator.CPU:
        where = f"{_fmt(fit.memory_available_gb)} GB usable host memory"
    elif inst.accelerator.is_neuron:
        where = (
            f"{_fmt(fit.memory_available_gb)} GB usable on {_plural(fit.tensor_parallel_degree, 'NeuronCore')} "
            f"({_plural(fit.devices, 'device')})"
        )
    else:
        where = f"{_fmt(fit.memory_available_gb)} GB usable on {_plural(fit.tensor_parallel_degree, 'GPU')}"
    if est.footprint_default:
        need = f"assumed {_fmt(fit.memory_required_gb)} GB classical-model footprint"
    else:
        kv = " (estimated)" if est.kv_estimated else ""
        need = (
            f"needs {_fmt(fit.memory_required_gb)} GB (weights {_fmt(est.weights_gb)}, "
            f"KV cache {_fmt(est.kv_cache_gb)}{kv}, overhead)"
        )
    head = "given explicitly" if explicit else f"cheapest {inst.accelerator.value} host that fits"
    skipped = sum(1 for r in rejected if r.kind in (RejectionKind.DEVICE_MEMORY, RejectionKind.HOST_MEMORY))
    tail = f"; {skipped} cheaper host(s) too small" if skipped and not explicit else ""
    return f"{inst.name} ${inst.price_per_hour_usd:.3f}/h, {head}: {need}; {where}{tail}"
