"""Container environments follow the decisions: TP degree, context, batch, dtype, quantization."""

from __future__ import annotations

import pytest

from inference_constructs.containers import (
    MODEL_DIR,
    ServingParameters,
    container_environment,
    default_quantization,
    validate_environment,
    validate_quantization,
)
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.hosting import EndpointRequest, plan_endpoint
from inference_constructs.sizing import GPU_USABLE_FRACTION
from inference_constructs.spec import Accelerator, DType, EndpointKind, ModelSpec, Serving

_ID = "NousResearch/Meta-Llama-3.1-8B-Instruct"
_LLAMA = ModelSpec(id=_ID, parameters_billion=8, max_context_tokens=8192)


def _params(serving: Serving, accelerator: Accelerator, **kw: object) -> ServingParameters:
    base: dict[str, object] = {
        "model_location": _ID,
        "tensor_parallel_degree": 4,
        "max_model_len": 8192,
        "max_concurrent_sequences": 16,
        "dtype": DType.BF16,
    }
    base.update(kw)
    return ServingParameters(serving, accelerator, **base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("serving", "accelerator", "expected"),
    [
        (
            Serving.LMI,
            Accelerator.GPU,
            {
                "HF_MODEL_ID": _ID,
                "OPTION_ROLLING_BATCH": "vllm",
                "OPTION_TENSOR_PARALLEL_DEGREE": "4",
                "OPTION_MAX_MODEL_LEN": "8192",
                "OPTION_MAX_ROLLING_BATCH_SIZE": "16",
                "OPTION_DTYPE": "bf16",
            },
        ),
        (
            Serving.NEURON,
            Accelerator.INFERENTIA,
            {
                "HF_MODEL_ID": _ID,
                "OPTION_ENTRYPOINT": "djl_python.transformers_neuronx",
                "OPTION_ROLLING_BATCH": "auto",
                "OPTION_TENSOR_PARALLEL_DEGREE": "4",
                "OPTION_N_POSITIONS": "8192",
                "OPTION_MAX_ROLLING_BATCH_SIZE": "16",
                "OPTION_DTYPE": "bf16",
            },
        ),
        (
            Serving.TGI,
            Accelerator.GPU,
            {
                "HF_MODEL_ID": _ID,
                "SM_NUM_GPUS": "4",
                "MAX_INPUT_TOKENS": "8191",
                "MAX_TOTAL_TOKENS": "8192",
                "MAX_BATCH_TOTAL_TOKENS": "131072",
                "DTYPE": "bfloat16",
            },
        ),
        (
            Serving.TGI,
            Accelerator.TRAINIUM,
            {
                "HF_MODEL_ID": _ID,
                "HF_NUM_CORES": "4",
                "MAX_BATCH_SIZE": "16",
                "MAX_INPUT_TOKENS": "8191",
                "MAX_TOTAL_TOKENS": "8192",
                "HF_AUTO_CAST_TYPE": "bf16",
            },
        ),
        (
            Serving.VLLM,
            Accelerator.GPU,
            {
                "SM_VLLM_MODEL": _ID,
                "SM_VLLM_TENSOR_PARALLEL_SIZE": "4",
                "SM_VLLM_MAX_MODEL_LEN": "8192",
                "SM_VLLM_MAX_NUM_SEQS": "16",
                "SM_VLLM_DTYPE": "bfloat16",
            },
        ),
    ],
)
def test_llm_environment_carries_the_sizing_decisions(
    serving: Serving, accelerator: Accelerator, expected: dict[str, str]
) -> None:
    # GIVEN a TP degree of 4, 8192 tokens and 16 sequences WHEN the environment is built
    env = container_environment(_params(serving, accelerator))
    # THEN each server gets them under its own variable names
    assert env == expected


