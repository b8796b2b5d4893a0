"""Inference components as a hosting kind: several models on one instance type, sized together, with LoRA adapters."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from aws_cdk import Stack

from inference_constructs.catalog import load_catalog
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.containers.compatibility import lora_rules
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import (
    AdapterRequest,
    Capacity,
    ComponentRequest,
    ComponentsOptions,
    EndpointRequest,
    InferenceComponentsEndpoint,
    PlacementStrategy,
)
from inference_constructs.hosting.components_plan import plan_components_endpoint
from inference_constructs.plan import plan_platform
from inference_constructs.sizing import memory_estimate
from inference_constructs.spec import AcceleratorChoice, EndpointKind, LoraSlots, ModelSpec, Serving
from tests.unit.hosting._synth import logical_ids, synth_checked

QWEN_7B = ModelSpec(
    id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6, max_context_tokens=8192, max_concurrent_sequences=8
)
QWEN_1B = ModelSpec(
    id="Qwen/Qwen2.5-1.5B-Instruct", parameters_billion=1.5, max_context_tokens=4096, max_concurrent_sequences=8
)
CHAT = ComponentRequest("chat", QWEN_7B, Serving.LMI, copies=Capacity(1, 2))
SUMMARIZE = ComponentRequest("summarize", QWEN_1B, Serving.LMI, copies=Capacity(1, 2))
TWO_INSTANCES = Capacity(1, 2)
ADAPTER = AdapterRequest("support-tone", "chat", "s3://assistants-ml-artifacts/adapters/support-tone/")


def _request(
    *components: ComponentRequest,
    adapters: tuple[AdapterRequest, ...] = (),
    instance_type: str | None = None,
    capacity: Capacity = TWO_INSTANCES,
) -> EndpointRequest:
    return EndpointRequest(
        kind=EndpointKind.REALTIME,
        model=components[0].model,
        serving=Serving.LMI,
        accelerator=AcceleratorChoice.GPU,
        instance_type=instance_type,
        capacity=capacity,
        components=ComponentsOptions(components=components, adapters=adapters),
    )


def test_auto_picks_the_cheapest_instance_type_whose_packing_holds_the_minimum_copies() -> None:
    # GIVEN two models with one warm copy each, on up to 2 instances
    req = _request(CHAT, SUMMARIZE)
    # WHEN the plan chooses the instance type
    chosen = plan_components_endpoint(req, path="endpoints[0]").components
    assert chosen is not None
    chosen_cost = load_catalog().get(chosen.instance_type).price_per_hour_usd * chosen.instances_at_min  # type: ignore[union-attr]
    # THEN every cheaper catalog host, given explicitly, is refused or packs them at no lower cost
    for inst in load_catalog().by_price:
        if inst.price_per_hour_usd >= chosen_cost or inst.name == chosen.instance_type or not inst.chosen_automatically:
            continue
        if inst.burstable or inst.accelerator.value != "gpu":
            continue
        try:
            other = plan_components_endpoint(_request(CHAT, SUMMARIZE, instance_type=inst.name)).components
        except InferenceConfigError:
            continue
        assert other is not None
        # an explicit host may admit fewer max-length sequences than requested; the automatic choice does not
        host = other.components[0].plan.host
        if host is not None and host.kv is not None and not host.kv.batch_fits:
            continue
        assert inst.price_per_hour_usd * other.instances_at_min >= chosen_cost, inst.name


def test_the_month_at_minimum_is_priced_at_the_instances_the_minimum_copies_need() -> None:
    # GIVEN two one-GPU components with two warm copies each on one-GPU hosts, and capacity.min 1
    two_warm = [replace(c, copies=Capacity(2, 2)) for c in (CHAT, SUMMARIZE)]
    req = _request(*two_warm, instance_type="ml.g6e.xlarge", capacity=Capacity(1, 4))
    components = plan_components_endpoint(req, path="endpoints[0]").components
    assert components is not None
    # WHEN planned THEN four copies need four instances, which is what runs (and is billed) at minimum
    assert components.instances_for_min_copies == 4
    assert components.billed_instances_at_min == 4
    assert "at their copies.min the components need 4 instance(s), more than capacity.min 1" in components.reason
    # AND a component that scales to zero holds no instance at minimum: capacity.min is the floor then
    scaled_to_zero = _request(CHAT, replace(SUMMARIZE, copies=Capacity(0, 2)), instance_type="ml.g6e.xlarge")
    floor = plan_components_endpoint(scaled_to_zero).components
    assert floor is not None
    assert (floor.instances_at_min, floor.instances_for_min_copies, floor.billed_instances_at_min) == (2, 1, 1)


def test_the_platform_cost_at_minimum_follows_the_billed_instances() -> None:
    # GIVEN the shipped example (capacity.min 1; chat warm at one copy, summarize scales to zero) WHEN planned
    from inference_constructs.config.load import load_config

    (endpoint,) = plan_platform(load_config("config/examples/inference-components.yaml")).endpoints
    components = endpoint.hosting.components
    assert components is not None and endpoint.price_per_hour_usd is not None
    # THEN the month at minimum is one instance of the chosen type (730 h), the month at maximum capacity.max
    assert components.billed_instances_at_min == 1
    assert endpoint.monthly_usd_at_min == round(endpoint.price_per_hour_usd * 1 * 730, 2)


def test_each_component_reserves_what_the_sizing_says_one_copy_needs() -> None:
    # GIVEN two models on a 4-GPU host WHEN planned
    plan = plan_components_endpoint(_request(CHAT, SUMMARIZE, instance_type="ml.g5.12xlarge"))
    components = plan.components
    assert components is not None
    chat, summarize = components.components
    # THEN each copy reserves the devices of its tensor parallel degree and the host RAM its weights load into
    for c in (chat, summarize):
        host = c.plan.host
        assert host is not None
        assert c.accelerator_devices == host.devices
        assert c.min_memory_required_mb >= int(host.weights_gb * 1024)
    # AND both minimum copies pack onto one instance of 4 GPUs, the first component's numbers are the endpoint's own
    assert components.packing == (("chat", "summarize"),)
    assert plan.inference_component is not None
    assert plan.inference_component.accelerator_devices == chat.accelerator_devices
    assert plan.inference_component.min_memory_required_mb == chat.min_memory_required_mb


def test_fails_an_instance_type_that_cannot_hold_the_set_naming_the_key_and_what_fits() -> None:
    # GIVEN two models that need one GPU each, on at most one single-GPU instance
    req = _request(CHAT, SUMMARIZE, instance_type="ml.g6e.xlarge", capacity=Capacity(1, 1))
    # WHEN planned THEN the instance type is refused with the packing's need and the cheapest type that fits
    with pytest.raises(InferenceConfigError) as err:
        plan_components_endpoint(req, path="endpoints[0]")
    message = str(err.value)
    assert "endpoints[0].instance_type: ml.g6e.xlarge cannot hold the components" in message
    assert "needs 2 instances" in message
    assert "more than capacity.max 1" in message
    assert "the cheapest instance type that fits them all is ml." in message


_CONFIG: dict[str, Any] = {
    "name": "shared",
    "endpoints": [
        {
            "name": "assistants",
            "accelerator": "gpu",
            "instance_type": "ml.g6e.xlarge",
            "capacity": {"min": 1, "max": 1},
            "components": [
                {"name": "chat", "model": {"id": QWEN_7B.id, "parameters_billion": 7.6}, "copies": {"min": 1}},
                {"name": "summarize", "model": {"id": QWEN_1B.id, "parameters_billion": 1.5}, "copies": {"min": 1}},
            ],
        }
    ],
}


def test_fails_the_same_set_in_the_plan_and_at_synth_with_one_message() -> None:
    # GIVEN the same set as a config file and as construct props
    with pytest.raises(InferenceConfigError) as planned:
        plan_platform(PlatformConfig.model_validate(_CONFIG))
    components = [
        ComponentRequest("chat", ModelSpec(id=QWEN_7B.id, parameters_billion=7.6), Serving.LMI),
        ComponentRequest("summarize", ModelSpec(id=QWEN_1B.id, parameters_billion=1.5), Serving.LMI),
    ]
    with pytest.raises(InferenceConfigError) as built:
        InferenceComponentsEndpoint(
            Stack(),
            "Assistants",
            components=components,
            accelerator="gpu",
            instance_type="ml.g6e.xlarge",
            capacity=(1, 1),
            path="endpoints[0]",
        )
    # THEN the plan refuses it first, and synth with the same problem
    assert "endpoints[0].instance_type: ml.g6e.xlarge cannot hold the components" in str(planned.value)
    assert planned.value.problems == built.value.problems


@pytest.mark.parametrize(
    ("adapter", "key"),
    [
        (AdapterRequest("tone", "nobody", ADAPTER.s3_uri), "endpoints[0].adapters[0].base"),
        (AdapterRequest("tone", "chat", "https://example.com/a"), "endpoints[0].adapters[0].s3_uri"),
        (AdapterRequest("chat", "chat", ADAPTER.s3_uri), "endpoints[0].adapters[0].name"),
    ],
)
def test_fails_an_adapter_without_a_base_an_s3_artifact_or_its_own_name(adapter: AdapterRequest, key: str) -> None:
    with pytest.raises(InferenceConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
        plan_components_endpoint(_request(CHAT, adapters=(adapter,)), path="endpoints[0]")


def test_fails_an_adapter_on_an_engine_without_documented_adapter_loading() -> None:
    # GIVEN an adapter on a TGI component WHEN planned THEN it is refused on the adapter's base key
    tgi = ComponentRequest("chat", QWEN_7B, Serving.TGI)
    with pytest.raises(InferenceConfigError, match=r"adapters\[0\]\.base: chat runs serving tgi"):
        plan_components_endpoint(_request(tgi, adapters=(ADAPTER,)), path="endpoints[0]")


def test_a_base_with_adapters_turns_on_lmi_lora_loading() -> None:
    plan = plan_components_endpoint(_request(CHAT, adapters=(ADAPTER,), instance_type="ml.g5.2xlarge"))
    assert plan.components is not None
    env = plan.components.components[0].plan.environment
    assert env["OPTION_ENABLE_LORA"] == "true"
    assert env["OPTION_MAX_LORAS"] == "1"
    # the rank is written, so the engine reserves what the plan counts: vLLM's default unless the component sets one
    assert env["OPTION_MAX_LORA_RANK"] == str(lora_rules().default_rank) == "16"


def _adapters(n: int) -> tuple[AdapterRequest, ...]:
    return tuple(
        AdapterRequest(f"tone-{i}", "chat", f"s3://assistants-ml-artifacts/adapters/tone-{i}/") for i in range(n)
    )


def test_the_base_copy_counts_the_adapter_slots_vllm_reserves() -> None:
    # GIVEN the chat model with 4 adapters of rank up to 64, on one explicit GPU
    base = replace(CHAT, max_lora_rank=64)
    plan = plan_components_endpoint(_request(base, adapters=_adapters(4), instance_type="ml.g6e.xlarge"))
    assert plan.components is not None
    (chat,) = plan.components.components
    host = chat.plan.host
    assert host is not None and host.lora is not None
    # THEN the copy's device need holds the reservation of 4 slots of rank 64, as the sizing computes it for the model
    reserved = memory_estimate(replace(QWEN_7B, lora=LoraSlots(slots=4, rank=64))).lora_shard_gb(1)
    assert (host.lora.slots, host.lora.rank) == (4, 64)
    assert host.lora.gb == pytest.approx(reserved, abs=1e-3) and reserved > 1.0
    alone = plan_components_endpoint(_request(CHAT, instance_type="ml.g6e.xlarge"))
    assert alone.host is not None
    assert host.memory_required_gb > alone.host.memory_required_gb + reserved
    assert chat.plan.environment["OPTION_MAX_LORAS"] == "4"
    assert chat.plan.environment["OPTION_MAX_LORA_RANK"] == "64"


def test_adapters_can_raise_the_devices_a_copy_reserves() -> None:
    # GIVEN the chat model on a 4-GPU host, which it holds on 2 GPUs alone
    alone = plan_components_endpoint(_request(CHAT, instance_type="ml.g5.12xlarge"))
    assert alone.components is not None
    assert alone.components.components[0].accelerator_devices == 2
    # WHEN it gets 8 adapters of rank up to 512 THEN the copy reserves all 4 GPUs (tensor parallel 4)
    many = plan_components_endpoint(
        _request(replace(CHAT, max_lora_rank=512), adapters=_adapters(8), instance_type="ml.g5.12xlarge")
    )
    assert many.components is not None
    chat = many.components.components[0]
    assert chat.accelerator_devices == 4
    assert chat.plan.host is not None and chat.plan.host.tensor_parallel_degree == 4
    assert many.inference_component is not None and many.inference_component.accelerator_devices == 4


def test_fails_a_host_that_holds_the_base_but_not_its_adapter_slots() -> None:
    # GIVEN the chat model, which one A10G holds alone, with 4 adapters of rank up to 256 on that single-GPU type
    plan_components_endpoint(_request(CHAT, instance_type="ml.g5.2xlarge"))
    req = _request(replace(CHAT, max_lora_rank=256), adapters=_adapters(4), instance_type="ml.g5.2xlarge")
    # WHEN planned THEN the type is refused: the key, the reservation's numbers, what reserves less and what fits
    with pytest.raises(InferenceConfigError) as err:
        plan_components_endpoint(req, path="endpoints[0]")
    message = str(err.value)
    assert "endpoints[0].instance_type: ml.g5.2xlarge cannot hold the components" in message
    assert "fits the model alone, not with the LoRA adapters' reservation (4 slot(s) of rank 256: 4.8 GiB" in message
    assert "fewer slots or a lower rank reserve less" in message
    assert "the cheapest instance type that fits them all is ml." in message


@pytest.mark.parametrize(
    ("base", "adapters", "key"),
    [
        (replace(CHAT, max_lora_rank=24), (ADAPTER,), r"components\[0\]\.max_lora_rank: 24 is not a rank vLLM takes"),
        (replace(CHAT, max_lora_rank=64), (), r"components\[0\]\.max_lora_rank: is set on chat, which has no adapters"),
        (
            replace(CHAT, environment={"OPTION_MAX_LORA_RANK": "48"}),
            (ADAPTER,),
            r"components\[0\]\.environment\.OPTION_MAX_LORA_RANK: '48' is not a rank vLLM takes",
        ),
        (
            replace(CHAT, model=ModelSpec(id="EleutherAI/gpt-neox-20b")),
            (ADAPTER,),
            r"adapters\[0\]\.base: chat serves a gpt_neox model, which vLLM loads no lora adapters for",
        ),
    ],
)
def test_fails_a_rank_the_engine_does_not_take_or_a_base_it_loads_no_adapters_for(
    base: ComponentRequest, adapters: tuple[AdapterRequest, ...], key: str
) -> None:
    with pytest.raises(InferenceConfigError, match=rf"endpoints\[0\]\.{key}"):
        plan_components_endpoint(_request(base, adapters=adapters), path="endpoints[0]")


def test_the_components_own_lora_variables_are_what_the_sizing_counts() -> None:
    # GIVEN a base that sets the engine's slots and rank itself (they replace the plan's)
    base = replace(CHAT, environment={"OPTION_MAX_LORAS": "6", "OPTION_MAX_LORA_RANK": "32"})
    plan = plan_components_endpoint(_request(base, adapters=(ADAPTER,), instance_type="ml.g6e.xlarge"))
    assert plan.host is not None and plan.host.lora is not None
    # THEN the sizing counts 6 slots of rank 32, the values the container gets
    assert (plan.host.lora.slots, plan.host.lora.rank) == (6, 32)
    assert plan.environment["OPTION_MAX_LORAS"] == "6"


@pytest.mark.parametrize("name", ["OPTION_MAX_LORA_RANK", "OPTION_MAX_LORAS", "OPTION_ENABLE_LORA"])
def test_fails_a_components_lora_variable_that_is_not_text(name: str) -> None:
    # GIVEN a Python caller's base component that sets an adapter variable as a number (or a bool)
    base = replace(CHAT, environment={name: 16 if name != "OPTION_ENABLE_LORA" else True})  # type: ignore[dict-item]
    # WHEN planned THEN one InferenceConfigError names the variable (the sizing never reads it as a number)
    with pytest.raises(InferenceConfigError, match=rf"components\[0\]\.environment\.{name}: .* is not a string"):
        plan_components_endpoint(_request(base, adapters=(ADAPTER,), instance_type="ml.g6e.xlarge"))


def test_the_config_sets_a_components_max_lora_rank() -> None:
    # GIVEN the two-component config with an adapter on chat and max_lora_rank 32 WHEN planned
    chat = {**_CONFIG["endpoints"][0]["components"][0], "max_lora_rank": 32}
    endpoint = {
        **_CONFIG["endpoints"][0],
        "instance_type": "auto",
        "capacity": {"min": 1, "max": 2},
        "components": [chat, _CONFIG["endpoints"][0]["components"][1]],
        "adapters": [{"name": "tone", "base": "chat", "s3_uri": ADAPTER.s3_uri}],
    }
    plan = plan_platform(PlatformConfig.model_validate({**_CONFIG, "endpoints": [endpoint]}))
    # THEN the base writes that rank and the sizing counts it
    hosting = plan.endpoints[0].hosting
    assert hosting.components is not None
    base = hosting.components.components[0].plan
    assert base.environment["OPTION_MAX_LORA_RANK"] == "32"
    assert base.host is not None and base.host.lora is not None and base.host.lora.rank == 32


def test_the_plan_shows_the_adapter_reservation_of_the_base() -> None:
    # GIVEN the shipped example (one adapter on chat, Qwen 2.5 7B) WHEN planned
    from inference_constructs.config.load import load_config

    plan = plan_platform(load_config("config/examples/inference-components.yaml"))
    (endpoint,) = plan.endpoints
    doc = endpoint.to_json()
    chat, summarize = doc["components"]["components"]
    reserved = memory_estimate(replace(QWEN_7B, lora=LoraSlots(slots=1, rank=16))).lora_shard_gb(1)
    # THEN the base's entry, and the endpoint's host entry (the first component's), hold the reservation
    expected = {
        "slots": 1,
        "max_lora_rank": 16,
        "reserved_gb": round(reserved, 3),
        "per_shard_gb": round(reserved, 3),
        "estimated": ["intermediate_size"],
    }
    assert chat["lora_adapters"] == expected
    assert doc["lora_adapters"] == expected
    assert "lora_adapters" not in summarize
    # AND the text plan names it on the base's line and in the sizing's reason
    text = plan.table()
    assert "  chat: 1 device(s) + " in text
    assert "LoRA adapters 0.07 GiB (1 slot(s) of rank 16) (estimated: intermediate_size)" in text
    assert "LoRA adapters 0.07 (estimated) for 1 slot(s) of rank 16" in text


def _build(stack: Stack) -> InferenceComponentsEndpoint:
    endpoint = InferenceComponentsEndpoint(
        stack,
        "Assistants",
        components=[CHAT, ComponentRequest("summarize", QWEN_1B, Serving.LMI, copies=Capacity(0, 2))],
        adapters=[ADAPTER],
        placement=PlacementStrategy.SPREAD,
        max_az_imbalance=1,
        data_cache=True,
        accelerator="gpu",
        instance_type="ml.g5.12xlarge",
        capacity=(1, 2),
    )
    endpoint.inference_component.auto_scale_copies(min_copy_count=1, max_copy_count=2).scale_on_concurrency(  # type: ignore[union-attr]
        per_copy=6
    )
    endpoint.components["summarize"].component.auto_scale_copies(max_copy_count=2).scale_on_concurrency(per_copy=8)
    return endpoint


@pytest.fixture(scope="module")
def synthesized() -> tuple[dict[str, Any], Any]:
    holder: dict[str, Any] = {}

    def build(stack: Stack) -> None:
        holder["plan"] = _build(stack).plan

    _, template = synth_checked(build)
    return template, holder["plan"]


def test_each_component_is_an_inference_component_with_the_plans_reservation(
    synthesized: tuple[dict[str, Any], Any],
) -> None:
    # GIVEN a two-model endpoint with an adapter WHEN synthesized (nag and cfn-lint clean)
    template, plan = synthesized
    components = {
        r["Properties"]["InferenceComponentName"]: r["Properties"]
        for k in logical_ids(template, "AWS::SageMaker::InferenceComponent")
        if "ModelName" in (r := template["Resources"][k])["Properties"]["Specification"]
    }
    # THEN each component reserves the plan's devices and memory per copy, starts with its planned copies, and takes
    # the placement and data cache
    reserved = sorted(
        (
            p["Specification"]["ComputeResourceRequirements"]["NumberOfAcceleratorDevicesRequired"],
            p["Specification"]["ComputeResourceRequirements"]["MinMemoryRequiredInMb"],
            p["RuntimeConfig"]["CopyCount"],
        )
        for p in components.values()
    )
    planned = sorted(
        (c.accelerator_devices, c.min_memory_required_mb, c.copy_count) for c in plan.components.components
    )
    assert reserved == planned
    for p in components.values():
        assert p["Specification"]["SchedulingConfig"] == {
            "PlacementStrategy": "SPREAD",
            "AvailabilityZoneBalance": {"EnforcementMode": "PERMISSIVE", "MaxImbalance": 1},
        }
        assert p["Specification"]["DataCacheConfig"] == {"EnableCaching": True}


def test_the_adapter_names_its_base_component_and_its_artifacts(synthesized: tuple[dict[str, Any], Any]) -> None:
    template, _ = synthesized
    resources = template["Resources"]
    (adapter_id,) = [
        k
        for k in logical_ids(template, "AWS::SageMaker::InferenceComponent")
        if "BaseInferenceComponentName" in resources[k]["Properties"]["Specification"]
    ]
    adapter = resources[adapter_id]
    base_name = adapter["Properties"]["Specification"]["BaseInferenceComponentName"]
    (base_id,) = [
        k
        for k in logical_ids(template, "AWS::SageMaker::InferenceComponent")
        if resources[k]["Properties"].get("InferenceComponentName") == base_name
    ]
    # THEN it names the chat component, loads the adapter's S3 artifacts, reserves nothing of its own and is created
    # after its base
    assert "ModelName" in resources[base_id]["Properties"]["Specification"]
    assert adapter["Properties"]["Specification"]["Container"] == {"ArtifactUrl": ADAPTER.s3_uri}
    assert "ComputeResourceRequirements" not in adapter["Properties"]["Specification"]
    assert base_id in adapter["DependsOn"]


def test_the_variant_names_no_model_and_scales_instances_in_the_endpoint_capacity(
    synthesized: tuple[dict[str, Any], Any],
) -> None:
    template, plan = synthesized
    (config_id,) = logical_ids(template, "AWS::SageMaker::EndpointConfig")
    (variant,) = template["Resources"][config_id]["Properties"]["ProductionVariants"]
    assert "ModelName" not in variant
    assert variant["InstanceType"] == "ml.g5.12xlarge"
    assert variant["InitialInstanceCount"] == plan.components.initial_instance_count
    assert variant["ManagedInstanceScaling"] == {"Status": "ENABLED", "MinInstanceCount": 1, "MaxInstanceCount": 2}


def test_each_component_scales_its_own_copies(synthesized: tuple[dict[str, Any], Any]) -> None:
    template, _ = synthesized
    targets = sorted(
        (r["Properties"]["MinCapacity"], r["Properties"]["MaxCapacity"], r["Properties"]["ScalableDimension"])
        for k in logical_ids(template, "AWS::ApplicationAutoScaling::ScalableTarget")
        for r in [template["Resources"][k]]
    )
    dimension = "sagemaker:inference-component:DesiredCopyCount"
    assert targets == [(0, 2, dimension), (1, 2, dimension)]


def test_each_further_component_gets_its_own_monitoring_alarms_in_the_plan() -> None:
    # GIVEN the shipped example with two components WHEN planned
    from inference_constructs.config.load import load_config

    plan = plan_platform(load_config("config/examples/inference-components.yaml"))
    (endpoint,) = plan.endpoints
    constructs = [a.construct for a in endpoint.alarms]
    # THEN the second component has its own latency, traffic and error-rate alarms beside the endpoint's
    own = [c for c in constructs if c.startswith("Alarms/SharedLlmAssistantsSummarize")]
    assert len(own) == 3
    assert len(constructs) == 6


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"adapters": [{"name": "tone", "base": "chat", "s3_uri": ADAPTER.s3_uri}], "components": []}, "adapters"),
        ({"scaling": {"concurrency_per_instance": 4}}, "scaling"),
        ({"type": "async"}, "components"),
    ],
)
def test_fails_keys_that_do_not_go_with_components(change: dict[str, Any], key: str) -> None:
    # GIVEN the two-component config with one key that does not apply WHEN planned THEN that key is refused
    endpoint = {**_CONFIG["endpoints"][0], "instance_type": "auto", "capacity": {"min": 1, "max": 2}, **change}
    with pytest.raises(InferenceConfigError, match=rf"endpoints\[0\]\.{key}: "):
        plan_platform(PlatformConfig.model_validate({**_CONFIG, "endpoints": [endpoint]}))


def test_fails_an_adapter_on_a_host_without_a_gpu() -> None:
    req = _request(CHAT, adapters=(ADAPTER,), instance_type="ml.inf2.xlarge")
    with pytest.raises(InferenceConfigError, match="lora adapters load on lmi's vllm backend on gpu only"):
        plan_components_endpoint(replace(req, accelerator=AcceleratorChoice.AUTO), path="endpoints[0]")
