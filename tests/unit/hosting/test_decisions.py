"""Pure hosting decisions: every request rule with its message, and the derived settings."""

from __future__ import annotations

import pytest

from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import (
    AsyncOptions,
    Capacity,
    EndpointRequest,
    MultiModelOptions,
    ServerlessOptions,
    VpcOptions,
    plan_endpoint,
)
from inference_constructs.hosting.decisions import ModelDataKind, startup_timeouts
from inference_constructs.spec import (
    Accelerator,
    AcceleratorChoice,
    DType,
    EndpointKind,
    ModelSourceKind,
    ModelSpec,
    Serving,
)

LLAMA_8B = ModelSpec(id="NousResearch/Meta-Llama-3.1-8B-Instruct", parameters_billion=8, max_context_tokens=8192)
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")
KEY = "arn:aws:kms:us-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab"
PREFIX = MultiModelOptions("s3://my-models/tenants/")


def _plan(**kw: object) -> object:
    return plan_endpoint(EndpointRequest(**kw), path="endpoints[0]")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ rules


@pytest.mark.parametrize("serving", [Serving.LMI, Serving.TGI, Serving.VLLM, Serving.NEURON])
def test_fails_serverless_with_an_llm_container(serving: Serving) -> None:
    # GIVEN an llm serving stack on a serverless endpoint WHEN planned THEN the error names serving and the fix
    with pytest.raises(
        InferenceConfigError,
        match=rf"endpoints\[0\].serving: {serving.value} needs a gpu or neuron host, but serverless endpoints run on cpu only; use type realtime or async",  # noqa: E501
    ):
        _plan(kind=EndpointKind.SERVERLESS, model=LLAMA_8B, serving=serving)


def test_fails_serverless_with_a_gpu_accelerator() -> None:
    # GIVEN a gpu request on serverless WHEN planned THEN the accelerator key is named
    with pytest.raises(
        InferenceConfigError,
        match=r"endpoints\[0\].accelerator: gpu is not available to serverless endpoints \(cpu only\)",
    ):
        _plan(kind=EndpointKind.SERVERLESS, model=TABULAR, serving=Serving.PYTORCH, accelerator=AcceleratorChoice.GPU)


def test_fails_serverless_model_larger_than_6144_mb() -> None:
    # GIVEN a 7B model on serverless WHEN planned THEN the memory limit is explained
    big = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/m.tar.gz", parameters_billion=7)
    with pytest.raises(
        InferenceConfigError,
        match=r"endpoints\[0\].model: a 13.0 GB model needs about \d+ MB, above serverless' 6144 MB",
    ):
        _plan(
            kind=EndpointKind.SERVERLESS,
            model=big,
            serving=Serving.CUSTOM,
            image="123456789012.dkr.ecr.us-east-1.amazonaws.com/m:1",
        )


@pytest.mark.parametrize(
    ("request_kw", "message"),
    [
        (
            {"instance_type": "ml.g5.xlarge"},
            r"endpoints\[0\].instance_type: ml.g5.xlarge is a gpu host; multi-model endpoints on gpu need serving triton, not pytorch",  # noqa: E501
        ),
        (
            {"accelerator": AcceleratorChoice.GPU},
            r"endpoints\[0\].accelerator: gpu multi-model endpoints need serving triton, not pytorch; use serving triton, or accelerator cpu",  # noqa: E501
        ),
    ],
)
def test_fails_multi_model_on_gpu_without_triton(request_kw: dict[str, object], message: str) -> None:
    # GIVEN a multi-model endpoint on a gpu host with a non-triton container WHEN planned THEN it fails clearly
    with pytest.raises(InferenceConfigError, match=message):
        _plan(
            kind=EndpointKind.MULTI_MODEL, model=ModelSpec(), serving=Serving.PYTORCH, multi_model=PREFIX, **request_kw
        )


