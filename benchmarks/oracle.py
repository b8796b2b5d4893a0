"""An independent, exhaustive implementation of docs/sizing.md and docs/compatibility.md, for checking choose_host.

It re-derives every number from the documented formulas, constants and rules and looks at every
catalog row; it shares no code with ``inference_constructs.sizing`` or its rule modules (it reads
the catalog's facts, including the memory each device reports).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from inference_constructs.catalog import Catalog, InstanceType
from inference_constructs.spec import Accelerator, AcceleratorChoice, DType, ModelSpec, Serving

# docs/sizing.md, "Constants"
USABLE = {"gpu": 0.90, "neuron": 0.90, "cpu": 0.80}
OVERHEAD_FRACTION = 0.05
OVERHEAD_PER_SHARD = 1.0
MARGIN = 0.05
HOST_RESERVE = 4.0
HOST_FACTOR = {"gpu": 1.0, "inferentia": 2.0, "trainium": 2.0, "cpu": 0.0}
CLASSICAL_FOOTPRINT = 2.0
BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}

# docs/compatibility.md: engine per (serving, accelerator kind); None = no LLM rules (no image or not an LLM engine)
ENGINE = {
    ("lmi", "gpu"): "vllm",
    ("vllm", "gpu"): "vllm",
    ("tgi", "gpu"): "tgi",
    ("lmi", "neuron"): "tnx",
    ("neuron", "neuron"): "tnx",
    ("tgi", "neuron"): "optimum",
}
CLOSED_FAMILIES = {
    "tnx": {"bloom", "gpt2", "gpt_bigcode", "gptj", "gpt_neox", "llama", "mistral", "mixtral", "opt"},
    "optimum": {"granite", "llama", "mixtral", "phi3", "qwen2"},
}
GPU_MIN_CC = {
    "vllm": {"bf16": 8.0, "fp16": 7.0, "fp32": 7.0, "fp8": 8.0, "int8": 7.5, "int4": 7.5},
    "tgi": {"bf16": 8.0, "fp16": 7.5, "fp32": 7.5, "fp8": 8.0, "int8": 7.5, "int4": 7.5},
}
# docs/compatibility.md: TGI shards KV heads without replicating them (the degree divides them); vLLM replicates
KV_SPLIT_ONLY = {"tgi"}
NEURON_DTYPES = {"tnx": {"bf16", "fp16", "fp32", "int8"}, "optimum": {"bf16", "fp16", "fp32"}}
NEURON_SDK = {"tnx": (2, 19, 1), "optimum": (2, 24, 0)}
# docs/runtime-rules.md, "Model features and engine versions": transformers-neuronx 0.11 (LMI 0.29.0) lacks the scaled
# RoPE of Llama 3.1-3.3 (config.json rope_scaling.rope_type llama3, the known-model row's "features")
MISSING_FEATURES = {"tnx": {("rope_scaling", "llama3")}}
TRN2_MIN_SDK = (2, 21, 0)
NEURON_DEGREES = {
    "inf2": [1, 2, 4, 8, 12, 24],
    "trn1": [1, 2, 8, 16, 32],
    "trn1n": [1, 2, 8, 16, 32],
    "trn2": [1, 2, 4, 8, 16, 32, 64],
}
# docs/compatibility.md, "Image architecture and GPU generation": the presets with arm64 (Graviton) builds and the
# families the SDK publishes them for; every GPU image is an x86_64 build
ARM64_PRESETS = {"sklearn", "xgboost", "pytorch"}
GRAVITON_FAMILIES = {"c6g", "c6gd", "c6gn", "c7g", "m6g", "m6gd", "r6g", "r6gd"}
# the lowest CUDA per compute capability (Blackwell), and the CUDA each pinned GPU image is built on
MIN_CUDA = {10.0: (12, 8), 10.3: (13, 0), 12.0: (12, 8)}
IMAGE_CUDA = {
    "lmi": (13, 0),
    "vllm": (13, 0),
    "triton": (13, 0),
    "tgi": (12, 4),
    "pytorch": (12, 6),
    "xgboost": (12, 6),
}
# int4: 0.5 byte + 2.5 bytes per group of 128; int8/fp8: 1 byte + 2 bytes per row; embeddings/lm_head 16-bit
QUANT = {"int4": (0.5, 2.5 / 128, 0.0), "int8": (1.0, 0.0, 2.0), "fp8": (1.0, 0.0, 2.0)}


def is_llm(model: ModelSpec, serving: Serving) -> bool:
    if serving.value in ("lmi", "tgi", "vllm", "neuron"):
        return True
    return serving.value in ("custom", "triton") and model.parameters_billion is not None


# docs/sizing.md: Llama 3.x / Qwen 2.5 layer counts, interpolated in log(parameters), rounded up
_KNOWN = [(1.0, 16), (3.0, 28), (8.0, 32), (14.0, 48), (32.0, 64), (70.0, 80), (405.0, 126)]


def _layers(p: float) -> int:
    if p <= 1.0:
        return 16
    i = next((k for k in range(1, len(_KNOWN)) if p <= _KNOWN[k][0]), len(_KNOWN) - 1)
    (x0, y0), (x1, y1) = _KNOWN[i - 1], _KNOWN[i]
    return math.ceil(y0 + (y1 - y0) * (math.log(p / x0) / math.log(x1 / x0)) - 1e-9)


@cache
def _known() -> dict[str, dict[str, Any]]:
    """The known-model table, read as data (docs/sizing.md: given fields, else the table by id, else estimates)."""
    path = Path(__file__).resolve().parents[1] / "inference_constructs" / "catalog" / "models.json"
    return {k.lower(): v for k, v in json.loads(path.read_text())["models"].items()}


def shape(model: ModelSpec) -> dict[str, Any]:
    """Given fields, else the known-model row, else the documented estimates."""
    p = model.parameters_billion or 0.0
    layers = _layers(p)
    est: dict[str, Any] = {
        "family": None,
        "layers": layers,
        "attention_heads": 64,
        "kv_heads": 8,
        "head_dim": 128,
        "hidden_size": max(128, 128 * math.ceil(math.sqrt(p * 1e9 / (12 * layers)) / 128)),
        "vocab_size": 152064,
        "tie_word_embeddings": False,
    }
    row = _known().get((model.id or "").lower(), {})
    for key in est:
        if row.get(key) is not None:
            est[key] = row[key]
    arch = model.architecture
    if arch is not None:
        for key in est:
            value = getattr(arch, key)
            if value is not None:
                est[key] = value
    return est


def weights_gib(model: ModelSpec) -> float:
    p = model.parameters_billion
    if p is None:
        return CLASSICAL_FOOTPRINT
    d = model.dtype.value
    if d not in QUANT:
        return p * 1e9 * BYTES[d] / 2**30
    s = shape(model)
    embed = int(s["vocab_size"]) * int(s["hidden_size"])
    sixteen = embed if s["tie_word_embeddings"] else 2 * embed
    body = max(0.0, p * 1e9 - sixteen)
    per, group, row = QUANT[d]
    return (sixteen * 2 + body * per + body * group + body / int(s["hidden_size"]) * row) / 2**30


def kv_gib(model: ModelSpec) -> float:
    s = shape(model)
    kv_bytes = 4.0 if model.dtype is DType.FP32 else 2.0
    tokens = model.max_context_tokens * model.max_concurrent_sequences
    return 2 * int(s["layers"]) * int(s["kv_heads"]) * int(s["head_dim"]) * kv_bytes * tokens / 2**30


def _engine(serving: Serving, inst: InstanceType) -> str | None:
    kind = "gpu" if inst.accelerator is Accelerator.GPU else "neuron" if inst.accelerator.is_neuron else "cpu"
    return ENGINE.get((serving.value, kind))


def engine_runs(model: ModelSpec, serving: Serving, inst: InstanceType) -> bool:
    engine = _engine(serving, inst)
    if engine is None:  # an LLM stack with no image for this accelerator (vllm on Neuron) cannot run
        return serving.value not in ("lmi", "tgi", "vllm", "neuron")
    family = shape(model)["family"]
    if engine in CLOSED_FAMILIES and family not in CLOSED_FAMILIES[engine]:
        return False
    features = _known().get((model.id or "").lower(), {}).get("features", {})
    if any((name, value) in MISSING_FEATURES.get(engine, set()) for name, value in features.items()):
        return False
    if inst.accelerator.is_neuron:
        if inst.family == "trn2" and NEURON_SDK[engine] < TRN2_MIN_SDK:
            return False
        return model.dtype.value in NEURON_DTYPES[engine]
    cc = inst.compute_capability
    return cc is None or cc >= GPU_MIN_CC[engine][model.dtype.value]


def image_runs(serving: Serving, inst: InstanceType, *, explicit: bool) -> bool:
    """The serving stack's image runs on the host's CPU architecture and GPU generation (a custom image, whose
    architecture and CUDA are unknown, only on a host given explicitly when either matters)."""
    need = MIN_CUDA.get(inst.compute_capability or 0.0) if inst.accelerator is Accelerator.GPU else None
    if serving is Serving.CUSTOM:
        return explicit or (inst.architecture == "x86_64" and need is None)
    if inst.architecture == "arm64":
        arm_build = inst.accelerator is Accelerator.CPU and serving.value in ARM64_PRESETS
        return arm_build and inst.family in GRAVITON_FAMILIES
    return need is None or IMAGE_CUDA.get(serving.value, (0, 0)) >= need


def _shard_need(model: ModelSpec, tp: int, neuron: bool) -> float:
    s = shape(model)
    heads, kv, layers = int(s["attention_heads"]), int(s["kv_heads"]), int(s["layers"])
    hidden, dim = int(s["hidden_size"]), int(s["head_dim"])
    q_stored = math.ceil(heads / tp) * tp if neuron else heads
    kv_stored = math.ceil(kv / tp) * tp
    padding = 2 * layers * hidden * dim * ((q_stored - heads) + (kv_stored - kv)) * BYTES[model.dtype.value] / 2**30
    kv_shard = kv_gib(model) * math.ceil(kv / tp) / kv
    return ((weights_gib(model) + padding) / tp + kv_shard) * (1 + OVERHEAD_FRACTION) + OVERHEAD_PER_SHARD


def _gpu_degree_ok(model: ModelSpec, tp: int, engine: str | None = None) -> bool:
    s = shape(model)
    heads, kv = int(s["attention_heads"]), int(s["kv_heads"])
    if tp == 1:
        return True
    if engine in KV_SPLIT_ONLY:
        return heads % tp == 0 and kv % tp == 0
    return heads % tp == 0 and (kv % tp == 0 if kv >= tp else tp % kv == 0)


def fits(model: ModelSpec, inst: InstanceType, llm: bool, serving: Serving = Serving.CUSTOM) -> bool:
    kind = inst.accelerator.value
    if kind == "cpu":  # the whole host RAM is one shard (docs/sizing.md), so an LLM pays one shard's overhead
        p = model.parameters_billion
        if p is None:
            base, shard = CLASSICAL_FOOTPRINT, 0.0
        elif not llm:  # classical models are plain parameters x bytes (no checkpoint layout)
            base, shard = p * 1e9 * BYTES[model.dtype.value] / 2**30 * (1 + OVERHEAD_FRACTION), 0.0
        else:
            base, shard = (weights_gib(model) + kv_gib(model)) * (1 + OVERHEAD_FRACTION), OVERHEAD_PER_SHARD
        return base + shard <= inst.memory_gib * USABLE["cpu"] + 1e-9
    if llm and not engine_runs(model, serving, inst):
        return False
    neuron = inst.accelerator.is_neuron
    if neuron:
        usable = inst.device_memory_reported_gib / (inst.neuron_cores // inst.devices) * USABLE["neuron"]
        degrees = [d for d in NEURON_DEGREES[inst.family] if d <= inst.neuron_cores]
    else:
        usable = inst.device_memory_reported_gib * USABLE["gpu"]
        engine = _engine(serving, inst) if llm else None
        degrees = [d for d in (1, 2, 4, 8) if d <= inst.devices and _gpu_degree_ok(model, d, engine)]
    if llm:
        weights = weights_gib(model)
        memory_ok = any(_shard_need(model, d, neuron) <= usable * (1 - MARGIN) + 1e-9 for d in degrees)
    else:  # a classical model on an accelerator: plain weights (or the default footprint), no KV, no heads
        p = model.parameters_billion
        weights = CLASSICAL_FOOTPRINT if p is None else p * 1e9 * BYTES[model.dtype.value] / 2**30
        base = weights if p is None else weights * (1 + OVERHEAD_FRACTION)
        degrees = [d for d in (1, 2, 4, 8) if d <= inst.devices] if not neuron else degrees
        memory_ok = any(base / d <= usable * (1 - MARGIN) + 1e-9 for d in degrees)
    factor = 0.0 if neuron and model.neuron_compiled else HOST_FACTOR[kind]
    host_ok = inst.memory_gib >= weights * factor + HOST_RESERVE
    return memory_ok and host_ok


# docs/sizing.md: engines with a paged KV cache (vLLM, TGI) start once one max-length sequence fits
PAGED = {"vllm", "tgi"}


def explicit_fits(model: ModelSpec, inst: InstanceType, serving: Serving) -> bool:
    """An explicitly given host is accepted: the concurrency target fits, or, where the engine's KV cache is paged,
    at least one max_context_tokens sequence does (the engine batches the rest as room frees)."""
    llm = is_llm(model, serving)
    if not image_runs(serving, inst, explicit=True):
        return False
    if fits(model, inst, llm, serving):
        return True
    engine = _engine(serving, inst)
    single = replace(model, max_concurrent_sequences=1)
    return llm and engine in PAGED and model.parameters_billion is not None and fits(single, inst, llm, serving)


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
    """Lowest $/h over every allowed, non-burstable catalog host with no estimated fact that the model fits and its
    image runs on; None if none."""
    kinds = allowed(serving, accelerator)
    llm = is_llm(model, serving)
    prices = [
        i.price_per_hour_usd
        for i in catalog.instances
        if i.accelerator.value in kinds
        and not i.burstable
        and not (i.estimated or i.device_estimated)
        and image_runs(serving, i, explicit=False)
        and (max_devices is None or i.devices <= max_devices)
        and fits(model, i, llm, serving)
    ]
    return min(prices) if prices else None


__all__ = ["Accelerator", "cheapest_price", "explicit_fits", "fits", "image_runs", "is_llm", "weights_gib"]
