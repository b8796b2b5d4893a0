"""Engine rules as data: families, Neuron SDK per instance family, dtypes per accelerator generation."""

from __future__ import annotations

import pytest

from inference_constructs.catalog import load_catalog
from inference_constructs.catalog.models import known_model, resolve_architecture
from inference_constructs.containers.compatibility import (
    dtype_support,
    engine_rules,
    family_problem,
    neuron_sdk_problem,
)
from inference_constructs.errors import InferenceConfigError
from inference_constructs.sizing import choose_host
from inference_constructs.spec import DType, ModelArchitecture, ModelSpec, Serving

CATALOG = load_catalog()


def _rules(key: str):  # type: ignore[no-untyped-def]
    rules = engine_rules(key)
    assert rules is not None
    return rules


FAMILIES = [("lmi-neuron", "qwen2", False), ("lmi-neuron", "llama", True), ("tgi-neuron", "qwen2", True),
            ("lmi-gpu", "qwen2", True)]  # fmt: skip


@pytest.mark.parametrize(("key", "family", "ok"), FAMILIES)
def test_engine_family_lists(key, family, ok):
    # GIVEN an engine and a family / WHEN checked / THEN closed lists refuse what they do not load
    assert (family_problem(_rules(key), family) is None) is ok


def test_fails_unknown_family_on_a_closed_list_saying_what_to_set():
    # GIVEN a model of unknown family on the LMI Neuron engine / WHEN sized / THEN refused, naming the key to set
    with pytest.raises(InferenceConfigError, match=r"model\.architecture\.family"):
        choose_host(ModelSpec(parameters_billion=7), serving=Serving.NEURON, instance_type="ml.inf2.8xlarge")


def test_qwen_on_lmi_auto_is_never_placed_on_neuron():
    # GIVEN Qwen2.5 7B on lmi with accelerator auto / WHEN sized / THEN a GPU host (transformers-neuronx lacks qwen2)
    decision = choose_host(ModelSpec(id="Qwen/Qwen2.5-7B-Instruct"), serving=Serving.LMI)
    assert not decision.accelerator.is_neuron


@pytest.mark.parametrize(("name", "refused"), [("ml.trn2.48xlarge", True), ("ml.trn1.32xlarge", False)])
def test_trn2_needs_neuron_sdk_2_21(name, refused):
    # GIVEN the LMI Neuron image (SDK 2.19.1) / WHEN checked on trn2 and trn1 / THEN only trn2 is refused
    inst = CATALOG.get(name)
    assert inst is not None
    assert (neuron_sdk_problem(_rules("lmi-neuron"), inst) is not None) is refused


@pytest.mark.parametrize(
    ("name", "dtype", "supported", "weight_only"),
    [
        ("ml.g4dn.xlarge", DType.BF16, False, False),
        ("ml.g5.xlarge", DType.BF16, True, False),
        ("ml.g4dn.xlarge", DType.FP8, False, False),
        ("ml.g5.xlarge", DType.FP8, True, True),
        ("ml.g6.xlarge", DType.FP8, True, False),
        ("ml.g4dn.xlarge", DType.INT4, True, False),
    ],
)
def test_vllm_dtype_by_compute_capability(name, dtype, supported, weight_only):
    # GIVEN vLLM on a GPU generation / WHEN a dtype is checked / THEN the compute-capability rule decides
    inst = CATALOG.get(name)
    assert inst is not None
    support = dtype_support(_rules("vllm-gpu"), dtype, inst)
    assert support.supported is supported and bool(support.weight_only) is weight_only


@pytest.mark.parametrize(("dtype", "supported"), [(DType.INT8, True), (DType.INT4, False), (DType.FP8, False)])
def test_transformers_neuronx_dtypes(dtype, supported):
    inst = CATALOG.get("ml.inf2.xlarge")
    assert inst is not None
    # GIVEN transformers-neuronx on Inferentia2 / WHEN checked / THEN int8 weight storage only
    assert dtype_support(_rules("lmi-neuron"), dtype, inst).supported is supported


def test_known_model_fills_the_shape_and_config_overrides_it():
    # GIVEN a known id with one field overridden in the config
    model = ModelSpec(id="qwen/qwen2.5-7b-instruct", parameters_billion=7.6, architecture=ModelArchitecture(layers=30))
    arch = resolve_architecture(model)
    # WHEN resolved / THEN table values fill the rest (case-insensitive id), the override wins, nothing estimated
    row = known_model("Qwen/Qwen2.5-7B-Instruct")
    assert arch is not None and row is not None
    assert (arch.family, arch.layers, arch.attention_heads, arch.kv_heads) == ("qwen2", 30, 28, 4)
    assert arch.estimated == ()


def test_unknown_model_shape_is_estimated_and_flagged():
    # GIVEN an unknown id / WHEN resolved / THEN every shape field is an estimate and the family is unknown
    arch = resolve_architecture(ModelSpec(id="acme/secret-7b", parameters_billion=7))
    assert arch is not None and arch.family is None and "kv_heads" in arch.estimated


def test_known_model_gives_the_parameter_count():
    # GIVEN a known id without parameters_billion / WHEN sized / THEN it is sized (not refused for unknown size)
    decision = choose_host(ModelSpec(id="meta-llama/Llama-3.2-1B-Instruct"), serving=Serving.VLLM)
    assert decision.weights_gb > 2.0


def test_fails_auto_choice_when_no_engine_runs_the_model_naming_what_to_set():
    # GIVEN an unknown model (family unknown) on the neuron stack, whose engine has a closed family list
    # WHEN sized with accelerator auto / THEN refused naming the engine's list and the key to set
    with pytest.raises(InferenceConfigError, match=r"e\.model: no allowed .* host can run the model: .*set "
                       r"model\.architecture\.family"):  # fmt: skip
        choose_host(ModelSpec(id="acme/secret-7b", parameters_billion=7), serving=Serving.NEURON, path="e")


def test_family_given_in_the_config_unlocks_the_closed_list():
    # GIVEN the same unknown model with its family set / WHEN sized / THEN it is placed on Neuron
    model = ModelSpec(id="acme/secret-7b", parameters_billion=7, architecture=ModelArchitecture(family="llama"))
    assert choose_host(model, serving=Serving.NEURON).accelerator.is_neuron
