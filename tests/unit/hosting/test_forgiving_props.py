"""Construct props accept what the YAML says: enum props as their string values, ``capacity`` as a tuple or dict.

Anything else is one clear error naming the prop, the value and what is allowed (never an AttributeError from
inside the decisions, and never a string silently compared ``is`` against an enum member).
"""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from inference_constructs._coerce import InferencePropTypeError
from inference_constructs.bedrock.inference_profile import ApplicationInferenceProfile
from inference_constructs.containers.routing import RoutingOptions
from inference_constructs.containers.serving_options import SpeculativeDecoding
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import Capacity, MultiModelEndpoint, RealtimeEndpoint, ServerlessEndpoint
from inference_constructs.scaling.autoscaling import EndpointScaling
from inference_constructs.spec import AcceleratorChoice, DType, ModelSourceKind, ModelSpec, Serving

LLM = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7)
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")
PREFIX = "s3://my-models/mme/"


def _template(build: Any) -> dict[str, Any]:
    stack = Stack(App(), "S")
    build(stack)
    return Template.from_stack(stack).to_json()  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("typed", "forgiving"),
    [
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, serving=Serving.VLLM, accelerator=AcceleratorChoice.GPU),
            lambda s: RealtimeEndpoint(s, "E", model=LLM, serving="vllm", accelerator="gpu"),
        ),
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity=Capacity(min=1, max=3)),
            lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity=(1, 3)),
        ),
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity=Capacity(min=1, max=3)),
            lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity={"min": 1, "max": 3}),
        ),
        (
            lambda s: RealtimeEndpoint(s, "E", model=ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", dtype=DType.FP8)),
            lambda s: RealtimeEndpoint(s, "E", model=ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", dtype="fp8")),  # type: ignore[arg-type]
        ),
        (
            lambda s: ServerlessEndpoint(s, "E", model=TABULAR, serving=Serving.XGBOOST),
            lambda s: ServerlessEndpoint(
                s,
                "E",
                model=ModelSpec(source="s3", s3_uri="s3://my-models/churn/model.tar.gz"),  # type: ignore[arg-type]
                serving="xgboost",
            ),
        ),
        (
            lambda s: MultiModelEndpoint(
                s, "E", model_data_prefix=PREFIX, serving=Serving.SKLEARN, capacity=Capacity(1, 2)
            ),
            lambda s: MultiModelEndpoint(s, "E", model_data_prefix=PREFIX, serving="sklearn", capacity=[1, 2]),
        ),
    ],
    ids=["serving-accelerator-strings", "capacity-tuple", "capacity-dict", "dtype-string", "serverless", "multi-model"],
)
def test_string_and_tuple_props_build_the_same_template_as_typed_ones(typed: Any, forgiving: Any) -> None:
    # GIVEN the same endpoint written with typed props and with the YAML's strings / a tuple or dict
    # WHEN both are synthesized
    # THEN the templates are identical (the props are coerced once, at the construct boundary)
    assert _template(forgiving) == _template(typed)


@pytest.mark.parametrize(
    ("build", "error", "path", "fragment"),
    [
        (lambda s: RealtimeEndpoint(s, "E", model=LLM, serving="vlm"), InferenceConfigError, "serving", "'vllm'"),
        (lambda s: RealtimeEndpoint(s, "E", model=LLM, serving=3), InferencePropTypeError, "serving", "Serving"),
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, accelerator="tpu"),
            InferenceConfigError,
            "accelerator",
            "'gpu'",
        ),
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity=(1, 2, 3)),
            InferenceConfigError,
            "capacity",
            "(min, max)",
        ),
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity=("1", 2)),
            InferencePropTypeError,
            "capacity[0]",
            "int",
        ),
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity={"maximum": 2}),
            InferenceConfigError,
            "capacity.maximum",
            "min",
        ),
        (lambda s: RealtimeEndpoint(s, "E", model=LLM, capacity=4), InferencePropTypeError, "capacity", "(min, max)"),
        (
            lambda s: RealtimeEndpoint(s, "E", model=LLM, serving="vlm", path="endpoints[1]"),
            InferenceConfigError,
            "endpoints[1].serving",
            "'lmi'",
        ),
        (lambda s: ModelSpec(dtype="fp9"), InferenceConfigError, "model.dtype", "'bf16'"),
        (lambda s: ModelSpec(source="gcs"), InferenceConfigError, "model.source", "'s3'"),
        (
            lambda s: RoutingOptions(strategy="random"),
            InferenceConfigError,
            "serving_options.routing.strategy",
            "'prefix_aware'",
        ),
        (
            lambda s: SpeculativeDecoding(tokens=3, method="lookahead"),
            InferenceConfigError,
            "serving_options.speculative_decoding.method",
            "'ngram'",
        ),
        (lambda s: RealtimeEndpoint(s, "E", model={"id": "x"}), InferencePropTypeError, "model", "ModelSpec"),
        (
            lambda s: MultiModelEndpoint(s, "E", model_data_prefix=PREFIX, model="x"),
            InferencePropTypeError,
            "model",
            "ModelSpec",
        ),
        (
            lambda s: EndpointScaling(s, "A", endpoint_name="e", max_capacity=2, kind="stream"),
            InferenceConfigError,
            "S/A.kind",
            "'async'",
        ),
        (
            lambda s: ApplicationInferenceProfile(s, "P", name="p", model="amazon.nova-micro-v1:0", residency="eu"),
            InferenceConfigError,
            "residency",
            "'single-region'",
        ),
    ],
    ids=[
        "serving-unknown",
        "serving-int",
        "accelerator-unknown",
        "capacity-3-tuple",
        "capacity-str-bound",
        "capacity-unknown-key",
        "capacity-int",
        "path-prefix",
        "dtype-unknown",
        "source-unknown",
        "routing-strategy-unknown",
        "speculative-method-unknown",
        "model-dict",
        "multi-model-model-str",
        "scaling-kind",
        "profile-residency",
    ],
)
def test_a_wrong_prop_names_the_prop_the_value_and_what_is_allowed(
    build: Any, error: type[Exception], path: str, fragment: str
) -> None:
    # GIVEN a construct prop with a value that is neither the typed value nor an accepted string/tuple/dict form
    # WHEN the construct is built
    with pytest.raises(error) as raised:
        build(Stack(App(), "S"))
    # THEN one problem names the prop's key path and the allowed values (a TypeError or a ValueError, both
    # InferenceConfigError)
    assert isinstance(raised.value, InferenceConfigError)
    (problem,) = raised.value.problems
    assert problem.path == path
    assert fragment in problem.fix
    assert isinstance(raised.value, TypeError if error is InferencePropTypeError else ValueError)


def test_string_kind_on_scaling_keeps_its_rules() -> None:
    # GIVEN endpoint auto scaling asked for with kind "serverless" as a string
    # WHEN it is built
    # THEN the serverless rule applies (a bare string used to pass the ``is EndpointKind.SERVERLESS`` check)
    with pytest.raises(InferenceConfigError, match=r"\.kind"):
        EndpointScaling(Stack(App(), "S"), "A", endpoint_name="e", max_capacity=2, kind="serverless")


def test_string_residency_is_enforced() -> None:
    # GIVEN a profile on a cross-Region system profile with residency "single-region" as a string
    # WHEN it is built
    # THEN the residency rule refuses it (a bare string used to skip the check silently)
    with pytest.raises(InferenceConfigError, match=r"residency: .*cross-Region"):
        ApplicationInferenceProfile(
            Stack(App(), "S"), "P", name="p", model="us.amazon.nova-micro-v1:0", residency="single-region"
        )
