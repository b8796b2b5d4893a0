"""Which endpoint kinds a serving stack can be on a host is data (``endpoint_kinds`` in
``containers/compatibility.json``): the hosting rules and the host choice read it, and change with it."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from inference_constructs.catalog import load_catalog
from inference_constructs.containers import ImageVariant, compatibility, image_key
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import EndpointRequest, MultiModelOptions, plan_endpoint
from inference_constructs.spec import Accelerator, AcceleratorChoice, EndpointKind, ModelSourceKind, ModelSpec, Serving

PREFIX = MultiModelOptions("s3://my-models/tenants/")
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")


@pytest.fixture
def kinds_data(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A writable copy of the compatibility data, read by every rule for the rest of the test."""
    doc = copy.deepcopy(dict(compatibility.load_compatibility()))
    monkeypatch.setattr(compatibility, "load_compatibility", lambda: doc)
    yield doc["endpoint_kinds"]


def _multi_model(serving: Serving, **kw: Any) -> EndpointRequest:
    return EndpointRequest(kind=EndpointKind.MULTI_MODEL, model=ModelSpec(), serving=serving, multi_model=PREFIX, **kw)


def test_every_pinned_image_has_a_row() -> None:
    # GIVEN the pinned images WHEN their kinds are read THEN each one can be realtime and async (no image is
    # silently refused for every kind)
    rows: Mapping[str, Any] = compatibility.load_compatibility()["endpoint_kinds"]
    for serving in Serving:
        for variant in ImageVariant:
            if image_key(serving, variant) is not None:
                kinds = compatibility.endpoint_kinds(serving, variant)
                assert {EndpointKind.REALTIME, EndpointKind.ASYNC} <= kinds, (serving, variant)
    assert all(kind in {k.value for k in EndpointKind} for key, row in rows.items() if key != "source" for kind in row)


def test_triton_is_the_gpu_multi_model_container_because_the_data_says_so(kinds_data: dict[str, Any]) -> None:
    # GIVEN the data as shipped WHEN a triton multi-model endpoint is planned THEN it lands on a gpu host
    assert plan_endpoint(_multi_model(Serving.TRITON)).host.accelerator is Accelerator.GPU  # type: ignore[union-attr]
    # WHEN the data no longer lists multi-model for triton on gpu THEN an explicit gpu host is refused, naming
    # no gpu container
    kinds_data["triton-gpu"] = ["realtime", "async"]
    with pytest.raises(InferenceConfigError, match=r"instance_type: ml.g5.xlarge is a gpu host; multi-model") as err:
        plan_endpoint(_multi_model(Serving.TRITON, instance_type="ml.g5.xlarge"), path="endpoints[0]")
    assert err.value.problems[0].path == "endpoints[0].instance_type"
    # AND the host choice skips every gpu host (triton's only accelerator with auto), so none is left
    with pytest.raises(InferenceConfigError, match="no gpu host in the catalog holds the model"):
        plan_endpoint(_multi_model(Serving.TRITON))


def test_a_gpu_container_listed_for_multi_model_is_accepted(kinds_data: dict[str, Any]) -> None:
    # GIVEN pytorch refused for gpu multi-model by the shipped data
    with pytest.raises(InferenceConfigError, match=r"accelerator: gpu multi-model endpoints need serving triton"):
        plan_endpoint(_multi_model(Serving.PYTORCH, accelerator=AcceleratorChoice.GPU), path="endpoints[0]")
    # WHEN the data lists multi-model for pytorch on gpu THEN the same request plans on a gpu host
    kinds_data["pytorch-gpu"] = ["realtime", "async", "multi-model"]
    plan = plan_endpoint(_multi_model(Serving.PYTORCH, accelerator=AcceleratorChoice.GPU))
    assert plan.host is not None and plan.host.accelerator is Accelerator.GPU


def test_serverless_follows_the_cpu_rows(kinds_data: dict[str, Any]) -> None:
    # GIVEN sklearn, whose cpu image can be serverless WHEN planned THEN it is accepted
    request = EndpointRequest(kind=EndpointKind.SERVERLESS, model=TABULAR, serving=Serving.SKLEARN)
    assert plan_endpoint(request).serverless is not None
    # WHEN the data drops serverless from the sklearn cpu image THEN the serving key is refused and the fix
    # lists the stacks the data still allows
    kinds_data["sklearn-cpu"] = ["realtime", "async", "multi-model"]
    with pytest.raises(InferenceConfigError) as err:
        plan_endpoint(request, path="endpoints[0]")
    problem = err.value.problems[0]
    assert problem.path == "endpoints[0].serving"
    assert "sklearn" not in problem.fix and "xgboost" in problem.fix


def test_no_neuron_image_is_multi_model(kinds_data: dict[str, Any]) -> None:
    # GIVEN an explicit inferentia host for a multi-model endpoint WHEN planned THEN the instance type is refused
    catalog = load_catalog()
    inf2 = next(i.name for i in catalog.instances if i.accelerator is Accelerator.INFERENTIA)
    with pytest.raises(InferenceConfigError, match="multi-model endpoints do not run on neuron") as err:
        plan_endpoint(_multi_model(Serving.LMI, instance_type=inf2), path="endpoints[0]")
    assert err.value.problems[0].path == "endpoints[0].instance_type"
    assert not compatibility.variant_hosts(EndpointKind.MULTI_MODEL, ImageVariant.NEURON)
    # WHEN a neuron row listed multi-model THEN the variant would host the kind (the data decides)
    kinds_data["lmi-neuron"] = ["realtime", "async", "multi-model"]
    assert compatibility.variant_hosts(EndpointKind.MULTI_MODEL, ImageVariant.NEURON)
