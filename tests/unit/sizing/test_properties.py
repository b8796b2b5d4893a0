"""Property-based checks of choose_host against an independent exhaustive oracle (_oracle.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks import oracle as _oracle
from inference_constructs.catalog import load_catalog
from inference_constructs.errors import InferenceConfigError
from inference_constructs.sizing import choose_host
from inference_constructs.spec import AcceleratorChoice, DType, ModelArchitecture, ModelSpec, Serving

CATALOG = load_catalog()
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def _architecture(draw: st.DrawFn) -> ModelArchitecture:
    kv = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64]))
    return ModelArchitecture(
        layers=draw(st.integers(1, 140)),
        kv_heads=kv,
        head_dim=draw(st.sampled_from([64, 80, 96, 128, 256])),
        family=draw(st.sampled_from([None, "llama", "qwen2", "gemma2", "mistral"])),
        attention_heads=draw(st.none() | st.sampled_from([1, 2, 4, 7]).map(lambda g: g * kv)),
    )


architectures = st.none() | _architecture()
models = st.builds(
    ModelSpec,
    # half the draws in 4-16B, where host RAM, single-GPU and Neuron-core limits bind
    parameters_billion=st.floats(0.05, 800, allow_nan=False) | st.floats(4, 16, allow_nan=False),
    dtype=st.sampled_from(list(DType)),
    max_context_tokens=st.sampled_from([512, 1024, 2048, 4096, 8192, 16384, 32768, 131072]),
    max_concurrent_sequences=st.integers(1, 64),
    architecture=architectures,
    neuron_compiled=st.booleans(),
)
classical = st.builds(ModelSpec, parameters_billion=st.none() | st.floats(0.0001, 40, allow_nan=False))


@st.composite
def constraints(draw: st.DrawFn) -> tuple[Serving, AcceleratorChoice, int | None]:
    serving = draw(st.sampled_from(list(Serving)))
    choices = [c for c in AcceleratorChoice if serving.accelerators(c)]
    return serving, draw(st.sampled_from(choices)), draw(st.sampled_from([None, None, 1]))


def _choose(model: ModelSpec, serving: Serving, accel: AcceleratorChoice, max_devices: int | None):
    try:
        return choose_host(model, serving=serving, accelerator=accel, max_devices=max_devices)
    except InferenceConfigError:
        return None


@SETTINGS
@given(model=models | classical, rules=constraints())
# Found by hypothesis: a 1.5B LLM served by triton on a CPU host pays one shard's runtime overhead (the whole
# host RAM is one shard), so ml.m5.large (6.4 GiB usable) is too small for its 6.7 GiB.
@example(model=ModelSpec(parameters_billion=1.5), rules=(Serving.TRITON, AcceleratorChoice.CPU, None))
def test_choice_fits_and_no_cheaper_feasible_host_exists(model, rules):
    # GIVEN a random model and constraints
    serving, accel, max_devices = rules
    if _oracle.is_llm(model, serving) and model.parameters_billion is None:
        return
    # WHEN a host is chosen, and the oracle scans every catalog row
    decision = _choose(model, serving, accel, max_devices)
    best = _oracle.cheapest_price(model, serving, accel, CATALOG, max_devices)
    # THEN choose_host fails exactly when nothing fits; otherwise its host fits, is allowed,
    # and costs what the cheapest feasible host costs
    if best is None:
        assert decision is None
        return
    assert decision is not None
    llm = _oracle.is_llm(model, serving)
    assert _oracle.fits(model, decision.instance, llm, serving)
    assert decision.instance.accelerator.value in _oracle.allowed(serving, accel)
    assert max_devices is None or decision.instance.devices <= max_devices
    assert decision.price_per_hour_usd == best
    assert decision.memory_required_gb <= decision.memory_available_gb + 1e-3


ACCELERATED = [i for i in CATALOG.instances if i.devices > 0]


@SETTINGS
@given(
    model=models,
    instance=st.sampled_from(ACCELERATED),
    serving=st.sampled_from([Serving.VLLM, Serving.TGI, Serving.LMI, Serving.NEURON]),
)
def test_explicit_host_is_accepted_exactly_when_the_engine_would_start(model, instance, serving):
    # GIVEN a random model and an explicit accelerated host
    # WHEN it is checked
    try:
        decision = choose_host(model, serving=serving, instance_type=instance.name, quantization_hint=False)
    except InferenceConfigError:
        decision = None
    # THEN it is accepted exactly when the oracle says the engine starts there: the whole concurrency target fits,
    # or (paged KV cache: vLLM, TGI) at least one max-length sequence does
    expected = instance.accelerator.value in _oracle.allowed(serving, AcceleratorChoice.AUTO) and _oracle.explicit_fits(
        model, instance, serving
    )
    assert (decision is not None) == expected
    if decision is not None:
        # AND the margin floor holds, and a static KV cache (Neuron) always holds the whole target
        assert decision.memory_required_gb <= decision.memory_available_gb * 0.95 + 1e-3
        assert decision.kv is not None
        assert decision.kv.batch_fits or decision.kv.paged
        assert decision.kv.tokens >= model.max_context_tokens * decision.kv.max_length_sequences >= 1


@SETTINGS
@given(
    model=models,
    bigger=st.floats(1.0, 20.0, allow_nan=False),
    rules=constraints(),
)
def test_larger_model_never_gets_a_cheaper_host(model, bigger, rules):
    # GIVEN a model and the same model with more parameters, under the same constraints
    serving, accel, max_devices = rules
    assert model.parameters_billion is not None
    large = replace(model, parameters_billion=model.parameters_billion * bigger)
    # WHEN both are sized
    small_choice = _choose(model, serving, accel, max_devices)
    large_choice = _choose(large, serving, accel, max_devices)
    # THEN the larger one never costs less (and never fits when the smaller one does not)
    if small_choice is None:
        assert large_choice is None
    elif large_choice is not None:
        assert large_choice.price_per_hour_usd >= small_choice.price_per_hour_usd


@SETTINGS
@given(model=models | classical, serving=st.sampled_from([Serving.SKLEARN, Serving.XGBOOST, Serving.PYTORCH]))
def test_classical_serving_never_gets_an_accelerator(model, serving):
    # GIVEN any model served by a classical stack with auto accelerator
    decision = _choose(model, serving, AcceleratorChoice.AUTO, None)
    # WHEN sized / THEN the host, if any fits, is a CPU host
    assert decision is None or decision.instance.devices == 0


@SETTINGS
@given(model=models)
def test_quantization_hint_is_cheaper_and_never_applied(model):
    # GIVEN an LLM / WHEN sized with the hint
    decision = _choose(model, Serving.VLLM, AcceleratorChoice.AUTO, None)
    if decision is None or decision.quantization_hint is None:
        return
    hint = decision.quantization_hint
    # THEN the hinted host is cheaper, fits the quantized model per the oracle, and the decision keeps the dtype
    assert hint.price_per_hour_usd < decision.price_per_hour_usd
    assert hint.dtype is not model.dtype and hint.dtype.bytes_per_parameter <= model.dtype.bytes_per_parameter
    hinted = CATALOG.get(hint.instance_type)
    assert hinted is not None and _oracle.fits(replace(model, dtype=hint.dtype), hinted, True, Serving.VLLM)
    assert 0 < hint.saving_percent < 100


@pytest.mark.parametrize("serving", [Serving.VLLM, Serving.NEURON])
@SETTINGS
@given(model=models)
def test_neuron_choices_count_cores(serving, model):
    # GIVEN an LLM on a stack that may use Neuron
    decision = _choose(model, serving, AcceleratorChoice.AUTO, None)
    if decision is None or not decision.accelerator.is_neuron:
        return
    # WHEN a Neuron host is chosen / THEN TP counts NeuronCores within the host and devices cover them
    inst = decision.instance
    assert 1 <= decision.tensor_parallel_degree <= inst.neuron_cores
    assert decision.devices * inst.neuron_cores_per_device >= decision.tensor_parallel_degree
