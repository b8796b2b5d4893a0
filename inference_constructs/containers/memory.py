"""How each serving stack uses accelerator memory, and so whether GPU memory can drive scaling.

Pure Python. ``GPUMemoryUtilization`` (``/aws/sagemaker/Endpoints``) is what the GPU driver reports as
allocated. A server that reserves most of each GPU at start-up (for its KV cache), or that never gives
freed memory back to the driver, reports a high value whatever the load. A target-tracking policy on it
then scales out to ``capacity.max`` and never back in; and because Application Auto Scaling removes
capacity only when every policy of a target agrees, it also pins the endpoint at the maximum when it is
combined with a concurrency policy. So the scaling rules refuse a GPU-memory policy on the stacks marked
``RESERVES`` or ``KEEPS`` below, and warn on the stacks whose behaviour depends on what runs inside.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from inference_constructs.spec import Serving

__all__ = ["GPU_MEMORY_BEHAVIOUR", "GpuMemoryBehaviour", "GpuMemoryUse", "no_gpu_fix"]


class GpuMemoryUse(StrEnum):
    """What the GPU driver reports as used while the server runs."""

    RESERVES = "reserves-at-start"
    """A fixed share of each GPU is allocated at start-up (weights plus a pre-sized KV cache)."""
    KEEPS = "keeps-peak"
    """Memory grows with load but freed blocks stay with the process (caching allocator), so it never falls."""
    DEPENDS = "depends-on-backend"
    """Decided by the model, backend or code running inside the container; not known to the library."""
    NO_GPU = "no-gpu"
    """The stack runs on CPU or Neuron hosts, which publish no GPU memory metric."""


@dataclass(frozen=True)
class GpuMemoryBehaviour:
    """One serving stack's use of accelerator memory.

    Attributes
    ----------
    use:
        What the reported GPU memory does with load.
    detail:
        One sentence: the setting or mechanism, with its default.
    source:
        Where this is documented (project and file or page, at the version the image pins).
    """

    use: GpuMemoryUse
    detail: str
    source: str

    @property
    def refuses_gpu_memory_scaling(self) -> bool:
        """True when GPU memory cannot fall with load (reserved at start-up, or kept at its peak)."""
        return self.use in (GpuMemoryUse.RESERVES, GpuMemoryUse.KEEPS)


_VLLM = (
    "vLLM pre-allocates gpu_memory_utilization of each GPU (written by the library: the share the sizing counts; "
    "the engine's own default is 0.92) for weights, activations and the KV cache when the engine starts"
)
_VLLM_SOURCE = (
    "vllm-project/vllm@v0.30.0 vllm/config/cache.py (CacheConfig.gpu_memory_utilization, default 0.92); "
    "vLLM docs, engine arguments: --gpu-memory-utilization"
)

GPU_MEMORY_BEHAVIOUR: Mapping[Serving, GpuMemoryBehaviour] = MappingProxyType(
    {
        Serving.VLLM: GpuMemoryBehaviour(GpuMemoryUse.RESERVES, _VLLM, _VLLM_SOURCE),
        Serving.LMI: GpuMemoryBehaviour(
            GpuMemoryUse.RESERVES,
            "LMI's vLLM rolling batch (OPTION_ROLLING_BATCH=vllm, set by the library) passes "
            "option.gpu_memory_utilization (written by the library: the share of each GPU the sizing counts) to vLLM, "
            "reserved at start-up",
            "deepjavalibrary/djl-serving serving/docs/lmi/user_guides/vllm_user_guide.md "
            "(OPTION_GPU_MEMORY_UTILIZATION); djl-serving 0.36.0-lmi27-dlc "
            "engines/python/setup/djl_python/properties_manager/vllm_rb_properties.py (option keys that are vLLM "
            "EngineArgs fields pass through to vLLM: get_additional_vllm_engine_args); " + _VLLM_SOURCE,
        ),
        Serving.TGI: GpuMemoryBehaviour(
            GpuMemoryUse.RESERVES,
            "TGI warms up and fills the memory left after the weights with KV-cache blocks (free memory x "
            "CUDA_MEMORY_FRACTION 1.0 x TGI_WIGGLE_ROOM 0.90) before it serves; for flash-attention models a "
            "configured MAX_BATCH_TOTAL_TOKENS is ignored and the inferred value used",
            "huggingface/text-generation-inference v3.3.6 server/text_generation_server/models/flash_causal_lm.py "
            "(FlashCausalLM.warmup), models/globals.py (TGI_WIGGLE_ROOM), backends/v3/src/lib.rs",
        ),
        Serving.PYTORCH: GpuMemoryBehaviour(
            GpuMemoryUse.KEEPS,
            "PyTorch's caching allocator keeps freed blocks for reuse: they still show as used to the driver "
            "(nvidia-smi, GPUMemoryUtilization) until the process calls empty_cache()",
            "PyTorch docs, CUDA semantics, memory management",
        ),
        Serving.TRITON: GpuMemoryBehaviour(
            GpuMemoryUse.DEPENDS,
            "Triton's memory use is its backend's: the TensorRT-LLM backend reserves kv_cache_free_gpu_mem_fraction "
            "(default 0.9) and the vLLM backend vLLM's gpu_memory_utilization (set in the model repository's "
            "model.json, else vLLM's default); the PyTorch backend keeps its peak",
            "triton-inference-server/tensorrtllm_backend docs (kv_cache_free_gpu_mem_fraction); " + _VLLM_SOURCE,
        ),
        Serving.CUSTOM: GpuMemoryBehaviour(
            GpuMemoryUse.DEPENDS,
            "a custom image's memory use is unknown to the library",
            "not applicable",
        ),
        Serving.XGBOOST: GpuMemoryBehaviour(
            GpuMemoryUse.DEPENDS,
            "XGBoost on GPU allocates per request through its memory pool; whether the pool shrinks is unconfirmed",
            "unconfirmed",
        ),
        Serving.NEURON: GpuMemoryBehaviour(
            GpuMemoryUse.NO_GPU,
            "runs on Inferentia2/Trainium, whose device memory is not published as GPUMemoryUtilization",
            "SageMaker developer guide, Monitor Amazon SageMaker with CloudWatch (GPU metrics on GPU instances only)",
        ),
        Serving.SKLEARN: GpuMemoryBehaviour(
            GpuMemoryUse.NO_GPU, "scikit-learn images are CPU only", "images.json (no gpu variant pinned)"
        ),
    }
)
"""Accelerator memory behaviour per serving stack, with sources (listed in docs/runtime-rules.md)."""


_CONCURRENCY = "use scaling.concurrency_per_instance"
_STILL_ON_GPU = {
    GpuMemoryUse.RESERVES: "reserves gpu memory at start",
    GpuMemoryUse.KEEPS: "keeps gpu memory at its peak",
}


def no_gpu_fix(serving: Serving | None) -> str:
    """What to do about a GPU-memory policy on a host without a GPU, given the serving stack.

    A GPU host helps only a stack whose GPU memory can fall with load (:data:`GPU_MEMORY_BEHAVIOUR`): for one
    that reserves or keeps it the metric would not move there either, and a CPU or Neuron stack has no GPU host
    at all; then the fix is a concurrency policy. Unknown stacks (``None``) may take either fix.
    """
    behaviour = GPU_MEMORY_BEHAVIOUR.get(serving) if serving is not None else None
    if serving is None or behaviour is None or behaviour.use is GpuMemoryUse.DEPENDS:
        return f"choose a gpu instance type, or {_CONCURRENCY}"
    if behaviour.use is GpuMemoryUse.NO_GPU:
        return f"{_CONCURRENCY}; serving {serving.value} runs on no gpu, so there is no gpu memory metric to scale on"
    return (
        f"{_CONCURRENCY}; a gpu host would not help: serving {serving.value} {_STILL_ON_GPU[behaviour.use]}, so the "
        "metric does not move with load there either"
    )
