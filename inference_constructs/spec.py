"""Validated, typed inputs shared by every decision module and construct.

Pure Python: no ``aws_cdk`` import. The YAML config (``inference_constructs.config``) is parsed
with pydantic and converted into these frozen dataclasses; constructs used directly from Python
take them as keyword props.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from inference_constructs._coerce import enum_fields
from inference_constructs.hf_token import HfTokenSecret


class Accelerator(StrEnum):
    """Kind of device an endpoint's host uses."""

    GPU = "gpu"
    INFERENTIA = "inferentia"
    TRAINIUM = "trainium"
    CPU = "cpu"

    @property
    def is_neuron(self) -> bool:
        """True for AWS Neuron devices (Inferentia2, Trainium)."""
        return self in (Accelerator.INFERENTIA, Accelerator.TRAINIUM)


class AcceleratorChoice(StrEnum):
    """What the user asks for: ``auto`` lets the sizing pick within what the serving stack supports."""

    AUTO = "auto"
    GPU = "gpu"
    INFERENTIA = "inferentia"
    TRAINIUM = "trainium"
    CPU = "cpu"


class DType(StrEnum):
    """Numeric type of the served weights (and KV cache)."""

    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"

    @property
    def bytes_per_parameter(self) -> float:
        """Bytes one parameter takes: fp32 4, bf16/fp16 2, fp8/int8 1, int4 0.5."""
        return _DTYPE_BYTES[self]


_DTYPE_BYTES = {
    DType.FP32: 4.0,
    DType.BF16: 2.0,
    DType.FP16: 2.0,
    DType.FP8: 1.0,
    DType.INT8: 1.0,
    DType.INT4: 0.5,
}


class Serving(StrEnum):
    """Serving stack (container preset)."""

    LMI = "lmi"
    TGI = "tgi"
    VLLM = "vllm"
    NEURON = "neuron"
    TRITON = "triton"
    SKLEARN = "sklearn"
    XGBOOST = "xgboost"
    PYTORCH = "pytorch"
    CUSTOM = "custom"

    @property
    def is_llm(self) -> bool:
        """True for the LLM serving stacks (LMI, TGI, vLLM and their Neuron variants)."""
        return self in (Serving.LMI, Serving.TGI, Serving.VLLM, Serving.NEURON)

    def accelerators(self, requested: AcceleratorChoice = AcceleratorChoice.AUTO) -> frozenset[Accelerator]:
        """Accelerators a host may have for this serving stack.

        With ``auto``: LLM stacks with GPU and Neuron images (lmi, tgi, vllm) may go to any
        accelerator (the container variant follows the host); ``neuron`` to Inferentia or
        Trainium; ``triton`` to GPU; classical stacks (sklearn, xgboost, pytorch) to CPU, so an
        accelerator is never chosen for a model that does not use it; ``custom`` to GPU or CPU.
        An explicit request narrows this set (it may come back empty: the caller reports that).
        """
        supported = _SUPPORTED[self]
        if requested is AcceleratorChoice.AUTO:
            return _AUTO[self]
        wanted = Accelerator(requested.value)
        return frozenset({wanted}) & supported


_ALL = frozenset(Accelerator)
_ACCEL = frozenset({Accelerator.GPU, Accelerator.INFERENTIA, Accelerator.TRAINIUM})
_NEURON = frozenset({Accelerator.INFERENTIA, Accelerator.TRAINIUM})
_GPU = frozenset({Accelerator.GPU})
_CPU = frozenset({Accelerator.CPU})
_SUPPORTED: dict[Serving, frozenset[Accelerator]] = {
    Serving.LMI: _ACCEL,
    Serving.TGI: _ACCEL,
    Serving.VLLM: _ACCEL,
    Serving.NEURON: _NEURON,
    Serving.TRITON: _GPU | _CPU,
    Serving.SKLEARN: _CPU,
    Serving.XGBOOST: _CPU | _GPU,
    Serving.PYTORCH: _CPU | _GPU,
    Serving.CUSTOM: _ALL,
}
_AUTO: dict[Serving, frozenset[Accelerator]] = {
    Serving.LMI: _ACCEL,
    Serving.TGI: _ACCEL,
    Serving.VLLM: _ACCEL,
    Serving.NEURON: _NEURON,
    Serving.TRITON: _GPU,
    Serving.SKLEARN: _CPU,
    Serving.XGBOOST: _CPU,
    Serving.PYTORCH: _CPU,
    Serving.CUSTOM: _GPU | _CPU,
}


class EndpointKind(StrEnum):
    """SageMaker hosting option."""

    REALTIME = "realtime"
    ASYNC = "async"
    SERVERLESS = "serverless"
    MULTI_MODEL = "multi-model"


class ModelSourceKind(StrEnum):
    """Where the container gets the weights: ``huggingface`` downloads ``id`` at start-up; ``s3`` reads ``s3_uri``."""

    HUGGINGFACE = "huggingface"
    S3 = "s3"


