"""The sentences of a sizing decision: its reason, and what to write for an unknown instance type."""

from __future__ import annotations

from inference_constructs.catalog import Catalog
from inference_constructs.sizing.types import Fit, MemoryEstimate, Rejection, RejectionKind
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
