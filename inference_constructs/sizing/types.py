"""What the sizing decides and reports: the memory a model needs, how it fits a host, the chosen host,
the candidates passed over and a cheaper-dtype hint (value types only; see :mod:`.choice`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from inference_constructs._plan_dict import plan_dict
from inference_constructs.catalog import InstanceType
from inference_constructs.spec import Accelerator, DType, ResolvedArchitecture
from inference_constructs.units import HOURS_PER_MONTH

QUANTIZATION_CAVEAT = (
    "not applied: a lower-precision dtype needs a matching checkpoint or load-time quantization and can lower "
    "output quality; evaluate it on your own prompts before switching"
)


class RejectionKind(StrEnum):
    """Why a candidate host was not chosen."""

    ACCELERATOR = "accelerator"
    """The host's accelerator kind is not allowed for this serving stack / request."""
    DEVICES = "devices"
    """The host has more devices than allowed (e.g. multi-model endpoints: single GPU only)."""
    BURSTABLE = "burstable"
    """Burstable ml.t* hosts are not chosen unless allowed."""
    EXCLUDED = "excluded"
    """The caller's predicate excluded the host."""
    ENGINE = "engine"
    """The engine on this host cannot run the model: family, dtype on this accelerator generation, Neuron SDK."""
    DEVICE_MEMORY = "device_memory"
    """The model does not fit the accelerator memory at any allowed tensor parallel degree."""
    HOST_MEMORY = "host_memory"
    """The host RAM cannot load the weights."""
    ESTIMATED = "estimated"
    """A fact of the host (its price, device memory, ...) is an estimate: never chosen automatically."""


@dataclass(frozen=True)
class Rejection:
    """A cheaper (or explicitly requested) candidate that was not chosen, and why."""

    instance_type: str
    reason: str
    kind: RejectionKind = RejectionKind.DEVICE_MEMORY
    price_per_hour_usd: float = 0.0


@dataclass(frozen=True)
class MemoryEstimate:
    """Memory a model needs before it is placed on a host (GiB).

    ``weights_gb`` is the checkpoint as stored; ``kv_cache_gb`` the whole KV cache without
    replication. Placement adds head padding, KV replication and overhead (:func:`evaluate_host`).
    ``architecture`` is the completed shape (``None`` for classical models). ``draft_weights_gb`` and
    ``draft_kv_per_token_gb`` are a speculative-decoding draft model's weights and KV cache per token (0 without
    one): the draft sits on the same shards and its KV cache holds the same tokens as the target's.

    ``lora_slots`` adapters of rank ``lora_rank`` (0 without adapters) reserve, per tensor parallel shard,
    ``lora_whole_gb`` (the buffers every shard holds whole) + ``lora_split_gb`` / degree (the buffers split over the
    shards) + ``lora_kv_head_gb`` per KV head the shard holds (:meth:`lora_shard_gb`); ``lora_estimated`` names the
    shape fields the reservation was computed from that are estimates.
    """

    weights_gb: float
    kv_cache_gb: float
    overhead_fraction: float
    per_shard_overhead_gb: float
    kv_estimated: bool
    footprint_default: bool
    architecture: ResolvedArchitecture | None = None
    weight_bytes: float = 2.0
    neuron_compiled: bool = False
    kv_per_token_gb: float = 0.0
    context_tokens: int = 0
    sequences: int = 0
    draft_weights_gb: float = 0.0
    draft_kv_per_token_gb: float = 0.0
    lora_slots: int = 0
    lora_rank: int = 0
    lora_whole_gb: float = 0.0
    lora_split_gb: float = 0.0
    lora_kv_head_gb: float = 0.0
    lora_estimated: tuple[str, ...] = ()

    def lora_shard_gb(self, shards: int) -> float:
        """The LoRA adapters' reservation on each of ``shards`` tensor parallel shards (0 without adapters)."""
        if not self.lora_slots:
            return 0.0
        kv_heads = self.architecture.kv_heads if self.architecture else 0
        held = math.ceil(kv_heads / shards) if kv_heads else 0
        return self.lora_whole_gb + self.lora_split_gb / shards + self.lora_kv_head_gb * held

    def lora_gb(self, tensor_parallel_degree: int) -> float:
        """The LoRA adapters' reservation over every shard at ``tensor_parallel_degree`` (at least one shard)."""
        shards = max(1, tensor_parallel_degree)
        return self.lora_shard_gb(shards) * shards

    def kv_gb(self, sequences: int) -> float:
        """KV cache of ``sequences`` sequences of ``context_tokens`` (all KV heads, no replication)."""
        return self.kv_per_token_gb * self.context_tokens * sequences

    def draft_gb(self, sequences: int | None = None) -> float:
        """The draft model's weights + its KV cache for ``sequences`` sequences (default: the target's)."""
        held = self.sequences if sequences is None else sequences
        return self.draft_weights_gb + self.draft_kv_per_token_gb * self.context_tokens * held

    @property
    def base_gb(self) -> float:
        """Weights + KV cache (with a draft model's) + the LoRA adapters' reservation on one shard + proportional
        overhead, before per-shard overhead, padding and replication."""
        return (self.weights_gb + self.kv_cache_gb + self.draft_gb() + self.lora_shard_gb(1)) * (
            1.0 + self.overhead_fraction
        )

    def required_gb(self, shards: int) -> float:
        """Total memory needed over ``shards`` shards, without padding or KV replication."""
        return self.base_gb + self.per_shard_overhead_gb * shards


