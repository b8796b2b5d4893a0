"""The choice rule of choose_host, pinned by example."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from inference_constructs.catalog import Catalog, load_catalog
from inference_constructs.errors import InferenceConfigError
from inference_constructs.sizing import (
    GIB,
    GPU_USABLE_FRACTION,
    MARGIN_FLOOR_FRACTION,
    RejectionKind,
    choose_host,
    evaluate_host,
    feasible_hosts,
    memory_estimate,
)
from inference_constructs.spec import Accelerator, AcceleratorChoice, DType, ModelArchitecture, ModelSpec, Serving

CATALOG = load_catalog()
LLAMA3_8B = ModelArchitecture(layers=32, kv_heads=8, head_dim=128)
LLM_STACKS = [Serving.LMI, Serving.TGI, Serving.VLLM]


def _model(billions: float, **kw: object) -> ModelSpec:
    return ModelSpec(parameters_billion=billions, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("context", [512, 2048, 4096, 16384])
@pytest.mark.parametrize("serving", LLM_STACKS)
def test_13b_fp16_never_lands_on_a_single_24gb_gpu(serving, context):
    # GIVEN a 13B FP16 model (24.2 GiB of weights alone)
    model = _model(13, dtype=DType.FP16, max_context_tokens=context, max_concurrent_sequences=1)
    # WHEN a host is chosen
    decision = choose_host(model, serving=serving)
    # THEN it is not one 24 GB GPU
    assert not (decision.devices == 1 and decision.instance.device_memory_gib <= 24)
    assert decision.memory_required_gb <= decision.memory_available_gb


@pytest.mark.parametrize("name", ["ml.g5.2xlarge", "ml.g6.4xlarge", "ml.g5.16xlarge"])
def test_fails_13b_fp16_on_explicit_single_24gb_gpu_with_the_numbers(name):
    # GIVEN a 13B FP16 model and an explicit single 24 GB GPU host
    model = _model(13, dtype=DType.FP16)
    # WHEN checked / THEN the error names the key, the host, what it needs and what it has
    with pytest.raises(
        InferenceConfigError,
        match=rf"endpoints\[0\]\.instance_type: {name} cannot hold the model; needs \d+\.\d GiB, has 20\.2 GiB usable",
    ):
        choose_host(model, serving=Serving.TGI, instance_type=name, path="endpoints[0]")


def test_model_just_over_24gb_gets_cheapest_48gb_single_gpu_not_multi_gpu_24gb():
    # GIVEN a model needing a little more than one 24 GB GPU's usable 21.6 GB
    model = _model(10.5, architecture=LLAMA3_8B, max_context_tokens=2048, max_concurrent_sequences=2)
    est = memory_estimate(model)
    assert 24 * GPU_USABLE_FRACTION < est.required_gb(1) < 48 * GPU_USABLE_FRACTION
    multi_24 = [
        i for i in CATALOG.instances if i.device_memory_gib == 24 and i.devices > 1 and evaluate_host(est, i).fits
    ]
    # WHEN a GPU host is chosen
    decision = choose_host(model, serving=Serving.VLLM, accelerator=AcceleratorChoice.GPU)
    # THEN it is the cheapest single 48 GB GPU, cheaper than every multi-GPU 24 GB host that fits
    single_48 = min(
        (i for i in CATALOG.instances if i.device_memory_gib == 48 and i.devices == 1),
        key=lambda i: i.price_per_hour_usd,
    )
    assert decision.instance == single_48
    assert (decision.devices, decision.tensor_parallel_degree) == (1, 1)
    assert multi_24 and all(i.price_per_hour_usd > decision.price_per_hour_usd for i in multi_24)


@pytest.mark.parametrize("billions", [None, 0.001, 0.5, 5.0, 50.0])
@pytest.mark.parametrize("serving", [Serving.SKLEARN, Serving.XGBOOST, Serving.PYTORCH])
def test_classical_model_never_gets_an_accelerator(serving, billions):
    # GIVEN a classical model of any size with auto accelerator
    model = ModelSpec(parameters_billion=billions)
    # WHEN a host is chosen
    decision = choose_host(model, serving=serving)
    # THEN it is a CPU host with no devices
    assert decision.accelerator is Accelerator.CPU
    assert decision.devices == 0 and decision.instance.devices == 0


def test_sklearn_without_size_gets_cheapest_non_burstable_cpu_host():
    # GIVEN a scikit-learn model of unknown size
    decision = choose_host(ModelSpec(), serving=Serving.SKLEARN)
    # WHEN chosen / THEN the cheapest non-burstable CPU host with sourced facts, sized from the default footprint
    cheapest = min(
        (
            i
            for i in CATALOG.instances
            if i.accelerator is Accelerator.CPU and not i.burstable and i.chosen_automatically
        ),
        key=lambda i: i.price_per_hour_usd,
    )
    assert decision.price_per_hour_usd == cheapest.price_per_hour_usd
    assert "classical-model footprint" in decision.reason
    assert any(r.kind is RejectionKind.BURSTABLE for r in decision.rejected)


def test_burstable_host_is_chosen_only_when_allowed():
    # GIVEN a small sklearn model and allow_burstable
    decision = choose_host(ModelSpec(), serving=Serving.SKLEARN, allow_burstable=True)
    # WHEN chosen / THEN the cheaper burstable ml.t2.medium is taken
    assert decision.instance.name == "ml.t2.medium"


@pytest.mark.parametrize("name", ["ml.g5.xlarge", "ml.inf2.xlarge"])
def test_fails_sklearn_on_explicit_accelerator_host(name):
    # GIVEN a scikit-learn model and an explicit accelerated host
    # WHEN checked / THEN the error says only cpu is allowed
    with pytest.raises(InferenceConfigError, match=rf"model\.instance_type: {name} is a \w+ host; .* may use cpu"):
        choose_host(ModelSpec(), serving=Serving.SKLEARN, instance_type=name)


def test_fails_sklearn_with_gpu_accelerator_request():
    # GIVEN sklearn with accelerator gpu / WHEN sized / THEN the accelerator key is rejected with the allowed values
    with pytest.raises(
        InferenceConfigError, match=r"e\.accelerator: gpu is not available for serving sklearn; use auto"
    ):
        choose_host(ModelSpec(), serving=Serving.SKLEARN, accelerator=AcceleratorChoice.GPU, path="e")


LLAMA_FAMILY = ModelArchitecture(family="llama")


# 70B: 24 cores, not 12: at 12 the 8 KV heads are replicated to 12 (ceil(8/12) = 1 per core) and the 64 heads
# padded to 72, which no longer fits inf2.24xlarge with the margin floor.
@pytest.mark.parametrize(("billions", "cores"), [(1, 1), (8, 2), (13, 4), (70, 24)])
def test_neuron_choice_counts_tensor_parallel_degree_in_neuron_cores(billions, cores):
    # GIVEN a llama-family model for the Neuron serving stack (its engine has a closed family list)
    decision = choose_host(_model(billions, architecture=LLAMA_FAMILY), serving=Serving.NEURON)
    # WHEN chosen
    # THEN the TP degree is in NeuronCores, devices = cores / 2 rounded up, memory = cores x usable per-core share
    assert decision.accelerator.is_neuron
    assert decision.tensor_parallel_degree == cores
    assert decision.devices == -(-cores // decision.instance.neuron_cores_per_device)
    per_core = decision.instance.memory_per_neuron_core_gib * 0.9
    assert decision.memory_available_gb == pytest.approx(per_core * cores, abs=1e-3)
    assert "NeuronCore" in decision.reason


def test_explicit_trainium_host_reports_neuron_cores():
    # GIVEN a 70B model on an explicit trn1.32xlarge
    decision = choose_host(
        _model(70, architecture=LLAMA_FAMILY), serving=Serving.NEURON, instance_type="ml.trn1.32xlarge"
    )
    # WHEN checked / THEN TP counts NeuronCores (a power of two up to 32) and copies fill the 32 cores
    assert decision.explicit
    assert decision.tensor_parallel_degree in (16, 32)
    assert decision.model_copies == 32 // decision.tensor_parallel_degree


@pytest.mark.parametrize("billions", [20, 34, 70, 120])
def test_gpu_tensor_parallel_degree_is_smallest_power_of_two_that_fits(billions):
    # GIVEN a model that needs several GPUs, restricted to GPU hosts
    model = _model(billions)
    decision = choose_host(model, serving=Serving.VLLM, accelerator=AcceleratorChoice.GPU)
    tp = decision.tensor_parallel_degree
    # WHEN the TP degree is read
    # THEN it is a power of two within the host's GPUs, its shards hold the model with the margin, and the
    # plan says why half of it was rejected
    assert tp in (2, 4, 8) and decision.devices == tp <= decision.instance.devices
    usable = decision.instance.device_memory_reported_gib * GPU_USABLE_FRACTION
    assert decision.memory_required_gb <= usable * tp * (1 - MARGIN_FLOOR_FRACTION) + 1e-3
    assert any(r.startswith(f"TP {tp // 2}: needs") for r in decision.degree_rejections)


SEVEN_B_SHORT = {"architecture": LLAMA3_8B, "max_context_tokens": 2048, "max_concurrent_sequences": 4}


def test_host_ram_shortfall_rejects_a_gpu_that_would_hold_the_weights():
    # GIVEN a 7B bf16 model: 13.0 GiB of weights + 1 GiB KV fit one 24 GB GPU, but ml.g6.xlarge has 16 GiB of RAM
    model = _model(7, **SEVEN_B_SHORT)
    # WHEN a host is chosen
    decision = choose_host(model, serving=Serving.VLLM)
    # THEN the 16 GiB hosts are rejected for host RAM and a 24 GB GPU with more RAM is chosen
    host_ram = {r.instance_type for r in decision.rejected if r.kind is RejectionKind.HOST_MEMORY}
    assert "ml.g6.xlarge" in host_ram
    assert decision.instance.memory_gib >= decision.host_ram_required_gb
    assert decision.instance.device_memory_gib == 24 and decision.devices == 1


def test_fails_explicit_host_without_enough_host_ram():
    # GIVEN a 7B model on ml.g5.xlarge (16 GiB RAM)
    # WHEN checked / THEN the error is about loading, with both numbers
    with pytest.raises(
        InferenceConfigError, match=r"ml\.g5\.xlarge cannot load the model; host RAM 16\.0 GiB .* needs"
    ):
        choose_host(_model(7, **SEVEN_B_SHORT), serving=Serving.VLLM, instance_type="ml.g5.xlarge")


def test_max_devices_one_restricts_to_single_gpu_hosts():
    # GIVEN a 13B model for a multi-model endpoint (single-GPU instance types only)
    decision = choose_host(_model(13), serving=Serving.TRITON, max_devices=1)
    # WHEN chosen / THEN a single-GPU host, and multi-GPU cheaper ones are listed as rejected for devices
    assert decision.instance.devices == 1


def test_fails_explicit_multi_gpu_host_when_max_devices_is_one():
    # GIVEN max_devices=1 and an explicit 4-GPU host / WHEN checked / THEN rejected naming the rule
    with pytest.raises(InferenceConfigError, match=r"ml\.g5\.12xlarge has 4 devices; at most 1 allowed"):
        choose_host(_model(1), serving=Serving.TRITON, instance_type="ml.g5.12xlarge", max_devices=1)


def test_predicate_excludes_candidates():
    # GIVEN a filter excluding the g6 family
    decision = choose_host(_model(8), serving=Serving.VLLM, predicate=lambda i: i.family != "g6")
    # WHEN chosen / THEN no g6 host is picked
    assert decision.instance.family != "g6"


def test_fails_unknown_instance_type():
    # GIVEN a misspelt instance type / WHEN checked / THEN the error names it and lists the family's sizes
    expected = r"ep\.instance_type: ml\.g5\.xxlarge is not a sagemaker hosting instance type in the catalog; g5 sizes: "
    with pytest.raises(InferenceConfigError, match=expected + r"ml\.g5\.xlarge, "):
        choose_host(_model(1), serving=Serving.VLLM, instance_type="ml.g5.xxlarge", path="ep")


def test_fails_llm_without_parameter_count():
    # GIVEN an LLM with unknown size and no host / WHEN sized / THEN asks for parameters_billion or instance_type
    with pytest.raises(InferenceConfigError, match=r"model\.model\.parameters_billion: unknown.*instance_type"):
        choose_host(ModelSpec(), serving=Serving.TGI)


def test_llm_without_parameter_count_on_explicit_host_is_not_checked():
    # GIVEN an LLM of unknown size on an explicit host
    decision = choose_host(ModelSpec(), serving=Serving.TGI, instance_type="ml.g5.12xlarge")
    # WHEN checked / THEN it is accepted, uses all 4 GPUs, and the reason says nothing was checked
    assert decision.explicit and decision.tensor_parallel_degree == 4
    assert "not checked" in decision.reason


def test_fails_when_no_catalog_host_fits():
    # GIVEN a 2-trillion-parameter bf16 model / WHEN sized / THEN the error gives the need and the levers
    with pytest.raises(
        InferenceConfigError, match=r"no .* host in the catalog holds the model; needs at least .* quantize"
    ):
        choose_host(_model(2000), serving=Serving.VLLM)


def test_no_fit_names_the_hosts_left_out_only_for_estimated_facts_that_would_hold_the_model():
    # GIVEN a 405B bf16 model that only hosts with estimated catalog facts (H200, B200) hold
    model = ModelSpec(id="meta-llama/Llama-3.1-405B-Instruct", parameters_billion=405, max_context_tokens=4096)
    with pytest.raises(InferenceConfigError) as refused:
        choose_host(model, serving=Serving.LMI)
    # WHEN refused THEN the message names them, their estimated facts, and the way to use one
    message = str(refused.value)
    assert "the largest allowed host has 576.0 GiB usable" in message
    assert "not chosen automatically, and these would hold it: ml.p5e.48xlarge (estimated price," in message
    assert ": name one in instance_type" in message
    # AND the named host is accepted when given explicitly
    assert choose_host(model, serving=Serving.LMI, instance_type="ml.p5e.48xlarge").instance_type == ("ml.p5e.48xlarge")
    # AND a model no host holds gets no such clause
    with pytest.raises(InferenceConfigError) as too_big:
        choose_host(_model(2000), serving=Serving.VLLM)
    assert "estimated catalog facts" not in str(too_big.value)


def test_quantization_hint_names_cheaper_host_saving_and_caveat_without_applying_it():
    # GIVEN an 8B bf16 model
    decision = choose_host(_model(8), serving=Serving.VLLM)
    hint = decision.quantization_hint
    # WHEN the hint is read
    # THEN fp8 (tried before int8/int4: the least quality cost) fits a cheaper host, with the saving in percent
    # and a quality caveat; bf16 stays chosen
    assert hint is not None and hint.dtype is DType.FP8
    assert hint.price_per_hour_usd < decision.price_per_hour_usd
    assert hint.saving_percent == pytest.approx(
        100 * (decision.price_per_hour_usd - hint.price_per_hour_usd) / decision.price_per_hour_usd, abs=0.1
    )
    assert "quality" in hint.caveat and "not applied" in str(hint)
    assert decision.weights_gb == pytest.approx(8e9 * 2 / GIB, abs=1e-3)


def test_no_quantization_hint_for_int4_model():
    # GIVEN an already-int4 model / WHEN sized / THEN there is nothing lower to suggest
    assert choose_host(_model(8, dtype=DType.INT4), serving=Serving.VLLM).quantization_hint is None


def test_no_quantization_hint_when_quantizing_saves_nothing():
    # GIVEN a 1B fp16 model already on the cheapest GPU host / WHEN sized / THEN no hint
    decision = choose_host(_model(1, dtype=DType.FP16), serving=Serving.VLLM, accelerator=AcceleratorChoice.GPU)
    assert decision.instance.name == "ml.g4dn.xlarge" and decision.quantization_hint is None


def test_bf16_never_lands_on_a_t4_and_the_plan_names_fp16_there():
    # GIVEN a 1.5B bf16 model on GPU (T4 has compute capability 7.5; bf16 needs 8.0)
    decision = choose_host(_model(1.5), serving=Serving.TGI, accelerator=AcceleratorChoice.GPU)
    # WHEN sized / THEN no T4 host, the T4s are rejected for the engine, and fp16 is hinted there with its cost
    assert decision.instance.family != "g4dn"
    engine = [r for r in decision.rejected if r.kind is RejectionKind.ENGINE]
    assert engine and "compute capability 8.0" in engine[0].reason
    hint = decision.quantization_hint
    assert hint is not None and hint.dtype is DType.FP16 and hint.instance_type == "ml.g4dn.xlarge"
    assert "overflow" in hint.caveat


def test_rejected_list_is_bounded_per_reason_and_cheapest_first():
    # GIVEN a large model that passes over many cheaper hosts
    decision = choose_host(_model(70), serving=Serving.VLLM, accelerator=AcceleratorChoice.GPU)
    # WHEN the rejections are read
    kinds = [r.kind for r in decision.rejected]
    # THEN at most 3 per reason, each cheaper than or as cheap as the choice, with a reason
    assert all(kinds.count(k) <= 3 for k in set(kinds))
    assert all(r.price_per_hour_usd <= decision.price_per_hour_usd and r.reason for r in decision.rejected)
    assert RejectionKind.DEVICE_MEMORY in kinds


def test_reason_explains_choice_with_numbers():
    # GIVEN an 8B model / WHEN chosen / THEN the reason names host, price, need, weights, KV and usable memory
    decision = choose_host(_model(8, architecture=LLAMA3_8B), serving=Serving.VLLM)
    assert decision.reason.startswith(f"{decision.instance.name} $")
    assert "weights 14.9" in decision.reason and "KV cache 4.0" in decision.reason and "usable" in decision.reason


def test_feasible_hosts_agree_with_choice():
    # GIVEN a 13B model / WHEN all feasible hosts are listed / THEN the first is the choice, sorted by price
    fits = feasible_hosts(_model(13), serving=Serving.VLLM)
    decision = choose_host(_model(13), serving=Serving.VLLM)
    assert fits[0].instance == decision.instance
    assert [f.instance.price_per_hour_usd for f in fits] == sorted(f.instance.price_per_hour_usd for f in fits)


def test_explicit_host_bigger_than_needed_is_accepted_with_hint():
    # GIVEN an 8B model on an explicit 4-GPU host
    decision = choose_host(_model(8), serving=Serving.VLLM, instance_type="ml.g5.12xlarge")
    # WHEN checked / THEN it is accepted with TP 2 (at TP 1 an A10G keeps less than the 5% margin free) and
    # 2 model copies, and a cheaper quantized host is hinted
    assert decision.explicit and decision.tensor_parallel_degree == 2 and decision.model_copies == 2
    assert decision.degree_rejections[0].startswith("TP 1: needs")
    assert decision.quantization_hint is not None


def _tie_catalog() -> Catalog:
    base = CATALOG.get("ml.g5.12xlarge")
    single = CATALOG.get("ml.g6e.xlarge")
    assert base is not None and single is not None
    same_price = 5.0
    rows = (replace(base, price_per_hour_usd=same_price), replace(single, price_per_hour_usd=same_price))
    return Catalog(rows, "test-region", "2026-11-30", "test prices")


def test_price_tie_goes_to_fewer_devices():
    # GIVEN a catalog where a 4-GPU and a 1-GPU host cost the same and both fit the model
    catalog = _tie_catalog()
    # WHEN a host is chosen
    decision = choose_host(_model(8), serving=Serving.VLLM, catalog=catalog)
    # THEN the single-GPU host wins
    assert decision.instance.name == "ml.g6e.xlarge" and decision.devices == 1


def test_choice_uses_the_given_catalog_prices():
    # GIVEN a refreshed-region catalog where g6e is cheaper than every 24 GB GPU
    rows = tuple(
        replace(i, price_per_hour_usd=0.5) if i.family == "g6e" and i.devices == 1 else i for i in CATALOG.instances
    )
    catalog = Catalog(rows, "eu-west-1", "2026-11-30", "test prices")
    # WHEN an 8B model is sized with it
    decision = choose_host(_model(8), serving=Serving.VLLM, catalog=catalog)
    # THEN the choice follows that catalog's prices
    assert decision.instance.family == "g6e" and decision.price_per_hour_usd == 0.5


@pytest.mark.parametrize(("neuron_compiled", "accepted"), [(True, True), (False, False)])
def test_host_ram_rule_applies_only_where_neuron_compiles_on_the_host(neuron_compiled: bool, accepted: bool) -> None:
    # GIVEN Llama 3 8B fp16 at 4096 tokens x 8 sequences pinned to ml.inf2.xlarge (16 GiB host RAM), the shape
    # of the pre-compiled Neuron artifacts published for that instance
    model = ModelSpec(
        id="meta-llama/Meta-Llama-3-8B",
        dtype=DType.FP16,
        max_context_tokens=4096,
        max_concurrent_sequences=8,
        neuron_compiled=neuron_compiled,
    )
    # WHEN the host is checked
    if accepted:
        # THEN with pre-compiled artifacts only the loading reserve applies: the host fits on its 2 NeuronCores
        host = choose_host(model, serving=Serving.NEURON, instance_type="ml.inf2.xlarge")
        assert (host.instance.name, host.tensor_parallel_degree) == ("ml.inf2.xlarge", 2)
    else:
        # THEN compiling on the host needs twice the weights in RAM, which 16 GiB cannot hold
        with pytest.raises(InferenceConfigError, match=r"model.instance_type: ml.inf2.xlarge cannot load the model"):
            choose_host(model, serving=Serving.NEURON, instance_type="ml.inf2.xlarge")


def test_tgi_needs_the_degree_to_divide_the_kv_heads_where_vllm_replicates_them():
    # GIVEN a 40B bf16 model with 32 attention heads and 4 KV heads: it needs all 8 A10G of ml.g5.48xlarge
    arch = ModelArchitecture(layers=48, attention_heads=32, kv_heads=4, head_dim=128, family="llama")
    model = _model(40, architecture=arch, max_context_tokens=2048, max_concurrent_sequences=2)
    # WHEN the host is given to vLLM and to TGI
    vllm = choose_host(model, serving=Serving.VLLM, instance_type="ml.g5.48xlarge", quantization_hint=False)
    # THEN vLLM replicates the 4 KV heads over 8 GPUs; TGI cannot shard 4 KV heads over 8 and is refused
    assert vllm.tensor_parallel_degree == 8 and vllm.kv_heads_per_shard == 1
    with pytest.raises(InferenceConfigError, match=r"TP 8: does not divide 4 KV heads"):
        choose_host(model, serving=Serving.TGI, instance_type="ml.g5.48xlarge", quantization_hint=False)


@pytest.mark.parametrize("serving", [Serving.VLLM, Serving.TGI, Serving.LMI])
def test_explicit_gpu_host_with_paged_kv_cache_is_accepted_when_one_full_sequence_fits(serving):
    # GIVEN Llama 3.1 8B bf16 with 8 sequences of 16384 tokens (8 GiB of KV cache): one A10G holds the weights and
    # a few full sequences, not eight
    model = ModelSpec(id="meta-llama/Llama-3.1-8B-Instruct", max_context_tokens=16384, max_concurrent_sequences=8)
    # WHEN ml.g5.2xlarge is given explicitly
    host = choose_host(model, serving=serving, instance_type="ml.g5.2xlarge", quantization_hint=False)
    # THEN it is accepted (the engine starts and batches what its KV blocks hold), with the margin floor kept,
    # and the decision says how many tokens and full sequences the KV cache holds
    assert host.kv is not None and host.kv.paged and not host.kv.batch_fits
    assert 1 <= host.kv.max_length_sequences < 8
    assert host.kv.tokens >= 16384 * host.kv.max_length_sequences
    assert host.memory_required_gb <= host.memory_available_gb * (1 - MARGIN_FLOOR_FRACTION) + 1e-3
    assert f"{host.kv.max_length_sequences} of the 8 requested 16,384-token sequences" in host.reason
    # AND the library's own choice still holds all eight
    own = choose_host(model, serving=serving, accelerator=AcceleratorChoice.GPU, quantization_hint=False)
    assert own.kv is not None and own.kv.batch_fits and own.instance_type != "ml.g5.2xlarge"


def test_fails_explicit_gpu_host_whose_kv_cache_cannot_hold_one_full_sequence():
    # GIVEN Llama 3.1 8B bf16 at its full 131072-token context (16 GiB of KV cache for one sequence)
    model = ModelSpec(id="meta-llama/Llama-3.1-8B-Instruct", max_context_tokens=131072, max_concurrent_sequences=1)
    # WHEN one A10G is given / THEN refused, as vLLM refuses to start when one max-length sequence does not fit
    with pytest.raises(InferenceConfigError, match=r"ml\.g5\.2xlarge cannot hold the model; needs"):
        choose_host(model, serving=Serving.VLLM, instance_type="ml.g5.2xlarge")


def test_fails_explicit_neuron_host_that_holds_fewer_sequences_than_its_compiled_batch():
    # GIVEN Mistral 7B bf16, 32 sequences of 4096 tokens on Neuron, whose KV cache is compiled for the whole batch
    model = ModelSpec(id="mistralai/Mistral-7B-Instruct-v0.3", max_context_tokens=4096, max_concurrent_sequences=32)
    # WHEN ml.inf2.8xlarge (2 NeuronCores) is given, which holds the weights and a few sequences
    # THEN it is refused: a static batch must fit whole
    with pytest.raises(InferenceConfigError, match=r"ml\.inf2\.8xlarge cannot hold the model"):
        choose_host(model, serving=Serving.NEURON, instance_type="ml.inf2.8xlarge")
    # AND a chosen Neuron host holds all 32
    own = choose_host(model, serving=Serving.NEURON, quantization_hint=False)
    assert own.kv is not None and not own.kv.paged and own.kv.batch_fits and own.kv.tokens == 32 * 4096


def test_kv_capacity_is_what_the_usable_memory_leaves_after_weights_and_overhead():
    # GIVEN Llama 3.1 8B bf16, 4096 x 8, on one L40S (ml.g6e.xlarge, the cheapest GPU that holds it)
    model = ModelSpec(id="meta-llama/Llama-3.1-8B-Instruct")
    host = choose_host(model, serving=Serving.VLLM, accelerator=AcceleratorChoice.GPU, quantization_hint=False)
    est = memory_estimate(model)
    # WHEN the KV capacity is read / THEN it is the usable memory under the margin, less weights and overhead,
    # over the per-token KV size (2 x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB)
    limit = host.instance.device_memory_reported_gib * GPU_USABLE_FRACTION * (1 - MARGIN_FLOOR_FRACTION)
    per_token = 2 * 32 * 8 * 128 * 2 / GIB
    expected = (limit - 1.0 - est.weights_gb * 1.05) / (per_token * 1.05)
    assert host.kv is not None and host.kv.paged and host.kv.batch_fits
    assert abs(host.kv.tokens - expected) <= 1


def test_explicit_host_whose_kv_cache_is_too_big_suggests_the_context_or_batch_that_fits():
    # GIVEN an 8B model whose weights fit four A10Gs but whose KV cache (164 x 131,072 tokens) is terabytes
    model = _model(8, architecture=LLAMA3_8B, max_context_tokens=131072, max_concurrent_sequences=164)
    # WHEN that host is given to a stack that needs the whole batch to fit
    with pytest.raises(InferenceConfigError) as info:
        choose_host(model, serving=Serving.TRITON, instance_type="ml.g5.12xlarge", path="endpoints[0]")
    # THEN the fix is a shorter context or batch, with numbers that fit, not a larger host
    message = str(info.value)
    assert "quantize or pick a larger host" not in message
    assert "the KV cache" in message
    lowered = re.search(r"max_concurrent_sequences to (\d+) .* model\.max_context_tokens to ([\d,]+)", message)
    assert lowered is not None
    sequences, context = int(lowered[1]), int(lowered[2].replace(",", ""))
    for fitting in (replace(model, max_concurrent_sequences=sequences), replace(model, max_context_tokens=context)):
        choose_host(fitting, serving=Serving.TRITON, instance_type="ml.g5.12xlarge")
    with pytest.raises(InferenceConfigError):
        choose_host(
            replace(model, max_concurrent_sequences=sequences + 1),
            serving=Serving.TRITON,
            instance_type="ml.g5.12xlarge",
        )