@pytest.mark.parametrize(
    ("serving", "accelerator", "key"),
    [
        # vLLM's SageMaker entrypoint turns SM_VLLM_<NAME> into --<name> (aws/deep-learning-containers
        # vllm/build_artifacts/sagemaker_entrypoint.sh); LMI passes an option key that is a vLLM EngineArgs field
        # through to vLLM (djl-serving 0.36.0-lmi27-dlc vllm_rb_properties.py get_additional_vllm_engine_args)
        (Serving.VLLM, Accelerator.GPU, "SM_VLLM_GPU_MEMORY_UTILIZATION"),
        (Serving.LMI, Accelerator.GPU, "OPTION_GPU_MEMORY_UTILIZATION"),
    ],
)
def test_gpu_memory_fraction_is_written_under_each_engines_own_name(
    serving: Serving, accelerator: Accelerator, key: str
) -> None:
    # GIVEN a GPU memory share of 0.85 WHEN built THEN the engine is told that share, formatted without noise
    assert container_environment(_params(serving, accelerator, gpu_memory_fraction=0.85))[key] == "0.85"
    # AND without a share nothing is written (the engine keeps its own default)
    assert key not in container_environment(_params(serving, accelerator))


@pytest.mark.parametrize("serving", [Serving.TGI, Serving.NEURON, Serving.SKLEARN])
def test_servers_without_a_gpu_memory_share_option_get_none(serving: Serving) -> None:
    # GIVEN a share on a server that has no such option WHEN built THEN no *_GPU_MEMORY_UTILIZATION variable
    accelerator = Accelerator.INFERENTIA if serving is Serving.NEURON else Accelerator.GPU
    env = container_environment(_params(serving, accelerator, gpu_memory_fraction=0.9))
    assert not [k for k in env if k.endswith("GPU_MEMORY_UTILIZATION")]


@pytest.mark.parametrize(
    ("serving", "key"),
    [(Serving.VLLM, "SM_VLLM_GPU_MEMORY_UTILIZATION"), (Serving.LMI, "OPTION_GPU_MEMORY_UTILIZATION")],
)
def test_llm_servers_on_gpu_reserve_the_share_of_gpu_memory_the_sizing_counts(serving: Serving, key: str) -> None:
    # GIVEN an 8B model on a GPU host WHEN planned THEN the engine reserves GPU_USABLE_FRACTION of each GPU: the
    # share the sizing counted when it chose the host (vLLM 0.30.0's own default, 0.92, would differ from it)
    plan = plan_endpoint(EndpointRequest(kind=EndpointKind.REALTIME, model=_LLAMA, serving=serving))
    assert plan.host is not None and plan.host.accelerator is Accelerator.GPU
    assert float(plan.environment[key]) == GPU_USABLE_FRACTION == 0.9


def test_fails_a_gpu_memory_share_in_the_user_environment() -> None:
    # GIVEN environment setting the share the sizing owns WHEN planned THEN refused with the key path and the owner
    request = EndpointRequest(
        kind=EndpointKind.REALTIME,
        model=_LLAMA,
        serving=Serving.VLLM,
        environment={"SM_VLLM_GPU_MEMORY_UTILIZATION": "0.97"},
    )
    with pytest.raises(
        InferenceConfigError,
        match=r"e\.environment\.SM_VLLM_GPU_MEMORY_UTILIZATION: is written by "
        r"the library for serving vllm, from the sizing \(the share of each GPU it counts as usable",
    ):
        plan_endpoint(request, path="e")


@pytest.mark.parametrize(
    ("environment", "key", "shown"),
    [({"OPTION_MAX_ROLLING_BATCH_SIZE": 8}, "OPTION_MAX_ROLLING_BATCH_SIZE", "8"), ({3: "x"}, "3", "3")],
)
def test_fails_an_environment_entry_that_is_not_text(environment: dict[object, object], key: str, shown: str) -> None:
    # GIVEN a Python caller's environment with a number as a value or as a name
    request = EndpointRequest(
        kind=EndpointKind.REALTIME,
        model=_LLAMA,
        serving=Serving.LMI,
        environment=environment,  # type: ignore[arg-type]
    )
    # WHEN planned THEN one InferenceConfigError names the entry and says to quote it (no AttributeError, no jsii)
    with pytest.raises(InferenceConfigError, match=rf"e\.environment\.{key}: {shown} is not a string; quote it"):
        plan_endpoint(request, path="e")


