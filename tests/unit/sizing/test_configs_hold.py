"""Every shipped config and benchmark scenario keeps the margin floor and runs where its engine can run it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import optimality as opt
from inference_constructs.catalog.models import model_family, model_features
from inference_constructs.config.load import load_config, parse_config
from inference_constructs.containers.compatibility import (
    dtype_support,
    engine_for,
    family_problem,
    feature_problem,
    neuron_sdk_problem,
)
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform
from inference_constructs.sizing import MARGIN_FLOOR_FRACTION, HostDecision, choose_host
from inference_constructs.spec import ModelSpec, Serving

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = sorted([ROOT / "config" / "default.yaml", *(ROOT / "config" / "examples").glob("*.yaml")])


def _holds(host: HostDecision, model: ModelSpec, serving: Serving) -> None:
    if host.instance.devices == 0:
        return
    assert host.memory_required_gb <= host.memory_available_gb * (1 - MARGIN_FLOOR_FRACTION) + 1e-3
    rules = engine_for(serving, host.instance)
    if rules is not None:
        assert family_problem(rules, model_family(model)) is None
        assert neuron_sdk_problem(rules, host.instance) is None
        assert feature_problem(rules, model_features(model)) is None
        assert dtype_support(rules, model.dtype, host.instance).supported


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_choices_keep_the_margin_and_the_engine_rules(path):
    # GIVEN a shipped config / WHEN planned
    plan = plan_platform(load_config(path))
    # THEN every accelerated host keeps 5% free and its engine runs the model's family and dtype there
    for e in plan.endpoints:
        if e.host is not None:
            _holds(e.host, e.model, e.config.serving)


@pytest.mark.parametrize("scenario", opt.load_scenarios(), ids=lambda s: s.name)
def test_benchmark_scenario_choices_hold(scenario):
    # GIVEN a benchmark scenario / WHEN sized / THEN the same two properties hold
    host = choose_host(scenario.model, serving=scenario.serving, accelerator=scenario.accelerator,
                       max_devices=scenario.max_devices, quantization_hint=False)  # fmt: skip
    _holds(host, scenario.model, scenario.serving)


@pytest.mark.parametrize("scenario", opt.load_scenarios(key="refused"), ids=lambda s: s.name)
def test_fails_a_refused_scenario_because_every_host_that_holds_it_has_an_estimated_fact(scenario):
    # GIVEN a scenario published as refused (405B bf16: only hosts with an estimated price or device memory hold it)
    # WHEN sized THEN no host is chosen automatically
    with pytest.raises(InferenceConfigError, match="holds the model"):
        choose_host(scenario.model, serving=scenario.serving, accelerator=scenario.accelerator,
                    max_devices=scenario.max_devices, quantization_hint=False)  # fmt: skip


def test_fails_plan_of_qwen_pinned_to_inferentia_through_lmi():
    # GIVEN the old batch-extract defect: Qwen2.5 on an explicit Inferentia2 host through LMI (transformers-neuronx)
    text = """
name: tt
endpoints:
  - name: batch-extract
    type: async
    model: {id: Qwen/Qwen2.5-7B-Instruct}
    serving: lmi
    instance_type: ml.inf2.8xlarge
    capacity: {min: 0, max: 1}
"""
    # WHEN planned / THEN refused at the key path, with the reason and an alternative
    expected = (
        r"endpoints\[0\]\.instance_type: ml\.inf2\.8xlarge cannot run the model; .*does not support qwen2.*"
        r"the cheapest allowed host that can run it is ml\.\S+"
    )
    with pytest.raises(InferenceConfigError, match=expected):
        plan_platform(parse_config(text))


def test_plan_shows_the_shape_its_estimates_and_the_tensor_parallel_layout():
    # GIVEN an unknown model with only its family given, and a known one
    text = """
name: tt
endpoints:
  - name: known
    model: {id: Qwen/Qwen2.5-7B-Instruct}
    serving: vllm
    accelerator: gpu
  - name: unknown
    model: {id: acme/secret-8b, parameters_billion: 8, architecture: {family: llama}}
    serving: neuron
"""
    # WHEN planned
    entries = {e["name"]: e for e in plan_platform(parse_config(text)).to_json()["endpoints"]}
    known, unknown = entries["known"], entries["unknown"]
    # THEN the known shape comes from the table with nothing estimated; the unknown one lists its estimates
    assert known["architecture"]["family"] == "qwen2" and known["architecture"]["estimated"] == []
    assert known["tensor_parallel"]["attention_heads_per_shard"] == 28 // known["tensor_parallel"]["degree"]
    assert unknown["architecture"]["family"] == "llama" and "kv_heads" in unknown["architecture"]["estimated"]
    # AND every entry keeps the margin floor and says how much stays free
    for e in entries.values():
        assert e["margin_gb"] >= 0.05 * e["memory_available_gb"] - 0.01


def test_plan_says_what_the_kv_cache_of_an_explicit_paged_host_holds():
    # GIVEN Qwen2.5 7B on vLLM with 8 sequences of 16384 tokens, pinned to one A10G, and the same model chosen
    text = """
name: tt
endpoints:
  - name: pinned
    model: {id: Qwen/Qwen2.5-7B-Instruct, max_context_tokens: 16384, max_concurrent_sequences: 8}
    serving: vllm
    instance_type: ml.g5.2xlarge
  - name: chosen
    model: {id: Qwen/Qwen2.5-7B-Instruct, max_context_tokens: 16384, max_concurrent_sequences: 8}
    serving: vllm
    accelerator: gpu
"""
    # WHEN planned
    entries = {e["name"]: e for e in plan_platform(parse_config(text)).to_json()["endpoints"]}
    pinned, chosen = entries["pinned"]["kv_cache"], entries["chosen"]["kv_cache"]
    # THEN the pinned host is accepted with a paged KV cache that holds fewer than the 8 full sequences, and says so
    assert pinned["allocation"] == "paged" and pinned["batch_fits"] is False
    assert 1 <= pinned["max_length_sequences"] < 8 <= chosen["max_length_sequences"]
    assert pinned["tokens"] >= 16384 * pinned["max_length_sequences"]
    # AND the chosen host holds all of them; both keep the margin floor
    assert chosen["batch_fits"] is True and chosen["tokens"] >= 8 * 16384
    for e in entries.values():
        assert e["margin_gb"] >= 0.05 * e["memory_available_gb"] - 0.01