@dataclass(frozen=True)
class ModelArchitecture:
    """The model's shape as given (every field optional); the sizing and the engine checks complete it.

    Missing fields come from the known-model table (by Hugging Face id), else from a conservative
    estimate that the plan flags (see :class:`ResolvedArchitecture`). ``layers``, ``kv_heads`` and
    ``head_dim`` make the KV-cache size exact; ``attention_heads`` decides the tensor parallel degrees
    a GPU engine accepts; ``hidden_size``, ``vocab_size`` and ``tie_word_embeddings`` size the 16-bit
    embeddings of a quantized checkpoint; ``family`` (Hugging Face ``model_type``, e.g. ``llama``,
    ``qwen2``) decides which engines can load it.
    """

    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    family: str | None = None
    attention_heads: int | None = None
    hidden_size: int | None = None
    vocab_size: int | None = None
    tie_word_embeddings: bool | None = None


ARCHITECTURE_FIELDS = (
    "family",
    "layers",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "hidden_size",
    "vocab_size",
    "tie_word_embeddings",
)
"""The fields of a model's shape, in the order the plan shows them."""


@dataclass(frozen=True)
class ResolvedArchitecture:
    """A complete shape: what the config gave, else the known-model table, else estimates.

    ``estimated`` names the fields that are conservative estimates (empty when everything is
    known); ``family`` is ``None`` when it is unknown (an engine with a closed list then refuses).
    ``source`` says where the known fields came from.
    """

    layers: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    hidden_size: int
    vocab_size: int
    tie_word_embeddings: bool
    family: str | None
    estimated: tuple[str, ...] = ()
    source: str = ""

    def to_dict(self) -> dict[str, object]:
        """The plan's ``architecture`` block."""
        out: dict[str, object] = {name: getattr(self, name) for name in ARCHITECTURE_FIELDS}
        out["estimated"] = list(self.estimated)
        out["source"] = self.source
        return out


@dataclass(frozen=True)
class LoraSlots:
    """The LoRA adapters an engine makes room for beside a model: ``slots`` adapters (vLLM ``max_loras``) of rank up
    to ``rank`` (``max_lora_rank``). The engine reserves device memory for every slot at start-up, whether adapters
    are loaded or not; the sizing counts it (:func:`inference_constructs.sizing.memory_estimate`)."""

    slots: int
    rank: int


@dataclass(frozen=True)
class ModelSpec:
    """What is served.

    Parameters
    ----------
    source:
        ``huggingface`` (the container downloads ``id``) or ``s3`` (weights at ``s3_uri``); a member or
        its string value.
    id:
        Hugging Face model id, or a label for S3 models.
    s3_uri:
        ``s3://bucket/key.tar.gz`` or an uncompressed prefix ``s3://bucket/prefix/``.
    parameters_billion:
        Parameter count in billions. Default: the known-model table's count for ``id``; unknown
        otherwise, so the host must be given explicitly for accelerated serving (classical models
        are sized from host memory alone).
    dtype:
        Served weight type (a member or its string value, e.g. ``"fp8"``). Default: bf16.
    max_context_tokens:
        Prompt + output tokens per sequence. Default: 4096.
    max_concurrent_sequences:
        Sequences the server batches at once. Default: 8.
    architecture:
        The model's shape (any subset). Default: taken from the known-model table by ``id``, else
        estimated conservatively from ``parameters_billion`` and flagged in the plan.
    neuron_compiled:
        The weights at ``id`` / ``s3_uri`` are already compiled for Neuron (or a Neuron compile cache
        holds this shape), so the host does not compile and needs no compile-time host RAM.
        Default: the Neuron host compiles at start-up and must hold the checkpoint twice.
    revision:
        The hub commit (40 hex digits) of ``id`` to serve. Required when a token secret stages a gated or private
        model into S3 (the copy is made once per revision). Default: none (the container downloads the hub's
        default branch).
    hf_token:
        The Secrets Manager secret holding a Hugging Face read token, for a gated or private ``id``
        (:class:`~inference_constructs.hf_token.HfTokenSecret`; the endpoint constructs also take
        a ``secretsmanager.ISecret`` as ``hf_token``). Default: no token. With one, a deploy-time job reads the
        secret and stages ``id`` at ``revision`` into S3, and the Model loads it from there with network
        isolation; the token reaches the container only with ``HfTokenSecret(in_environment=True)``.
    draft:
        A second model served beside this one on the same shards: the speculative-decoding draft model (or the
        EAGLE / Medusa heads) that proposes tokens this model verifies. The sizing counts its weights and its KV
        cache (the same sequences and context as this model). Default: none; the endpoint's serving options set it
        from ``speculative_decoding`` (:func:`inference_constructs.containers.serving_options.draft_model`).
    lora:
        The LoRA adapter slots the engine reserves device memory for beside this model (:class:`LoraSlots`). The sizing
        counts them. Default: none; an inference-components endpoint sets it on a base component from its adapters.
    """

    source: ModelSourceKind = ModelSourceKind.HUGGINGFACE
    id: str | None = None
    s3_uri: str | None = None
    parameters_billion: float | None = None
    dtype: DType = DType.BF16
    max_context_tokens: int = 4096
    max_concurrent_sequences: int = 8
    architecture: ModelArchitecture | None = None
    neuron_compiled: bool = False
    revision: str | None = None
    hf_token: HfTokenSecret | None = None
    draft: ModelSpec | None = None
    lora: LoraSlots | None = None

    def __post_init__(self) -> None:
        # Python callers may write the YAML's strings (source="s3", dtype="fp8"); the decisions see members.
        enum_fields(self, "model", source=ModelSourceKind, dtype=DType)
