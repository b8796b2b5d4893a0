"""Graviton and Blackwell hosts: chosen only where the serving image runs, and never on an estimated fact."""

from __future__ import annotations

import datetime as dt

import pytest

from inference_constructs.catalog import Catalog, load_catalog
from inference_constructs.catalog.refresh import HostingPrice, refreshed_catalog
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.decisions import plan_endpoint
from inference_constructs.hosting.request import EndpointRequest
from inference_constructs.sizing import RejectionKind, choose_host
from inference_constructs.spec import AcceleratorChoice, EndpointKind, ModelSourceKind, ModelSpec, Serving

CATALOG = load_catalog()
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")
LLAMA_8B = ModelSpec(id="NousResearch/Meta-Llama-3.1-8B-Instruct", max_context_tokens=4096, max_concurrent_sequences=4)
CLASSICAL_ARM64 = (Serving.SKLEARN, Serving.XGBOOST, Serving.PYTORCH)


def _priced(prices: dict[str, float]) -> Catalog:
    """The packaged catalog after a price refresh that priced every host: ``prices`` overrides some of them."""
    listed = {
        i.name: HostingPrice(i.name, "us-east-1", prices.get(i.name, i.price_per_hour_usd), "Host:" + i.name, "S")
        for i in CATALOG.instances
    }
    catalog, missing = refreshed_catalog(CATALOG, listed, region="us-east-1", as_of=dt.date(2026, 12, 1))
    assert missing == []
    return catalog


# Graviton at 70 % of its x86_64 sibling (the packaged estimate is the sibling's price)
GRAVITON_CHEAPER = _priced(
    {i.name: round(i.price_per_hour_usd * 0.7, 4) for i in CATALOG.instances if i.price_source == "derived-graviton"}
)


@pytest.mark.parametrize("serving", CLASSICAL_ARM64)
def test_estimated_graviton_price_keeps_the_host_out_of_the_choice(serving: Serving) -> None:
    # GIVEN the packaged catalog, whose Graviton prices are estimates
    # WHEN a classical model is sized
    decision = choose_host(TABULAR, serving=serving)
    # THEN an x86_64 host is chosen, and the cheaper Graviton hosts are passed over as estimated
    assert decision.instance.architecture == "x86_64"
    estimated = [r for r in decision.rejected if r.kind is RejectionKind.ESTIMATED]
    assert estimated and all(CATALOG.get(r.instance_type).architecture == "arm64" for r in estimated)  # type: ignore[union-attr]
    assert "estimated price" in estimated[0].reason and "with estimated facts" in decision.reason


@pytest.mark.parametrize("serving", CLASSICAL_ARM64)
def test_classical_model_picks_graviton_when_cheapest_and_its_image_has_an_arm64_build(serving: Serving) -> None:
    # GIVEN a refreshed catalog where Graviton costs less than x86_64
    # WHEN a classical model whose image has an arm64 build is sized
    decision = choose_host(TABULAR, serving=serving, catalog=GRAVITON_CHEAPER)
    # THEN the cheapest fitting Graviton host of the image's families is chosen
    assert decision.instance.architecture == "arm64"
    assert decision.instance.family in ("c6g", "c7g", "m6g", "r6g")
    cheapest_x86 = choose_host(
        TABULAR, serving=serving, catalog=GRAVITON_CHEAPER, predicate=lambda i: i.architecture == "x86_64"
    )
    assert decision.price_per_hour_usd < cheapest_x86.price_per_hour_usd


@pytest.mark.parametrize("serving", [Serving.CUSTOM, Serving.TRITON])
def test_never_graviton_for_an_image_without_a_known_arm64_build(serving: Serving) -> None:
    # GIVEN the same catalog where Graviton is cheapest
    # WHEN a custom image (architecture unknown) or triton (no arm64 build) is sized on cpu
    decision = choose_host(TABULAR, serving=serving, accelerator=AcceleratorChoice.CPU, catalog=GRAVITON_CHEAPER)
    # THEN an x86_64 host is chosen, and the cheaper Graviton hosts were rejected for the image
    assert decision.instance.architecture == "x86_64"
    assert any(r.kind is RejectionKind.ENGINE and "arm64" in r.reason for r in decision.rejected)


def test_never_graviton_when_x86_is_cheaper() -> None:
    # GIVEN a refreshed catalog where every Graviton host costs more than its x86_64 sibling
    dearer = _priced(
        {i.name: round(i.price_per_hour_usd * 1.3, 4) for i in CATALOG.instances if i.architecture == "arm64"}
    )
    # WHEN a classical model with an arm64 image is sized / THEN x86_64 is chosen
    assert choose_host(TABULAR, serving=Serving.SKLEARN, catalog=dearer).instance.architecture == "x86_64"


def test_never_a_graviton4_family_the_arm64_image_is_not_published_for() -> None:
    # GIVEN a refreshed catalog where only the Graviton4 families (c8g, m8g, r8g) are cheap
    g4 = _priced({i.name: 0.01 * i.vcpus for i in CATALOG.instances if i.family in ("c8g", "m8g", "r8g")})
    # WHEN sklearn is sized / THEN none of them is chosen: the SDK publishes the arm64 build for 6g/7g families only
    decision = choose_host(TABULAR, serving=Serving.SKLEARN, catalog=g4)
    assert decision.instance.family not in ("c8g", "m8g", "r8g")
    assert any("not c8g" in r.reason for r in decision.rejected)


