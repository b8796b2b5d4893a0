"""Instance pools from the sizing's ranked hosts: which hosts, in which order, with which engine settings, what is
left out and why, what is refused, what synthesizes, and what an update of the pool list does."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from inference_constructs.catalog import load_catalog
from inference_constructs.config import validate_config
from inference_constructs.containers import ImageVariant, image_key
from inference_constructs.containers.routing import RoutingOptions, RoutingStrategy
from inference_constructs.containers.serving_options import BatchingLimits, ServingOptions, SpeculativeDecoding
from inference_constructs.diff.templates import diff_templates
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import (
    Capacity,
    EndpointPlan,
    EndpointRequest,
    MultiModelOptions,
    RealtimeEndpoint,
    ServerlessOptions,
    plan_endpoint,
)
from inference_constructs.hosting.host_ami import host_ami_problem
from inference_constructs.hosting.pools import AUTO_POOL_COUNT
from inference_constructs.layout import estimated_resources
from inference_constructs.plan import plan_platform
from inference_constructs.sizing import choose_host, feasible_hosts
from inference_constructs.spec import (
    AcceleratorChoice,
    DType,
    EndpointKind,
    ModelArchitecture,
    ModelSourceKind,
    ModelSpec,
    Serving,
)
from inference_constructs.updates import update_warnings
from tests.unit.diff.templates import hosting as _hosting
from tests.unit.hosting._synth import logical_ids, synth_checked

#: A 7B chat model with a short context: several single-GPU hosts hold it.
SMALL = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6, max_context_tokens=4096)
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")
#: A 20B model: four-GPU hosts at tensor parallel degree 4, and an L40S host at degree 2.
MEDIUM = ModelSpec(id="acme/m20", parameters_billion=20, architecture=ModelArchitecture(family="llama"))


def _request(model: ModelSpec = SMALL, **kw: Any) -> EndpointRequest:
    kw.setdefault("capacity", Capacity(1, 4))
    return EndpointRequest(kind=EndpointKind.REALTIME, model=model, serving=Serving.LMI, **kw)


def test_auto_gives_the_cheapest_hosts_that_fit_in_the_sizing_order() -> None:
    # GIVEN a GPU endpoint with instance_pools auto WHEN planned
    plan = plan_endpoint(_request(instance_pools="auto"))
    assert plan.instance_pools is not None and plan.host is not None
    pools = plan.instance_pools.pools
    # THEN priority 1 is the sizing's choice and there are AUTO_POOL_COUNT pools, priorities 1..n by price
    assert pools[0].instance_type == plan.host.instance_type
    assert [p.priority for p in pools] == list(range(1, AUTO_POOL_COUNT + 1))
    prices = [p.price_per_hour_usd for p in pools]
    assert prices == sorted(prices)
    # AND they are the sizing's ranked shortlist, in its order (with the hosts left out removed)
    ranked = [f.instance.name for f in feasible_hosts(SMALL, serving=Serving.LMI)]
    left_out = {h.instance_type for h in plan.instance_pools.left_out}
    assert [p.instance_type for p in pools] == [n for n in ranked if n not in left_out][:AUTO_POOL_COUNT]


def test_every_pool_host_fits_and_runs_the_engine_with_the_variants_ami() -> None:
    # GIVEN the pools of a GPU endpoint WHEN each host is checked as an explicit instance type
    plan = plan_endpoint(_request(instance_pools=5))
    assert plan.instance_pools is not None and plan.image is not None
    for pool in plan.instance_pools.pools:
        decision = choose_host(SMALL, serving=Serving.LMI, instance_type=pool.instance_type)
        # THEN the model fits, the engine runs it, and the variant's InferenceAmiVersion runs the image there
        assert pool.memory_required_gb <= pool.memory_available_gb
        assert decision.tensor_parallel_degree == pool.tensor_parallel_degree
        variant = ImageVariant.for_host(decision.instance.accelerator, decision.instance.architecture)
        assert image_key(Serving.LMI, variant) == plan.image.key
        assert host_ami_problem(plan.inference_ami_version, plan.image.key, decision.instance) is None


def test_a_host_with_another_tensor_parallel_degree_gets_its_own_model_and_others_are_left_out_with_why() -> None:
    # GIVEN a 20B model on four-GPU hosts WHEN five pools are asked for
    plan = plan_endpoint(_request(MEDIUM, accelerator=AcceleratorChoice.GPU, instance_pools=5))
    assert plan.instance_pools is not None
    by_type = {p.instance_type: p for p in plan.instance_pools.pools}
    # THEN the L40S host runs it at degree 2 with its own environment; the others share the variant's model
    own = by_type["ml.g6e.12xlarge"]
    assert own.own_model and own.tensor_parallel_degree == 2
    assert own.environment["OPTION_TENSOR_PARALLEL_DEGREE"] == "2"
    assert plan.environment["OPTION_TENSOR_PARALLEL_DEGREE"] == "4"
    assert [p.own_model for p in plan.instance_pools.pools if p.instance_type != "ml.g6e.12xlarge"] == [False] * 4
    # AND a cheaper host with another GPU count is left out, with the reason
    (left,) = [h for h in plan.instance_pools.left_out if h.instance_type == "ml.p5.4xlarge"]
    assert "1 GPUs" in left.reason and "GPU count" in left.reason


def test_a_ranked_list_keeps_its_order_and_its_first_host_is_the_variants() -> None:
    plan = plan_endpoint(_request(instance_pools=("ml.g6.4xlarge", "ml.g6.2xlarge")))
    assert plan.instance_type == "ml.g6.4xlarge"
    assert plan.instance_pools is not None
    assert [(p.priority, p.instance_type) for p in plan.instance_pools.pools] == [
        (1, "ml.g6.4xlarge"),
        (2, "ml.g6.2xlarge"),
    ]
    assert plan.instance_pools.requested == "explicit"


def test_the_plan_prices_the_first_pool_and_shows_the_worst_case() -> None:
    plan = plan_endpoint(_request(instance_pools="auto"))
    assert plan.instance_pools is not None
    doc = plan.instance_pools.to_dict(1, 4)
    worst = max(p.price_per_hour_usd for p in plan.instance_pools.pools)
    assert doc["worst_case_price_per_hour_usd"] == round(worst, 4)
    assert doc["worst_case_monthly_usd_at_max"] == round(worst * 4 * 730, 2)
    assert [p["reason"].startswith(f"priority {p['priority']}") for p in doc["pools"]] == [True] * len(doc["pools"])


@pytest.mark.parametrize(
    ("request_kw", "path", "match"),
    [
        ({"instance_pools": 6}, "endpoints[0].instance_pools", "use 1..5"),
        ({"instance_pools": ("ml.g6.2xlarge", "ml.g6.2xlarge")}, "endpoints[0].instance_pools", "listed twice"),
        ({"instance_pools": "some"}, "endpoints[0].instance_pools", "use auto, a count"),
        ({"instance_pools": "auto", "capacity": Capacity(0, 2)}, "endpoints[0].instance_pools", "capacity.min 0"),
        ({"instance_provision_timeout_seconds": 600}, "endpoints[0].instance_provision_timeout_seconds", "without"),
        (
            {"instance_pools": "auto", "instance_provision_timeout_seconds": 200},
            "endpoints[0].instance_provision_timeout_seconds",
            "use 300..3600",
        ),
        (
            {"instance_pools": ("ml.g6.2xlarge", "ml.g6.4xlarge"), "instance_type": "ml.g5.2xlarge"},
            "endpoints[0].instance_pools",
            "starts with ml.g6.2xlarge, but instance_type is ml.g5.2xlarge",
        ),
    ],
)
def test_fails_pool_options_that_sagemaker_or_the_plan_refuse(
    request_kw: dict[str, Any], path: str, match: str
) -> None:
    with pytest.raises(InferenceConfigError, match=match) as err:
        plan_endpoint(_request(**request_kw), path="endpoints[0]")
    assert path in {p.path for p in err.value.problems}


@pytest.mark.parametrize("kind", [EndpointKind.SERVERLESS, EndpointKind.MULTI_MODEL])
def test_fails_pools_on_kinds_no_source_documents_them_for(kind: EndpointKind) -> None:
    req = EndpointRequest(
        kind=kind,
        model=TABULAR,
        serving=Serving.SKLEARN,
        instance_pools="auto",
        serverless=ServerlessOptions() if kind is EndpointKind.SERVERLESS else None,
        multi_model=MultiModelOptions("s3://my-models/tenants/") if kind is EndpointKind.MULTI_MODEL else None,
    )
    with pytest.raises(InferenceConfigError, match=f"{kind.value} endpoints take no instance pools") as err:
        plan_endpoint(req, path="endpoints[0]")
    assert [p.path for p in err.value.problems] == ["endpoints[0].instance_pools"]


def test_fails_a_listed_host_that_cannot_hold_the_model_naming_its_position() -> None:
    with pytest.raises(InferenceConfigError) as err:
        plan_endpoint(_request(MEDIUM, instance_pools=("ml.g6.12xlarge", "ml.g6.xlarge")), path="endpoints[0]")
    assert [p.path for p in err.value.problems] == ["endpoints[0].instance_pools[1]"]
    assert "ml.g6.xlarge cannot hold the model" in str(err.value)


def test_fails_a_listed_host_that_cannot_share_the_variants_gpu_count() -> None:
    with pytest.raises(InferenceConfigError, match=r"ml\.p5\.4xlarge cannot be a pool of this variant: 1 GPUs"):
        plan_endpoint(_request(MEDIUM, instance_pools=("ml.g6.12xlarge", "ml.p5.4xlarge")), path="endpoints[0]")


def test_pools_synthesize_with_the_plans_hosts_and_a_model_override_where_the_engine_differs() -> None:
    # GIVEN a realtime endpoint with five pools, one of them at another tensor parallel degree
    built: list[RealtimeEndpoint] = []

    def build(stack: Stack) -> None:
        built.append(
            RealtimeEndpoint(
                stack,
                "Chat",
                model=MEDIUM,
                accelerator="gpu",
                capacity=(1, 4),
                instance_pools=5,
                instance_provision_timeout_seconds=900,
            )
        )

    # WHEN synthesized with the nag packs and linted with cfn-lint (clean)
    _, template = synth_checked(build)
    plan = built[0].plan
    assert plan.instance_pools is not None
    (config_id,) = logical_ids(template, "AWS::SageMaker::EndpointConfig")
    (variant,) = template["Resources"][config_id]["Properties"]["ProductionVariants"]
    # THEN InstancePools are the plan's hosts by priority, the variant names no InstanceType of its own
    assert [(p["InstanceType"], p["Priority"]) for p in variant["InstancePools"]] == [
        (p.instance_type, p.priority) for p in plan.instance_pools.pools
    ]
    assert "InstanceType" not in variant
    assert variant["VariantInstanceProvisionTimeoutInSeconds"] == 900
    # AND only the pool at another degree names its own model, which carries that degree
    overrides = {p["InstanceType"]: p.get("ModelNameOverride") for p in variant["InstancePools"]}
    assert overrides["ml.g6e.12xlarge"] == {
        "Fn::GetAtt": [logical_ids(template, "AWS::SageMaker::Model")[1], "ModelName"]
    }
    assert [t for t, o in overrides.items() if o is not None] == ["ml.g6e.12xlarge"]
    pool_model = template["Resources"][logical_ids(template, "AWS::SageMaker::Model")[1]]["Properties"]
    assert pool_model["PrimaryContainer"]["Environment"]["OPTION_TENSOR_PARALLEL_DEGREE"] == "2"
    assert set(built[0].pool_models) == {5}


def _plan_doc(pools: list[str], *, scaled: bool = True) -> dict[str, Any]:
    return {
        "endpoints": [
            {
                "name": "chat",
                "instance_type": pools[0],
                "stack": "p-hosting-1",
                "scaling": {"enabled": scaled, "scalable_dimension": "sagemaker:variant:DesiredInstanceCount"},
                "hosting": {"instance_pools": {"pools": [{"instance_type": t} for t in pools]}},
            }
        ]
    }


def test_a_changed_pool_list_of_a_scaled_variant_is_announced_as_two_deploys() -> None:
    # GIVEN a scaled variant whose pool list gains a host (its first pool unchanged) WHEN the plans are compared
    (warning,) = update_warnings(
        _plan_doc(["ml.g6.xlarge", "ml.g5.xlarge"]), _plan_doc(["ml.g6.xlarge", "ml.g6e.xlarge"])
    )
    # THEN the change is announced as an instance type change of a scaled variant
    assert warning.code == "scaled-variant-instance-pools"
    assert "ml.g6.xlarge, ml.g5.xlarge -> ml.g6.xlarge, ml.g6e.xlarge" in warning.message
    assert "two deploys" in warning.message
    # AND not once the scaling was released, nor when the pools stay
    assert update_warnings(_plan_doc(["ml.g6.xlarge"], scaled=False), _plan_doc(["ml.g6.xlarge", "ml.g5.xlarge"])) == []
    assert (
        update_warnings(_plan_doc(["ml.g6.xlarge", "ml.g5.xlarge"]), _plan_doc(["ml.g6.xlarge", "ml.g5.xlarge"])) == []
    )


def test_a_changed_pool_list_replaces_the_endpoint_config_and_blocks_a_registered_variant() -> None:
    # GIVEN a template whose variant has pools, and one where a pool was added
    def pooled(types: list[str]) -> dict[str, Any]:
        t = _hosting()
        variant = t["Resources"]["Config"]["Properties"]["ProductionVariants"][0]
        del variant["InstanceType"]
        variant["InstancePools"] = [{"InstanceType": n, "Priority": i + 1} for i, n in enumerate(types)]
        return t

    old, new = pooled(["ml.g5.xlarge"]), pooled(["ml.g5.xlarge", "ml.g6.xlarge"])
    changes = {c.logical_id: c for c in diff_templates({"h": old}, {"h": new}).changes}
    # THEN ProductionVariants is create-only: a new endpoint config, and the endpoint moves to it in place
    assert changes["Config"].status == "replaced"
    assert changes["Config"].forced_by == ("ProductionVariants (direct)",)
    # AND the update of a variant registered with Application Auto Scaling is refused until it is released
    (blocker,) = changes["Endpoint"].blockers
    assert "pools ml.g5.xlarge to pools ml.g5.xlarge, ml.g6.xlarge" in blocker
    unchanged = copy.deepcopy(old)
    assert {
        c.logical_id for c in diff_templates({"h": old}, {"h": unchanged}).changes if c.status != "unchanged"
    } == set()


def test_a_pool_model_is_counted_in_the_endpoints_stack_footprint() -> None:
    # GIVEN a config endpoint whose fifth pool runs another tensor parallel degree WHEN planned
    doc = {
        "name": "pools",
        "endpoints": [
            {
                "name": "big",
                "model": {"id": "acme/m20", "parameters_billion": 20, "architecture": {"family": "llama"}},
                "accelerator": "gpu",
                "instance_pools": 5,
            }
        ],
    }
    (endpoint,) = plan_platform(validate_config(doc)).endpoints
    # THEN the stack placement counts its one extra model
    assert endpoint.footprint.pool_models == 1
    assert (
        estimated_resources(endpoint.footprint) == estimated_resources(replace(endpoint.footprint, pool_models=0)) + 1
    )


# ------------------------------------------------------------------------------------------------ serving options

#: An fp16 model small enough for a T4 (g4dn), whose TGI caches no prefixes (compute capability below 8.0).
TINY_FP16 = ModelSpec(id="Qwen/Qwen2.5-1.5B-Instruct", dtype=DType.FP16)
PREFIX_ROUTED = ServingOptions(routing=RoutingOptions(strategy=RoutingStrategy.PREFIX_AWARE))


def _tgi(**kw: Any) -> EndpointRequest:
    return replace(_request(TINY_FP16, **kw), serving=Serving.TGI)


def test_pool_hosts_follow_the_serving_options_host_rule_as_the_variants_host_does() -> None:
    # GIVEN TGI pools of a model that fits a T4, without and with prefix-aware routing (needs prefix caching)
    catalog = load_catalog()
    plain = plan_endpoint(_tgi(instance_pools=5))
    routed = plan_endpoint(_tgi(instance_pools=5, serving_options=PREFIX_ROUTED))
    assert plain.instance_pools is not None and routed.instance_pools is not None

    def lowest_capability(plan: EndpointPlan) -> float:
        assert plan.instance_pools is not None
        hosts = [catalog.get(p.instance_type) for p in plan.instance_pools.pools]
        return min((h.compute_capability or 0.0) if h else 0.0 for h in hosts)

    # THEN without options T4 hosts are pools; with routing no pool host is below compute capability 8.0
    assert lowest_capability(plain) < 8.0
    assert len(routed.instance_pools.pools) == 5
    assert lowest_capability(routed) >= 8.0
    assert routed.routing_strategy == "PREFIX_AWARE"


def test_fails_a_listed_pool_host_where_the_engine_caches_no_prefixes() -> None:
    with pytest.raises(InferenceConfigError) as err:
        plan_endpoint(
            _tgi(instance_pools=("ml.g5.xlarge", "ml.g4dn.xlarge"), serving_options=PREFIX_ROUTED), path="endpoints[0]"
        )
    assert [p.path for p in err.value.problems] == ["endpoints[0].instance_pools[1]"]
    assert "ml.g4dn.xlarge cannot be a pool of this variant: the engine caches no prefixes on it" in str(err.value)


def test_a_pools_own_model_carries_the_serving_options_variables() -> None:
    # GIVEN a 20B model whose L40S pool runs at another tensor parallel degree, with engine options
    options = ServingOptions(prefix_caching=True, batching=BatchingLimits(max_sequences=32))
    stack = Stack(App(), "S")
    endpoint = RealtimeEndpoint(
        stack, "Chat", model=MEDIUM, accelerator="gpu", capacity=(1, 4), instance_pools=5, serving_options=options
    )
    plan = endpoint.plan
    assert plan.instance_pools is not None and plan.serving_options is not None
    written = dict(plan.serving_options.environment)
    assert written == {"OPTION_ENABLE_PREFIX_CACHING": "true", "OPTION_MAX_ROLLING_BATCH_SIZE": "32"}
    # THEN every pool's environment has them, the own model's too (at its own degree)
    (own,) = [p for p in plan.instance_pools.pools if p.own_model]
    assert own.environment["OPTION_TENSOR_PARALLEL_DEGREE"] == "2"
    for pool in plan.instance_pools.pools:
        assert {k: pool.environment.get(k) for k in written} == written
    # AND both synthesized models (the variant's and the pool's) carry them
    template = Template.from_stack(stack).to_json()
    models = [template["Resources"][i]["Properties"] for i in logical_ids(template, "AWS::SageMaker::Model")]
    assert len(models) == 2
    for model in models:
        env = model["PrimaryContainer"]["Environment"]
        assert {k: env.get(k) for k in written} == written


def test_pool_hosts_hold_the_speculative_draft_beside_the_model() -> None:
    # GIVEN the same pools without and with a draft model
    draft = ServingOptions(speculative_decoding=SpeculativeDecoding(model="Qwen/Qwen2.5-0.5B-Instruct", tokens=4))
    plain = plan_endpoint(_request(instance_pools=5))
    drafted = plan_endpoint(_request(instance_pools=5, serving_options=draft))
    assert plain.instance_pools is not None and drafted.instance_pools is not None and drafted.host is not None
    assert drafted.host.draft_weights_gb > 0
    without = {p.instance_type: p.memory_required_gb for p in plain.instance_pools.pools}
    # THEN every pool host counts the draft's memory (as the variant's host does), and still holds it
    for pool in drafted.instance_pools.pools:
        assert pool.memory_required_gb <= pool.memory_available_gb
        if pool.instance_type in without:
            assert pool.memory_required_gb > without[pool.instance_type] + 0.5