def test_fails_serverless_with_multi_model() -> None:
    # GIVEN a serverless endpoint with a multi_model block WHEN planned THEN it is refused
    with pytest.raises(
        InferenceConfigError, match=r"endpoints\[0\].multi_model: serverless endpoints cannot host multiple models"
    ):
        _plan(kind=EndpointKind.SERVERLESS, model=TABULAR, serving=Serving.SKLEARN, multi_model=PREFIX)


def test_fails_multi_model_with_serverless_block() -> None:
    # GIVEN a multi-model endpoint with a serverless block WHEN planned THEN it is refused
    with pytest.raises(
        InferenceConfigError,
        match=r"endpoints\[0\].serverless: only applies to type: serverless, not multi-model; remove serverless",
    ):
        _plan(
            kind=EndpointKind.MULTI_MODEL,
            model=ModelSpec(),
            serving=Serving.XGBOOST,
            multi_model=PREFIX,
            serverless=ServerlessOptions(),
        )


@pytest.mark.parametrize(
    ("serving", "instance_type", "model", "message"),
    [
        (
            Serving.SKLEARN,
            "ml.inf2.xlarge",
            TABULAR,
            "ml.inf2.xlarge is an inferentia host, but serving sklearn has no neuron container",
        ),
        (
            Serving.VLLM,
            "ml.trn1.32xlarge",
            LLAMA_8B,
            "ml.trn1.32xlarge is an trainium host, but serving vllm has no neuron container",
        ),
        (
            Serving.NEURON,
            "ml.g5.12xlarge",
            LLAMA_8B,
            "ml.g5.12xlarge is a gpu host, but serving neuron needs inferentia2 or trainium",
        ),
        (
            Serving.NEURON,
            "ml.m5.xlarge",
            LLAMA_8B,
            "ml.m5.xlarge is a cpu host, but serving neuron needs inferentia2 or trainium",
        ),
    ],
)
def test_fails_neuron_host_container_mismatch(
    serving: Serving, instance_type: str, model: ModelSpec, message: str
) -> None:
    # GIVEN a neuron host with a non-neuron container (or the reverse) WHEN planned THEN the key, value and fix are given  # noqa: E501
    with pytest.raises(InferenceConfigError, match=rf"endpoints\[0\].instance_type: {message}; use"):
        _plan(kind=EndpointKind.REALTIME, model=model, serving=serving, instance_type=instance_type)


@pytest.mark.parametrize(
    ("request_kw", "message"),
    [
        (
            {"kind": EndpointKind.MULTI_MODEL, "model": ModelSpec(), "multi_model": PREFIX},
            r"0 is not allowed on a multi-model endpoint .*; use 1 or more, or one realtime endpoint per model "
            r"with min 0",
        ),
        (
            {"kind": EndpointKind.SERVERLESS, "model": TABULAR, "serverless": ServerlessOptions()},
            r"0 is not allowed for a serverless endpoint .*; remove capacity; keep warm capacity with "
            r"serverless.provisioned_concurrency",
        ),
    ],
)
def test_fails_capacity_min_zero_where_the_kind_cannot_scale_to_zero(
    request_kw: dict[str, object], message: str
) -> None:
    # GIVEN min 0 on a multi-model or serverless endpoint WHEN planned THEN it is refused with the fix
    with pytest.raises(InferenceConfigError, match=rf"endpoints\[0\].capacity.min: {message}"):
        _plan(serving=Serving.XGBOOST, capacity=Capacity(0, 2), **request_kw)