@dataclass(frozen=True, kw_only=True)
class _ShardLayout:
    """What the shards of one model copy hold on a host, as the :class:`Fit` finds it and the
    :class:`HostDecision` reports it (keyword-only).

    ``heads_per_shard`` / ``kv_heads_per_shard`` what each shard holds; ``padding_gb`` the extra weights of padded
    or replicated heads; ``degree_rejections`` why each smaller (or invalid) degree was not taken; ``dtype_note``
    a note on the dtype the engine runs on this host; ``kv`` what the KV cache holds (``None`` for classical models
    and unchecked explicit hosts).
    """

    heads_per_shard: int = 0
    kv_heads_per_shard: int = 0
    padding_gb: float = 0.0
    degree_rejections: tuple[str, ...] = ()
    dtype_note: str = ""
    kv: KvCapacity | None = None


@dataclass(frozen=True)
class Fit(_ShardLayout):
    """How a model fits one host (or why it does not).

    ``memory_required_gb`` is the per-shard need times the degree (with padding and replicated KV
    heads); the shard layout fields (keyword-only) say what each shard holds.
    """

    instance: InstanceType
    fits: bool
    devices: int
    tensor_parallel_degree: int
    memory_required_gb: float
    memory_available_gb: float
    host_ram_required_gb: float
    rejection: Rejection | None


@dataclass(frozen=True)
class KvCapacity:
    """What the KV cache holds on a host, within the margin floor.

    ``tokens`` is the KV capacity in tokens: with a paged engine (vLLM, TGI) every token the usable
    memory leaves after weights and overhead; with a static batch (Neuron) the compiled
    ``max_concurrent_sequences x max_context_tokens``. ``max_length_sequences`` is how many
    ``max_context_tokens`` sequences that holds at once (at most the target); ``batch_fits`` whether it
    holds the whole target. When it does not (only on an explicit host with a paged engine), the engine
    still admits up to the target, as shorter sequences leave room (continuous batching).
    """

    tokens: int
    context_tokens: int
    requested_sequences: int
    max_length_sequences: int
    paged: bool

    @property
    def batch_fits(self) -> bool:
        """The host holds every requested sequence at its maximum length at once."""
        return self.max_length_sequences >= self.requested_sequences

    def summary(self) -> str:
        """One clause for the reason."""
        n, ctx = self.requested_sequences, self.context_tokens
        if self.batch_fits:
            return f"KV cache {self.tokens:,} tokens ({n} x {ctx:,} fit)"
        return (
            f"KV cache {self.tokens:,} tokens: {self.max_length_sequences} of the {n} requested {ctx:,}-token "
            f"sequences at once; the engine's continuous batching admits up to {n} while shorter sequences leave room"
        )

    def to_dict(self) -> dict[str, object]:
        """The plan's ``kv_cache`` block."""
        allocation = "paged" if self.paged else "static"
        return plan_dict(
            self, "tokens", "max_length_sequences", "requested_sequences", "batch_fits", allocation=allocation
        )


