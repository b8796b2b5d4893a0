"""Serving options: each option's container variables on each pinned engine (the names and their sources are the
rows of ``containers/serving_options.json``), the refusals with the engines that support an option, the draft model
in the sizing, and prefix-aware routing in the plan and the template."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from inference_constructs.containers.environment import owned_keys
from inference_constructs.containers.serving_options import (
    BatchingLimits,
    ServingOptions,
    SpeculativeDecoding,
    decide_serving_options,
    load_serving_options,
)
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.sizing import choose_host
from inference_constructs.spec import DType, ModelSpec, Serving

MODEL = ModelSpec(id="NousResearch/Meta-Llama-3.1-8B-Instruct")
DRAFT = SpeculativeDecoding(tokens=5, model="Qwen/Qwen2.5-0.5B-Instruct")
NGRAM = SpeculativeDecoding(tokens=3, method="ngram", ngram_lookup_max=4)  # type: ignore[arg-type]
TGI_NGRAM = SpeculativeDecoding(tokens=3, method="ngram")  # type: ignore[arg-type]


def _env(
    key: str,
    options: ServingOptions,
    *,
    quantization: str | None = None,
    model: ModelSpec = MODEL,
    cc: float | None = 8.6,
) -> dict[str, str]:
    p = ProblemCollector()
    decision = decide_serving_options(
        options,
        image_key=key,
        model=model,
        quantization=quantization,
        compute_capability=cc,
        max_batch_total_tokens=model.max_context_tokens * model.max_concurrent_sequences,
        problems=p,
        path="endpoints[0]",
    )
    p.raise_if_any()
    return dict(decision.environment)


def _refused(key: str, options: ServingOptions, **kwargs: Any) -> str:
    with pytest.raises(InferenceConfigError) as err:
        _env(key, options, **kwargs)
    return str(err.value)


# Each row: engine (images.json key), options, expected variables. The variable names and their sources at the pinned
# version are in serving_options.json: djl-serving vllm_user_guide.md / vllm_rb_properties.py (LMI), the
# deep-learning-containers vLLM sagemaker_entrypoint.sh with vllm/config/speculative.py and cache.py (vLLM),
# text-generation-inference v3.3.6 launcher/src/main.rs and sagemaker-entrypoint.sh (TGI), djl-serving v0.29.0
# tnx_properties.py (LMI Neuron).
_SPEC = '{"method":"draft_model","model":"Qwen/Qwen2.5-0.5B-Instruct","num_speculative_tokens":5}'
_NGRAM = '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}'
CASES = [
    ("lmi-gpu", ServingOptions(speculative_decoding=DRAFT), {"OPTION_SPECULATIVE_CONFIG": _SPEC}),
    ("lmi-gpu", ServingOptions(speculative_decoding=NGRAM), {"OPTION_SPECULATIVE_CONFIG": _NGRAM}),
    ("lmi-gpu", ServingOptions(prefix_caching=True), {"OPTION_ENABLE_PREFIX_CACHING": "true"}),
    ("lmi-gpu", ServingOptions(prefix_caching=False), {"OPTION_ENABLE_PREFIX_CACHING": "false"}),
    (
        "lmi-gpu",
        ServingOptions(batching=BatchingLimits(max_batched_tokens=8192, max_sequences=32)),
        {"OPTION_MAX_ROLLING_BATCH_PREFILL_TOKENS": "8192", "OPTION_MAX_ROLLING_BATCH_SIZE": "32"},
    ),
    ("vllm-gpu", ServingOptions(speculative_decoding=DRAFT), {"SM_VLLM_SPECULATIVE_CONFIG": _SPEC}),
    ("vllm-gpu", ServingOptions(prefix_caching=True), {"SM_VLLM_ENABLE_PREFIX_CACHING": ""}),
    ("vllm-gpu", ServingOptions(prefix_caching=False), {"SM_VLLM_NO_ENABLE_PREFIX_CACHING": ""}),
    (
        "vllm-gpu",
        ServingOptions(batching=BatchingLimits(max_batched_tokens=8192, max_sequences=64)),
        {"SM_VLLM_MAX_NUM_BATCHED_TOKENS": "8192", "SM_VLLM_MAX_NUM_SEQS": "64"},
    ),
    ("tgi-gpu", ServingOptions(speculative_decoding=TGI_NGRAM), {"SPECULATE": "3"}),
    ("tgi-gpu", ServingOptions(prefix_caching=True), {"PREFIX_CACHING": "1"}),
    ("tgi-gpu", ServingOptions(prefix_caching=False), {"PREFIX_CACHING": "0"}),
    (
        "tgi-gpu",
        ServingOptions(batching=BatchingLimits(max_batch_prefill_tokens=8192, max_sequences=16)),
        {"MAX_BATCH_PREFILL_TOKENS": "8192", "MAX_BATCH_SIZE": "16"},
    ),
    (
        "lmi-neuron",
        ServingOptions(speculative_decoding=DRAFT),
        {"OPTION_SPECULATIVE_DRAFT_MODEL": "Qwen/Qwen2.5-0.5B-Instruct", "OPTION_SPECULATIVE_LENGTH": "5"},
    ),
    ("lmi-neuron", ServingOptions(batching=BatchingLimits(max_sequences=8)), {"OPTION_MAX_ROLLING_BATCH_SIZE": "8"}),
    ("tgi-neuron", ServingOptions(batching=BatchingLimits(max_sequences=8)), {"MAX_BATCH_SIZE": "8"}),
]


@pytest.mark.parametrize(("key", "options", "expected"), CASES)
def test_each_option_writes_the_engines_own_variable(
    key: str, options: ServingOptions, expected: dict[str, str]
) -> None:
    # GIVEN an option on a pinned engine WHEN decided THEN exactly the engine's variables are written
    assert _env(key, options) == expected


@pytest.mark.parametrize(
    ("key", "variable"),
    [("lmi-gpu", "OPTION_QUANTIZE"), ("vllm-gpu", "SM_VLLM_QUANTIZATION"), ("tgi-gpu", "HF_MODEL_QUANTIZE")],
)
def test_quantization_method_is_written_with_a_matching_dtype(key: str, variable: str) -> None:
    # GIVEN an AWQ checkpoint served as int4 WHEN decided THEN the engine's quantization variable says awq
    assert _env(key, ServingOptions(), quantization="awq", model=replace(MODEL, dtype=DType.INT4)) == {variable: "awq"}


def test_every_option_row_names_its_source_and_every_variable_is_owned() -> None:
    # GIVEN the option table WHEN read THEN each row has a source, and environment: may not set its variables
    engines = load_serving_options()["engines"]
    serving = {"lmi-gpu": Serving.LMI, "vllm-gpu": Serving.VLLM, "tgi-gpu": Serving.TGI}
    serving |= {"lmi-neuron": Serving.NEURON, "tgi-neuron": Serving.TGI}
    for key, row in engines.items():
        assert row["read_at"]
        for name, spec in row["options"].items():
            assert spec["source"], (key, name)
            assert set(spec["keys"].values()) <= owned_keys(serving[key]), (key, name)


def test_fails_draft_model_on_tgi_and_offers_medusa_ngram_and_the_engines_that_take_it() -> None:
    message = _refused("tgi-gpu", ServingOptions(speculative_decoding=DRAFT))
    assert (
        "endpoints[0].serving_options.speculative_decoding.method: draft_model is not supported by this engine"
        in message
    )
    assert "use one of medusa, ngram" in message
    assert "lmi-gpu, vllm-gpu, lmi-neuron" in message


def test_fails_a_separate_model_on_tgi() -> None:
    options = ServingOptions(speculative_decoding=SpeculativeDecoding(tokens=3, method="medusa", model="org/heads"))  # type: ignore[arg-type]
    message = _refused("tgi-gpu", options)
    assert "serving_options.speculative_decoding.model: org/heads is not used with method medusa" in message
    assert "a medusa model is the served model.id itself" in message


@pytest.mark.parametrize(
    ("key", "options", "path", "engines"),
    [
        (
            "vllm-gpu",
            ServingOptions(batching=BatchingLimits(max_batch_prefill_tokens=4096)),
            "batching.max_batch_prefill_tokens",
            "tgi-gpu",
        ),
        (
            "tgi-gpu",
            ServingOptions(batching=BatchingLimits(max_batched_tokens=4096)),
            "batching.max_batched_tokens",
            "lmi-gpu, vllm-gpu",
        ),
        ("lmi-neuron", ServingOptions(prefix_caching=True), "prefix_caching", "lmi-gpu, vllm-gpu, tgi-gpu"),
        (
            "tgi-neuron",
            ServingOptions(speculative_decoding=DRAFT),
            "speculative_decoding",
            "lmi-gpu, vllm-gpu, tgi-gpu, lmi-neuron",
        ),
    ],
)
def test_fails_an_option_the_engine_lacks_naming_the_engines_that_take_it(
    key: str, options: ServingOptions, path: str, engines: str
) -> None:
    message = _refused(key, options)
    assert f"endpoints[0].serving_options.{path}:" in message
    assert f"use an engine that takes it: {engines}" in message


def test_fails_tgi_prefix_caching_below_compute_capability_8() -> None:
    # TGI falls back to paged attention below SM 8.0 and disables prefix caching (launcher resolve_attention)
    message = _refused("tgi-gpu", ServingOptions(prefix_caching=True), cc=7.5)
    assert (
        "serving_options.prefix_caching: true needs compute capability 8.0 or newer on this engine, the host has 7.5"
        in message
    )


@pytest.mark.parametrize("method", ["awq", "exl2", "marlin"])
def test_fails_tgi_quantization_methods_whose_kernels_need_compute_capability_8(method: str) -> None:
    # TGI v3.3.6: Marlin needs SM 8.0 (layers/marlin/util.py), awq below it needs the llm-awq kernel the image
    # builds for 8.0/8.6/9.0 only, exllamav2 (exl2) is built for 8.0/9.0a: the int4 dtype rule alone says 7.5
    int4 = replace(MODEL, dtype=DType.INT4)
    message = _refused("tgi-gpu", ServingOptions(), quantization=method, model=int4, cc=7.5)
    assert f"serving_options.quantization: {method} needs compute capability 8.0 or newer on this engine" in message
    assert _env("tgi-gpu", ServingOptions(), quantization=method, model=int4, cc=8.0) == {"HF_MODEL_QUANTIZE": method}


@pytest.mark.parametrize(
    ("method", "dtype", "minimum"), [("bitsandbytes", DType.INT8, 7.5), ("bitsandbytes-nf4", DType.INT4, 6.0)]
)
def test_tgi_bitsandbytes_minimums_follow_the_pinned_bitsandbytes(method: str, dtype: DType, minimum: float) -> None:
    # TGI v3.3.6 pins bitsandbytes 0.45.5; its guide: LLM.int8() needs compute capability 7.5, NF4/FP4 6.0
    model = replace(MODEL, dtype=dtype)
    assert _env("tgi-gpu", ServingOptions(), quantization=method, model=model, cc=minimum) == {
        "HF_MODEL_QUANTIZE": method
    }
    message = _refused("tgi-gpu", ServingOptions(), quantization=method, model=model, cc=minimum - 0.5)
    assert f"serving_options.quantization: {method} needs compute capability {minimum} or newer" in message


def test_tgi_gptq_runs_below_compute_capability_8() -> None:
    # TGI v3.3.6 runs GPTQ through its Triton kernel where exllama and Marlin (SM 8.0) are not available
    int4 = replace(MODEL, dtype=DType.INT4)
    assert _env("tgi-gpu", ServingOptions(), quantization="gptq", model=int4, cc=7.5) == {"HF_MODEL_QUANTIZE": "gptq"}


@pytest.mark.parametrize(
    ("options", "quantization", "expected"),
    [
        (ServingOptions(), "awq", "serving_options.quantization: awq serves int4 weights, model.dtype is bf16"),
        (
            ServingOptions(speculative_decoding=replace(NGRAM, ngram_lookup_max=None)),
            None,
            "ngram_lookup_max: is required",
        ),
        (
            ServingOptions(batching=BatchingLimits(max_sequences=4)),
            None,
            "max_sequences: 4 is below model.max_concurrent_sequences 8",
        ),
        (
            ServingOptions(speculative_decoding=SpeculativeDecoding(tokens=4, model="org/unknown-draft")),
            None,
            "speculative_decoding.parameters_billion: unknown for org/unknown-draft",
        ),
    ],
)
def test_fails_values_the_engine_refuses(options: ServingOptions, quantization: str | None, expected: str) -> None:
    assert expected in _refused("vllm-gpu", options, quantization=quantization)


def test_fails_tgi_prefill_tokens_outside_the_routers_bounds() -> None:
    # backends/v3/src/main.rs: prefill <= max_batch_total_tokens (here 4096 x 8) and >= max_input_tokens (4095)
    assert "above max_batch_total_tokens 32768" in _refused(
        "tgi-gpu", ServingOptions(batching=BatchingLimits(max_batch_prefill_tokens=40000))
    )
    assert "below max_input_tokens 4095" in _refused(
        "tgi-gpu", ServingOptions(batching=BatchingLimits(max_batch_prefill_tokens=1000))
    )


def test_fails_neuron_batch_other_than_the_compiled_one() -> None:
    message = _refused("lmi-neuron", ServingOptions(batching=BatchingLimits(max_sequences=16)))
    assert "max_sequences: 16 differs from model.max_concurrent_sequences 8" in message


# ------------------------------------------------------------------------------------------------ sizing

LLAMA_4 = replace(MODEL, max_concurrent_sequences=4)
DRAFT_15B = ModelSpec(id="Qwen/Qwen2.5-1.5B-Instruct")


def test_draft_weights_and_kv_are_counted_and_shown() -> None:
    # GIVEN the same model with and without a 1.5B draft WHEN sized on the same host
    alone = choose_host(LLAMA_4, serving=Serving.VLLM, instance_type="ml.g6e.xlarge")
    both = choose_host(replace(LLAMA_4, draft=DRAFT_15B), serving=Serving.VLLM, instance_type="ml.g6e.xlarge")
    # THEN the draft's weights (1.54 B x 2 bytes) and its KV cache add to the need, and the reason names them
    assert both.draft_weights_gb == pytest.approx(1.54e9 * 2 / 2**30, rel=0.05)
    assert both.draft_kv_cache_gb > 0
    assert both.memory_required_gb > alone.memory_required_gb + both.draft_weights_gb
    assert "draft model 2.9 + KV cache" in both.reason


def test_fails_an_explicit_host_that_fits_the_target_alone_but_not_with_the_draft() -> None:
    choose_host(LLAMA_4, serving=Serving.VLLM, instance_type="ml.g6.2xlarge")  # fits alone
    with pytest.raises(InferenceConfigError, match="fits the target model alone, not with the speculative draft model"):
        choose_host(replace(LLAMA_4, draft=DRAFT_15B), serving=Serving.VLLM, instance_type="ml.g6.2xlarge")


def test_auto_choice_skips_a_host_that_fits_the_target_alone_with_the_reason() -> None:
    # GIVEN the cheapest host of the target alone
    alone = choose_host(LLAMA_4, serving=Serving.VLLM)
    # WHEN a draft is added THEN that host is passed over, with the reason naming the draft
    both = choose_host(replace(LLAMA_4, draft=DRAFT_15B), serving=Serving.VLLM)
    assert both.instance_type != alone.instance_type
    reasons = {r.instance_type: r.reason for r in both.rejected}
    assert reasons[alone.instance_type].startswith("fits the target model alone, not with the speculative draft model")


def test_draft_json_is_one_compact_object() -> None:
    value = _env("vllm-gpu", ServingOptions(speculative_decoding=DRAFT))["SM_VLLM_SPECULATIVE_CONFIG"]
    assert json.loads(value) == {
        "method": "draft_model",
        "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "num_speculative_tokens": 5,
    }
