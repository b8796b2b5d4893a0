"""The serving options of one endpoint request on its hosts. Pure Python (no ``aws_cdk`` import).

What the sizing places (the model with its speculative draft), which hosts may serve the request (the primary host
the plan chooses and every instance pool host pass the same rules: an image of the serving stack that takes the
endpoint kind, an engine that caches prefixes there when the options turn prefix caching or prefix-aware routing
on, and an AMI that runs the image), the container variables the options write on the chosen host's engine, and
the production variant's prefix-aware routing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from inference_constructs.catalog import InstanceType
from inference_constructs.containers import ContainerImage, ImageVariant, image_key
from inference_constructs.containers.routing import RoutingDecision, decide_routing
from inference_constructs.containers.serving_options import (
    OptionsDecision,
    caches_prefixes,
    decide_serving_options,
    draft_model,
    needs_prefix_cache,
    quantization_blocked,
)
from inference_constructs.errors import ProblemCollector
from inference_constructs.hosting.checks import has_image, hosts_kind, key_path, stages_weights
from inference_constructs.hosting.host_ami import host_ami_problem
from inference_constructs.hosting.request import EndpointRequest
from inference_constructs.scaling.decisions import uses_inference_component
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import Accelerator, ModelSourceKind, ModelSpec

__all__ = ["decide_options", "decide_prefix_routing", "host_filter", "host_problem", "sized_model"]


def sized_model(req: EndpointRequest) -> ModelSpec:
    """The model the sizing places: ``req.model`` with the speculative draft of its serving options, if any."""
    draft = draft_model(req.serving_options, req.model)
    return req.model if draft is None else replace(req.model, draft=draft)


def host_problem(req: EndpointRequest, inst: InstanceType, *, explicit: bool) -> str | None:
    """Why ``inst`` cannot serve ``req`` (None when it can): no image of its serving stack takes its kind there;
    its options need prefix caching (or prefix-aware routing) and the engine caches no prefixes there (TGI: compute
    capability 8.0 or newer); its quantization method needs a newer GPU on the engine (TGI awq, exl2, marlin: 8.0);
    or (unless the host is ``explicit``: the AMI decision then names the key) no AMI runs the image there."""
    variant = ImageVariant.for_host(inst.accelerator, inst.architecture)
    if not (has_image(req.serving, inst) and hosts_kind(req.kind, req.serving, variant)):
        return f"serving {req.serving.value} has no image for it that takes a {req.kind.value} endpoint"
    key = image_key(req.serving, variant)
    if needs_prefix_cache(req.serving_options) and not caches_prefixes(
        req.serving_options, key, inst.compute_capability
    ):
        return (
            f"the engine caches no prefixes on it (compute capability {inst.compute_capability}), which the serving "
            "options' prefix caching or prefix-aware routing need"
        )
    minimum = quantization_blocked(key, req.quantization, inst.compute_capability)
    if minimum is not None:
        return f"quantization {req.quantization} needs compute capability {minimum}, it has {inst.compute_capability}"
    if explicit:
        return None
    ami = host_ami_problem(req.host_ami, key, inst)
    return None if ami is None else ami[0]


def host_filter(req: EndpointRequest, *, explicit: bool) -> Callable[[InstanceType], bool]:
    """The hosts the sizing may choose for ``req``: those :func:`host_problem` finds nothing wrong with."""
    return lambda inst: host_problem(req, inst, explicit=explicit) is None


def decide_options(
    req: EndpointRequest,
    host: HostDecision | None,
    accelerator: Accelerator,
    image: ContainerImage | None,
    reasons: list[str],
    *,
    path: str,
) -> OptionsDecision:
    """The serving options' container variables on the chosen host's engine (refused where the engine lacks one).

    The variables do not depend on which of the variant's hosts runs them: every instance pool shares the
    variant's image, and :func:`host_problem` keeps hosts without prefix caching out when the options need it.
    """
    p = ProblemCollector()
    cc = host.instance.compute_capability if host and accelerator is Accelerator.GPU else None
    decision = decide_serving_options(
        req.serving_options,
        image_key=image.key if image else None,
        model=req.model,
        quantization=req.quantization if accelerator is Accelerator.GPU else None,
        compute_capability=cc,
        max_batch_total_tokens=req.model.max_context_tokens * req.model.max_concurrent_sequences,
        problems=p,
        path=path,
        token_in_environment=req.hf_token is not None and req.hf_token.in_environment,
    )
    draft = req.serving_options.speculative_decoding if req.serving_options else None
    offline = req.model.source is ModelSourceKind.S3 or stages_weights(req)
    if draft is not None and draft.model and offline and req.network_isolation is not False:
        p.add(
            key_path(path, "serving_options.speculative_decoding.model"),
            f"{draft.model} is downloaded from the hugging face hub at start-up, but the model's weights come from s3 "
            "and the container runs with network isolation",
            "set network_isolation: false, or serve a draft the container can reach",
        )
    p.raise_if_any()
    reasons.extend(decision.reasons)
    return decision


def decide_prefix_routing(
    req: EndpointRequest,
    host: HostDecision | None,
    options: OptionsDecision | None,
    routing: str | None,
    reasons: list[str],
    *,
    path: str,
) -> RoutingDecision | None:
    """The prefix-aware routing of the serving options (refused where it cannot apply), or None for the default."""
    p = ProblemCollector()
    decision = decide_routing(
        req.serving_options.routing if req.serving_options else None,
        kind=req.kind,
        default_strategy=routing,
        caches_prefixes=options.caches_prefixes if options else False,
        inference_component=uses_inference_component(req.kind, req.capacity.min) and host is not None,
        model=req.model,
        problems=p,
        path=path,
    )
    p.raise_if_any()
    if decision is None or decision.strategy != "PREFIX_AWARE":
        return None
    reasons.append(decision.reason)
    return decision
