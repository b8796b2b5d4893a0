"""Placement on one host: the smallest tensor parallel degree whose shards hold the model with the margin
free, the KV cache that holds, and the host RAM that loads the weights (:func:`evaluate_host`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from inference_constructs.catalog import InstanceType
from inference_constructs.containers.compatibility import EngineRules, load_compatibility, tensor_parallel_degrees
from inference_constructs.sizing.explain import _fmt, _plural
from inference_constructs.sizing.memory import (
    CPU_USABLE_FRACTION,
    GIB,
    GPU_USABLE_FRACTION,
    HOST_RAM_RESERVE_GIB,
    HOST_RAM_WEIGHTS_FACTOR,
    MARGIN_FLOOR_FRACTION,
    NEURON_USABLE_FRACTION,
)
from inference_constructs.sizing.types import Fit, KvCapacity, MemoryEstimate, Rejection, RejectionKind
from inference_constructs.spec import Accelerator, ResolvedArchitecture


def _usable_per_shard(inst: InstanceType) -> float:
    """Usable GiB of one shard: a GPU, a NeuronCore's share of its device, or the host RAM of a CPU host."""
    if inst.accelerator is Accelerator.GPU:
        return inst.device_memory_reported_gib * GPU_USABLE_FRACTION
    if inst.accelerator.is_neuron:
        return inst.memory_per_neuron_core_gib * NEURON_USABLE_FRACTION
    return inst.memory_gib * CPU_USABLE_FRACTION


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
    draft_shard = est.draft_gb(sequences) / tp  # a draft model is split over the target's shards
    lora_shard = est.lora_shard_gb(tp)  # the adapters' buffers: partly whole on every shard, partly split
    need = ((est.weights_gb + padding) / tp + kv_shard + draft_shard + lora_shard) * (
        1.0 + est.overhead_fraction
    ) + est.per_shard_overhead_gb
    return _Shard(need, heads, kv_per_shard, padding)


def _kv_tokens_per_shard(est: MemoryEstimate, tp: int, neuron: bool, limit: float) -> int:
    """KV tokens the shards at ``tp`` hold within ``limit`` GiB each, after weights, padding and overhead."""
    arch = est.architecture
    if arch is None or est.kv_per_token_gb <= 0.0:
        return 0
    fixed = _shard_need(est, tp, neuron, 0)
    per_token = (est.kv_per_token_gb * fixed.kv_heads / arch.kv_heads + est.draft_kv_per_token_gb / tp) * (
        1.0 + est.overhead_fraction
    )
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
    return (est.weights_gb + est.draft_weights_gb) * factor + HOST_RAM_RESERVE_GIB


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
            why = f"needs {_fmt(need)} GiB of host memory, has {_fmt(have)} GiB usable"
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
            notes.append(f"TP {tp}: needs {_fmt(shard.need)} GiB per {unit}, {_fmt(limit)} GiB fits with the margin")
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
        f"needs {_fmt(shard.need * tp)} GiB, has {_fmt(usable * tp)} GiB usable on {_plural(tp, unit)} "
        f"({_fmt(shard.need)} per {unit} above {_fmt(limit)} with the {MARGIN_FLOOR_FRACTION:.0%} margin){larger}"
    )
    why = _beside_the_model(est, inst, engine, admit_fewer, tp=tp, why=why)
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


def _beside_the_model(
    est: MemoryEstimate, inst: InstanceType, engine: EngineRules | None, admit_fewer: bool, *, tp: int, why: str
) -> str:
    """``why`` a host does not fit, led by what sits beside the model when the model alone would fit: the
    speculative draft model, or the LoRA adapters' reservation."""
    if est.draft_weights_gb > 0.0:
        alone = replace(est, draft_weights_gb=0.0, draft_kv_per_token_gb=0.0)
        if evaluate_host(alone, inst, engine, admit_fewer).fits:
            return (
                f"fits the target model alone, not with the speculative draft model ({_fmt(est.draft_weights_gb)} GiB "
                f"weights + {_fmt(est.draft_gb() - est.draft_weights_gb)} GiB KV cache): {why}"
            )
    if est.lora_slots:
        alone = replace(est, lora_slots=0)  # no slots, no reservation (lora_shard_gb)
        if evaluate_host(alone, inst, engine, admit_fewer).fits:
            return (
                f"fits the model alone, not with the LoRA adapters' reservation ({est.lora_slots} slot(s) of rank "
                f"{est.lora_rank}: {_fmt(est.lora_gb(tp))} GiB at TP {tp}; fewer slots or a lower rank "
                f"reserve less): {why}"
            )
    return why


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
        heads_per_shard=shard.heads,
        kv_heads_per_shard=shard.kv_heads,
        padding_gb=shard.padding_gb,
        degree_rejections=notes,
        kv=kv,
    )
    if host_ram_needed > inst.memory_gib:
        why = (
            f"host RAM {_fmt(inst.memory_gib)} GiB cannot load {_fmt(est.weights_gb)} GiB of weights; "
            f"needs {_fmt(host_ram_needed)} GiB"
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