def test_explicit_graviton4_host_is_refused_naming_the_image_families() -> None:
    # GIVEN an explicit Graviton4 host for sklearn / WHEN checked / THEN refused with the families the build is for
    with pytest.raises(InferenceConfigError, match=r"ml\.c8g\.large cannot run the model; .*arm64-cpu-py3 is published "
                       r"for the arm64 families c6g, .*not c8g"):  # fmt: skip
        choose_host(TABULAR, serving=Serving.SKLEARN, instance_type="ml.c8g.large")


def test_explicit_graviton_host_runs_a_custom_image_and_sklearns_arm64_build() -> None:
    # GIVEN explicit Graviton hosts / WHEN checked / THEN a custom image and sklearn's arm64 build are accepted
    assert choose_host(TABULAR, serving=Serving.CUSTOM, instance_type="ml.c8g.large").instance.name == "ml.c8g.large"
    assert choose_host(TABULAR, serving=Serving.SKLEARN, instance_type="ml.c7g.large").explicit


def test_fails_triton_on_an_explicit_graviton_host() -> None:
    with pytest.raises(InferenceConfigError, match=r"no triton image is pinned for cpu-arm64 hosts"):
        choose_host(TABULAR, serving=Serving.TRITON, accelerator=AcceleratorChoice.CPU, instance_type="ml.c7g.xlarge")


def test_plan_gives_a_graviton_host_the_arm64_image() -> None:
    # GIVEN an xgboost endpoint and the refreshed catalog where Graviton is cheapest
    request = EndpointRequest(kind=EndpointKind.REALTIME, model=TABULAR, serving=Serving.XGBOOST)
    # WHEN planned / THEN the host is Graviton and the image its arm64 build
    plan = plan_endpoint(request, catalog=GRAVITON_CHEAPER, path="endpoints[0]")
    assert plan.host is not None and plan.host.instance.architecture == "arm64"
    assert plan.image is not None and plan.image.key == "xgboost-cpu-arm64"


# ------------------------------------------------------------------------------------------------ Blackwell


def test_blackwell_needs_an_image_whose_cuda_supports_it() -> None:
    # GIVEN an explicit B200 host (compute capability 10.0, CUDA 12.8 or later)
    # WHEN TGI (CUDA 12.4) is asked to run there / THEN refused with both versions
    with pytest.raises(InferenceConfigError, match=r"built on CUDA 12\.4; NVIDIA B200 \(compute capability 10\.0\) "
                       r"needs CUDA 12\.8 or later"):  # fmt: skip
        choose_host(LLAMA_8B, serving=Serving.TGI, instance_type="ml.p6-b200.48xlarge")
    # AND vLLM (CUDA 13.0) is accepted there
    assert choose_host(LLAMA_8B, serving=Serving.VLLM, instance_type="ml.p6-b200.48xlarge").explicit


def test_grace_blackwell_host_is_refused_for_x86_64_gpu_images() -> None:
    # GIVEN ml.p6e-gb200.36xlarge (Grace CPUs: arm64) / WHEN vLLM's image is checked / THEN its build is x86_64
    with pytest.raises(InferenceConfigError, match=r"is an x86_64 build and the host is arm64"):
        choose_host(LLAMA_8B, serving=Serving.VLLM, instance_type="ml.p6e-gb200.36xlarge")


def test_estimated_device_memory_keeps_blackwell_out_even_after_a_price_refresh() -> None:
    # GIVEN a refreshed catalog where every Blackwell host is nearly free (its price is no estimate any more)
    blackwell = [i.name for i in CATALOG.instances if (i.compute_capability or 0) >= 10]
    cheap = _priced(dict.fromkeys(blackwell, 0.01))
    # WHEN an LLM is sized / THEN no Blackwell host is chosen: its device memory is still an estimate
    decision = choose_host(LLAMA_8B, serving=Serving.VLLM, catalog=cheap)
    assert decision.instance.name not in blackwell
    assert {r.instance_type for r in decision.rejected if r.kind is RejectionKind.ESTIMATED} <= set(blackwell)
    assert all("reported_gib" in r.reason for r in decision.rejected if r.kind is RejectionKind.ESTIMATED)


def test_price_refresh_clears_only_the_price_estimate() -> None:
    # GIVEN a Graviton and a Blackwell row / WHEN the prices are refreshed / THEN only "price" leaves `estimated`
    assert CATALOG.get("ml.c7g.large").estimated == ("price",)  # type: ignore[union-attr]
    assert GRAVITON_CHEAPER.get("ml.c7g.large").chosen_automatically  # type: ignore[union-attr]
    g7 = GRAVITON_CHEAPER.get("ml.g7.2xlarge")
    assert g7 is not None and g7.estimated == ("device_memory",)
    assert g7.device_estimated == ("reported_gib", "compute_capability")
