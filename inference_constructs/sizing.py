"""Right-sizing: the cheapest SageMaker host whose accelerator memory fits a model, with the reason.

Pure Python (never imports ``aws_cdk``): used by the hosting constructs, the ``plan`` command and
the benchmarks. The memory model and the choice rule are documented in ``docs/sizing.md``; the
engine rules it applies (families, dtypes per accelerator generation, tensor parallel degrees,
Neuron SDK per instance family) are data in ``inference_constructs/containers/compatibility.json``.

Memory model (all sizes GiB = 2**30 bytes), per shard (a GPU, or a NeuronCore) at tensor parallel
degree ``tp``::

    weights    = as stored: 16-bit embeddings/output layer + quantized body + scales (int4/int8/fp8),
                 else parameters x bytes_per_parameter(dtype)
    padding    = Neuron: attention heads padded to a multiple of tp (their q/o weights);
                 both: KV-head weights replicated when tp > kv_heads
    kv_shard   = kv_cache x ceil(kv_heads / tp) / kv_heads      (replicated KV heads are counted)
    per_shard  = ((weights + padding) / tp + kv_shard) x (1 + overhead) + per_shard_overhead
    usable     = usable fraction x memory the device reports (GiB) [/ NeuronCores per device]

A host fits at ``tp`` when the engine accepts ``tp`` (GPU: it divides the attention heads, KV heads
split, or replicated where the engine does that; Neuron: the allowed degrees of the instance
family), ``per_shard <= usable x (1 - margin floor)``, the engine can load the model's family and
run its dtype on the host's accelerator generation, and its host RAM loads the weights.

The KV cache is sized for the concurrency target: ``max_concurrent_sequences`` sequences of
``max_context_tokens``. A chosen host always holds it. Engines with a paged KV cache (vLLM, TGI)
fill whatever memory is left with KV blocks and start as soon as one max-length sequence fits, so an
explicitly given host that holds fewer max-length sequences than the target is accepted, and the
plan says how many it holds (``kv_cache_tokens``, ``max_length_sequences``, ``batch_fits``); engines
that compile a static batch (Neuron) must hold the whole target.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.catalog.models import (
    ESTIMATED_LAYERS,
    estimated_architecture,
    model_family,
    model_features,
    resolve_architecture,
    resolve_model,
)
from inference_constructs.containers.compatibility import (
    EngineRules,
    dtype_quality,
    dtype_support,
    engine_for,
    family_problem,
    feature_problem,
    headroom,
    load_compatibility,
    margin_floor_fraction,
    neuron_sdk_problem,
    quantized_layout,
    tensor_parallel_degrees,
)
from inference_constructs.errors import InferenceConfigError
from inference_constructs.spec import (
    Accelerator,
    AcceleratorChoice,
    DType,
    ModelSpec,
    ResolvedArchitecture,
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
    "MARGIN_FLOOR_FRACTION",
    "NEURON_USABLE_FRACTION",
    "QUANTIZATION_CAVEAT",
    "RUNTIME_OVERHEAD_FRACTION",
    "RUNTIME_OVERHEAD_PER_SHARD_GIB",
    "Fit",
    "HostDecision",
    "KvCapacity",
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
"""Share of each GPU's reported memory the server may use (vLLM's default ``gpu_memory_utilization`` is 0.9)."""

NEURON_USABLE_FRACTION = 0.90
"""Share of each Neuron device's memory the server may use (runtime and collectives keep the rest)."""

CPU_USABLE_FRACTION = 0.80
"""Share of host RAM a model may use on a CPU host (OS, container, server workers keep the rest)."""

RUNTIME_OVERHEAD_FRACTION = headroom(Accelerator.GPU).overhead_fraction
"""Activations and temporary buffers, as a share of weights + KV cache (``compatibility.json`` headroom)."""

RUNTIME_OVERHEAD_PER_SHARD_GIB = headroom(Accelerator.GPU).per_shard_gib
"""Fixed cost per shard (CUDA context, NCCL buffers and CUDA graphs on a GPU; runtime buffers on a NeuronCore)."""

MARGIN_FLOOR_FRACTION = margin_floor_fraction()
"""Share of the usable accelerator memory that must stay free on a fitting host (5%)."""

HOST_RAM_RESERVE_GIB = 4.0
"""Host RAM for the OS, the container and the server process, before any weights."""

HOST_RAM_WEIGHTS_FACTOR: dict[Accelerator, float] = {
    Accelerator.GPU: 1.0,
    Accelerator.INFERENTIA: 2.0,
    Accelerator.TRAINIUM: 2.0,
    Accelerator.CPU: 0.0,
}
"""Host RAM needed per GiB of weights while loading: GPU servers stage the checkpoint through host
memory once; Neuron compilation on the host holds the checkpoint and the compiled shards (a 7B model
is OOM-killed on inf2.xlarge, an 8B compile fails on trn1.2xlarge's 32 GiB). With pre-compiled
Neuron artifacts (``ModelSpec.neuron_compiled``) nothing is compiled and only the reserve applies."""

