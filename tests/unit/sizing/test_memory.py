"""The memory model of docs/sizing.md."""

from __future__ import annotations

import pytest

from inference_constructs.catalog import load_catalog
from inference_constructs.sizing import (
    CLASSICAL_DEFAULT_FOOTPRINT_GIB,
    GIB,
    GPU_USABLE_FRACTION,
    MARGIN_FLOOR_FRACTION,
    RUNTIME_OVERHEAD_FRACTION,
    RUNTIME_OVERHEAD_PER_SHARD_GIB,
    estimated_architecture,
    evaluate_host,
    memory_estimate,
)
from inference_constructs.spec import DType, ModelArchitecture, ModelSpec

LLAMA3_8B = ModelArchitecture(layers=32, kv_heads=8, head_dim=128)


@pytest.mark.parametrize(("dtype", "bytes_per_parameter"), [(DType.FP32, 4), (DType.FP16, 2), (DType.BF16, 2)])
def test_unquantized_weights_are_parameters_times_bytes_per_dtype(dtype, bytes_per_parameter):
    # GIVEN a 7B model in a 16/32-bit dtype
    model = ModelSpec(parameters_billion=7, dtype=dtype)
    # WHEN its memory is estimated
    est = memory_estimate(model)
    # THEN weights = 7e9 x bytes / 2**30 GiB (FP16 about 2 bytes per parameter)
    assert est.weights_gb == pytest.approx(7e9 * bytes_per_parameter / GIB)


LLAMA31_70B = ModelArchitecture(
    family="llama", layers=80, attention_heads=64, kv_heads=8, head_dim=128, hidden_size=8192, vocab_size=128256,
    tie_word_embeddings=False,
)  # fmt: skip


@pytest.mark.parametrize(
    ("dtype", "expected_gb"),
    [
        # 16-bit embeddings + output layer: 2 x 128256 x 8192 params x 2 bytes; the other 68.45e9 params:
        # int4: 0.5 byte + a 2.5-byte scale/zero per group of 128; int8/fp8: 1 byte + a 2-byte scale per row
        (DType.INT4, (2 * 128256 * 8192 * 2 + (70.55e9 - 2 * 128256 * 8192) * (0.5 + 2.5 / 128)) / 2**30),
        (DType.INT8, (2 * 128256 * 8192 * 2 + (70.55e9 - 2 * 128256 * 8192) * (1 + 2 / 8192)) / 2**30),
        (DType.FP8, (2 * 128256 * 8192 * 2 + (70.55e9 - 2 * 128256 * 8192) * (1 + 2 / 8192)) / 2**30),
    ],
)
def test_quantized_weights_are_stored_with_16_bit_embeddings_and_scales(dtype, expected_gb):
    # GIVEN Llama 3.1 70B in a quantized dtype
    model = ModelSpec(parameters_billion=70.55, dtype=dtype, architecture=LLAMA31_70B)
    # WHEN estimated / THEN weights are the checkpoint as stored, not parameters x bits
    assert memory_estimate(model).weights_gb == pytest.approx(expected_gb)


def test_int4_70b_checkpoint_is_about_13_percent_above_half_a_byte_per_parameter():
    # GIVEN Llama 3.1 70B AWQ int4 / WHEN estimated
    est = memory_estimate(ModelSpec(parameters_billion=70.55, dtype=DType.INT4, architecture=LLAMA31_70B))
    # THEN it is ~13% above 0.5 bytes per parameter (the 16-bit embeddings and the group scales)
    assert est.weights_gb / (70.55e9 * 0.5 / GIB) == pytest.approx(1.13, abs=0.01)


def test_fp16_is_about_two_bytes_per_parameter():
    # GIVEN 1B FP16 parameters / WHEN estimated / THEN about 2 GB (1.86 GiB)
    assert memory_estimate(ModelSpec(parameters_billion=1, dtype=DType.FP16)).weights_gb * GIB == pytest.approx(2e9)


