"""Container environment variables that follow the sizing decisions.

Pure Python. Each serving stack reads its own variable names:

- LMI (DJL Serving, vLLM backend): ``HF_MODEL_ID``, ``OPTION_*`` (``option.<x>`` in serving.properties).
- LMI Neuron (transformers-neuronx): ``OPTION_ENTRYPOINT``, ``OPTION_N_POSITIONS``, TP in NeuronCores.
- TGI: ``HF_MODEL_ID``, ``SM_NUM_GPUS``, ``MAX_INPUT_TOKENS``, ``MAX_TOTAL_TOKENS``, ``MAX_BATCH_TOTAL_TOKENS``.
- TGI Neuron (optimum-neuron): ``HF_NUM_CORES``, ``HF_AUTO_CAST_TYPE``, ``MAX_BATCH_SIZE``.
- vLLM (AWS DLC, SageMaker build): ``SM_VLLM_<FLAG>`` becomes ``--<flag>``.
- scikit-learn / PyTorch framework containers: ``SAGEMAKER_PROGRAM`` and ``SAGEMAKER_SUBMIT_DIRECTORY``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from inference_constructs.containers.model_access import TOKEN_KEYS, looks_like_token
from inference_constructs.containers.serving_options import option_keys, option_variable_owners
from inference_constructs.errors import ProblemCollector
from inference_constructs.spec import Accelerator, DType, ModelSpec, Serving

__all__ = [
    "ENVIRONMENT_OWNERS",
    "MODEL_DIR",
    "OVERRIDABLE_KEYS",
    "QUANTIZATION_METHODS",
    "ServingParameters",
    "container_environment",
    "default_quantization",
    "owned_keys",
    "validate_environment",
    "validate_quantization",
    "validate_user_environment",
]

MODEL_DIR = "/opt/ml/model"
"""Where SageMaker places model data (S3 prefix or extracted archive) inside the container."""

QUANTIZATION_METHODS: Mapping[Serving, frozenset[str]] = {
    Serving.LMI: frozenset({"fp8", "awq", "gptq", "bitsandbytes"}),
    Serving.VLLM: frozenset({"fp8", "awq", "gptq", "compressed-tensors"}),
    Serving.TGI: frozenset(
        {
            "fp8",
            "awq",
            "gptq",
            "eetq",
            "exl2",
            "marlin",
            "bitsandbytes",
            "bitsandbytes-nf4",
            "bitsandbytes-fp4",
            "compressed-tensors",
        }
    ),
}
"""Runtime quantization options each GPU LLM server accepts (``OPTION_QUANTIZE``, ``SM_VLLM_QUANTIZATION``,
``HF_MODEL_QUANTIZE``). Neuron and classical containers take none here. vLLM 0.30.0 refuses a method outside its
``QuantizationMethods`` (``vllm/model_executor/layers/quantization/__init__.py``), which has no ``bitsandbytes``."""

_ENV_MAX_ENTRIES = 100
_ENV_MAX_BYTES = 1024
_ENV_MAX_TOTAL_BYTES = 32 * 1024
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""SageMaker ``ContainerDefinition.Environment`` (botocore sagemaker service model, ``EnvironmentMap``): at most 100
entries; key ``[a-zA-Z_][a-zA-Z0-9_]*`` up to 1024 bytes; value up to 1024 bytes; 32 KB for all keys and values."""