def test_quantization_replaces_dtype_for_tgi() -> None:
    # GIVEN fp8 runtime quantization on TGI WHEN built THEN HF_MODEL_QUANTIZE is set and DTYPE is not
    env = container_environment(_params(Serving.TGI, Accelerator.GPU, quantization="fp8"))
    assert env["HF_MODEL_QUANTIZE"] == "fp8"
    assert "DTYPE" not in env


def test_s3_weights_are_read_from_the_model_directory() -> None:
    # GIVEN weights provided by sagemaker WHEN built THEN the server loads /opt/ml/model
    env = container_environment(_params(Serving.LMI, Accelerator.GPU, model_location=MODEL_DIR))
    assert env["HF_MODEL_ID"] == "/opt/ml/model"


def test_user_environment_wins_and_keys_are_sorted() -> None:
    # GIVEN an extra variable overriding a derived one WHEN built THEN the user value wins, keys sorted
    env = container_environment(_params(Serving.LMI, Accelerator.GPU), {"OPTION_DTYPE": "fp16", "A": "1"})
    assert env["OPTION_DTYPE"] == "fp16"
    assert list(env) == sorted(env)


@pytest.mark.parametrize(
    ("serving", "accelerator", "dtype", "expected"),
    [
        (Serving.LMI, Accelerator.GPU, DType.FP8, "fp8"),
        (Serving.LMI, Accelerator.GPU, DType.INT4, None),
        (Serving.LMI, Accelerator.INFERENTIA, DType.FP8, None),
        (Serving.SKLEARN, Accelerator.CPU, DType.FP8, None),
    ],
)
def test_default_quantization_only_for_fp8_on_gpu_llm_servers(
    serving: Serving, accelerator: Accelerator, dtype: DType, expected: str | None
) -> None:
    # GIVEN a served dtype WHEN the default quantization is derived THEN only fp8 on gpu llm servers quantizes
    assert default_quantization(serving, accelerator, dtype) == expected


@pytest.mark.parametrize(
    ("serving", "accelerator", "method", "message"),
    [
        (Serving.VLLM, Accelerator.GPU, "eetq", "q: eetq is not a vllm quantization method; use one of"),
        # vLLM 0.30.0 QuantizationMethods has no bitsandbytes: the engine would refuse it at start-up
        (Serving.VLLM, Accelerator.GPU, "bitsandbytes", "q: bitsandbytes is not a vllm quantization method; use one"),
        (Serving.LMI, Accelerator.INFERENTIA, "fp8", "q: fp8 is not supported for neuron hosts; remove quantization"),
        (Serving.SKLEARN, Accelerator.CPU, "awq", "q: awq is not supported for serving sklearn on cpu"),
    ],
)
def test_fails_quantization_the_server_does_not_offer(
    serving: Serving, accelerator: Accelerator, method: str, message: str
) -> None:
    # GIVEN a quantization method the server lacks WHEN validated THEN the problem names key, value and fix
    problems = ProblemCollector()
    validate_quantization(serving, accelerator, method, problems, "q")
    assert problems.problems and problems.problems[0].startswith(message)


def test_fails_environment_over_sagemaker_limits() -> None:
    # GIVEN 101 variables and one 2000-byte value WHEN validated THEN both limits are reported
    env = {f"K{i}": "v" for i in range(100)} | {"BIG": "x" * 2000}
    problems = ProblemCollector()
    validate_environment(env, problems, "environment")
    assert "environment: 101 variables are too many; use at most 100" in problems.problems
    assert any(p.startswith("environment.BIG: key or value is longer than 1024 bytes") for p in problems.problems)