def test_kv_cache_uses_the_exact_formula_when_architecture_is_given():
    # GIVEN Llama 3 8B's shape, 4096 tokens and 8 sequences in bf16
    model = ModelSpec(parameters_billion=8, architecture=LLAMA3_8B, max_context_tokens=4096, max_concurrent_sequences=8)
    # WHEN estimated
    est = memory_estimate(model)
    # THEN KV = 2 x 32 x 8 x 128 x 2 bytes x 4096 x 8 = 4 GiB, not estimated
    assert est.kv_cache_gb == pytest.approx(4.0)
    assert not est.kv_estimated


@pytest.mark.parametrize(("context", "sequences"), [(4096, 8), (8192, 8), (4096, 16), (32768, 1)])
def test_kv_cache_scales_with_tokens_times_sequences(context, sequences):
    # GIVEN the same model at several context/concurrency settings
    model = ModelSpec(
        parameters_billion=8, architecture=LLAMA3_8B, max_context_tokens=context, max_concurrent_sequences=sequences
    )
    # WHEN estimated / THEN KV is proportional to tokens x sequences (128 KiB per token)
    assert memory_estimate(model).kv_cache_gb == pytest.approx(context * sequences * 131072 / GIB)


@pytest.mark.parametrize(
    ("billions", "layers"),
    [(1, 16), (3, 28), (8, 32), (14, 48), (32, 64), (70, 80), (405, 126)],
    ids=["llama3.2-1b", "llama3.2-3b", "llama3.1-8b", "qwen2.5-14b", "qwen2.5-32b", "llama3.1-70b", "llama3.1-405b"],
)
def test_estimated_architecture_equals_known_gqa_models_at_their_sizes(billions, layers):
    # GIVEN the parameter count of a known grouped-query model (8 KV heads x 128)
    arch = estimated_architecture(billions)
    # WHEN the shape is estimated / THEN it is that model's shape
    assert (arch.layers, arch.kv_heads, arch.head_dim) == (layers, 8, 128)


@pytest.mark.parametrize(("small", "large"), [(0.1, 0.9), (1.5, 2.5), (9, 13), (20, 30), (100, 300), (405, 1000)])
def test_estimated_layers_never_decrease_with_size(small, large):
    # GIVEN two sizes / WHEN estimated / THEN the larger never has fewer layers (between known points too)
    assert estimated_architecture(small).layers <= estimated_architecture(large).layers


def test_estimated_kv_is_marked_as_estimated():
    # GIVEN no architecture / WHEN estimated / THEN the KV cache is flagged as an estimate and non-zero
    est = memory_estimate(ModelSpec(parameters_billion=8))
    assert est.kv_estimated and est.kv_cache_gb > 0


def test_quantized_weights_keep_a_16_bit_kv_cache():
    # GIVEN the same model in bf16 and int4
    bf16 = memory_estimate(ModelSpec(parameters_billion=8, architecture=LLAMA3_8B))
    int4 = memory_estimate(ModelSpec(parameters_billion=8, architecture=LLAMA3_8B, dtype=DType.INT4))
    # WHEN compared / THEN weights shrink (less than 4x: embeddings stay 16-bit) and the KV cache does not
    assert bf16.weights_gb / 4 < int4.weights_gb < bf16.weights_gb / 2
    assert int4.kv_cache_gb == bf16.kv_cache_gb


@pytest.mark.parametrize(
    ("name", "reported"),
    [("ml.g4dn.xlarge", 15.0), ("ml.g5.xlarge", 22.488), ("ml.g6.xlarge", 22.494), ("ml.g6e.xlarge", 44.988)],
)
def test_gpus_are_sized_on_the_memory_they_report(name, reported):
    # GIVEN a 16/24/24/48 GB GPU host and a tiny model
    inst = load_catalog().get(name)
    assert inst is not None
    est = memory_estimate(ModelSpec(parameters_billion=0.1, architecture=LLAMA3_8B, max_concurrent_sequences=1))
    # WHEN evaluated / THEN the usable memory is 0.9 x the reported GiB (15.0 / 22.5 / 45), not the nominal GB
    assert evaluate_host(est, inst).memory_available_gb == pytest.approx(reported * GPU_USABLE_FRACTION)