_MODEL = "model.id (or model.s3_uri with source s3)"
_TP = "instance_type / accelerator (the sizing decides the tensor parallel degree)"
_LEN = "model.max_context_tokens"
_BATCH = "model.max_concurrent_sequences"
_DTYPE = "model.dtype"
_ENGINE = "serving"
_GPU_SHARE = "the sizing (the share of each GPU it counts as usable, written so the engine takes that share)"
ENVIRONMENT_OWNERS: Mapping[str, str] = MappingProxyType(
    {
        **option_variable_owners(),  # the serving options' variables; a key below names its setting first
        "HF_MODEL_ID": _MODEL,
        "OPTION_MODEL_ID": _MODEL,
        "MODEL_ID": _MODEL,
        "SM_VLLM_MODEL": _MODEL,
        "OPTION_TENSOR_PARALLEL_DEGREE": _TP,
        "TENSOR_PARALLEL_DEGREE": _TP,
        "SM_NUM_GPUS": _TP,
        "NUM_SHARD": _TP,
        "HF_NUM_CORES": _TP,
        "SM_VLLM_TENSOR_PARALLEL_SIZE": _TP,
        "OPTION_MAX_MODEL_LEN": _LEN,
        "OPTION_N_POSITIONS": _LEN,
        "MAX_INPUT_TOKENS": _LEN,
        "MAX_INPUT_LENGTH": _LEN,
        "MAX_TOTAL_TOKENS": _LEN,
        "SM_VLLM_MAX_MODEL_LEN": _LEN,
        "OPTION_MAX_ROLLING_BATCH_SIZE": _BATCH,
        "MAX_BATCH_SIZE": _BATCH,
        "MAX_BATCH_TOTAL_TOKENS": _BATCH,
        "SM_VLLM_MAX_NUM_SEQS": _BATCH,
        "OPTION_DTYPE": _DTYPE,
        "DTYPE": _DTYPE,
        "HF_AUTO_CAST_TYPE": _DTYPE,
        "SM_VLLM_DTYPE": _DTYPE,
        "OPTION_QUANTIZE": _DTYPE,
        "HF_MODEL_QUANTIZE": _DTYPE,
        "QUANTIZE": _DTYPE,
        "SM_VLLM_QUANTIZATION": _DTYPE,
        "OPTION_ROLLING_BATCH": _ENGINE,
        "OPTION_ENTRYPOINT": _ENGINE,
        "OPTION_MODEL_LOADING_TIMEOUT": "the start-up health check timeout (sized from the weights)",
        "OPTION_GPU_MEMORY_UTILIZATION": _GPU_SHARE,
        "SM_VLLM_GPU_MEMORY_UTILIZATION": _GPU_SHARE,
        **dict.fromkeys(sorted(TOKEN_KEYS), "model.hf_token (a secrets manager secret; never the token text)"),
    }
)
"""Every variable the library writes (or an alias the container reads for the same setting), and the config key
that sets it. Aliases: LMI reads ``OPTION_MODEL_ID``/``TENSOR_PARALLEL_DEGREE`` for ``HF_MODEL_ID``/
``OPTION_TENSOR_PARALLEL_DEGREE`` (djl-serving ``serving/docs/lmi/deployment_guide/configurations.md``); TGI's
SageMaker entrypoint maps ``HF_MODEL_ID``, ``SM_NUM_GPUS``, ``HF_MODEL_QUANTIZE`` to ``MODEL_ID``, ``NUM_SHARD``,
``QUANTIZE``, and ``MAX_INPUT_LENGTH`` is the legacy name of ``MAX_INPUT_TOKENS`` (text-generation-inference
``sagemaker-entrypoint.sh``, ``docs/source/reference/launcher.md``)."""

OVERRIDABLE_KEYS = frozenset({"SAGEMAKER_PROGRAM", "SAGEMAKER_SUBMIT_DIRECTORY", "SAGEMAKER_CONTAINER_LOG_LEVEL"})
"""Defaults the library writes for framework containers that ``environment`` may replace (your script's name)."""

_ALIASES: Mapping[Serving, frozenset[str]] = {
    Serving.LMI: frozenset({"OPTION_MODEL_ID", "TENSOR_PARALLEL_DEGREE"}),
    Serving.NEURON: frozenset({"OPTION_MODEL_ID", "TENSOR_PARALLEL_DEGREE"}),
    Serving.TGI: frozenset({"MODEL_ID", "NUM_SHARD", "QUANTIZE", "MAX_INPUT_LENGTH"}),
}

_LMI_DTYPE = {DType.BF16: "bf16", DType.FP16: "fp16", DType.FP32: "fp32"}
_TORCH_DTYPE = {DType.BF16: "bfloat16", DType.FP16: "float16", DType.FP32: "float32"}


