"""Model features vs engine versions: Llama 3.x scaled RoPE is refused on the LMI Neuron engine
(transformers-neuronx 0.11, Neuron SDK 2.19.1), with the fix; TGI on optimum-neuron serves it."""

from __future__ import annotations

import pytest

from inference_constructs.catalog.models import known_model, model_features
from inference_constructs.config import parse_config
from inference_constructs.config.load import load_config
from inference_constructs.containers.compatibility import engine_rules, feature_problem
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform
from inference_constructs.spec import ModelSpec
from tests.gates.synth import ROOT


@pytest.mark.parametrize(
    ("model_id", "features"),
    [
        ("meta-llama/Llama-3.2-3B-Instruct", {"rope_scaling": "llama3"}),
        ("meta-llama/Llama-3.1-8B-Instruct", {"rope_scaling": "llama3"}),
        ("meta-llama/Llama-3.3-70B-Instruct", {"rope_scaling": "llama3"}),
        ("meta-llama/Meta-Llama-3-8B-Instruct", {}),  # Llama 3.0: no rope_scaling in its config.json
        ("mistralai/Mistral-7B-Instruct-v0.3", {}),
    ],
)
def test_catalogued_models_carry_their_config_features(model_id: str, features: dict[str, str]) -> None:
    # GIVEN the known-model table / WHEN a model's features are read / THEN Llama 3.1-3.3 name rope_type llama3
    assert dict(model_features(ModelSpec(id=model_id))) == features
    row = known_model(model_id)
    assert row is not None and dict(row.features) == features


@pytest.mark.parametrize(("engine", "refused"), [("lmi-neuron", True), ("tgi-neuron", False), ("lmi-gpu", False)])
def test_scaled_rope_is_refused_only_where_the_engine_lacks_it(engine: str, refused: bool) -> None:
    rules = engine_rules(engine)
    assert rules is not None
    problem = feature_problem(rules, {"rope_scaling": "llama3"})
    assert (problem is not None) is refused
    if problem is not None:
        assert "transformers-neuronx 0.12" in problem[0] and "serving tgi" in problem[1]


def test_fails_llama_3_1_on_the_old_neuron_image_with_the_fix() -> None:
    text = """
name: tt
endpoints:
  - name: chat
    model: {id: NousResearch/Meta-Llama-3.1-8B-Instruct}
    serving: neuron
    instance_type: ml.inf2.24xlarge
"""
    # GIVEN Llama 3.1 on serving neuron (LMI 0.29.0, transformers-neuronx 0.11) / WHEN planned
    # THEN refused at the key, saying what is missing and what to use
    with pytest.raises(InferenceConfigError) as err:
        plan_platform(parse_config(text))
    (problem,) = err.value.problems
    assert problem.startswith("endpoints[0].instance_type: ml.inf2.24xlarge cannot run the model")
    assert "scaled rotary position embeddings" in problem and "use serving tgi on the same host" in problem


def test_the_same_model_plans_on_tgi_on_optimum_neuron() -> None:
    text = """
name: tt
endpoints:
  - name: chat
    model: {id: NousResearch/Meta-Llama-3.1-8B-Instruct}
    serving: tgi
    instance_type: ml.inf2.24xlarge
"""
    (entry,) = plan_platform(parse_config(text)).to_json()["endpoints"]
    assert entry["container"]["image"] == "tgi-neuron"
    assert entry["hosting"]["inference_ami_version"] == "al2-ami-sagemaker-inference-neuron-2"


def test_the_trainium_example_serves_llama_3_2_through_tgi_on_optimum_neuron() -> None:
    # GIVEN the Trainium example (Llama 3.2 3B) / WHEN planned / THEN on a Trainium host with the TGI Neuron image
    plan = plan_platform(load_config(ROOT / "config" / "examples" / "trainium-and-private.yaml")).to_json()
    reasoning = next(e for e in plan["endpoints"] if e["name"] == "reasoning")
    assert reasoning["accelerator"] == "trainium" and reasoning["container"]["image"] == "tgi-neuron"
    assert reasoning["hosting"]["inference_ami_version"] == "al2-ami-sagemaker-inference-neuron-2"
