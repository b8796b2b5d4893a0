"""Serving options end to end: the config's ``serving_options`` block and the ``serving_options=`` prop reach the
container environment and the production variant's ``RoutingConfig`` (``PREFIX_AWARE`` with the plan's
``PrefixAwareRoutingConfig``), the refusals name the key path, and a routing change replaces the endpoint config
(``ProductionVariants`` is create-only in the bundled CloudFormation schema)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Match, Template

from inference_constructs.config import parse_config
from inference_constructs.containers.routing import RoutingOptions
from inference_constructs.containers.serving_options import ServingOptions, SpeculativeDecoding
from inference_constructs.diff.templates import diff_templates
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import RealtimeEndpoint
from inference_constructs.plan import plan_platform
from inference_constructs.spec import ModelSpec

CHAT = ModelSpec(id="NousResearch/Meta-Llama-3.1-8B-Instruct", max_concurrent_sequences=16)


LLAMA = "{id: NousResearch/Meta-Llama-3.1-8B-Instruct, max_concurrent_sequences: 16}"
SMALL_FP16 = "{id: Qwen/Qwen2.5-1.5B-Instruct, dtype: fp16}"


def _config(extra: str, *, serving: str = "vllm", model: str = LLAMA, head: str = "") -> str:
    return f"""