@dataclass(frozen=True)
class QuantizationHint:
    """A cheaper host that another dtype would fit and the engine would run. Never applied automatically."""

    dtype: DType
    instance_type: str
    price_per_hour_usd: float
    saving_percent: float
    caveat: str = QUANTIZATION_CAVEAT

    def __str__(self) -> str:
        return (
            f"{self.dtype.value} weights would fit {self.instance_type} at ${self.price_per_hour_usd:.3f}/h "
            f"({self.saving_percent:.0f}% cheaper); {self.caveat}"
        )


@dataclass(frozen=True)
class LoraReservation:
    """The device memory the engine reserves for LoRA adapters beside the model on the chosen host.

    ``slots`` adapters (vLLM ``max_loras``) of rank up to ``rank`` (``max_lora_rank``); ``gb`` over every shard of
    the copy (counted in ``memory_required_gb``), ``per_shard_gb`` on each; ``estimated`` the shape fields it was
    computed from that are estimates (the MLP's intermediate size is always derived from the parameter count)."""

    slots: int
    rank: int
    gb: float
    per_shard_gb: float
    estimated: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """The plan's ``lora_adapters`` block."""
        return {
            "slots": self.slots,
            "max_lora_rank": self.rank,
            "reserved_gb": round(self.gb, 3),
            "per_shard_gb": round(self.per_shard_gb, 3),
            "estimated": list(self.estimated),
        }

    def summary(self) -> str:
        """One clause for a reason."""
        flag = f" (estimated: {', '.join(self.estimated)})" if self.estimated else ""
        return f"LoRA adapters {self.gb:.2f} GiB ({self.slots} slot(s) of rank {self.rank}){flag}"


@dataclass(frozen=True)
class HostDecision(_ShardLayout):
    """The chosen host, what it uses, and why.

    ``devices`` counts the GPUs or Neuron devices one model copy uses; ``tensor_parallel_degree`` is
    in GPUs, or in NeuronCores on Inferentia/Trainium. ``memory_available_gb`` is the usable
    accelerator memory of the shards used (host RAM x usable fraction on CPU hosts). ``rejected``
    lists the cheaper candidates that were passed over (a few per reason), cheapest first.
    ``architecture`` is the completed model shape (its ``estimated`` fields are guesses).
    ``kv_cache_gb`` is the KV cache counted in ``memory_required_gb``: the concurrency target, or on an
    explicit host with a paged KV cache that holds fewer, the max-length sequences it holds (``kv``).
    """

    instance: InstanceType
    accelerator: Accelerator
    devices: int
    tensor_parallel_degree: int
    memory_required_gb: float
    memory_available_gb: float
    weights_gb: float
    kv_cache_gb: float
    price_per_hour_usd: float
    reason: str
    rejected: tuple[Rejection, ...]
    quantization_hint: QuantizationHint | None
    explicit: bool = False
    model_copies: int = 1
    host_ram_required_gb: float = 0.0
    kv_estimated: bool = False
    architecture: ResolvedArchitecture | None = None
    passed_over: tuple[tuple[RejectionKind, int], ...] = ()
    """How many cheaper hosts were passed over, per reason, all of them (``rejected`` lists a few of each);
    empty for an explicit host."""
    draft_weights_gb: float = 0.0
    """A speculative-decoding draft model's weights counted in ``memory_required_gb`` (0 without one)."""
    draft_kv_cache_gb: float = 0.0
    """The draft model's KV cache counted in ``memory_required_gb`` (0 without one)."""
    lora: LoraReservation | None = None
    """The LoRA adapters' reservation counted in ``memory_required_gb`` (``None`` without adapters)."""

    @property
    def instance_type(self) -> str:
        """The SageMaker instance type name, e.g. ``ml.g5.xlarge``."""
        return self.instance.name

    @property
    def price_per_month_usd(self) -> float:
        """On-demand price of one instance for an average month (``units.HOURS_PER_MONTH``, 730 h)."""
        return self.price_per_hour_usd * HOURS_PER_MONTH

    @property
    def margin_gb(self) -> float:
        """Usable accelerator memory left free by the model on the shards it uses."""
        return self.memory_available_gb - self.memory_required_gb
