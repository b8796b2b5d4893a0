"""The sentences of a sizing decision: its reason, and what to write for an unknown instance type."""

from __future__ import annotations

from inference_constructs.catalog import Catalog
from inference_constructs.sizing.types import Fit, MemoryEstimate, RejectionKind
from inference_constructs.spec import Accelerator


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _unknown_instance_hint(name: str, cat: Catalog) -> str:
    parts = name.split(".")
    family = parts[1] if len(parts) == 3 and parts[0] == "ml" else ""
    sizes = [i.name for i in cat.instances if i.family == family]
    what = "is not a sagemaker hosting instance type in the catalog"
    if sizes:
        return f"{what}; {family} sizes: {', '.join(sizes)}"
    families = sorted({i.family for i in cat.instances})
    return f"{what}; use ml.<family>.<size> with a family of {', '.join(families)}"


def _kv_counted(est: MemoryEstimate, fit: Fit) -> float:
    """The KV cache the fit counts: the target, or the max-length sequences an explicit paged host holds."""
    if fit.kv is not None and not fit.kv.batch_fits:
        return est.kv_gb(fit.kv.max_length_sequences)
    return est.kv_cache_gb


def _held(est: MemoryEstimate, fit: Fit) -> int:
    """The sequences the fit's KV cache is counted for (the target, or what an explicit paged host holds)."""
    if fit.kv is not None and not fit.kv.batch_fits:
        return fit.kv.max_length_sequences
    return est.sequences


_TOO_SMALL = (RejectionKind.DEVICE_MEMORY, RejectionKind.HOST_MEMORY)
_NOT_ALLOWED = {
    RejectionKind.ACCELERATOR: "another accelerator",
    RejectionKind.DEVICES: "too many devices",
    RejectionKind.BURSTABLE: "burstable",
    RejectionKind.EXCLUDED: "excluded",
    RejectionKind.ESTIMATED: "with estimated facts",
}


def _passed_over(counts: tuple[tuple[RejectionKind, int], ...]) -> str:
    """The reason's tail: how many cheaper hosts were passed over, and what each number counts."""
    by_kind = dict(counts)
    total = sum(by_kind.values())
    if not total:
        return ""
    parts = []
    small = sum(by_kind.get(k, 0) for k in _TOO_SMALL)
    if small:
        parts.append(f"{small} too small")
    if by_kind.get(RejectionKind.ENGINE):
        parts.append(f"{by_kind[RejectionKind.ENGINE]} whose engine cannot run it")
    parts.extend(f"{by_kind[k]} {label}" for k, label in _NOT_ALLOWED.items() if by_kind.get(k))
    return f"; {_plural(total, 'cheaper host')} passed over: {', '.join(parts)}"


def _reason(est: MemoryEstimate, fit: Fit, passed_over: tuple[tuple[RejectionKind, int], ...], explicit: bool) -> str:
    inst = fit.instance
    tp = fit.tensor_parallel_degree
    # The figures the decision keeps (and the plan table prints), so both round the same number.
    required, available = round(fit.memory_required_gb, 3), round(fit.memory_available_gb, 3)
    if inst.accelerator is Accelerator.CPU:
        where = f"{_fmt(available)} GiB usable host memory"
    elif inst.accelerator.is_neuron:
        cores, devices = _plural(tp, "NeuronCore"), _plural(fit.devices, "device")
        where = f"{_fmt(available)} GiB usable on {cores} ({devices})"
    else:
        where = f"{_fmt(available)} GiB usable on {_plural(tp, 'GPU')}"
    if est.footprint_default:
        need = f"assumed {_fmt(required)} GiB classical-model footprint"
    else:
        kv = " (estimated)" if est.kv_estimated else ""
        pad = f", padding {_fmt(fit.padding_gb)}" if fit.padding_gb >= 0.05 else ""
        draft = ""
        if est.draft_weights_gb > 0.0:
            draft_kv = est.draft_gb(_held(est, fit)) - est.draft_weights_gb
            draft = f", draft model {_fmt(est.draft_weights_gb)} + KV cache {_fmt(draft_kv)}"
        if est.lora_slots:
            lora_est = " (estimated)" if est.lora_estimated else ""
            lora_gb = round(est.lora_gb(tp), 3)  # as the decision keeps it
            draft += f", LoRA adapters {lora_gb:.2f}{lora_est} for {est.lora_slots} slot(s) of rank {est.lora_rank}"
        need = (
            f"needs {_fmt(required)} GiB (weights {_fmt(est.weights_gb)}, "
            f"KV cache {_fmt(_kv_counted(est, fit))}{kv}{pad}{draft}, overhead)"
        )
    head = "given explicitly" if explicit else f"cheapest {inst.accelerator.value} host that fits"
    shards = ""
    if fit.heads_per_shard:
        shards = f"; {fit.heads_per_shard} attention and {fit.kv_heads_per_shard} KV heads per shard"
    tail = "" if explicit else _passed_over(passed_over)
    note = f"; {fit.dtype_note}" if fit.dtype_note else ""
    kv_note = f"; {fit.kv.summary()}" if fit.kv is not None and fit.kv.paged else ""
    return f"{inst.name} ${inst.price_per_hour_usd:.3f}/h, {head}: {need}; {where}{shards}{kv_note}{note}{tail}"
