"""The candidate hosts: the serving stack's engine rules on each host, the screening by accelerator,
devices and burstability (cached per rule set), and every host a model fits (:func:`feasible_hosts`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.catalog.models import model_family, model_features, resolve_model
from inference_constructs.containers.compatibility import (
    dtype_support,
    engine_for,
    family_problem,
    feature_problem,
    host_image_problem,
    neuron_sdk_problem,
)
from inference_constructs.sizing.memory import memory_estimate
from inference_constructs.sizing.placement import _reject, evaluate_host
from inference_constructs.sizing.types import Fit, MemoryEstimate, Rejection, RejectionKind
from inference_constructs.spec import Accelerator, AcceleratorChoice, ModelSpec, Serving


def _engine_problem(model: ModelSpec, serving: Serving, inst: InstanceType) -> tuple[str | None, str]:
    """(why ``serving``'s engine on ``inst`` cannot run ``model``, dtype note) - (None, note) when it can."""
    rules = engine_for(serving, inst)
    if rules is None:
        if serving.is_llm:  # e.g. vllm on Neuron: the library pins no image that would run it there
            return f"no {serving.value} image is pinned for {inst.accelerator.value} hosts", ""
        return None, ""
    problem = family_problem(rules, model_family(model)) or neuron_sdk_problem(rules, inst)
    if problem:
        return problem, ""
    missing = feature_problem(rules, model_features(model))
    if missing is not None:
        return f"{missing[0]}; use {missing[1]}", ""
    support = dtype_support(rules, model.dtype, inst)
    if not support.supported:
        return support.reason, ""
    return None, support.weight_only


@dataclass(frozen=True)
class _Rules:
    allowed: frozenset[Accelerator]
    max_devices: int | None
    allow_burstable: bool
    predicate: Callable[[InstanceType], bool] | None

    @property
    def screening_key(self) -> tuple[frozenset[Accelerator], int | None, bool]:
        return self.allowed, self.max_devices, self.allow_burstable


def _screen(inst: InstanceType, rules: _Rules, serving: Serving) -> Rejection | None:
    if inst.accelerator not in rules.allowed:
        kinds = ", ".join(sorted(a.value for a in rules.allowed))
        return _reject(
            inst, RejectionKind.ACCELERATOR, f"{inst.accelerator.value} host; {serving.value} may use {kinds}"
        )
    if rules.max_devices is not None and inst.devices > rules.max_devices:
        return _reject(inst, RejectionKind.DEVICES, f"{inst.devices} devices; at most {rules.max_devices} allowed")
    if inst.burstable and not rules.allow_burstable:
        return _reject(inst, RejectionKind.BURSTABLE, "burstable ml.t* host; not chosen for autoscaled endpoints")
    if not inst.chosen_automatically:
        facts = ", ".join(inst.estimated_facts)
        return _reject(
            inst,
            RejectionKind.ESTIMATED,
            f"estimated {facts} (catalog); not chosen automatically: give it as instance_type, or refresh the prices",
        )
    return None


def _excluded(inst: InstanceType) -> Rejection:
    return _reject(inst, RejectionKind.EXCLUDED, "excluded by the caller's instance filter")


_REJECTIONS_PER_KIND = 3


@lru_cache(maxsize=256)
def _screened(
    cat: Catalog, key: tuple[frozenset[Accelerator], int | None, bool], serving: Serving
) -> tuple[tuple[InstanceType, ...], tuple[Rejection, ...]]:
    """(candidate hosts, screening rejections), both cheapest first; cached per rule set."""
    rules = _Rules(key[0], key[1], key[2], None)
    candidates: list[InstanceType] = []
    rejected: list[Rejection] = []
    for inst in cat.by_price:
        why = _screen(inst, rules, serving)
        if why is None:
            candidates.append(inst)
        else:
            rejected.append(why)
    return tuple(candidates), tuple(rejected)


def _fit_on(
    model: ModelSpec, est: MemoryEstimate, serving: Serving, inst: InstanceType, llm: bool, *, explicit: bool = False
) -> Fit:
    """The fit of ``model`` on ``inst`` with ``serving``'s engine there, engine rules included. A chosen
    host holds the concurrency target; an ``explicit`` one with a paged KV cache at least one sequence."""
    image = host_image_problem(serving, inst, explicit=explicit)
    if image is not None:
        return Fit(inst, False, 0, 0, 0.0, 0.0, 0.0, _reject(inst, RejectionKind.ENGINE, image))
    if llm and inst.accelerator is not Accelerator.CPU:
        problem, note = _engine_problem(model, serving, inst)
        if problem:
            return Fit(inst, False, 0, 0, 0.0, 0.0, 0.0, _reject(inst, RejectionKind.ENGINE, problem))
        fit = evaluate_host(est, inst, engine_for(serving, inst), explicit)
        return replace(fit, dtype_note=note) if note else fit
    return evaluate_host(est, inst)


def feasible_hosts(
    model: ModelSpec,
    *,
    serving: Serving,
    accelerator: AcceleratorChoice = AcceleratorChoice.AUTO,
    catalog: Catalog | None = None,
    max_devices: int | None = None,
    allow_burstable: bool = False,
    predicate: Callable[[InstanceType], bool] | None = None,
) -> tuple[Fit, ...]:
    """Every catalog host the model fits under the same rules as :func:`choose_host`, cheapest first."""
    cat = catalog or load_catalog()
    model = resolve_model(model)
    rules = _Rules(serving.accelerators(accelerator), max_devices, allow_burstable, predicate)
    llm = _is_llm_sizing(model, serving)
    est = memory_estimate(model, llm=llm)
    out = []
    for inst in _screened(cat, rules.screening_key, serving)[0]:
        if predicate is None or predicate(inst):
            fit = _fit_on(model, est, serving, inst, llm)
            if fit.fits:
                out.append(fit)
    return tuple(out)


def _is_llm_sizing(model: ModelSpec, serving: Serving) -> bool:
    return serving.is_llm or (serving in (Serving.CUSTOM, Serving.TRITON) and model.parameters_billion is not None)