def test_llama31_8b_at_4096x8_does_not_fit_one_l4_with_the_margin():
    # GIVEN Llama 3.1 8B bf16 at 4096 tokens x 8 sequences (needs 20.8 GiB) and ml.g6.2xlarge (L4, 20.2 usable)
    inst = load_catalog().get("ml.g6.2xlarge")
    assert inst is not None
    est = memory_estimate(ModelSpec(id="meta-llama/Llama-3.1-8B-Instruct"))
    fit = evaluate_host(est, inst)
    # WHEN evaluated / THEN it does not fit (it did at the nominal 24 GB: 21.6 usable)
    assert not fit.fits and fit.memory_available_gb == pytest.approx(22.494 * 0.9)


def test_a_fit_keeps_the_margin_floor_free():
    # GIVEN every single-GPU host and a range of models
    for billions in (1, 3, 7, 8, 13, 20):
        est = memory_estimate(ModelSpec(parameters_billion=billions, architecture=LLAMA3_8B))
        for inst in load_catalog().instances:
            fit = evaluate_host(est, inst)
            # WHEN a host fits / THEN at least 5% of its usable accelerator memory stays free
            if fit.fits and fit.devices:
                assert fit.memory_required_gb <= fit.memory_available_gb * (1 - MARGIN_FLOOR_FRACTION) + 1e-9


def test_required_memory_adds_overhead_fraction_and_per_shard_cost():
    # GIVEN an estimate
    est = memory_estimate(ModelSpec(parameters_billion=8, architecture=LLAMA3_8B))
    base = (est.weights_gb + est.kv_cache_gb) * (1 + RUNTIME_OVERHEAD_FRACTION)
    # WHEN split over 1 and 4 shards / THEN each shard adds its fixed overhead
    assert est.required_gb(1) == pytest.approx(base + RUNTIME_OVERHEAD_PER_SHARD_GIB)
    assert est.required_gb(4) == pytest.approx(base + 4 * RUNTIME_OVERHEAD_PER_SHARD_GIB)


def test_classical_model_without_parameters_uses_default_footprint():
    # GIVEN a classical model of unknown size / WHEN estimated (not an LLM)
    est = memory_estimate(ModelSpec(), llm=False)
    # THEN it is the documented default footprint with no KV cache
    assert (est.weights_gb, est.kv_cache_gb, est.footprint_default) == (CLASSICAL_DEFAULT_FOOTPRINT_GIB, 0.0, True)


def test_classical_model_with_parameters_has_no_kv_cache():
    # GIVEN a 0.1B PyTorch model sized as classical / WHEN estimated / THEN no KV cache is counted
    assert memory_estimate(ModelSpec(parameters_billion=0.1), llm=False).kv_cache_gb == 0.0


@pytest.mark.parametrize("family", ["g4dn", "g5", "g6", "g6e"])
def test_bigger_sizes_of_single_gpu_family_add_no_gpu_memory(family):
    # GIVEN every single-GPU size of a family and a model that only needs GPU memory
    catalog = load_catalog()
    sizes = [i for i in catalog.instances if i.family == family and i.devices == 1]
    est = memory_estimate(ModelSpec(parameters_billion=1, max_concurrent_sequences=1))
    # WHEN each size is evaluated
    available = {evaluate_host(est, i).memory_available_gb for i in sizes}
    # THEN all sizes offer the same usable GPU memory: 0.9 x what one GPU reports (not its nominal size)
    assert len(sizes) >= 4
    assert available == {sizes[0].device_memory_reported_gib * GPU_USABLE_FRACTION}
    assert sizes[0].device_memory_reported_gib < sizes[0].device_memory_gib


@pytest.mark.parametrize("family", ["g4dn", "g5", "g6", "g6e"])
def test_a_model_too_big_for_the_smallest_single_gpu_size_fits_no_bigger_single_gpu_size(family):
    # GIVEN a model just over one GPU of the family
    catalog = load_catalog()
    sizes = [i for i in catalog.instances if i.family == family and i.devices == 1]
    gpu = sizes[0].device_memory_reported_gib
    est = memory_estimate(ModelSpec(parameters_billion=gpu * GIB / 2e9, max_concurrent_sequences=1))
    # WHEN every single-GPU size is evaluated / THEN none fits, whatever its vCPUs and RAM
    assert [evaluate_host(est, i).fits for i in sizes] == [False] * len(sizes)