@pytest.mark.parametrize(
    ("request_kw", "devices", "memory_mb"),
    [
        # g6e.xlarge: 1 GPU; ~19 GB of host RAM to load 8B bf16 weights
        ({"model": LLAMA_8B, "serving": Serving.LMI, "accelerator": AcceleratorChoice.GPU}, 1, 19355),
        # g5.12xlarge: all 4 GPUs, so one copy fills one instance
        ({"model": LLAMA_8B, "serving": Serving.LMI, "instance_type": "ml.g5.12xlarge"}, 4, 19355),
        # inf2.24xlarge: all 6 Neuron devices; Neuron loading needs more host RAM (TGI on optimum-neuron: Llama 3.1's
        # scaled RoPE is refused on the LMI Neuron engine)
        ({"model": LLAMA_8B, "serving": Serving.TGI, "instance_type": "ml.inf2.24xlarge"}, 6, 34614),
        # a classical CPU model of unknown size (sized as 2 GB): no accelerator
        ({"model": TABULAR, "serving": Serving.XGBOOST, "instance_type": "ml.m5.xlarge"}, 0, 2048),
    ],
)
def test_realtime_min_zero_is_hosted_through_an_inference_component(
    request_kw: dict[str, object], devices: int, memory_mb: int
) -> None:
    # GIVEN capacity 0..3 on a real-time endpoint
    # WHEN planned
    plan = plan_endpoint(EndpointRequest(kind=EndpointKind.REALTIME, capacity=Capacity(0, 3), **request_kw))  # type: ignore[arg-type]
    # THEN the model goes through an inference component reserving the whole host, the variant starts with one
    # instance (so the first copy can be placed) and managed instance scaling runs up to capacity.max
    component = plan.inference_component
    assert component is not None
    assert (component.accelerator_devices, component.min_memory_required_mb) == (devices, memory_mb)
    assert (plan.initial_instance_count, component.max_instance_count, plan.capacity) == (1, 3, Capacity(0, 3))
    assert (
        component.container_startup_health_check_timeout_seconds == plan.container_startup_health_check_timeout_seconds
    )
    assert any("inference component" in r for r in plan.reasons)


def test_realtime_endpoint_with_instances_keeps_the_model_on_the_variant() -> None:
    # GIVEN capacity 1..3 WHEN planned THEN no inference component is used
    plan = plan_endpoint(
        EndpointRequest(kind=EndpointKind.REALTIME, model=LLAMA_8B, serving=Serving.LMI, capacity=Capacity(1, 3))
    )
    assert (plan.inference_component, plan.uses_inference_component) == (None, False)


def test_async_endpoint_may_scale_to_zero() -> None:
    # GIVEN min 0 on an async endpoint WHEN planned THEN it starts with one instance and keeps the range
    plan = _plan(
        kind=EndpointKind.ASYNC,
        model=LLAMA_8B,
        serving=Serving.LMI,
        capacity=Capacity(0, 3),
        async_inference=AsyncOptions(),
    )
    assert (plan.initial_instance_count, plan.capacity) == (1, Capacity(0, 3))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("vpc", "message"),
    [
        (
            VpcOptions(("subnet-0123456789abcdef0",), ()),
            r"endpoints\[0\].vpc.security_group_ids: security_group_ids missing; a vpc needs both",
        ),
        (
            VpcOptions((), ("sg-0123456789abcdef0",)),
            r"endpoints\[0\].vpc.subnet_ids: subnet_ids missing; a vpc needs both",
        ),
        (
            VpcOptions(("subnet-1",), ("sg-0123456789abcdef0",)),
            r"endpoints\[0\].vpc.subnet_ids\[0\]: subnet-1 is not a subnet id",
        ),
    ],
)
def test_fails_incomplete_vpc(vpc: VpcOptions, message: str) -> None:
    # GIVEN an incomplete vpc block WHEN planned THEN the missing part is named
    with pytest.raises(InferenceConfigError, match=message):
        _plan(kind=EndpointKind.REALTIME, model=TABULAR, serving=Serving.SKLEARN, vpc=vpc)


