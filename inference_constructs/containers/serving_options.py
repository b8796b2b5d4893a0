"""Serving-engine options of one endpoint: speculative decoding, prefix caching, quantization, batching limits and
prefix-aware routing, written to each pinned engine's own container variables.

Pure Python: no ``aws_cdk`` import. What each engine accepts, and the source of every variable name at the pinned
version, is data (``serving_options.json`` next to this module, keyed like ``images.json``); an option an engine
lacks is refused naming the key, the value and the engines that take it. :func:`draft_model` is the speculative
draft the sizing counts beside the target; the routing block's decision is :mod:`.routing`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from inference_constructs._coerce import enum_fields
from inference_constructs.catalog.models import resolve_model
from inference_constructs.containers.model_access import gated_prefix
from inference_constructs.containers.routing import RoutingOptions, RoutingStrategy
from inference_constructs.errors import ProblemCollector
from inference_constructs.spec import DType, ModelSpec

__all__ = [
    "SERVING_OPTIONS_FILE",
    "BatchingLimits",
    "OptionsDecision",
    "ServingOptions",
    "SpeculativeDecoding",
    "SpeculativeMethod",
    "caches_prefixes",
    "decide_serving_options",
    "draft_model",
    "load_serving_options",
    "needs_prefix_cache",
    "option_keys",
    "option_variable_owners",
    "quantization_blocked",
]

SERVING_OPTIONS_FILE = Path(__file__).with_name("serving_options.json")
"""The packaged option table."""


class SpeculativeMethod(StrEnum):
    """How draft tokens are proposed (vLLM ``SpeculativeConfig.method``; TGI: ``ngram`` or ``medusa``)."""

    DRAFT_MODEL = "draft_model"
    EAGLE = "eagle"
    EAGLE3 = "eagle3"
    MEDUSA = "medusa"
    NGRAM = "ngram"


@dataclass(frozen=True)
class SpeculativeDecoding:
    """Speculative decoding: a proposer suggests ``tokens`` tokens per step and the served model verifies them.

    Parameters
    ----------
    tokens:
        Tokens proposed per step (vLLM ``num_speculative_tokens``, TGI ``SPECULATE``, LMI Neuron
        ``speculative_length``), at least 1.
    method:
        ``draft_model`` (a smaller model of the same tokenizer), ``eagle`` / ``eagle3`` / ``medusa`` (heads trained
        for the served model) or ``ngram`` (prompt lookup, no weights). Default: ``draft_model``.
    model:
        Hugging Face id of the draft model or heads; none for ``ngram``, and none on TGI (a Medusa model there is
        the served ``model.id`` itself). Default: none.
    parameters_billion:
        The draft's parameter count, for an id the known-model table does not hold. Default: the table's count.
    ngram_lookup_max:
        vLLM ``prompt_lookup_max``, the largest n-gram window (required for ``ngram`` on vLLM and LMI). Default: none.
    """

    tokens: int
    method: SpeculativeMethod = SpeculativeMethod.DRAFT_MODEL
    model: str | None = None
    parameters_billion: float | None = None
    ngram_lookup_max: int | None = None

    def __post_init__(self) -> None:
        enum_fields(self, "serving_options.speculative_decoding", method=SpeculativeMethod)


@dataclass(frozen=True)
class BatchingLimits:
    """Continuous-batching limits (each ``None`` leaves the engine's default).

    Parameters
    ----------
    max_batch_prefill_tokens:
        Prompt tokens prefilled in one batch (TGI ``MAX_BATCH_PREFILL_TOKENS``). Default: the engine's.
    max_batched_tokens:
        Tokens one engine step processes, prefill and decode together (vLLM ``max_num_batched_tokens``, LMI
        ``max_rolling_batch_prefill_tokens``). Default: the engine's.
    max_sequences:
        Sequences batched at once (vLLM ``max_num_seqs``, LMI ``max_rolling_batch_size``, TGI ``MAX_BATCH_SIZE``),
        at least ``model.max_concurrent_sequences`` (the sizing holds that many at full length). Default:
        ``model.max_concurrent_sequences``.
    """

    max_batch_prefill_tokens: int | None = None
    max_batched_tokens: int | None = None
    max_sequences: int | None = None


@dataclass(frozen=True)
class ServingOptions:
    """Serving-engine options of one endpoint (the config's ``serving_options`` block), for the engine named by
    ``serving``.

    Parameters
    ----------
    speculative_decoding:
        Default: none (no speculation).
    prefix_caching:
        ``True`` / ``False`` writes the engine's switch. Default: none, the engine's own default (on for vLLM, LMI
        and TGI on compute capability 8.0+; nothing is written).
    quantization:
        Runtime quantization method (``awq``, ``gptq``, ``fp8``, ``bitsandbytes``, ...), the same as the endpoint's
        ``quantization`` prop; ``model.dtype`` must be the dtype it serves (int4 for awq). Default: ``fp8`` when
        ``model.dtype`` is fp8 on a GPU LLM server, else none.
    batching:
        Default: the engine's limits (the library still writes the batch size from ``model.max_concurrent_sequences``).
    routing:
        Default: least outstanding requests for LLM serving on real-time endpoints.
    """

    speculative_decoding: SpeculativeDecoding | None = None
    prefix_caching: bool | None = None
    quantization: str | None = None
    batching: BatchingLimits | None = None
    routing: RoutingOptions | None = None


@cache
def load_serving_options() -> Mapping[str, Any]:
    """The parsed ``serving_options.json`` (once per process)."""
    doc: Mapping[str, Any] = json.loads(SERVING_OPTIONS_FILE.read_text(encoding="utf-8"))
    return doc


def _engine(image_key: str | None) -> Mapping[str, Any] | None:
    row: Mapping[str, Any] | None = load_serving_options()["engines"].get(image_key or "")
    return row


def _supporting(option: str, method: str | None = None) -> str:
    """The engines (image keys) that take ``option`` (with ``method``), for a refusal's fix."""
    keys = []
    for key, row in load_serving_options()["engines"].items():
        spec = row["options"].get(option)
        if spec is not None and (method is None or method in spec.get("methods", ())):
            keys.append(key)
    return ", ".join(keys) if keys else "none of the pinned engines"


@cache
def option_keys(image_key: str) -> frozenset[str]:
    """Every container variable the option table writes for ``image_key`` (``environment`` may not set them)."""
    row = _engine(image_key)
    if row is None:
        return frozenset()
    return frozenset(var for spec in row["options"].values() for var in spec["keys"].values())


def _config_key(option: str) -> str:
    """The key under ``serving`` of a table option (the batching limits sit in ``serving_options.batching``)."""
    return f"batching.{option}" if option.startswith("max_") else option


def option_variable_owners() -> dict[str, str]:
    """Each container variable an option writes, and its config key (``serving.<option>``), first writer first."""
    owners: dict[str, str] = {}
    for row in load_serving_options()["engines"].values():
        for name, spec in row["options"].items():
            for variable in spec["keys"].values():
                owners.setdefault(variable, f"serving_options.{_config_key(name)}")
    return owners


@dataclass(frozen=True)
class OptionsDecision:
    """What the options write and why.

    ``environment`` goes into the container after the library's own variables; ``caches_prefixes`` says whether
    the engine caches prefixes on this host (prefix-aware routing needs it); ``reasons`` are the plan's lines.
    """

    environment: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    caches_prefixes: bool = False
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """The plan's ``serving_options`` block."""
        return {"environment": dict(self.environment), "caches_prefixes": self.caches_prefixes}


def draft_model(options: ServingOptions | None, model: ModelSpec) -> ModelSpec | None:
    """The speculative draft (or EAGLE / Medusa heads) the sizing counts beside ``model``, or ``None``.

    16-bit weights (vLLM assumes an unquantized draft unless told otherwise): the target's dtype when it is 16- or
    32-bit, else bf16; the same context and sequences as the target (its KV cache holds the same tokens).
    """
    spec = options.speculative_decoding if options else None
    if spec is None or spec.model is None:
        return None
    dtype = model.dtype if model.dtype in (DType.BF16, DType.FP16, DType.FP32) else DType.BF16
    return ModelSpec(
        id=spec.model,
        parameters_billion=spec.parameters_billion,
        dtype=dtype,
        max_context_tokens=model.max_context_tokens,
        max_concurrent_sequences=model.max_concurrent_sequences,
    )


def decide_serving_options(
    options: ServingOptions | None,
    *,
    image_key: str | None,
    model: ModelSpec,
    quantization: str | None,
    compute_capability: float | None,
    max_batch_total_tokens: int,
    problems: ProblemCollector,
    path: str = "",
    token_in_environment: bool = False,
) -> OptionsDecision:
    """The container variables ``options`` (and ``quantization``) set on the engine ``image_key``, recording a
    problem for every option the engine lacks or a value it refuses.

    ``image_key`` is the pinned image (``images.json``, e.g. ``vllm-gpu``); ``compute_capability`` the host GPU's
    (``None`` off GPU); ``max_batch_total_tokens`` what the library writes for TGI (context x sequences);
    ``token_in_environment`` whether the container has a hub token (a gated draft downloads with it).
    """
    base = f"{path}.serving_options" if path else "serving_options"
    row = _engine(image_key)
    opts = options or ServingOptions()
    caches = _caches_prefixes(row, opts, compute_capability)
    if row is None:
        for name, value in _given(opts, quantization=None).items():
            problems.add(
                f"{base}.{_config_key(name)}",
                f"{value} is not supported for {image_key or 'this serving stack'}",
                f"use an llm engine that takes it: {_supporting(name)}",
            )
        return OptionsDecision(caches_prefixes=False)
    env: dict[str, str] = {}
    reasons: list[str] = []
    sd = opts.speculative_decoding
    prefix = gated_prefix(sd.model) if sd is not None and sd.model else None
    if prefix is not None and not token_in_environment:
        problems.add(
            f"{base}.speculative_decoding.model",
            f"{sd.model if sd else ''} is gated on the hugging face hub ({prefix}*) and the container downloads it at "
            "start-up, which needs the token in its environment",
            "use an ungated draft, or set model.hf_token with in_environment: true",
        )
    for name, value in _given(opts, quantization=quantization).items():
        spec = row["options"].get(name)
        if spec is None:
            why = row.get("unsupported", {}).get(name, "no such option")
            problems.add(
                f"{base}.{_config_key(name)}",
                f"{value} is not supported by {row['engine']}: {why}",
                f"remove it, or use an engine that takes it: {_supporting(name)}",
            )
            continue
        write = _Write(spec, opts, model, quantization, compute_capability, max_batch_total_tokens, env, problems, base)
        _WRITERS[name](write)
        written = ", ".join(sorted(k for k in env if k in spec["keys"].values()))
        reasons.append(f"serving_options.{_config_key(name)} {value}: {written} ({row['engine']})")
    return OptionsDecision(MappingProxyType(dict(sorted(env.items()))), caches, tuple(reasons))


def _given(opts: ServingOptions, *, quantization: str | None) -> dict[str, object]:
    """The options set, by table name (in a fixed order), with the value a message shows."""
    out: dict[str, object] = {}
    spec = opts.speculative_decoding
    if spec is not None:
        out["speculative_decoding"] = spec.method.value
    if opts.prefix_caching is not None:
        out["prefix_caching"] = str(opts.prefix_caching).lower()
    if quantization is not None:
        out["quantization"] = quantization
    b = opts.batching or BatchingLimits()
    for name in ("max_batch_prefill_tokens", "max_batched_tokens", "max_sequences"):
        value = getattr(b, name)
        if value is not None:
            out[name] = value
    return out


def needs_prefix_cache(options: ServingOptions | None) -> bool:
    """True when ``options`` turn prefix caching on or route by prefix (a host must cache prefixes)."""
    if options is None or options.prefix_caching is False:  # off: the routing decision refuses prefix routing
        return False
    routing = options.routing
    return bool(options.prefix_caching) or (routing is not None and routing.strategy is RoutingStrategy.PREFIX_AWARE)


def caches_prefixes(options: ServingOptions | None, image_key: str | None, compute_capability: float | None) -> bool:
    """True when the engine ``image_key`` caches prefixes on a host of ``compute_capability`` with ``options``."""
    return _caches_prefixes(_engine(image_key), options or ServingOptions(), compute_capability)


def quantization_blocked(image_key: str | None, method: str | None, compute_capability: float | None) -> float | None:
    """The compute capability the engine ``image_key`` needs for quantization ``method`` (beyond the dtype rule)
    when a host of ``compute_capability`` is below it; None when the host runs it or no minimum is known."""
    row = _engine(image_key)
    return _blocked(row["options"].get("quantization") if row else None, method, compute_capability)


def _blocked(spec: Mapping[str, Any] | None, method: str | None, cc: float | None) -> float | None:
    found = spec.get("min_compute_capability", {}).get(method) if spec and method else None
    minimum = None if found is None else float(found)
    return minimum if minimum is not None and cc is not None and cc + 1e-9 < minimum else None


def _caches_prefixes(row: Mapping[str, Any] | None, opts: ServingOptions, cc: float | None) -> bool:
    spec = row["options"].get("prefix_caching") if row else None
    if spec is None or opts.prefix_caching is False:
        return False
    minimum = spec.get("min_compute_capability")
    return minimum is None or (cc is not None and cc + 1e-9 >= minimum)


@dataclass
class _Write:
    """One option being written: its table row, the request and the host, and where the result goes."""

    spec: Mapping[str, Any]
    opts: ServingOptions
    model: ModelSpec
    quantization: str | None
    compute_capability: float | None
    max_batch_total_tokens: int
    env: dict[str, str]
    problems: ProblemCollector
    base: str


def _speculative(w: _Write) -> None:
    sd = w.opts.speculative_decoding
    assert sd is not None
    key = f"{w.base}.speculative_decoding"
    method, fmt = sd.method.value, w.spec["format"]
    if method not in w.spec["methods"]:
        w.problems.add(
            f"{key}.method",
            f"{method} is not supported by this engine",
            f"use one of {', '.join(w.spec['methods'])}, or an engine that takes {method}: "
            f"{_supporting('speculative_decoding', method)}",
        )
        return
    _check_proposer(w, sd, key)
    if fmt == "vllm-json":
        config: dict[str, object] = {"method": method, "num_speculative_tokens": sd.tokens}
        if sd.model is not None:
            config["model"] = sd.model
        if method == "ngram" and sd.ngram_lookup_max is not None:
            config["prompt_lookup_max"] = sd.ngram_lookup_max
        w.env[w.spec["keys"]["config"]] = json.dumps(config, sort_keys=True, separators=(",", ":"))
    elif fmt == "tgi-speculate":
        w.env[w.spec["keys"]["tokens"]] = str(sd.tokens)
    else:  # lmi-neuron: the draft model and its length
        if sd.model is not None:
            w.env[w.spec["keys"]["model"]] = sd.model
        w.env[w.spec["keys"]["tokens"]] = str(sd.tokens)


def _check_proposer(w: _Write, sd: SpeculativeDecoding, key: str) -> None:
    """The proposer's own keys: a model where the method loads one (sized), none where it does not."""
    method, fmt = sd.method.value, w.spec["format"]
    if sd.tokens < 1:
        w.problems.add(f"{key}.tokens", f"{sd.tokens} is below 1", "propose at least 1 token")
    needs_model = method != "ngram" and fmt != "tgi-speculate"
    if needs_model and sd.model is None:
        w.problems.add(
            f"{key}.model", f"is required for method {method}", "give the hugging face id of the draft model or heads"
        )
    elif not needs_model and sd.model is not None:
        fix = "remove it; a medusa model is the served model.id itself" if fmt == "tgi-speculate" else "remove it"
        w.problems.add(f"{key}.model", f"{sd.model} is not used with method {method} on this engine", fix)
    elif needs_model and resolve_model(draft_model(w.opts, w.model) or w.model).parameters_billion is None:
        w.problems.add(
            f"{key}.parameters_billion",
            f"unknown for {sd.model}, so the draft cannot be sized",
            "give speculative_decoding.parameters_billion",
        )
    if fmt == "vllm-json" and method == "ngram" and sd.ngram_lookup_max is None:
        w.problems.add(
            f"{key}.ngram_lookup_max",
            "is required for method ngram (vllm prompt_lookup_max)",
            "give the largest n-gram window, e.g. 4",
        )


def _prefix_caching(w: _Write) -> None:
    on = bool(w.opts.prefix_caching)
    minimum = w.spec.get("min_compute_capability")
    cc = w.compute_capability
    if on and minimum is not None and (cc is None or cc + 1e-9 < minimum):
        w.problems.add(
            f"{w.base}.prefix_caching",
            f"true needs compute capability {minimum} or newer on this engine, the host has {cc}",
            "choose a newer gpu (instance_type auto skips older ones), or remove prefix_caching",
        )
        return
    keys = w.spec["keys"]
    variable = keys["enable"] if on or "disable" not in keys else keys["disable"]
    w.env[variable] = w.spec["values"]["true" if on else "false"]


def _quantization(w: _Write) -> None:
    q = w.quantization
    assert q is not None
    dtypes = load_serving_options()["quantization_dtypes"].get(q)
    if dtypes is not None and w.model.dtype.value not in dtypes:
        w.problems.add(
            f"{w.base}.quantization",
            f"{q} serves {' or '.join(dtypes)} weights, model.dtype is {w.model.dtype.value}",
            f"set model.dtype to {dtypes[0]} (the sizing and the gpu checks follow it)",
        )
    minimum = _blocked(w.spec, q, w.compute_capability)
    if minimum is not None:
        w.problems.add(
            f"{w.base}.quantization",
            f"{q} needs compute capability {minimum} or newer on this engine, the host has {w.compute_capability}",
            "choose a newer gpu (instance_type auto skips older ones), or another method",
        )
        return
    w.env[w.spec["keys"]["method"]] = q


def _limit_problem(w: _Write, name: str, value: int) -> tuple[str, str] | None:
    """(what is wrong, fix) for a batching limit the engine would refuse or the sizing cannot hold, else None."""
    target = w.model.max_concurrent_sequences
    max_input = w.model.max_context_tokens - 1
    if value < 1:
        return f"{value} is below 1", "use a positive count"
    if name == "max_sequences" and w.spec.get("static") and value != target:
        return (
            f"{value} differs from model.max_concurrent_sequences {target}",
            "neuron compiles one batch size: set model.max_concurrent_sequences instead",
        )
    if name == "max_sequences" and value < target:
        return (
            f"{value} is below model.max_concurrent_sequences {target}, which the sizing holds",
            f"use at least {target}, or lower model.max_concurrent_sequences",
        )
    total = w.max_batch_total_tokens
    if w.spec.get("at_most") == "max_batch_total_tokens" and value > total:
        return f"{value} is above max_batch_total_tokens {total} (context x sequences)", f"use at most {total}"
    if w.spec.get("at_least") == "max_input_tokens" and value < max_input:
        return f"{value} is below max_input_tokens {max_input}", f"use at least {max_input}"
    return None


def _limit(name: str) -> Callable[[_Write], None]:
    def write(w: _Write) -> None:
        value = getattr(w.opts.batching, name)
        problem = _limit_problem(w, name, value)
        if problem is not None:
            w.problems.add(f"{w.base}.batching.{name}", *problem)
            return
        w.env[w.spec["keys"]["value"]] = str(value)

    return write


_WRITERS: Mapping[str, Callable[[_Write], None]] = {
    "speculative_decoding": _speculative,
    "prefix_caching": _prefix_caching,
    "quantization": _quantization,
    "max_batch_prefill_tokens": _limit("max_batch_prefill_tokens"),
    "max_batched_tokens": _limit("max_batched_tokens"),
    "max_sequences": _limit("max_sequences"),
}