CLASSICAL_DEFAULT_FOOTPRINT_GIB = 2.0
"""Resident size assumed for a classical model (scikit-learn, XGBoost, PyTorch on CPU) whose parameter
count is not given: the model plus the framework runtime and the serving workers."""

GPU_TP_DEGREES = (1, 2, 4, 8)
"""Tensor parallel degrees tried over GPUs (never above the instance's GPU count)."""

QUANTIZATION_CAVEAT = (
    "not applied: a lower-precision dtype needs a matching checkpoint or load-time quantization and can lower "
    "output quality; evaluate it on your own prompts before switching"
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
    ENGINE = "engine"
    """The engine on this host cannot run the model: family, dtype on this accelerator generation, Neuron SDK."""
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
    """Memory a model needs before it is placed on a host (GiB).

    ``weights_gb`` is the checkpoint as stored; ``kv_cache_gb`` the whole KV cache without
    replication. Placement adds head padding, KV replication and overhead (:func:`evaluate_host`).
    ``architecture`` is the completed shape (``None`` for classical models).
    """

    weights_gb: float
    kv_cache_gb: float
    overhead_fraction: float
    per_shard_overhead_gb: float
    kv_estimated: bool
    footprint_default: bool
    architecture: ResolvedArchitecture | None = None
    weight_bytes: float = 2.0
    neuron_compiled: bool = False
    kv_per_token_gb: float = 0.0
    context_tokens: int = 0
    sequences: int = 0

    def kv_gb(self, sequences: int) -> float:
        """KV cache of ``sequences`` sequences of ``context_tokens`` (all KV heads, no replication)."""
        return self.kv_per_token_gb * self.context_tokens * sequences

    @property
    def base_gb(self) -> float:
        """Weights + KV cache + proportional overhead, before per-shard overhead, padding and replication."""
        return (self.weights_gb + self.kv_cache_gb) * (1.0 + self.overhead_fraction)

    def required_gb(self, shards: int) -> float:
        """Total memory needed over ``shards`` shards, without padding or KV replication."""
        return self.base_gb + self.per_shard_overhead_gb * shards


@dataclass(frozen=True)
class Fit:
    """How a model fits one host (or why it does not).

    ``memory_required_gb`` is the per-shard need times the degree (with padding and replicated KV
    heads); ``heads_per_shard`` / ``kv_heads_per_shard`` what each shard holds; ``padding_gb`` the
    extra weights of padded or replicated heads; ``degree_rejections`` why each smaller (or
    invalid) degree was not taken.
    """

    instance: InstanceType
    fits: bool
    devices: int
    tensor_parallel_degree: int
    memory_required_gb: float
    memory_available_gb: float
    host_ram_required_gb: float
    rejection: Rejection | None
    heads_per_shard: int = 0
    kv_heads_per_shard: int = 0
    padding_gb: float = 0.0
    degree_rejections: tuple[str, ...] = ()
    dtype_note: str = ""
    kv: KvCapacity | None = None


@dataclass(frozen=True)
class KvCapacity:
    """What the KV cache holds on a host, within the margin floor.

    ``tokens`` is the KV capacity in tokens: with a paged engine (vLLM, TGI) every token the usable
    memory leaves after weights and overhead; with a static batch (Neuron) the compiled
    ``max_concurrent_sequences x max_context_tokens``. ``max_length_sequences`` is how many
    ``max_context_tokens`` sequences that holds at once (at most the target); ``batch_fits`` whether it
    holds the whole target. When it does not (only on an explicit host with a paged engine), the engine
    still admits up to the target, as shorter sequences leave room (continuous batching).
    """

    tokens: int
    context_tokens: int
    requested_sequences: int
    max_length_sequences: int
    paged: bool

    @property
    def batch_fits(self) -> bool:
        """The host holds every requested sequence at its maximum length at once."""
        return self.max_length_sequences >= self.requested_sequences

    def summary(self) -> str:
        """One clause for the reason."""
        n, ctx = self.requested_sequences, self.context_tokens
        if self.batch_fits:
            return f"KV cache {self.tokens:,} tokens ({n} x {ctx:,} fit)"
        return (
            f"KV cache {self.tokens:,} tokens: {self.max_length_sequences} of the {n} requested {ctx:,}-token "
            f"sequences at once; the engine's continuous batching admits up to {n} while shorter sequences leave room"
        )

    def to_dict(self) -> dict[str, object]:
        """The plan's ``kv_cache`` block."""
        return {
            "tokens": self.tokens,
            "max_length_sequences": self.max_length_sequences,
            "requested_sequences": self.requested_sequences,
            "batch_fits": self.batch_fits,
            "allocation": "paged" if self.paged else "static",
        }


@dataclass(frozen=True)
class QuantizationHint:
    """A cheaper host that another dtype would fit and the engine would run. Never applied automatically."""

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
    ``architecture`` is the completed model shape (its ``estimated`` fields are guesses).
    ``kv_cache_gb`` is the KV cache counted in ``memory_required_gb``: the concurrency target, or on an
    explicit host with a paged KV cache that holds fewer, the max-length sequences it holds (``kv``).
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
    architecture: ResolvedArchitecture | None = None
    heads_per_shard: int = 0
    kv_heads_per_shard: int = 0
    padding_gb: float = 0.0
    degree_rejections: tuple[str, ...] = ()
    dtype_note: str = ""
    kv: KvCapacity | None = None
    """What the KV cache holds on this host (``None`` for classical models and unchecked explicit hosts)."""

    @property
    def instance_type(self) -> str:
        """The SageMaker instance type name, e.g. ``ml.g5.xlarge``."""
        return self.instance.name

    @property
    def price_per_month_usd(self) -> float:
        """On-demand price of one instance for 730 hours."""
        return self.price_per_hour_usd * 730.0

    @property
    def margin_gb(self) -> float:
        """Usable accelerator memory left free by the model on the shards it uses."""
        return self.memory_available_gb - self.memory_required_gb


# --------------------------------------------------------------------------------------------- memory model


def _kv_bytes(dtype: DType) -> float:
    # Weight-only quantization (int8/int4/fp8 weights) keeps a 16-bit KV cache by default.
    return 4.0 if dtype is DType.FP32 else 2.0


def _stored_weights_gb(model: ModelSpec, arch: ResolvedArchitecture | None) -> float:
    """Weights as the checkpoint stores them: quantized layers plus scales, embeddings and output layer 16-bit."""
    params = (model.parameters_billion or 0.0) * 1e9
    layout = quantized_layout(model.dtype)
    if layout is None or arch is None:
        return params * model.dtype.bytes_per_parameter / GIB
    embed = float(arch.vocab_size * arch.hidden_size)
    sixteen_bit = embed if arch.tie_word_embeddings else 2.0 * embed
    body = max(0.0, params - sixteen_bit)
    stored = sixteen_bit * 2.0 + body * layout.bits / 8.0
    if layout.group_size:
        stored += body / layout.group_size * layout.per_group_bytes
    if layout.per_row_bytes:
        stored += body / arch.hidden_size * layout.per_row_bytes
    return stored / GIB


@lru_cache(maxsize=4096)
def memory_estimate(model: ModelSpec, *, llm: bool = True) -> MemoryEstimate:
    """Memory ``model`` needs (GiB), per the documented model.

    ``llm=False`` (classical serving) counts weights only (no KV cache), and a model without
    ``parameters_billion`` gets :data:`CLASSICAL_DEFAULT_FOOTPRINT_GIB`. An LLM without
    ``parameters_billion`` (given or known by id) cannot be sized: the caller must reject it or take
    an explicit host.
    """
    model = resolve_model(model)
    if model.parameters_billion is None:
        return MemoryEstimate(CLASSICAL_DEFAULT_FOOTPRINT_GIB, 0.0, 0.0, 0.0, False, True)
    if not llm:
        weights = model.parameters_billion * 1e9 * model.dtype.bytes_per_parameter / GIB
        return MemoryEstimate(weights, 0.0, RUNTIME_OVERHEAD_FRACTION, 0.0, False, False)
    arch = resolve_architecture(model)
    assert arch is not None  # parameters are known, so every missing field can be estimated
    per_token = 2.0 * arch.layers * arch.kv_heads * arch.head_dim * _kv_bytes(model.dtype)
    kv = per_token * model.max_context_tokens * model.max_concurrent_sequences / GIB
    kv_fields = {"layers", "kv_heads", "head_dim"}
    return MemoryEstimate(
        weights_gb=_stored_weights_gb(model, arch),
        kv_cache_gb=kv,
        overhead_fraction=RUNTIME_OVERHEAD_FRACTION,
        per_shard_overhead_gb=RUNTIME_OVERHEAD_PER_SHARD_GIB,
        kv_estimated=bool(kv_fields & set(arch.estimated)),
        footprint_default=False,
        architecture=arch,
        weight_bytes=model.dtype.bytes_per_parameter,
        neuron_compiled=model.neuron_compiled,
        kv_per_token_gb=per_token / GIB,
        context_tokens=model.max_context_tokens,
        sequences=model.max_concurrent_sequences,
    )


# --------------------------------------------------------------------------------------------- feasibility


def _usable_per_shard(inst: InstanceType) -> float:
    """Usable GiB of one shard: a GPU, a NeuronCore's share of its device, or the host RAM of a CPU host."""
    if inst.accelerator is Accelerator.GPU:
        return inst.device_memory_reported_gib * GPU_USABLE_FRACTION
    if inst.accelerator.is_neuron:
        return inst.memory_per_neuron_core_gib * NEURON_USABLE_FRACTION
    return inst.memory_gib * CPU_USABLE_FRACTION


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@dataclass(frozen=True)
class _Shard:
    need: float
    heads: int
    kv_heads: int
    padding_gb: float


def _shard_need(est: MemoryEstimate, tp: int, neuron: bool, sequences: int | None = None) -> _Shard:
    """Per-shard need at ``tp`` with the KV cache of ``sequences`` max-length sequences (default: the target)."""
    arch = est.architecture
    if arch is None:
        return _Shard(est.base_gb / tp + est.per_shard_overhead_gb, 0, 0, 0.0)
    kv_per_shard = math.ceil(arch.kv_heads / tp)
    heads = math.ceil(arch.attention_heads / tp) if neuron else arch.attention_heads // tp
    extra_heads = heads * tp - arch.attention_heads  # padded query heads (q and o projections)
    extra_kv = kv_per_shard * tp - arch.kv_heads  # replicated or padded KV heads (k and v projections)
    extra_params = 2.0 * arch.layers * arch.hidden_size * arch.head_dim * (extra_heads + extra_kv)
    padding = extra_params * est.weight_bytes / GIB
    kv_total = est.kv_cache_gb if sequences is None else est.kv_gb(sequences)
    kv_shard = kv_total * kv_per_shard / arch.kv_heads
    need = ((est.weights_gb + padding) / tp + kv_shard) * (1.0 + est.overhead_fraction) + est.per_shard_overhead_gb
    return _Shard(need, heads, kv_per_shard, padding)


def _kv_tokens_per_shard(est: MemoryEstimate, tp: int, neuron: bool, limit: float) -> int:
    """KV tokens the shards at ``tp`` hold within ``limit`` GiB each, after weights, padding and overhead."""
    arch = est.architecture
    if arch is None or est.kv_per_token_gb <= 0.0:
        return 0
    fixed = _shard_need(est, tp, neuron, 0)
    per_token = est.kv_per_token_gb * fixed.kv_heads / arch.kv_heads * (1.0 + est.overhead_fraction)
    return max(0, math.floor((limit - fixed.need) / per_token + 1e-9))


def _engine_row(engine: EngineRules | None) -> dict[str, str]:
    if engine is None:
        return {}
    row: dict[str, str] = load_compatibility()["engines"][engine.key]
    return row


def _paged_kv(engine: EngineRules | None) -> bool:
    """The engine fills free memory with KV blocks and starts with one max-length sequence (``kv_cache``)."""
    return _engine_row(engine).get("kv_cache") == "paged"


def _replicates_kv_heads(engine: EngineRules | None) -> bool:
    """The GPU engine replicates KV heads when the degree exceeds them (vLLM), or needs them split (TGI)."""
    return _engine_row(engine).get("kv_heads", "split-or-replicate") == "split-or-replicate"


def _gpu_degree_problem(arch: ResolvedArchitecture | None, tp: int, replicate_kv: bool = True) -> str | None:
    if arch is None or tp == 1:
        return None
    if arch.attention_heads % tp:
        return f"TP {tp}: does not divide {arch.attention_heads} attention heads"
    kv = arch.kv_heads
    if not replicate_kv and kv % tp:
        return f"TP {tp}: does not divide {kv} KV heads (the engine does not replicate KV heads)"
    if (kv >= tp and kv % tp) or (kv < tp and tp % kv):
        return f"TP {tp}: {kv} KV heads cannot be split or replicated evenly"
    return None


def _host_ram_needed(est: MemoryEstimate, inst: InstanceType) -> float:
    if inst.accelerator is Accelerator.CPU:
        return 0.0
    factor = HOST_RAM_WEIGHTS_FACTOR[inst.accelerator]
    if inst.accelerator.is_neuron and est.neuron_compiled:
        factor = 0.0
    return est.weights_gb * factor + HOST_RAM_RESERVE_GIB


@lru_cache(maxsize=65536)
def evaluate_host(
    estimate: MemoryEstimate, inst: InstanceType, engine: EngineRules | None = None, admit_fewer: bool = False
) -> Fit:
    """Whether ``estimate`` fits ``inst``: the smallest tensor parallel degree the engine accepts whose
    shards hold it with the margin floor free, and enough host RAM to load the weights.

    ``engine`` gives the allowed degrees, whether KV heads may be replicated and how the KV cache is
    allocated (default: every degree of the accelerator kind, a static KV cache). The concurrency
    target (``max_concurrent_sequences`` max-length sequences) must fit, unless ``admit_fewer`` and the
    engine's KV cache is paged: then the host fits when at least one max-length sequence does, at the
    degree that holds the most (an explicit host: the engine would start and batch what fits). Family,
    dtype and Neuron SDK rules are the caller's (:func:`choose_host`).
    """
    est = estimate
    usable = _usable_per_shard(inst)
    host_ram_needed = _host_ram_needed(est, inst)
    if inst.accelerator is Accelerator.CPU:
        need = est.required_gb(1)
        have = usable
        if need > have + 1e-9:
            why = f"needs {_fmt(need)} GB of host memory, has {_fmt(have)} GB usable"
            return Fit(inst, False, 0, 0, need, have, 0.0, _reject(inst, RejectionKind.DEVICE_MEMORY, why))
        return Fit(inst, True, 0, 1, need, have, 0.0, None)
    neuron = inst.accelerator.is_neuron
    unit = "NeuronCore" if neuron else "GPU"
    limit = usable * (1.0 - MARGIN_FLOOR_FRACTION)
    paged = _paged_kv(engine)
    replicate_kv = _replicates_kv_heads(engine)
    notes: list[str] = []
    last: tuple[int, _Shard] | None = None
    valid: list[int] = []
    invalid: list[tuple[int, str]] = []
    for tp in tensor_parallel_degrees(engine, inst):
        problem = None if neuron else _gpu_degree_problem(est.architecture, tp, replicate_kv)
        if problem:
            notes.append(problem)
            invalid.append((tp, problem))
            continue
        valid.append(tp)
        shard = _shard_need(est, tp, neuron)
        last = (tp, shard)
        if shard.need > limit:
            notes.append(f"TP {tp}: needs {_fmt(shard.need)} GB per {unit}, {_fmt(limit)} GB fits with the margin")
            continue
        kv = _kv_capacity(est, tp, neuron, limit, paged)
        return _placed(est, inst, tp, shard, usable=usable, host_ram_needed=host_ram_needed, notes=tuple(notes), kv=kv)
    if admit_fewer and paged and est.architecture is not None and est.sequences > 1:
        fewer = _most_full_sequences(est, valid, neuron, limit)
        if fewer is not None:
            tp, held = fewer
            shard = _shard_need(est, tp, neuron, held)
            kv = _kv_capacity(est, tp, neuron, limit, paged)
            others = tuple(n for n in notes if not n.startswith(f"TP {tp}:"))
            return _placed(est, inst, tp, shard, usable=usable, host_ram_needed=host_ram_needed, notes=others, kv=kv)
    if last is None:
        why = "; ".join(notes) or f"no tensor parallel degree fits its {unit}s"
        return Fit(inst, False, 0, 0, 0.0, 0.0, host_ram_needed, _reject(inst, RejectionKind.DEVICE_MEMORY, why))
    tp, shard = last
    larger = "".join(f"; {problem}" for d, problem in invalid if d > tp)
    why = (
        f"needs {_fmt(shard.need * tp)} GB, has {_fmt(usable * tp)} GB usable on {_plural(tp, unit)} "
        f"({_fmt(shard.need)} per {unit} above {_fmt(limit)} with the {MARGIN_FLOOR_FRACTION:.0%} margin){larger}"
    )
    return Fit(
        inst,
        False,
        0,
        0,
        shard.need * tp,
        usable * tp,
        host_ram_needed,
        _reject(inst, RejectionKind.DEVICE_MEMORY, why),
        degree_rejections=tuple(notes),
    )


def _most_full_sequences(est: MemoryEstimate, degrees: list[int], neuron: bool, limit: float) -> tuple[int, int] | None:
    """(degree, max-length sequences held) for the degree holding the most, if any holds one; else None."""
    best: tuple[int, int] | None = None
    for tp in degrees:
        held = min(est.sequences, _kv_tokens_per_shard(est, tp, neuron, limit) // max(1, est.context_tokens))
        if held >= 1 and (best is None or held > best[1]):
            best = (tp, held)
    return best


def _kv_capacity(est: MemoryEstimate, tp: int, neuron: bool, limit: float, paged: bool) -> KvCapacity | None:
    """The KV capacity at ``tp``: every token that fits under ``limit`` when paged, else the compiled target."""
    if est.architecture is None or est.kv_per_token_gb <= 0.0:
        return None
    target = est.context_tokens * est.sequences
    tokens = _kv_tokens_per_shard(est, tp, neuron, limit) if paged else target
    sequences = min(est.sequences, tokens // max(1, est.context_tokens)) if paged else est.sequences
    return KvCapacity(tokens, est.context_tokens, est.sequences, sequences, paged)


def _placed(
    est: MemoryEstimate,
    inst: InstanceType,
    tp: int,
    shard: _Shard,
    *,
    usable: float,
    host_ram_needed: float,
    notes: tuple[str, ...],
    kv: KvCapacity | None,
) -> Fit:
    """The fit at ``tp`` (refused for host RAM when the host cannot load the weights)."""
    fit = Fit(
        inst,
        True,
        _devices_for(inst, tp),
        tp,
        shard.need * tp,
        usable * tp,
        host_ram_needed,
        None,
        shard.heads,
        shard.kv_heads,
        shard.padding_gb,
        notes,
        kv=kv,
    )
    if host_ram_needed > inst.memory_gib:
        why = (
            f"host RAM {_fmt(inst.memory_gib)} GB cannot load {_fmt(est.weights_gb)} GB of weights; "
            f"needs {_fmt(host_ram_needed)} GB"
        )
        return replace(fit, fits=False, rejection=_reject(inst, RejectionKind.HOST_MEMORY, why))
    return fit


def _devices_for(inst: InstanceType, tp: int) -> int:
    if inst.accelerator is Accelerator.GPU:
        return tp
    if inst.accelerator.is_neuron:
        return max(1, math.ceil(tp / max(1, inst.neuron_cores_per_device)))
    return 0


def _reject(inst: InstanceType, kind: RejectionKind, why: str) -> Rejection:
    return Rejection(inst.name, why, kind, inst.price_per_hour_usd)


def _engine_problem(model: ModelSpec, serving: Serving, inst: InstanceType) -> tuple[str | None, str]:
    """(why ``serving``'s engine on ``inst`` cannot run ``model``, dtype note) - (None, note) when it can."""
    rules = engine_for(serving, inst)
    if rules is None:
        if serving.is_llm:  # e.g. vllm on Neuron: the library pins no image that would run it there
            return f"no {serving.value} image is pinned for {inst.accelerator.value} hosts", ""
        return None, ""
    problem = family_problem(rules, model_family(model)) or neuron_sdk_problem(rules, inst)
    if problem:
        return problem, ""
    missing = feature_problem(rules, model_features(model))
    if missing is not None:
        return f"{missing[0]}; use {missing[1]}", ""
    support = dtype_support(rules, model.dtype, inst)
    if not support.supported:
        return support.reason, ""
    return None, support.weight_only


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


@lru_cache(maxsize=256)
def _screened(
    cat: Catalog, key: tuple[frozenset[Accelerator], int | None, bool], serving: Serving
) -> tuple[tuple[InstanceType, ...], tuple[Rejection, ...]]:
    """(candidate hosts, screening rejections), both cheapest first; cached per rule set."""
    rules = _Rules(key[0], key[1], key[2], None)
    candidates: list[InstanceType] = []
    rejected: list[Rejection] = []
    for inst in cat.by_price:
        why = _screen(inst, rules, serving)
        if why is None:
            candidates.append(inst)
        else:
            rejected.append(why)
    return tuple(candidates), tuple(rejected)


def _fit_on(
    model: ModelSpec, est: MemoryEstimate, serving: Serving, inst: InstanceType, llm: bool, *, explicit: bool = False
) -> Fit:
    """The fit of ``model`` on ``inst`` with ``serving``'s engine there, engine rules included. A chosen
    host holds the concurrency target; an ``explicit`` one with a paged KV cache at least one sequence."""
    if llm and inst.accelerator is not Accelerator.CPU:
        problem, note = _engine_problem(model, serving, inst)
        if problem:
            return Fit(inst, False, 0, 0, 0.0, 0.0, 0.0, _reject(inst, RejectionKind.ENGINE, problem))
        fit = evaluate_host(est, inst, engine_for(serving, inst), explicit)
        return replace(fit, dtype_note=note) if note else fit
    return evaluate_host(est, inst)


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
    model = resolve_model(model)
    rules = _Rules(serving.accelerators(accelerator), max_devices, allow_burstable, predicate)
    llm = _is_llm_sizing(model, serving)
    est = memory_estimate(model, llm=llm)
    out = []
    for inst in _screened(cat, rules.screening_key, serving)[0]:
        if predicate is None or predicate(inst):
            fit = _fit_on(model, est, serving, inst, llm)
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
    """The cheapest host per hour that fits ``model`` and whose engine can run it, or check an explicit one.

    Parameters
    ----------
    model:
        What is served; ``parameters_billion``, ``dtype``, ``max_context_tokens``,
        ``max_concurrent_sequences``, ``architecture`` and ``neuron_compiled`` drive the memory model
        (a known Hugging Face ``id`` fills the parameter count and shape).
    serving:
        Serving stack; ``serving.accelerators(accelerator)`` is the set of accelerator kinds allowed
        (auto: any accelerator for LLM stacks, CPU for classical ones). Its engine on each host
        decides the families, dtypes and tensor parallel degrees allowed there.
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
        candidates rejected (a few per reason) and a hint when another dtype would be cheaper.

    Raises
    ------
    InferenceConfigError
        No allowed accelerator for ``serving``; an LLM without a known parameter count and no
        ``instance_type``; an unknown or disallowed ``instance_type``, one whose engine cannot run
        the model (family, dtype, Neuron SDK), or one that cannot hold the model (with the numbers
        and the alternatives); no catalog host fits.
    """
    cat = catalog or load_catalog()
    model = resolve_model(model)
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
    decision = _cheapest(model, est, cat, rules, serving=serving, llm=llm)
    if decision is None:
        raise InferenceConfigError(_no_fit_message(model, est, cat, rules, serving=serving, path=path, llm=llm))
    fit, rejected = decision
    hint = _dtype_hint(model, llm=llm, cat=cat, rules=rules, serving=serving, chosen=fit) if quantization_hint else None
    return _decision(est, fit, rejected, hint, explicit=False)


def _cheapest(
    model: ModelSpec, est: MemoryEstimate, cat: Catalog, rules: _Rules, *, serving: Serving, llm: bool
) -> tuple[Fit, tuple[Rejection, ...]] | None:
    """Scan the candidates cheapest first and stop at the first host that fits. Rejections are the
    cheaper hosts passed over, at most a few per reason."""
    candidates, screened = _screened(cat, rules.screening_key, serving)
    counts: dict[RejectionKind, int] = {}
    passed_over: list[Rejection] = []

    def keep(kind: RejectionKind) -> bool:
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        return n < _REJECTIONS_PER_KIND

    for inst in candidates:
        if rules.predicate is not None and not rules.predicate(inst):
            if keep(RejectionKind.EXCLUDED):
                passed_over.append(_excluded(inst))
            continue
        fit = _fit_on(model, est, serving, inst, llm)
        if fit.fits:
            price = inst.price_per_hour_usd
            early = _first_per_kind(r for r in screened if r.price_per_hour_usd <= price)
            rejected = sorted((*early, *passed_over), key=lambda r: r.price_per_hour_usd)
            return fit, tuple(rejected)
        assert fit.rejection is not None
        if keep(fit.rejection.kind):
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


def _no_fit_message(
    model: ModelSpec, est: MemoryEstimate, cat: Catalog, rules: _Rules, *, serving: Serving, path: str, llm: bool
) -> str:
    kinds = ", ".join(sorted(a.value for a in rules.allowed))
    biggest = 0.0
    engine_reasons: list[str] = []
    for inst in _screened(cat, rules.screening_key, serving)[0]:
        if rules.predicate is not None and not rules.predicate(inst):
            continue
        fit = _fit_on(model, est, serving, inst, llm)
        if fit.rejection is not None and fit.rejection.kind is RejectionKind.ENGINE:
            if fit.rejection.reason not in engine_reasons:
                engine_reasons.append(fit.rejection.reason)
            continue
        biggest = max(biggest, fit.memory_available_gb)
    if engine_reasons and not biggest:
        return f"{path}.model: no allowed {kinds} host can run the model: {'; '.join(engine_reasons)}"
    engines = f"; on other hosts: {'; '.join(engine_reasons)}" if engine_reasons else ""
    return (
        f"{path}.model: no {kinds} host in the catalog holds the model; needs at least "
        f"{_fmt(est.required_gb(1))} GB, the largest allowed host has {_fmt(biggest)} GB usable{engines}; "
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
    if llm and inst.accelerator is not Accelerator.CPU:
        problem, _ = _engine_problem(model, serving, inst)
        if problem:
            fix = _alternatives(model, cat, rules, serving, engine=True)
            raise InferenceConfigError(f"{key}: {name} cannot run the model; {problem}; {fix}")
    if llm and model.parameters_billion is None:
        # Unknown size: trust the user, state that nothing was checked.
        shards = max(1, inst.devices if inst.accelerator is Accelerator.GPU else inst.neuron_cores)
        usable = _usable_per_shard(inst)
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
    fit = _fit_on(model, est, serving, inst, llm, explicit=True)
    if not fit.fits:
        assert fit.rejection is not None
        verb = "load" if fit.rejection.kind is RejectionKind.HOST_MEMORY else "hold"
        fix = _alternatives(model, cat, rules, serving)
        raise InferenceConfigError(f"{key}: {name} cannot {verb} the model; {fit.rejection.reason}; {fix}")
    hint = _dtype_hint(model, llm=llm, cat=cat, rules=rules, serving=serving, chosen=fit) if want_hint else None
    return _decision(est, fit, (), hint, explicit=True)


def _alternatives(model: ModelSpec, cat: Catalog, rules: _Rules, serving: Serving, *, engine: bool = False) -> str:
    llm = _is_llm_sizing(model, serving)
    if model.parameters_billion is None:
        return "use a host whose engine supports the model"
    found = _cheapest(model, memory_estimate(model, llm=llm), cat, rules, serving=serving, llm=llm)
    if found is None:
        return "quantize or pick a larger host"
    if engine:
        return f"the cheapest allowed host that can run it is {found[0].instance.name}"
    return f"use {found[0].instance.name} or larger, or quantize"


def _unknown_instance_hint(name: str, cat: Catalog) -> str:
    parts = name.split(".")
    family = parts[1] if len(parts) == 3 and parts[0] == "ml" else ""
    sizes = [i.name for i in cat.instances if i.family == family]
    what = "is not a sagemaker hosting instance type in the catalog"
    if sizes:
        return f"{what}; {family} sizes: {', '.join(sizes)}"
    families = sorted({i.family for i in cat.instances})
    return f"{what}; use ml.<family>.<size> with a family of {', '.join(families)}"


_ALTERNATIVE_DTYPES = (DType.FP16, DType.FP8, DType.INT8, DType.INT4)
"""Dtypes the hint tries, least quality cost first: fp16 only in place of bf16 (same size, older GPUs)."""


def _dtype_hint(
    model: ModelSpec, *, llm: bool, cat: Catalog, rules: _Rules, serving: Serving, chosen: Fit
) -> QuantizationHint | None:
    if not llm or model.parameters_billion is None:
        return None
    current = model.dtype.bytes_per_parameter
    base = chosen.instance.price_per_hour_usd
    same = _cheapest(model, memory_estimate(model, llm=True), cat, rules, serving=serving, llm=True)
    if same is not None:  # an explicit host: compare with the cheapest host at the current dtype
        base = min(base, same[0].instance.price_per_hour_usd)
    for dtype in _ALTERNATIVE_DTYPES:
        if dtype is model.dtype or dtype.bytes_per_parameter > current:
            continue
        if dtype is DType.FP16 and model.dtype is not DType.BF16:
            continue
        alt = replace(model, dtype=dtype)
        found = _cheapest(alt, memory_estimate(alt, llm=True), cat, rules, serving=serving, llm=True)
        if found is None:
            continue
        price = found[0].instance.price_per_hour_usd
        if price < base - 1e-9:
            caveat = f"{dtype_quality(dtype)}; {QUANTIZATION_CAVEAT}"
            return QuantizationHint(
                dtype, found[0].instance.name, price, round(100.0 * (base - price) / base, 1), caveat
            )
    return None


def _decision(
    est: MemoryEstimate,
    fit: Fit,
    rejected: tuple[Rejection, ...],
    hint: QuantizationHint | None,
    *,
    explicit: bool,
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
        kv_cache_gb=round(_kv_counted(est, fit), 3),
        price_per_hour_usd=inst.price_per_hour_usd,
        reason=_reason(est, fit, rejected, explicit),
        rejected=rejected,
        quantization_hint=hint,
        explicit=explicit,
        model_copies=copies,
        host_ram_required_gb=round(fit.host_ram_required_gb, 3),
        kv_estimated=est.kv_estimated,
        architecture=est.architecture,
        heads_per_shard=fit.heads_per_shard,
        kv_heads_per_shard=fit.kv_heads_per_shard,
        padding_gb=round(fit.padding_gb, 3),
        degree_rejections=fit.degree_rejections,
        dtype_note=fit.dtype_note,
        kv=fit.kv,
    )


def _kv_counted(est: MemoryEstimate, fit: Fit) -> float:
    """The KV cache the fit counts: the target, or the max-length sequences an explicit paged host holds."""
    if fit.kv is not None and not fit.kv.batch_fits:
        return est.kv_gb(fit.kv.max_length_sequences)
    return est.kv_cache_gb


def _reason(est: MemoryEstimate, fit: Fit, rejected: tuple[Rejection, ...], explicit: bool) -> str:
    inst = fit.instance
    tp = fit.tensor_parallel_degree
    if inst.accelerator is Accelerator.CPU:
        where = f"{_fmt(fit.memory_available_gb)} GB usable host memory"
    elif inst.accelerator.is_neuron:
        cores, devices = _plural(tp, "NeuronCore"), _plural(fit.devices, "device")
        where = f"{_fmt(fit.memory_available_gb)} GB usable on {cores} ({devices})"
    else:
        where = f"{_fmt(fit.memory_available_gb)} GB usable on {_plural(tp, 'GPU')}"
    if est.footprint_default:
        need = f"assumed {_fmt(fit.memory_required_gb)} GB classical-model footprint"
    else:
        kv = " (estimated)" if est.kv_estimated else ""
        pad = f", padding {_fmt(fit.padding_gb)}" if fit.padding_gb >= 0.05 else ""
        need = (
            f"needs {_fmt(fit.memory_required_gb)} GB (weights {_fmt(est.weights_gb)}, "
            f"KV cache {_fmt(_kv_counted(est, fit))}{kv}{pad}, overhead)"
        )
    head = "given explicitly" if explicit else f"cheapest {inst.accelerator.value} host that fits"
    shards = ""
    if fit.heads_per_shard:
        shards = f"; {fit.heads_per_shard} attention and {fit.kv_heads_per_shard} KV heads per shard"
    skipped = sum(1 for r in rejected if r.kind in (RejectionKind.DEVICE_MEMORY, RejectionKind.HOST_MEMORY))
    tail = f"; {skipped} cheaper host(s) too small" if skipped and not explicit else ""
    engine = sum(1 for r in rejected if r.kind is RejectionKind.ENGINE)
    tail += f"; {engine} cheaper host(s) cannot run it" if engine and not explicit else ""
    note = f"; {fit.dtype_note}" if fit.dtype_note else ""
    kv_note = f"; {fit.kv.summary()}" if fit.kv is not None and fit.kv.paged else ""
    return f"{inst.name} ${inst.price_per_hour_usd:.3f}/h, {head}: {need}; {where}{shards}{kv_note}{note}{tail}"
