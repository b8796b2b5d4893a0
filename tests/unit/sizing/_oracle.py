"""An independent, exhaustive implementation of docs/sizing.md, for checking choose_host.

It re-derives every number from the documented formula and constants and looks at every
catalog row; it shares no code with ``inference_constructs.sizing``.
"""

from __future__ import annotations

import math

from inference_constructs.catalog import Catalog, InstanceType
from inference_constructs.spec import Accelerator, AcceleratorChoice, DType, ModelSpec, Serving

# docs/sizing.md, "Constants"
USABLE = {"gpu": 0.90, "neuron": 0.90, "cpu": 0.80}
OVERHEAD_FRACTION = 0.05
OVERHEAD_PER_SHARD = 1.0
HOST_RESERVE = 4.0
HOST_FACTOR = {"gpu": 1.0, "inferentia": 2.0, "trainium": 2.0, "cpu": 0.0}
CLASSICAL_FOOTPRINT = 2.0
BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}


def is_llm(model: ModelSpec, serving: Serving) -> bool:
    if serving.value in ("lmi", "tgi", "vllm", "neuron"):
        return True
    return serving.value in ("custom", "triton") and model.parameters_billion is not None


def need(model: ModelSpec, llm: bool) -> tuple[float, float]:
    """(base GiB, per-shard GiB)."""
    p = model.parameters_billion
    if p is None:
        return CLASSICAL_FOOTPRINT, 0.0
    weights = p * 1e9 * BYTES[model.dtype.value] / 2**30
    if not llm:
        return weights * (1 + OVERHEAD_FRACTION), 0.0
    if model.architecture is not None:
        layers, heads, dim = model.architecture.layers, model.architecture.kv_heads, model.architecture.head_dim
    else:
        layers, heads, dim = _layers(p), 8, 128
    kv_bytes = 4.0 if model.dtype is DType.FP32 else 2.0
    kv = 2 * layers * heads * dim * kv_bytes * model.max_context_tokens * model.max_concurrent_sequences / 2**30
    return (weights + kv) * (1 + OVERHEAD_FRACTION), OVERHEAD_PER_SHARD


# docs/sizing.md: Llama 3.x / Qwen 2.5 layer counts, interpolated in log(parameters), rounded up
_KNOWN = [(1.0, 16), (3.0, 28), (8.0, 32), (14.0, 48), (32.0, 64), (70.0, 80), (405.0, 126)]


def _layers(p: float) -> int:
    if p <= 1.0:
        return 16
    i = next((k for k in range(1, len(_KNOWN)) if p <= _KNOWN[k][0]), len(_KNOWN) - 1)
    (x0, y0), (x1, y1) = _KNOWN[i - 1], _KNOWN[i]
    return math.ceil(y0 + (y1 - y0) * (math.log(p / x0) / math.log(x1 / x0)) - 1e-9)


def weights_gib(model: ModelSpec) -> float:
    p = model.parameters_billion
    return CLASSICAL_FOOTPRINT if p is None else p * 1e9 * BYTES[model.dtype.value] / 2**30


def fits(model: ModelSpec, inst: InstanceType, llm: bool) -> bool:
    base, shard = need(model, llm)
    kind = inst.accelerator.value
    if kind == "cpu":  # the whole host RAM is one shard (docs/sizing.md), so an LLM pays one shard's overhead
        return base + shard <= inst.memory_gib * USABLE["cpu"] + 1e-9
    if kind == "gpu":
        per_shard = inst.device_memory_gib * USABLE["gpu"]
        degrees = [d for d in (1, 2, 4, 8) if d <= inst.devices]
    else:
        per_shard = inst.device_memory_gib / (inst.neuron_cores // inst.devices) * USABLE["neuron"]
        degrees = [d for d in range(1, inst.neuron_cores + 1) if (d & (d - 1)) == 0 or d == inst.neuron_cores]
    memory_ok = any(base + shard * d <= per_shard * d + 1e-9 for d in degrees)
    host_ok = inst.memory_gib >= weights_gib(model) * HOST_FACTOR[kind] + HOST_RESERVE
    return memory_ok and host_ok


def allowed(serving: Serving, accelerator: AcceleratorChoice) -> set[str]:
    """The accelerator table of spec.Serving, re-stated."""
    auto = {
        "lmi": {"gpu", "inferentia", "trainium"},
        "tgi": {"gpu", "inferentia", "trainium"},
        "vllm": {"gpu", "inferentia", "trainium"},
        "neuron": {"inferentia", "trainium"},
        "triton": {"gpu"},
        "sklearn": {"cpu"},
        "xgboost": {"cpu"},
        "pytorch": {"cpu"},
        "custom": {"gpu", "cpu"},
    }
    supported = {
        "lmi": {"gpu", "inferentia", "trainium"},
        "tgi": {"gpu", "inferentia", "trainium"},
        "vllm": {"gpu", "inferentia", "trainium"},
        "neuron": {"inferentia", "trainium"},
        "triton": {"gpu", "cpu"},
        "sklearn": {"cpu"},
        "xgboost": {"cpu", "gpu"},
        "pytorch": {"cpu", "gpu"},
        "custom": {"gpu", "cpu", "inferentia", "trainium"},
    }
    if accelerator is AcceleratorChoice.AUTO:
        return auto[serving.value]
    return {accelerator.value} & supported[serving.value]


def cheapest_price(
    model: ModelSpec,
    serving: Serving,
    accelerator: AcceleratorChoice,
    catalog: Catalog,
    max_devices: int | None = None,
) -> float | None:
    """Lowest $/h over every allowed, non-burstable catalog host the model fits; None if none."""
    kinds = allowed(serving, accelerator)
    llm = is_llm(model, serving)
    prices = [
        i.price_per_hour_usd
        for i in catalog.instances
        if i.accelerator.value in kinds
        and not i.burstable
        and (max_devices is None or i.devices <= max_devices)
        and fits(model, i, llm)
    ]
    return min(prices) if prices else None


__all__ = ["Accelerator", "cheapest_price", "fits", "is_llm", "need"]