@dataclass(frozen=True)
class ServingParameters:
    """What the container needs to know, taken from the model spec and the host decision.

    Attributes
    ----------
    serving, accelerator:
        Serving stack and the host's device kind (Neuron variants differ from GPU ones).
    model_location:
        Hugging Face model id, or :data:`MODEL_DIR` when SageMaker provides the weights from S3.
    tensor_parallel_degree:
        GPUs, or NeuronCores on Inferentia/Trainium, one model copy is sharded over.
    max_model_len:
        Prompt + output tokens per sequence. Default: the model's default (``ModelSpec.max_context_tokens``).
    max_concurrent_sequences:
        Sequences batched at once. Default: the model's default (``ModelSpec.max_concurrent_sequences``).
    dtype:
        Served weight type. Default: the model's default (``ModelSpec.dtype``).
    quantization:
        Runtime quantization method, or ``None``.
    model_loading_timeout_seconds:
        LMI's own model loading timeout (kept equal to the SageMaker health-check timeout), or ``None``.
    gpu_memory_fraction:
        Share of each GPU the engine may take for weights, activations and KV cache, written as vLLM's
        ``gpu_memory_utilization`` (``SM_VLLM_GPU_MEMORY_UTILIZATION``; LMI ``OPTION_GPU_MEMORY_UTILIZATION``) so the
        engine uses the share the sizing counts. Default ``None``: nothing written, the engine keeps its own default
        (0.92 at vLLM 0.30.0). TGI, Neuron and classical servers ignore it.
    """

    serving: Serving
    accelerator: Accelerator
    model_location: str | None
    tensor_parallel_degree: int = 1
    max_model_len: int = ModelSpec.max_context_tokens
    max_concurrent_sequences: int = ModelSpec.max_concurrent_sequences
    dtype: DType = ModelSpec.dtype
    quantization: str | None = None
    model_loading_timeout_seconds: int | None = None
    gpu_memory_fraction: float | None = None


def default_quantization(serving: Serving, accelerator: Accelerator, dtype: DType) -> str | None:
    """Runtime quantization implied by the served dtype: ``fp8`` for fp8 on GPU LLM servers, else none.

    int8/int4 are taken to be pre-quantized checkpoints (AWQ/GPTQ), which the servers detect from
    the model config, so no option is set for them.
    """
    if dtype is DType.FP8 and accelerator is Accelerator.GPU and serving in QUANTIZATION_METHODS:
        return "fp8"
    return None


def validate_quantization(
    serving: Serving, accelerator: Accelerator, quantization: str | None, problems: ProblemCollector, path: str
) -> None:
    """Record a problem when ``quantization`` is not an option of ``serving`` on this host."""
    if quantization is None:
        return
    allowed = QUANTIZATION_METHODS.get(serving) if accelerator is Accelerator.GPU else None
    if allowed is None:
        where = "neuron hosts" if accelerator.is_neuron else f"serving {serving.value} on {accelerator.value}"
        problems.add(path, f"{quantization} is not supported for {where}", "remove quantization")
    elif quantization not in allowed:
        problems.add(
            path,
            f"{quantization} is not a {serving.value} quantization method",
            f"use one of {', '.join(sorted(allowed))}",
        )


def validate_environment(env: Mapping[str, str], problems: ProblemCollector, path: str) -> None:
    """Record problems for SageMaker's container environment limits (100 entries, 1024 bytes each, 32 KiB)."""
    if len(env) > _ENV_MAX_ENTRIES:
        problems.add(path, f"{len(env)} variables are too many", f"use at most {_ENV_MAX_ENTRIES}")
    total = 0
    for key, value in env.items():
        size_key, size_value = len(key.encode()), len(str(value).encode())
        total += size_key + size_value
        if size_key > _ENV_MAX_BYTES or size_value > _ENV_MAX_BYTES:
            problems.add(f"{path}.{key}", "key or value is longer than 1024 bytes", "shorten it")
    if total > _ENV_MAX_TOTAL_BYTES:
        problems.add(path, f"{total} bytes in total is too large", "keep the environment under 32 KiB")