def test_kms_key_is_left_off_on_a_local_nvme_host_with_the_reason() -> None:
    # GIVEN a kms key and a host with local nvme storage (g5/g6e) WHEN planned
    plan = _plan(
        kind=EndpointKind.REALTIME, model=LLAMA_8B, serving=Serving.LMI, instance_type="ml.g5.12xlarge", kms_key_arn=KEY
    )
    # THEN the key is not applied and the reason says why (it becomes the nag acknowledgment)
    assert plan.kms_key_arn is None  # type: ignore[attr-defined]
    assert "ml.g5.12xlarge has local nvme instance storage" in plan.kms_omitted_reason  # type: ignore[attr-defined]


def test_kms_key_is_applied_on_an_ebs_host() -> None:
    # GIVEN a kms key and an inf2 host (ebs only) WHEN planned THEN the key encrypts the volume
    plan = _plan(
        kind=EndpointKind.REALTIME,
        model=LLAMA_8B,
        serving=Serving.TGI,
        instance_type="ml.inf2.48xlarge",
        kms_key_arn=KEY,
    )
    assert (plan.kms_key_arn, plan.kms_omitted_reason) == (KEY, None)  # type: ignore[attr-defined]


def test_every_problem_is_reported_at_once() -> None:
    # GIVEN three independent mistakes WHEN planned THEN one error lists all three
    with pytest.raises(InferenceConfigError) as err:
        _plan(
            kind=EndpointKind.SERVERLESS,
            model=LLAMA_8B,
            serving=Serving.LMI,
            serverless=ServerlessOptions(memory_mb=7000, max_concurrency=500),
        )
    assert (
        "endpoints[0].serverless.memory_mb: 7000 is not allowed; use 1024..6144 in steps of 1024" in err.value.problems
    )
    assert "endpoints[0].serverless.max_concurrency: 500 is out of range; use 1..200" in err.value.problems
    assert any(p.startswith("endpoints[0].serving: lmi needs a gpu") for p in err.value.problems)


def test_fails_network_isolation_with_a_hugging_face_download() -> None:
    # GIVEN network isolation and a model the container must download WHEN planned THEN it is refused
    with pytest.raises(
        InferenceConfigError, match=r"endpoints\[0\].network_isolation: true blocks the container from downloading"
    ):
        _plan(kind=EndpointKind.REALTIME, model=LLAMA_8B, serving=Serving.LMI, network_isolation=True)


def test_fails_llm_weights_as_an_archive() -> None:
    # GIVEN llm weights in a tar.gz WHEN planned THEN an uncompressed prefix is asked for
    m = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/llama.tar.gz", parameters_billion=8)
    with pytest.raises(
        InferenceConfigError,
        match=r"endpoints\[0\].model.s3_uri: s3://my-models/llama.tar.gz is an archive; llm weights",
    ):
        _plan(kind=EndpointKind.REALTIME, model=m, serving=Serving.LMI)


def test_fails_custom_serving_without_image() -> None:
    # GIVEN serving custom without an image WHEN planned THEN the image key is required
    with pytest.raises(InferenceConfigError, match=r"endpoints\[0\].image: required when serving: custom"):
        _plan(kind=EndpointKind.REALTIME, model=TABULAR, serving=Serving.CUSTOM)


# ------------------------------------------------------------------------------------------------ derived settings


def test_llm_plan_uses_the_host_decision_and_routes_least_outstanding() -> None:
    # GIVEN an 8B llm on an explicit 4-GPU host WHEN planned
    plan = _plan(kind=EndpointKind.REALTIME, model=LLAMA_8B, serving=Serving.LMI, instance_type="ml.g5.12xlarge")
    # THEN TP follows the decision, routing is least outstanding requests and timeouts are set
    assert plan.environment["OPTION_TENSOR_PARALLEL_DEGREE"] == str(plan.host.tensor_parallel_degree)  # type: ignore[attr-defined]
    assert plan.routing_strategy == "LEAST_OUTSTANDING_REQUESTS"  # type: ignore[attr-defined]
    assert plan.container_startup_health_check_timeout_seconds > 600  # type: ignore[attr-defined]


