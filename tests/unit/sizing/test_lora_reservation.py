"""The device memory vLLM reserves for LoRA adapters (``containers/compatibility.json`` ``lora``), counted by the
sizing: the stacked A and B buffers of every LoRA-capable layer, per tensor parallel shard."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from inference_constructs.catalog import load_catalog
from inference_constructs.catalog.models import known_model
from inference_constructs.containers.compatibility import lora_rules
from inference_constructs.sizing import (
    GIB,
    RUNTIME_OVERHEAD_FRACTION,
    HostDecision,
    choose_host,
    intermediate_size,
    memory_estimate,
)
from inference_constructs.spec import LoraSlots, ModelSpec, ResolvedArchitecture, Serving

LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"
LLAMA = ModelSpec(id=LLAMA_ID, max_context_tokens=4096, max_concurrent_sequences=4)
QWEN = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", max_context_tokens=4096, max_concurrent_sequences=4)


def _vllm_buffers(
    *, slots: int, rank: int, tp: int, layers: int, hidden: int, heads: int, kv_heads: int, head_dim: int,
    inter: int, vocab: int, embeddings: bool, dtype_bytes: int = 2,
) -> float:  # fmt: skip
    """GiB on one shard, as vLLM allocates each module: A (slots, 1, rank, input), B (slots, 1, output, rank)."""
    q, kv = heads * head_dim // tp, math.ceil(kv_heads / tp) * head_dim

    def pair(a_in: int, b_out: int) -> int:
        return rank * a_in + b_out * rank

    per_layer = (
        pair(hidden, q) + pair(hidden, kv) + pair(hidden, kv)  # qkv_proj: slices q, k, v (column parallel)
        + pair(heads * head_dim // tp, hidden)  # o_proj (row parallel: input split)
        + 2 * pair(hidden, inter // tp)  # gate_up_proj: slices gate, up (column parallel)
        + pair(inter // tp, hidden)  # down_proj (row parallel)
    )  # fmt: skip
    total = layers * per_layer
    if embeddings:
        total += vocab * rank + hidden * rank  # embed_tokens: A (vocab, rank), B (hidden, rank)
        total += rank * hidden + vocab * rank  # lm_head (logits processor): A (rank, hidden), B (vocab, rank)
    return slots * total * dtype_bytes / GIB


def _expected(arch: ResolvedArchitecture, params: float, *, slots: int, rank: int, tp: int, embeddings: bool) -> float:
    """:func:`_vllm_buffers` for a resolved shape, with the MLP width the sizing derives from ``params``."""
    return _vllm_buffers(
        slots=slots, rank=rank, tp=tp, layers=arch.layers, hidden=arch.hidden_size, heads=arch.attention_heads,
        kv_heads=arch.kv_heads, head_dim=arch.head_dim, inter=intermediate_size(params, arch), vocab=arch.vocab_size,
        embeddings=embeddings,
    )  # fmt: skip


def _llama_shape() -> ResolvedArchitecture:
    est = memory_estimate(LLAMA)
    assert est.architecture is not None
    return est.architecture


@pytest.mark.parametrize("tp", [1, 2, 4])
def test_the_reservation_is_the_stacked_a_and_b_buffers_of_every_layer_per_shard(tp: int) -> None:
    # GIVEN Llama 3.1 8B (its config.json shape in the known-model table) with 4 adapter slots of rank 16, bf16
    row = known_model(LLAMA_ID)
    assert row is not None
    arch = row.architecture
    assert arch.layers and arch.hidden_size and arch.attention_heads and arch.kv_heads and arch.head_dim
    assert arch.vocab_size
    # the MLP width the sizing derives from the parameter count: params - embeddings - attention, over 3 x L x h
    attention = arch.layers * 2 * arch.hidden_size * (arch.attention_heads + arch.kv_heads) * arch.head_dim
    inter = math.ceil(
        (row.parameters_billion * 1e9 - 2 * arch.vocab_size * arch.hidden_size - attention)
        / (3 * arch.layers * arch.hidden_size)
    )
    est = memory_estimate(replace(LLAMA, lora=LoraSlots(slots=4, rank=16)))
    # WHEN the reservation is taken at tensor parallel degree tp
    got = est.lora_shard_gb(tp)
    # THEN it is vLLM's buffers on one shard: the linear layers' and, for llama, the embeddings' and lm_head's
    expected = _vllm_buffers(
        slots=4, rank=16, tp=tp, layers=arch.layers, hidden=arch.hidden_size, heads=arch.attention_heads,
        kv_heads=arch.kv_heads, head_dim=arch.head_dim, inter=inter, vocab=arch.vocab_size, embeddings=True,
    )  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-3)
    assert est.lora_estimated == ("intermediate_size",)
    if tp == 1:
        assert got == pytest.approx(0.344, abs=0.001)  # 369,438,720 bytes


@pytest.mark.parametrize(
    ("model_id", "published"),
    [
        # intermediate_size in each model's config.json (the known-model row's source)
        ("meta-llama/Llama-3.1-8B-Instruct", 14336),
        ("meta-llama/Llama-3.1-70B-Instruct", 28672),
        ("Qwen/Qwen2.5-1.5B-Instruct", 8960),
        ("Qwen/Qwen2.5-7B-Instruct", 18944),
    ],
)
def test_the_derived_intermediate_size_is_within_half_a_percent_of_the_published_one(
    model_id: str, published: int
) -> None:
    # GIVEN a known model WHEN the sizing derives its MLP width from the parameter count
    row = known_model(model_id)
    assert row is not None and row.parameters_billion is not None
    est = memory_estimate(ModelSpec(id=model_id))
    assert est.architecture is not None
    derived = intermediate_size(row.parameters_billion, est.architecture)
    # THEN it is the published width within 0.5 %, on either side (the parameter count is rounded)
    assert abs(derived - published) <= 0.005 * published


def test_an_unknown_family_counts_the_embedding_buffers_and_says_it_is_estimated() -> None:
    # GIVEN a model no table knows (no family): the sizing cannot tell whether vLLM adds embedding adapters
    unknown = ModelSpec(id="acme/private-7b", parameters_billion=7.0, lora=LoraSlots(slots=1, rank=16))
    est = memory_estimate(unknown)
    assert est.architecture is not None and est.architecture.family is None
    # WHEN its reservation is taken THEN it counts embed_tokens and lm_head too, and flags the family estimated
    expected = _expected(est.architecture, 7.0, slots=1, rank=16, tp=1, embeddings=True)
    assert est.lora_shard_gb(1) == pytest.approx(expected, rel=1e-3)
    assert "family" in est.lora_estimated


def test_more_shards_than_kv_heads_keep_a_whole_kv_head_each() -> None:
    # GIVEN Qwen 2.5 7B (4 KV heads) on 8 shards: vLLM replicates KV heads, each shard holds ceil(4 / 8) = 1
    est = memory_estimate(replace(QWEN, lora=LoraSlots(slots=2, rank=16)))
    assert est.architecture is not None
    assert est.architecture.kv_heads == 4
    expected = _expected(est.architecture, 7.62, slots=2, rank=16, tp=8, embeddings=False)
    # THEN the k and v B buffers per shard are one head wide, not half a head
    assert est.lora_shard_gb(8) == pytest.approx(expected, rel=1e-3)
    assert est.lora_shard_gb(8) > est.lora_shard_gb(4) / 2


def test_a_family_without_embedding_adapters_reserves_the_linear_layers_only() -> None:
    # GIVEN Qwen 2.5 7B (vLLM's Qwen2ForCausalLM declares no embedding_modules) and Llama (embed_tokens, lm_head)
    slots = LoraSlots(slots=2, rank=32)
    qwen = memory_estimate(replace(QWEN, lora=slots))
    assert qwen.architecture is not None
    # WHEN its reservation is taken THEN it holds no vocab-sized buffer
    expected = _expected(qwen.architecture, 7.62, slots=2, rank=32, tp=1, embeddings=False)
    assert qwen.lora_shard_gb(1) == pytest.approx(expected, rel=1e-3)
    assert "qwen2" not in lora_rules().embedding_families
    assert {"llama", "mixtral", "phi3"} <= lora_rules().embedding_families


def test_the_reservation_scales_with_slots_and_rank_and_is_zero_without_adapters() -> None:
    base = memory_estimate(LLAMA)
    one = memory_estimate(replace(LLAMA, lora=LoraSlots(slots=1, rank=16)))
    four_64 = memory_estimate(replace(LLAMA, lora=LoraSlots(slots=4, rank=64)))
    assert base.lora_shard_gb(1) == 0.0
    assert four_64.lora_shard_gb(1) == pytest.approx(16 * one.lora_shard_gb(1))


def test_the_host_decision_counts_the_reservation_in_the_memory_required() -> None:
    # GIVEN Qwen 2.5 7B on one explicit GPU, with and without 4 adapter slots of rank 64
    def size(model: ModelSpec) -> HostDecision:
        return choose_host(
            model, serving=Serving.LMI, instance_type="ml.g6e.xlarge", catalog=load_catalog(), quantization_hint=False
        )

    alone = size(QWEN)
    with_lora = size(replace(QWEN, lora=LoraSlots(slots=4, rank=64)))
    # WHEN both are sized THEN the adapters' reservation (with the runtime overhead share) is added to the need
    assert with_lora.lora is not None and alone.lora is None
    reserved = memory_estimate(replace(QWEN, lora=LoraSlots(slots=4, rank=64))).lora_shard_gb(1)
    assert with_lora.lora.gb == pytest.approx(reserved, abs=1e-3)
    assert (with_lora.lora.slots, with_lora.lora.rank) == (4, 64)
    assert with_lora.memory_required_gb - alone.memory_required_gb == pytest.approx(
        reserved * (1 + RUNTIME_OVERHEAD_FRACTION), abs=2e-3
    )
    assert "LoRA adapters" in with_lora.reason and "4 slot(s) of rank 64" in with_lora.reason


def test_the_engine_takes_a_fixed_set_of_ranks_and_defaults_to_16() -> None:
    # vLLM LoRAConfig: MaxLoRARanks = Literal[1, 8, 16, 32, 64, 128, 256, 320, 512], max_lora_rank = 16
    rules = lora_rules()
    assert rules.ranks == (1, 8, 16, 32, 64, 128, 256, 320, 512)
    assert rules.default_rank == 16
    assert rules.default_slots == 4  # LMI's max_loras default (djl-serving vllm_rb_properties.py)
    assert {"gpt_neox", "falcon", "bloom"} == rules.families_without_lora