@cache
def owned_keys(serving: Serving) -> frozenset[str]:
    """The variables ``environment`` may not set for ``serving``: every key the library can write for it (on any
    host, with or without quantization, and every serving option's variable), their aliases, and the token
    variables."""
    keys: set[str] = set(TOKEN_KEYS) | _ALIASES.get(serving, frozenset()) | serving_option_keys(serving)
    for accelerator in (Accelerator.GPU, Accelerator.INFERENTIA, Accelerator.CPU):
        for quantization in (None, "fp8"):
            params = ServingParameters(
                serving,
                accelerator,
                "id",
                quantization=quantization,
                model_loading_timeout_seconds=600,
                gpu_memory_fraction=0.5,
            )
            keys.update(_preset_environment(params))
    return frozenset(keys - OVERRIDABLE_KEYS)


def serving_option_keys(serving: Serving) -> frozenset[str]:
    """The variables the serving options write for ``serving`` on any of its pinned engines."""
    keys: set[str] = set()
    for variant in ("gpu", "neuron"):
        keys |= option_keys(f"{serving.value}-{variant}")
    if serving is Serving.NEURON:
        keys |= option_keys("lmi-neuron")
    return frozenset(keys)


def validate_user_environment(env: Mapping[str, str], serving: Serving, problems: ProblemCollector, path: str) -> None:
    """Record a problem for each ``environment`` entry that is not text, malformed, owned by the library, or a plain
    token."""
    owned = owned_keys(serving)
    for key, value in env.items():
        where = f"{path}.{key}"
        if not isinstance(key, str) or not isinstance(value, str):
            shown = value if isinstance(key, str) else key
            problems.add(
                where, f"{shown!r} is not a string", "quote it: a container variable's name and value are text"
            )
        elif not _ENV_KEY.match(key):
            problems.add(where, f"{key!r} is not an environment variable name", "use [A-Za-z_][A-Za-z0-9_]*")
        elif key in owned:
            owner = ENVIRONMENT_OWNERS.get(key, "the plan")
            problems.add(
                where,
                f"is written by the library for serving {serving.value}, from {owner}",
                f"remove it and set {owner} instead",
            )
        elif looks_like_token(str(value)):
            problems.add(
                where,
                "holds what looks like a hugging face token in plain text, which would be in the template and plan",
                "put the token in a secrets manager secret and name it in model.hf_token, or stage the weights in s3",
            )