def test_classical_plan_has_no_llm_routing_or_timeouts() -> None:
    # GIVEN a small sklearn model WHEN planned THEN sagemaker's defaults are kept
    plan = _plan(kind=EndpointKind.REALTIME, model=TABULAR, serving=Serving.SKLEARN)
    assert plan.host.accelerator is Accelerator.CPU  # type: ignore[attr-defined]
    assert (plan.routing_strategy, plan.model_data_download_timeout_seconds) == (None, None)  # type: ignore[attr-defined]
    assert plan.model_data.kind is ModelDataKind.ARCHIVE  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("weights_gb", "accelerator", "expected"),
    [
        (0.0, Accelerator.GPU, (600, 600)),
        (16.0, Accelerator.GPU, (920, 1080)),
        (16.0, Accelerator.INFERENTIA, (920, 2160)),
        (140.0, Accelerator.GPU, (3400, 3600)),
    ],
)
def test_timeouts_grow_with_model_size(weights_gb: float, accelerator: Accelerator, expected: tuple[int, int]) -> None:
    # GIVEN a weight size WHEN timeouts are derived THEN they grow with it (neuron compiles) and stay <= 3600
    assert startup_timeouts(weights_gb, accelerator) == expected


def test_serverless_memory_defaults_to_the_smallest_fitting_size() -> None:
    # GIVEN a 0.5B-parameter fp32 model (1.9 GB) WHEN planned THEN memory is the smallest step that holds it
    m = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/m.tar.gz", parameters_billion=0.5, dtype=DType.FP32)
    plan = _plan(kind=EndpointKind.SERVERLESS, model=m, serving=Serving.PYTORCH)
    assert plan.serverless.memory_mb == 4096  # type: ignore[attr-defined]


def test_multi_model_on_gpu_uses_a_single_gpu_triton_host() -> None:
    # GIVEN a triton multi-model endpoint WHEN planned THEN the host has exactly one gpu
    plan = _plan(kind=EndpointKind.MULTI_MODEL, model=ModelSpec(), serving=Serving.TRITON, multi_model=PREFIX)
    assert (plan.host.accelerator, plan.host.instance.devices, plan.image.key) == (Accelerator.GPU, 1, "triton-gpu")  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", [EndpointKind.ASYNC, EndpointKind.REALTIME])
def test_routing_strategy_only_where_sagemaker_documents_it(kind: EndpointKind) -> None:
    # GIVEN the same llm on a real-time and on an async endpoint
    extra = {"async_inference": AsyncOptions()} if kind is EndpointKind.ASYNC else {}
    plan = _plan(kind=kind, model=LLAMA_8B, serving=Serving.LMI, instance_type="ml.g5.12xlarge", **extra)
    # THEN only the real-time variant routes least outstanding requests; the async plan says why it has none
    if kind is EndpointKind.REALTIME:
        assert plan.routing_strategy == "LEAST_OUTSTANDING_REQUESTS"  # type: ignore[attr-defined]
    else:
        assert plan.routing_strategy is None  # type: ignore[attr-defined]
        assert any("real-time endpoints only" in r for r in plan.reasons)  # type: ignore[attr-defined]


@pytest.mark.parametrize("max_copies", [1, 3, 8])
def test_the_components_copy_count_is_the_same_in_every_template(max_copies: int) -> None:
    # GIVEN scale-to-zero endpoints with different ranges
    plan = plan_endpoint(
        EndpointRequest(
            kind=EndpointKind.REALTIME,
            model=TABULAR,
            serving=Serving.XGBOOST,
            instance_type="ml.m5.xlarge",
            capacity=Capacity(0, max_copies),
        )
    )
    # THEN the template's CopyCount never follows the config (auto scaling owns the copies), and the plan says why
    assert plan.inference_component is not None
    assert plan.inference_component.initial_instance_count == 1
    assert any("the same in every template" in r for r in plan.reasons)
