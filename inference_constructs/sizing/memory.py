"""The memory model: the usable share of each accelerator, the runtime overhead and margin, host RAM for
loading, the LoRA adapters' reservation (:func:`lora_buffers`), and :func:`memory_estimate`, the memory a model needs
before it is placed on a host (GiB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from inference_constructs.catalog.models import resolve_architecture, resolve_model
from inference_constructs.containers.compatibility import headroom, lora_rules, margin_floor_fraction, quantized_layout
from inference_constructs.sizing.types import MemoryEstimate
from inference_constructs.spec import Accelerator, DType, LoraSlots, ModelSpec, ResolvedArchitecture

GIB = float(2**30)
"""Bytes in a GiB."""

GPU_USABLE_FRACTION = 0.90
"""Share of each GPU's reported memory the server may use. It is written to vLLM and LMI as
``gpu_memory_utilization`` (``ServingParameters.gpu_memory_fraction``), so the engine takes the share the sizing
counts; vLLM 0.30.0's own default is 0.92 (``vllm/config/cache.py``)."""

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


def intermediate_size(params_billion: float, arch: ResolvedArchitecture) -> int:
    """The MLP's intermediate size derived from the parameter count (the shape table does not hold it).

    A decoder of ``layers`` layers holds the embeddings (``vocab_size x hidden_size``, twice when untied), per layer
    the attention projections (q and o: ``hidden x heads x head_dim`` each; k and v: ``hidden x kv_heads x head_dim``
    each) and a gated MLP (gate, up and down: ``hidden x intermediate`` each); norms and biases are left out, so the
    result errs high, but a rounded parameter count can put it on either side (within 0.5 % of the published
    size for the known models the tests check). At least ``hidden_size``. For a mixture of experts it is the width
    of all experts together.
    """
    h = arch.hidden_size
    q = arch.attention_heads * arch.head_dim
    kv = arch.kv_heads * arch.head_dim
    embeddings = arch.vocab_size * h * (1 if arch.tie_word_embeddings else 2)
    attention = arch.layers * 2 * h * (q + kv)
    mlp = params_billion * 1e9 - embeddings - attention
    return max(h, math.ceil(mlp / (3 * arch.layers * h)))


@dataclass(frozen=True)
class LoraBuffers:
    """The LoRA adapters' buffers of one model, in GiB: ``whole`` on every tensor parallel shard, ``split`` over the
    shards (the total), ``per_kv_head`` per KV head a shard holds; ``estimated`` the shape fields they rest on that are
    estimates."""

    whole: float
    split: float
    per_kv_head: float
    estimated: tuple[str, ...]


_LORA_SHAPE_FIELDS = ("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim", "vocab_size")


def lora_buffers(lora: LoraSlots, params_billion: float, arch: ResolvedArchitecture, dtype: DType) -> LoraBuffers:
    """What vLLM reserves on the device for ``lora.slots`` adapters of rank ``lora.rank`` (``compatibility.json``
    ``lora``, read in vLLM 0.23.0 and 0.30.0).

    Every LoRA-capable linear layer holds, per slot and per slice, an A of ``rank x input`` and a B of
    ``output x rank`` elements of the model's dtype (``lora_dtype`` auto). Per decoder layer, with ``h`` the hidden
    size, ``q`` = heads x head_dim, ``kv`` = kv_heads x head_dim, ``I`` the intermediate size and ``tp`` the shards:
    qkv_proj 3 A (``r x h``) and B ``(q / tp + 2 x ceil(kv_heads / tp) x head_dim) x r``; o_proj A ``r x q / tp`` and
    B ``h x r``; gate_up_proj 2 A (``r x h``) and 2 B ``(I / tp) x r``; down_proj A ``r x I / tp`` and B ``h x r``. The
    families of ``embedding_families`` (and an unknown family, from above) add embed_tokens (A ``vocab x r``, B
    ``h x r``) and lm_head (A ``r x h``, B ``vocab x r``), whole on every shard.
    """
    rules = lora_rules()
    unit = lora.slots * lora.rank * _kv_bytes(dtype) / GIB
    h, layers = arch.hidden_size, arch.layers
    q = arch.attention_heads * arch.head_dim
    inter = intermediate_size(params_billion, arch)
    embeddings = arch.family is None or arch.family in rules.embedding_families
    whole = layers * 7 * h + (2 * arch.vocab_size + 2 * h if embeddings else 0)
    estimated = ["intermediate_size", *(f for f in _LORA_SHAPE_FIELDS if f in arch.estimated)]
    if arch.family is None:
        estimated.append("family")
    return LoraBuffers(
        whole=whole * unit,
        split=layers * (2 * q + 3 * inter) * unit,
        per_kv_head=layers * 2 * arch.head_dim * unit,
        estimated=tuple(estimated),
    )


@lru_cache(maxsize=4096)
def memory_estimate(model: ModelSpec, *, llm: bool = True) -> MemoryEstimate:
    """Memory ``model`` needs (GiB), per the documented model.

    ``llm=False`` (classical serving) counts weights only (no KV cache), and a model without
    ``parameters_billion`` gets :data:`CLASSICAL_DEFAULT_FOOTPRINT_GIB`. An LLM without
    ``parameters_billion`` (given or known by id) cannot be sized: the caller must reject it or take
    an explicit host. A ``model.draft`` (speculative decoding) adds its weights and KV cache per token, and
    ``model.lora`` the adapters' buffers (:func:`lora_buffers`).
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
    draft = memory_estimate(model.draft) if model.draft is not None else None
    lora = (
        lora_buffers(model.lora, model.parameters_billion, arch, model.dtype)
        if model.lora is not None and model.lora.slots
        else None
    )
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
        draft_weights_gb=draft.weights_gb if draft else 0.0,
        draft_kv_per_token_gb=draft.kv_per_token_gb if draft else 0.0,
        lora_slots=model.lora.slots if lora is not None and model.lora is not None else 0,
        lora_rank=model.lora.rank if lora is not None and model.lora is not None else 0,
        lora_whole_gb=lora.whole if lora else 0.0,
        lora_split_gb=lora.split if lora else 0.0,
        lora_kv_head_gb=lora.per_kv_head if lora else 0.0,
        lora_estimated=lora.estimated if lora else (),
    )
