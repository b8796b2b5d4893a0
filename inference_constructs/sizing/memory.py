"""The memory model: the usable share of each accelerator, the runtime overhead and margin, host RAM for
loading, and :func:`memory_estimate`, the memory a model needs before it is placed on a host (GiB).
"""

from __future__ import annotations

from functools import lru_cache

from inference_constructs.catalog.models import resolve_architecture, resolve_model
from inference_constructs.containers.compatibility import headroom, margin_floor_fraction, quantized_layout
from inference_constructs.sizing.types import MemoryEstimate
from inference_constructs.spec import Accelerator, DType, ModelSpec, ResolvedArchitecture

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


@lru_cache(maxsize=4096)
def memory_estimate(model: ModelSpec, *, llm: bool = True) -> MemoryEstimate:
    """Memory ``model`` needs (GiB), per the documented model.

    ``llm=False`` (classical serving) counts weights only (no KV cache), and a model without
    ``parameters_billion`` gets :data:`CLASSICAL_DEFAULT_FOOTPRINT_GIB`. An LLM without
    ``parameters_billion`` (given or known by id) cannot be sized: the caller must reject it or take
    an explicit host. A ``model.draft`` (speculative decoding) adds its weights and KV cache per token.
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
    )
