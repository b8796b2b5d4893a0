"""The memory model of docs/sizing.md."""

from __future__ import annotations

import pytest

from inference_constructs.catalog import load_catalog
from inference_constructs.sizing import (
    CLASSICAL_DEFAULT_FOOTPRINT_GIB,
    GIB,
    GPU_USABLE_FRACTION,
    RUNTIME_OVERHEAD_FRACTION,
    RUNTIME_OVERHEAD_PER_SHARD_GIB,
    estimated_architecture,
    evaluate_host,
    memory_estimate,
)
from inference_constructs.spec import DType, ModelArchitecture, ModelSpec

LLAMA3_8B = ModelArchitecture(layers=32, kv_heads=8, head_dim=128)


@pytest.mark.parametrize(
    ("dtype", "bytes_per_parameter"),
    [(DType.FP32, 4), (DType.FP16, 2), (DType.BF16, 2), (DType.FP8, 1), (DType.INT8, 1), (DType.INT4, 0.5)],
)
def test_weights_are_parameters_times_bytes_per_dtype(dtype, bytes_per_parameter):
    # GIVEN a 7B model in a dtype
    model = ModelSpec(parameters_billion=7, dtype=dtype)
    # WHEN its memory is estimated
    est = memory_estimate(model)
    # THEN weights = 7e9 x bytes / 2**30 GiB (FP16 about 2 bytes per parameter)
    assert est.weights_gb == pytest.approx(7e9 * bytes_per_parameter / GIB)


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
    # WHEN compared / THEN weights shrink 4x and the KV cache does not
    assert int4.weights_gb == pytest.approx(bf16.weights_gb / 4)
    assert int4.kv_cache_gb == bf16.kv_cache_gb


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
    # THEN all sizes offer the same usable GPU memory: 0.9 x one GPU
    assert len(sizes) >= 4
    assert available == {sizes[0].device_memory_gib * GPU_USABLE_FRACTION}


@pytest.mark.parametrize("family", ["g4dn", "g5", "g6", "g6e"])
def test_a_model_too_big_for_the_smallest_single_gpu_size_fits_no_bigger_single_gpu_size(family):
    # GIVEN a model just over one GPU of the family
    catalog = load_catalog()
    sizes = [i for i in catalog.instances if i.family == family and i.devices == 1]
    gpu = sizes[0].device_memory_gib
    est = memory_estimate(ModelSpec(parameters_billion=gpu * GIB / 2e9, max_concurrent_sequences=1))
    # WHEN every single-GPU size is evaluated / THEN none fits, whatever its vCPUs and RAM
    assert [evaluate_host(est, i).fits for i in sizes] == [False] * len(sizes)
