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

Modules: :mod:`.types` (the value types), :mod:`.memory` (the memory model), :mod:`.placement` (the fit on
one host), :mod:`.candidates` (the hosts considered and the engine rules on each), :mod:`.choice` (the
cheapest fitting host, or the check of an explicit one) and :mod:`.explain` (the reasons).
"""

from __future__ import annotations

from inference_constructs.catalog.models import ESTIMATED_LAYERS, estimated_architecture
from inference_constructs.sizing.candidates import feasible_hosts
from inference_constructs.sizing.choice import choose_host
from inference_constructs.sizing.memory import (
    CLASSICAL_DEFAULT_FOOTPRINT_GIB,
    CPU_USABLE_FRACTION,
    GIB,
    GPU_TP_DEGREES,
    GPU_USABLE_FRACTION,
    HOST_RAM_RESERVE_GIB,
    HOST_RAM_WEIGHTS_FACTOR,
    MARGIN_FLOOR_FRACTION,
    NEURON_USABLE_FRACTION,
    RUNTIME_OVERHEAD_FRACTION,
    RUNTIME_OVERHEAD_PER_SHARD_GIB,
    LoraBuffers,
    intermediate_size,
    lora_buffers,
    memory_estimate,
)
from inference_constructs.sizing.placement import evaluate_host
from inference_constructs.sizing.types import (
    QUANTIZATION_CAVEAT,
    Fit,
    HostDecision,
    KvCapacity,
    LoraReservation,
    MemoryEstimate,
    QuantizationHint,
    Rejection,
    RejectionKind,
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
    "LoraBuffers",
    "LoraReservation",
    "MemoryEstimate",
    "QuantizationHint",
    "Rejection",
    "RejectionKind",
    "choose_host",
    "estimated_architecture",
    "evaluate_host",
    "feasible_hosts",
    "intermediate_size",
    "lora_buffers",
    "memory_estimate",
]