name: opts
endpoints:
  - name: chat
    model: {model}
    serving: {serving}
{head}{extra}"""


def _entry(text: str) -> dict[str, Any]:
    return plan_platform(parse_config(text)).to_json()["endpoints"][0]  # type: ignore[no-any-return]


def _refusal(text: str) -> str:
    with pytest.raises(InferenceConfigError) as err:
        _entry(text)
    return str(err.value)


def _template(**props: Any) -> dict[str, Any]:
    stack = Stack(App(), "S")
    RealtimeEndpoint(stack, "Chat", model=CHAT, serving="vllm", **props)
    return Template.from_stack(stack).to_json()  # type: ignore[no-any-return]


def test_prefix_aware_routing_threshold_comes_from_the_scaling_target_with_the_reason() -> None:
    # GIVEN prefix caching with prefix-aware routing and a concurrency target of 12 per instance
    entry = _entry(
        _config(
            "    serving_options: {prefix_caching: true, routing: prefix_aware}\n"
            "    capacity: {min: 1, max: 4}\n    scaling: {concurrency_per_instance: 12}\n"
        )
    )
    # WHEN planned THEN the container turns prefix caching on and routing is PREFIX_AWARE, decided with its reason
    container = entry["container"]
    assert container["environment"]["SM_VLLM_ENABLE_PREFIX_CACHING"] == ""
    assert container["routing_strategy"] == "PREFIX_AWARE"
    routing = container["prefix_aware_routing"]
    assert (routing["prefix_length"], routing["concurrency_threshold"]) == (1024, 12)
    assert "scaling.concurrency_per_instance 12 rounded up" in routing["reason"]
    assert "the documented minimum 1024" in routing["reason"]


def test_prefix_aware_routing_without_a_scaling_target_uses_the_engines_batch() -> None:
    entry = _entry(_config("    serving_options: {routing: {strategy: prefix_aware, prefix_length: 4096}}\n"))
    routing = entry["container"]["prefix_aware_routing"]
    assert (routing["prefix_length"], routing["concurrency_threshold"]) == (4096, 16)
    assert "model.max_concurrent_sequences 16" in routing["reason"]


def test_prop_synthesizes_the_routing_config_and_the_engine_variables() -> None:
    # GIVEN the Python form of the same options
    options = ServingOptions(
        prefix_caching=True,
        speculative_decoding=SpeculativeDecoding(tokens=4, model="Qwen/Qwen2.5-0.5B-Instruct"),
        routing=RoutingOptions(prefix_length=2048, concurrency_threshold=8),
    )
    template = Template.from_json(_template(serving_options=options, instance_type="ml.g6e.xlarge"))
    # THEN the variant routes by prefix with the plan's values
    template.has_resource_properties(
        "AWS::SageMaker::EndpointConfig",
        {
            "ProductionVariants": [
                Match.object_like(
                    {
                        "RoutingConfig": {
                            "RoutingStrategy": "PREFIX_AWARE",
                            "PrefixAwareRoutingConfig": {"PrefixLength": 2048, "ConcurrencyThreshold": 8},
                        }
                    }
                )
            ]
        },
    )
    # AND the model's container carries the engine's variables
    env = Match.object_like(
        {
            "SM_VLLM_ENABLE_PREFIX_CACHING": "",
            "SM_VLLM_SPECULATIVE_CONFIG": '{"method":"draft_model","model":"Qwen/Qwen2.5-0.5B-Instruct",'
            '"num_speculative_tokens":4}',
        }
    )
    template.has_resource_properties(
        "AWS::SageMaker::Model", {"PrimaryContainer": Match.object_like({"Environment": env})}
    )


def test_without_options_the_variant_keeps_least_outstanding_requests_only() -> None:
    config = next(iter(_resources(_template(instance_type="ml.g6e.xlarge"), "AWS::SageMaker::EndpointConfig")))
    assert config["Properties"]["ProductionVariants"][0]["RoutingConfig"] == {
        "RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"
    }


def _resources(template: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in template["Resources"].values() if r["Type"] == kind]


def test_routing_change_replaces_the_endpoint_config_and_updates_the_endpoint() -> None:
    # GIVEN the same endpoint before and after prefix-aware routing WHEN the templates are diffed
    old = _template(instance_type="ml.g6e.xlarge")
    new = _template(instance_type="ml.g6e.xlarge", serving_options=ServingOptions(routing=RoutingOptions()))
    changes = {c.resource_type: c for c in diff_templates({"S": old}, {"S": new}).changes}
    # THEN the endpoint config is replaced for its production variants, and the endpoint moves to it in place
    config = changes["AWS::SageMaker::EndpointConfig"]
    assert config.status == "replaced"
    assert config.forced_by == ("ProductionVariants (direct)",)
    assert changes["AWS::SageMaker::Endpoint"].status == "updated"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            _config("    type: async\n    serving_options: {routing: prefix_aware}\n"),
            "endpoints[0].serving_options.routing.strategy: prefix_aware is not available for async endpoints",
        ),
        (
            _config("    capacity: {min: 0, max: 2}\n    serving_options: {routing: prefix_aware}\n"),
            "prefix_aware is not available for an endpoint hosted through an inference component",
        ),
        (
            _config("    serving_options: {prefix_caching: false, routing: prefix_aware}\n"),
            "prefix_aware is not available for an engine that does not cache prefixes on this host",
        ),
        (
            _config(
                "    serving_options: {routing: prefix_aware}\n",
                serving="tgi",
                model=SMALL_FP16,
                head="    instance_type: ml.g4dn.2xlarge\n",
            ),
            "prefix_aware is not available for an engine that does not cache prefixes on this host",
        ),
        (
            _config(
                "    serving_options: {speculative_decoding: {model: meta-llama/Llama-3.2-1B-Instruct, tokens: 4}}\n"
            ),
            "serving_options.speculative_decoding.model: meta-llama/Llama-3.2-1B-Instruct is gated",
        ),
        (
            _config(
                "    serving_options: {speculative_decoding: {model: Qwen/Qwen2.5-0.5B-Instruct, tokens: 4}}\n",
                serving="tgi",
            ),
            "serving_options.speculative_decoding.method: draft_model is not supported by this engine",
        ),
        (
            _config("    serving_options: {quantization: awq}\n"),
            "serving_options.quantization: awq serves int4 weights, model.dtype is bf16",
        ),
        (
            _config(
                "    serving_options: {quantization: awq}\n",
                serving="tgi",
                model="{id: Qwen/Qwen2.5-1.5B-Instruct, dtype: int4}",
                head="    instance_type: ml.g4dn.2xlarge\n",
            ),
            "serving_options.quantization: awq needs compute capability 8.0 or newer on this engine, the host has 7.5",
        ),
    ],
)
def test_fails_with_the_key_path(text: str, expected: str) -> None:
    assert expected in _refusal(text)


def test_fails_unknown_option_key() -> None:
    with pytest.raises(InferenceConfigError, match=r"serving_options\.prefix_cache"):
        parse_config(_config("    serving_options: {prefix_cache: true}\n"))


def test_tgi_prefix_routing_skips_gpus_without_prefix_caching() -> None:
    # GIVEN TGI, which caches prefixes only from compute capability 8.0, and an fp16 model that fits a T4
    base = _config("", serving="tgi", model=SMALL_FP16)
    plain = _entry(base)
    routed = _entry(base + "    serving_options: {routing: prefix_aware}\n")
    # THEN without routing the cheapest host is a T4 (g4dn); with it that host is skipped
    assert plain["instance_type"].startswith("ml.g4dn.")
    assert not routed["instance_type"].startswith("ml.g4dn.")
    assert routed["container"]["routing_strategy"] == "PREFIX_AWARE"


def test_tgi_awq_skips_gpus_below_compute_capability_8() -> None:
    # GIVEN TGI and a small int4 model that fits a T4: gptq runs there (Triton kernel), awq needs SM 8.0 in TGI v3.3.6
    small_int4 = "{id: Qwen/Qwen2.5-1.5B-Instruct, dtype: int4}"
    gptq = _entry(_config("    serving_options: {quantization: gptq}\n", serving="tgi", model=small_int4))
    awq = _entry(_config("    serving_options: {quantization: awq}\n", serving="tgi", model=small_int4))
    # THEN the gptq endpoint takes the T4 (g4dn) and the awq one skips it
    assert gptq["instance_type"].startswith("ml.g4dn.")
    assert not awq["instance_type"].startswith("ml.g4dn.")


def test_draft_model_is_in_the_plan_entry() -> None:
    entry = _entry(
        _config("    serving_options: {speculative_decoding: {model: Qwen/Qwen2.5-1.5B-Instruct, tokens: 4}}\n")
    )
    assert entry["draft_model"]["weights_gb"] == pytest.approx(2.87, abs=0.01)
    assert "draft model 2.9 + KV cache" in entry["reason"]


def test_quantization_prop_and_option_must_agree() -> None:
    with pytest.raises(
        InferenceConfigError, match=r"serving_options\.quantization: awq differs from quantization gptq"
    ):
        _template(quantization="gptq", serving_options=ServingOptions(quantization="awq"))


def test_a_plan_without_options_has_no_option_blocks() -> None:
    entry = _entry(_config(""))
    assert "prefix_aware_routing" not in entry["container"]
    assert "serving_options" not in entry["container"]
    assert "draft_model" not in entry
    assert copy.deepcopy(entry)["container"]["routing_strategy"] == "LEAST_OUTSTANDING_REQUESTS"


def test_an_engine_option_change_replaces_the_model_and_through_it_the_config() -> None:
    old = _template(instance_type="ml.g6e.xlarge")
    new = _template(instance_type="ml.g6e.xlarge", serving_options=ServingOptions(prefix_caching=True))
    changes = {c.resource_type: c for c in diff_templates({"S": old}, {"S": new}).changes}
    assert changes["AWS::SageMaker::Model"].status == "replaced"
    assert changes["AWS::SageMaker::Model"].forced_by == ("PrimaryContainer (direct)",)
    assert changes["AWS::SageMaker::EndpointConfig"].status == "replaced"