def container_environment(params: ServingParameters, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The container environment for ``params``, with ``extra`` applied last (user values win).

    Keys are returned sorted so templates are deterministic.
    """
    env = _preset_environment(params)
    env.update(extra or {})
    return dict(sorted(env.items()))


def _preset_environment(p: ServingParameters) -> dict[str, str]:
    neuron = p.accelerator.is_neuron
    if p.serving in (Serving.LMI, Serving.NEURON):
        return _lmi_neuron(p) if neuron else _lmi_gpu(p)
    if p.serving is Serving.TGI:
        return _tgi_neuron(p) if neuron else _tgi_gpu(p)
    if p.serving is Serving.VLLM:
        return _vllm(p)
    if p.serving in (Serving.SKLEARN, Serving.PYTORCH):
        return {
            "SAGEMAKER_CONTAINER_LOG_LEVEL": "20",
            "SAGEMAKER_PROGRAM": "inference.py",
            "SAGEMAKER_SUBMIT_DIRECTORY": f"{MODEL_DIR}/code",
        }
    return {}  # xgboost (built-in algorithm mode), triton (model repository), custom


def _model(p: ServingParameters) -> dict[str, str]:
    return {"HF_MODEL_ID": p.model_location} if p.model_location else {}


def _lmi_gpu(p: ServingParameters) -> dict[str, str]:
    env = {
        **_model(p),
        "OPTION_ROLLING_BATCH": "vllm",
        "OPTION_TENSOR_PARALLEL_DEGREE": str(p.tensor_parallel_degree),
        "OPTION_MAX_MODEL_LEN": str(p.max_model_len),
        "OPTION_MAX_ROLLING_BATCH_SIZE": str(p.max_concurrent_sequences),
    }
    if p.dtype in _LMI_DTYPE and p.quantization is None:
        env["OPTION_DTYPE"] = _LMI_DTYPE[p.dtype]
    if p.quantization:
        env["OPTION_QUANTIZE"] = p.quantization
    if p.model_loading_timeout_seconds:
        env["OPTION_MODEL_LOADING_TIMEOUT"] = str(p.model_loading_timeout_seconds)
    if p.gpu_memory_fraction is not None:
        env["OPTION_GPU_MEMORY_UTILIZATION"] = _fraction(p.gpu_memory_fraction)
    return env


def _fraction(value: float) -> str:
    return f"{value:g}"


def _lmi_neuron(p: ServingParameters) -> dict[str, str]:
    env = {
        **_model(p),
        "OPTION_ENTRYPOINT": "djl_python.transformers_neuronx",
        "OPTION_ROLLING_BATCH": "auto",
        "OPTION_TENSOR_PARALLEL_DEGREE": str(p.tensor_parallel_degree),
        "OPTION_N_POSITIONS": str(p.max_model_len),
        "OPTION_MAX_ROLLING_BATCH_SIZE": str(p.max_concurrent_sequences),
    }
    if p.dtype in _LMI_DTYPE:
        env["OPTION_DTYPE"] = _LMI_DTYPE[p.dtype]
    if p.model_loading_timeout_seconds:
        env["OPTION_MODEL_LOADING_TIMEOUT"] = str(p.model_loading_timeout_seconds)
    return env


def _tgi_limits(p: ServingParameters) -> dict[str, str]:
    return {
        "MAX_INPUT_TOKENS": str(max(1, p.max_model_len - 1)),
        "MAX_TOTAL_TOKENS": str(p.max_model_len),
    }


def _tgi_gpu(p: ServingParameters) -> dict[str, str]:
    env = {
        **_model(p),
        **_tgi_limits(p),
        "SM_NUM_GPUS": str(p.tensor_parallel_degree),
        "MAX_BATCH_TOTAL_TOKENS": str(p.max_model_len * p.max_concurrent_sequences),
    }
    if p.quantization:
        env["HF_MODEL_QUANTIZE"] = p.quantization
    elif p.dtype in (DType.BF16, DType.FP16):
        env["DTYPE"] = _TORCH_DTYPE[p.dtype]  # TGI rejects DTYPE together with a quantization method
    return env


def _tgi_neuron(p: ServingParameters) -> dict[str, str]:
    env = {
        **_model(p),
        **_tgi_limits(p),
        "HF_NUM_CORES": str(p.tensor_parallel_degree),
        "MAX_BATCH_SIZE": str(p.max_concurrent_sequences),
    }
    if p.dtype in (DType.BF16, DType.FP16):
        env["HF_AUTO_CAST_TYPE"] = _LMI_DTYPE[p.dtype]
    return env


def _vllm(p: ServingParameters) -> dict[str, str]:
    env = {
        "SM_VLLM_TENSOR_PARALLEL_SIZE": str(p.tensor_parallel_degree),
        "SM_VLLM_MAX_MODEL_LEN": str(p.max_model_len),
        "SM_VLLM_MAX_NUM_SEQS": str(p.max_concurrent_sequences),
    }
    if p.model_location:
        env["SM_VLLM_MODEL"] = p.model_location
    if p.quantization:
        env["SM_VLLM_QUANTIZATION"] = p.quantization
    elif p.dtype in _TORCH_DTYPE:
        env["SM_VLLM_DTYPE"] = _TORCH_DTYPE[p.dtype]
    if p.gpu_memory_fraction is not None:
        env["SM_VLLM_GPU_MEMORY_UTILIZATION"] = _fraction(p.gpu_memory_fraction)
    return env
