"""The host choice: the cheapest host per hour that fits a model and whose engine runs it, or the check
of an explicit one, with the candidates passed over and a cheaper-dtype hint (:func:`choose_host`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.catalog.models import resolve_model
from inference_constructs.containers.compatibility import dtype_quality, host_image_problem
from inference_constructs.errors import InferenceConfigError
from inference_constructs.sizing.candidates import (
    _REJECTIONS_PER_KIND,
    _engine_problem,
    _excluded,
    _fit_on,
    _is_llm_sizing,
    _Rules,
    _screened,
)
from inference_constructs.sizing.explain import _fmt, _held, _kv_counted, _reason, _unknown_instance_hint
from inference_constructs.sizing.memory import memory_estimate
from inference_constructs.sizing.placement import _usable_per_shard
from inference_constructs.sizing.types import (
    QUANTIZATION_CAVEAT,
    Fit,
    HostDecision,
    LoraReservation,
    MemoryEstimate,
    QuantizationHint,
    Rejection,
    RejectionKind,
)
from inference_constructs.spec import Accelerator, AcceleratorChoice, DType, ModelSpec, Serving


def choose_host(
    model: ModelSpec,
    *,
    serving: Serving,
    accelerator: AcceleratorChoice = AcceleratorChoice.AUTO,
    instance_type: str | None = None,
    catalog: Catalog | None = None,
    path: str = "model",
    max_devices: int | None = None,
    allow_burstable: bool = False,
    predicate: Callable[[InstanceType], bool] | None = None,
    quantization_hint: bool = True,
) -> HostDecision:
    """The cheapest host per hour that fits ``model`` and whose engine can run it, or check an explicit one.

    Parameters
    ----------
    model:
        What is served; ``parameters_billion``, ``dtype``, ``max_context_tokens``,
        ``max_concurrent_sequences``, ``architecture`` and ``neuron_compiled`` drive the memory model
        (a known Hugging Face ``id`` fills the parameter count and shape).
    serving:
        Serving stack; ``serving.accelerators(accelerator)`` is the set of accelerator kinds allowed
        (auto: any accelerator for LLM stacks, CPU for classical ones). Its engine on each host
        decides the families, dtypes and tensor parallel degrees allowed there.
    accelerator:
        Narrow the accelerator kind. Default: ``auto``.
    instance_type:
        An explicit host to check instead of choosing. Default: the cheapest fitting host is chosen.
    catalog:
        Instance facts and prices. Default: the packaged us-east-1 catalog.
    path:
        Key path of the endpoint in the config, used in error messages (e.g. ``endpoints[0]``).
    max_devices:
        Only hosts with at most this many devices (``1`` for multi-model endpoints on GPU, which need
        single-GPU instance types). Default: no limit.
    allow_burstable:
        Also consider burstable ``ml.t*`` hosts (never for autoscaled endpoints). Default: they are skipped.
    predicate:
        Extra filter on candidate hosts. Default: every catalog host is a candidate.
    quantization_hint:
        Compute :attr:`HostDecision.quantization_hint`. Default: yes.

    Returns
    -------
    HostDecision
        The host, devices, tensor parallel degree, memory figures, price, reason, the cheaper
        candidates rejected (a few per reason) and a hint when another dtype would be cheaper.

    Raises
    ------
    InferenceConfigError
        No allowed accelerator for ``serving``; an LLM without a known parameter count and no
        ``instance_type``; an unknown or disallowed ``instance_type``, one whose engine cannot run
        the model (family, dtype, Neuron SDK), or one that cannot hold the model (with the numbers
        and the alternatives); no catalog host fits.
    """
    cat = catalog or load_catalog()
    model = resolve_model(model)
    allowed = serving.accelerators(accelerator)
    if not allowed:
        supported = sorted(a.value for a in Serving.accelerators(serving, AcceleratorChoice.AUTO))
        raise InferenceConfigError(
            f"{path}.accelerator: {accelerator.value} is not available for serving {serving.value}; "
            f"use auto or one of {', '.join(supported)}"
        )
    llm = _is_llm_sizing(model, serving)
    rules = _Rules(allowed, max_devices, allow_burstable, predicate)
    if instance_type is not None:
        return _check_explicit(
            model,
            serving=serving,
            accelerator=accelerator,
            name=instance_type,
            cat=cat,
            path=path,
            rules=rules,
            llm=llm,
            want_hint=quantization_hint,
        )
    if llm and model.parameters_billion is None:
        raise InferenceConfigError(
            f"{path}.model.parameters_billion: unknown, so the host cannot be sized; "
            f"give parameters_billion or an explicit instance_type"
        )
    est = memory_estimate(model, llm=llm)
    decision = _cheapest(model, est, cat, rules, serving=serving, llm=llm)
    if decision is None:
        raise InferenceConfigError(_no_fit_message(model, est, cat, rules, serving=serving, path=path, llm=llm))
    fit, rejected, passed_over = decision
    hint = _dtype_hint(model, llm=llm, cat=cat, rules=rules, serving=serving, chosen=fit) if quantization_hint else None
    return _decision(est, fit, rejected, hint, explicit=False, passed_over=passed_over)


def _cheapest(
    model: ModelSpec, est: MemoryEstimate, cat: Catalog, rules: _Rules, *, serving: Serving, llm: bool
) -> tuple[Fit, tuple[Rejection, ...], tuple[tuple[RejectionKind, int], ...]] | None:
    """Scan the candidates cheapest first and stop at the first host that fits. Rejections are the
    cheaper hosts passed over, at most a few per reason; the counts are every cheaper host passed over, per
    reason (in :class:`RejectionKind` order)."""
    candidates, screened = _screened(cat, rules.screening_key, serving)
    counts: dict[RejectionKind, int] = {}
    passed_over: list[Rejection] = []

    def keep(kind: RejectionKind) -> bool:
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        return n < _REJECTIONS_PER_KIND

    for inst in candidates:
        if rules.predicate is not None and not rules.predicate(inst):
            if keep(RejectionKind.EXCLUDED):
                passed_over.append(_excluded(inst))
            continue
        fit = _fit_on(model, est, serving, inst, llm)
        if fit.fits:
            price = inst.price_per_hour_usd
            early = _first_per_kind(r for r in screened if r.price_per_hour_usd <= price)
            rejected = sorted((*early, *passed_over), key=lambda r: r.price_per_hour_usd)
            for r in screened:
                if r.price_per_hour_usd <= price:
                    counts[r.kind] = counts.get(r.kind, 0) + 1
            totals = tuple((kind, counts[kind]) for kind in RejectionKind if counts.get(kind))
            return fit, tuple(rejected), totals
        assert fit.rejection is not None
        if keep(fit.rejection.kind):
            passed_over.append(fit.rejection)
    return None


def _first_per_kind(rejections: Iterable[Rejection]) -> list[Rejection]:
    counts: dict[RejectionKind, int] = {}
    out = []
    for r in rejections:
        n = counts.get(r.kind, 0)
        if n < _REJECTIONS_PER_KIND:
            out.append(r)
            counts[r.kind] = n + 1
    return out


def _no_fit_message(
    model: ModelSpec, est: MemoryEstimate, cat: Catalog, rules: _Rules, *, serving: Serving, path: str, llm: bool
) -> str:
    kinds = ", ".join(sorted(a.value for a in rules.allowed))
    biggest = 0.0
    engine_reasons: list[str] = []
    for inst in _screened(cat, rules.screening_key, serving)[0]:
        if rules.predicate is not None and not rules.predicate(inst):
            continue
        fit = _fit_on(model, est, serving, inst, llm)
        if fit.rejection is not None and fit.rejection.kind is RejectionKind.ENGINE:
            if fit.rejection.reason not in engine_reasons:
                engine_reasons.append(fit.rejection.reason)
            continue
        biggest = max(biggest, fit.memory_available_gb)
    if engine_reasons and not biggest:
        return f"{path}.model: no allowed {kinds} host can run the model: {'; '.join(engine_reasons)}"
    engines = f"; on other hosts: {'; '.join(engine_reasons)}" if engine_reasons else ""
    estimated = _estimated_hosts_that_fit(model, est, cat, rules, serving=serving, llm=llm)
    return (
        f"{path}.model: no {kinds} host in the catalog holds the model; needs at least "
        f"{_fmt(est.required_gb(1))} GiB, the largest allowed host has {_fmt(biggest)} GiB usable{engines}{estimated}; "
        f"quantize (int8/int4), shorten max_context_tokens or max_concurrent_sequences, or allow another accelerator"
    )


def _estimated_hosts_that_fit(
    model: ModelSpec, est: MemoryEstimate, cat: Catalog, rules: _Rules, *, serving: Serving, llm: bool
) -> str:
    """The hosts left out only because a catalog fact is estimated that would hold the model (an explicit
    ``instance_type`` takes them), as a clause of the no-fit message; empty when there are none."""
    names = []
    for rejection in _screened(cat, rules.screening_key, serving)[1]:
        if rejection.kind is not RejectionKind.ESTIMATED:
            continue
        inst = cat.get(rejection.instance_type)
        if inst is None or (rules.predicate is not None and not rules.predicate(inst)):
            continue
        if _fit_on(model, est, serving, inst, llm).fits:
            names.append(f"{inst.name} (estimated {', '.join(inst.estimated_facts)})")
    if not names:
        return ""
    return (
        f"; hosts with estimated catalog facts are not chosen automatically, and these would hold it: "
        f"{', '.join(names)}: name one in instance_type"
    )


def _check_explicit(
    model: ModelSpec,
    *,
    serving: Serving,
    accelerator: AcceleratorChoice,
    name: str,
    cat: Catalog,
    path: str,
    rules: _Rules,
    llm: bool,
    want_hint: bool,
) -> HostDecision:
    inst = cat.get(name)
    key = f"{path}.instance_type"
    if inst is None:
        raise InferenceConfigError(f"{key}: {name} {_unknown_instance_hint(name, cat)}")
    if inst.accelerator not in rules.allowed:
        kinds = ", ".join(sorted(a.value for a in rules.allowed))
        raise InferenceConfigError(
            f"{key}: {name} is a {inst.accelerator.value} host; serving {serving.value} "
            f"with accelerator {accelerator.value} may use {kinds}"
        )
    if rules.max_devices is not None and inst.devices > rules.max_devices:
        raise InferenceConfigError(
            f"{key}: {name} has {inst.devices} devices; at most {rules.max_devices} allowed here "
            f"(multi-model endpoints on GPU need a single-GPU instance type)"
        )
    image = host_image_problem(serving, inst, explicit=True)
    if image is not None:
        fix = _alternatives(model, cat, rules, serving, engine=True)
        raise InferenceConfigError(f"{key}: {name} cannot run the model; {image}; {fix}")
    if llm and inst.accelerator is not Accelerator.CPU:
        problem, _ = _engine_problem(model, serving, inst)
        if problem:
            fix = _alternatives(model, cat, rules, serving, engine=True)
            raise InferenceConfigError(f"{key}: {name} cannot run the model; {problem}; {fix}")
    if llm and model.parameters_billion is None:
        # Unknown size: trust the user, state that nothing was checked.
        shards = max(1, inst.devices if inst.accelerator is Accelerator.GPU else inst.neuron_cores)
        usable = _usable_per_shard(inst)
        return HostDecision(
            instance=inst,
            accelerator=inst.accelerator,
            devices=inst.devices,
            tensor_parallel_degree=shards,
            memory_required_gb=0.0,
            memory_available_gb=usable * shards,
            weights_gb=0.0,
            kv_cache_gb=0.0,
            price_per_hour_usd=inst.price_per_hour_usd,
            reason=f"{name} given explicitly; parameters_billion unknown, so the memory fit was not checked",
            rejected=(),
            quantization_hint=None,
            explicit=True,
            model_copies=1,
        )
    est = memory_estimate(model, llm=llm)
    fit = _fit_on(model, est, serving, inst, llm, explicit=True)
    if not fit.fits:
        assert fit.rejection is not None
        verb = "load" if fit.rejection.kind is RejectionKind.HOST_MEMORY else "hold"
        fix = _alternatives(model, cat, rules, serving)
        kv = _kv_fix(model, est, serving, inst, llm)
        if kv is not None:
            fix = kv if fix == _NO_HOST_FIX else f"{kv}; or {fix}"
        raise InferenceConfigError(f"{key}: {name} cannot {verb} the model; {fit.rejection.reason}; {fix}")
    hint = _dtype_hint(model, llm=llm, cat=cat, rules=rules, serving=serving, chosen=fit) if want_hint else None
    return _decision(est, fit, (), hint, explicit=True)


_NO_HOST_FIX = "quantize or pick a larger host"
"""The fix when no allowed host holds the model (and its KV cache is not what is too big)."""


def _kv_fix(model: ModelSpec, est: MemoryEstimate, serving: Serving, inst: InstanceType, llm: bool) -> str | None:
    """When the weights fit on ``inst`` but the KV cache does not: the largest ``max_concurrent_sequences`` (at the
    configured context) and the largest ``max_context_tokens`` (at the configured sequences) that would fit, found
    by bisection over the same fit rule; None when the KV cache is not what is too big."""
    if not llm or est.kv_cache_gb <= 0.0:
        return None

    def fits(sequences: int, context: int) -> bool:
        trial = replace(model, max_concurrent_sequences=sequences, max_context_tokens=context)
        return _fit_on(trial, memory_estimate(trial, llm=llm), serving, inst, llm, explicit=True).fits

    def largest(ceiling: int, fits_at: Callable[[int], bool]) -> int:
        low, high = 0, ceiling
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if fits_at(mid) else (low, mid - 1)
        return low

    sequences = largest(model.max_concurrent_sequences - 1, lambda n: fits(n, model.max_context_tokens))
    context = largest(model.max_context_tokens - 1, lambda n: fits(model.max_concurrent_sequences, n))
    options = []
    if sequences:
        options.append(f"model.max_concurrent_sequences to {sequences:,} (at {model.max_context_tokens:,} tokens)")
    if context:
        options.append(f"model.max_context_tokens to {context:,} (at {model.max_concurrent_sequences:,} sequences)")
    if not options:
        return None
    return (
        f"the weights ({_fmt(est.weights_gb)} GiB) fit, the KV cache ({_fmt(est.kv_cache_gb)} GiB) does not: lower "
        + " or ".join(options)
    )


def _alternatives(model: ModelSpec, cat: Catalog, rules: _Rules, serving: Serving, *, engine: bool = False) -> str:
    llm = _is_llm_sizing(model, serving)
    if model.parameters_billion is None:
        return "use a host whose engine supports the model"
    found = _cheapest(model, memory_estimate(model, llm=llm), cat, rules, serving=serving, llm=llm)
    if found is None:
        return _NO_HOST_FIX
    if engine:
        return f"the cheapest allowed host that can run it is {found[0].instance.name}"
    return f"use {found[0].instance.name} or larger, or quantize"


_ALTERNATIVE_DTYPES = (DType.FP16, DType.FP8, DType.INT8, DType.INT4)
"""Dtypes the hint tries, least quality cost first: fp16 only in place of bf16 (same size, older GPUs)."""


def _dtype_hint(
    model: ModelSpec, *, llm: bool, cat: Catalog, rules: _Rules, serving: Serving, chosen: Fit
) -> QuantizationHint | None:
    if not llm or model.parameters_billion is None:
        return None
    current = model.dtype.bytes_per_parameter
    base = chosen.instance.price_per_hour_usd
    same = _cheapest(model, memory_estimate(model, llm=True), cat, rules, serving=serving, llm=True)
    if same is not None:  # an explicit host: compare with the cheapest host at the current dtype
        base = min(base, same[0].instance.price_per_hour_usd)
    for dtype in _ALTERNATIVE_DTYPES:
        if dtype is model.dtype or dtype.bytes_per_parameter > current:
            continue
        if dtype is DType.FP16 and model.dtype is not DType.BF16:
            continue
        alt = replace(model, dtype=dtype)
        found = _cheapest(alt, memory_estimate(alt, llm=True), cat, rules, serving=serving, llm=True)
        if found is None:
            continue
        price = found[0].instance.price_per_hour_usd
        if price < base - 1e-9:
            caveat = f"{dtype_quality(dtype)}; {QUANTIZATION_CAVEAT}"
            return QuantizationHint(
                dtype, found[0].instance.name, price, round(100.0 * (base - price) / base, 1), caveat
            )
    return None


def _decision(
    est: MemoryEstimate,
    fit: Fit,
    rejected: tuple[Rejection, ...],
    hint: QuantizationHint | None,
    *,
    explicit: bool,
    passed_over: tuple[tuple[RejectionKind, int], ...] = (),
) -> HostDecision:
    inst = fit.instance
    copies = 1
    if inst.accelerator is Accelerator.GPU and fit.tensor_parallel_degree:
        copies = max(1, inst.devices // fit.tensor_parallel_degree)
    elif inst.accelerator.is_neuron and fit.tensor_parallel_degree:
        copies = max(1, inst.neuron_cores // fit.tensor_parallel_degree)
    return HostDecision(
        instance=inst,
        accelerator=inst.accelerator,
        devices=fit.devices,
        tensor_parallel_degree=fit.tensor_parallel_degree,
        memory_required_gb=round(fit.memory_required_gb, 3),
        memory_available_gb=round(fit.memory_available_gb, 3),
        weights_gb=round(est.weights_gb, 3),
        kv_cache_gb=round(_kv_counted(est, fit), 3),
        price_per_hour_usd=inst.price_per_hour_usd,
        reason=_reason(est, fit, passed_over, explicit),
        rejected=rejected,
        passed_over=passed_over,
        quantization_hint=hint,
        explicit=explicit,
        model_copies=copies,
        host_ram_required_gb=round(fit.host_ram_required_gb, 3),
        kv_estimated=est.kv_estimated,
        architecture=est.architecture,
        heads_per_shard=fit.heads_per_shard,
        kv_heads_per_shard=fit.kv_heads_per_shard,
        padding_gb=round(fit.padding_gb, 3),
        degree_rejections=fit.degree_rejections,
        dtype_note=fit.dtype_note,
        kv=fit.kv,
        draft_weights_gb=round(est.draft_weights_gb, 3),
        draft_kv_cache_gb=round(est.draft_gb(_held(est, fit)) - est.draft_weights_gb, 3),
        lora=_lora(est, fit.tensor_parallel_degree),
    )


def _lora(est: MemoryEstimate, tp: int) -> LoraReservation | None:
    """The adapters' reservation at degree ``tp`` (None without adapters)."""
    if not est.lora_slots:
        return None
    return LoraReservation(
        est.lora_slots,
        est.lora_rank,
        round(est.lora_gb(tp), 3),
        round(est.lora_shard_gb(max(1, tp)), 3),
        est.lora_estimated,
    )
