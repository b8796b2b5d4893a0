"""The rules an endpoint request must follow, each adding ``<key path>: <what is wrong>; <how to fix>`` to a
:class:`~inference_constructs.errors.ProblemCollector`. Pure Python (no ``aws_cdk`` import).

Key paths use the config file's key names (``endpoints:``) under the ``path`` prefix given by the caller. Each
rule is written once: the capacity and provisioned-concurrency bounds are the scaling decisions' own checks
(:mod:`inference_constructs.scaling.decisions`), and which endpoint kinds a serving stack can be on a host is
data (``endpoint_kinds`` in ``containers/compatibility.json``, read through
:func:`~inference_constructs.containers.compatibility.endpoint_kinds`). The config loader leaves these rules
to the plan, which runs them with the config's key paths.
"""

from __future__ import annotations

import re

from inference_constructs._tokens import is_unresolved
from inference_constructs.catalog import Catalog, InstanceType
from inference_constructs.containers import (
    ImageVariant,
    image_key,
    validate_user_environment,
)
from inference_constructs.containers.compatibility import endpoint_kinds, variant_hosts
from inference_constructs.containers.model_access import TOKEN_VARIABLES, gated_prefix, is_commit_hash, looks_like_token
from inference_constructs.errors import ProblemCollector
from inference_constructs.hosting.request import EndpointRequest, ServerlessOptions
from inference_constructs.scaling.decisions import (
    check_capacity as check_capacity_bounds,
)
from inference_constructs.scaling.decisions import (
    check_provisioned_concurrency_bounds,
    uses_inference_component,
)
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import (
    AcceleratorChoice,
    EndpointKind,
    ModelSourceKind,
    Serving,
)

# Limits written once: these checks (construct props) and the config schema's ranges and patterns use them.
SERVERLESS_MEMORY_MB = (1024, 2048, 3072, 4096, 5120, 6144)
"""The memory sizes a serverless endpoint accepts, in MB (SageMaker API reference,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantServerlessConfig.html)."""
MAX_SUBNETS = 16
"""Subnets of an endpoint's VPC configuration: 1-16 (SageMaker API reference, VpcConfig,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_VpcConfig.html)."""
MAX_SECURITY_GROUPS = 5
"""Security groups of an endpoint's VPC configuration: 1-5 (SageMaker API reference, VpcConfig)."""
MAX_ASYNC_CONCURRENT_INVOCATIONS = 1000
"""Most concurrent requests per instance of an async endpoint (SageMaker API reference,
AsyncInferenceClientConfig.MaxConcurrentInvocationsPerInstance: 1-1000)."""
S3_URI_PATTERN = r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$"
"""An S3 URI: a bucket name of S3's characters, then an optional key or prefix."""
SUBNET_PATTERN = r"^subnet-[0-9a-f]{8,17}$"
"""A subnet id as EC2 writes it (``subnet-`` and 8 or 17 hex digits; the API accepts any ``[-0-9a-zA-Z]+``)."""
SECURITY_GROUP_PATTERN = r"^sg-[0-9a-f]{8,17}$"
"""A security group id as EC2 writes it (``sg-`` and 8 or 17 hex digits)."""
_S3_URI = re.compile(S3_URI_PATTERN)
_IMAGE_URI = re.compile(r"^[a-z0-9.-]+(:\d+)?/[a-z0-9._/-]+(:[\w.-]+|@sha256:[0-9a-f]{64})$")
_SUBNET = re.compile(SUBNET_PATTERN)
_SECURITY_GROUP = re.compile(SECURITY_GROUP_PATTERN)


def key_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# ------------------------------------------------------------------------------------------------ validation


def check_capacity(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    """Instance-count bounds: the scaling rules (min <= max, min 0 only where the kind can scale to zero), plus
    serverless endpoints, which have no instances."""
    cap = req.capacity
    key = key_path(path, "capacity")
    check_capacity_bounds(p, path, kind=req.kind, min_capacity=cap.min, max_capacity=cap.max, scales=False)
    if cap.min == 0 and req.kind is EndpointKind.SERVERLESS:
        p.add(
            f"{key}.min",
            "0 is not allowed for a serverless endpoint (it has no instances and already scales to zero by itself)",
            "remove capacity; keep warm capacity with serverless.provisioned_concurrency",
        )


def check_s3(uri: str | None, p: ProblemCollector, key: str, *, prefix: bool = False) -> None:
    if uri is None or is_unresolved(uri):
        return
    if not _S3_URI.match(uri):
        p.add(key, f"{uri} is not an s3 uri", "use s3://bucket/prefix/")
    elif prefix and not uri.endswith("/"):
        p.add(key, f"{uri} is not a prefix", "end it with '/'")


def stages_weights(req: EndpointRequest) -> bool:
    """True when a deploy-time job stages the hub model into S3 (``model.hf_token`` without ``in_environment``)."""
    t = req.hf_token
    return (
        t is not None
        and not t.in_environment
        and req.model.source is ModelSourceKind.HUGGINGFACE
        and req.kind is not EndpointKind.MULTI_MODEL
        and req.serving in TOKEN_VARIABLES
    )


def check_model_source(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    m = req.model
    mkey = key_path(path, "model")
    if req.kind is EndpointKind.MULTI_MODEL:
        return  # models come from multi_model.model_data_prefix
    if m.source is ModelSourceKind.HUGGINGFACE:
        if req.serving.is_llm and not m.id:
            p.add(f"{mkey}.id", "is required for source huggingface", "give the hugging face model id")
        if not req.serving.is_llm and req.serving is not Serving.CUSTOM:
            p.add(
                f"{mkey}.source",
                f"huggingface is not supported by serving {req.serving.value}",
                "use source s3 with s3_uri pointing at model.tar.gz",
            )
        if req.network_isolation and not stages_weights(req):
            p.add(
                key_path(path, "network_isolation"),
                "true blocks the container from downloading the model from hugging face",
                "use model.source s3 with the weights in s3, or network_isolation false",
            )
        return
    uri = m.s3_uri
    if not uri:
        p.add(
            f"{mkey}.s3_uri",
            "required when model.source is s3",
            "give s3://bucket/key.tar.gz or s3://bucket/prefix/",
            code="conflict",
        )
        return
    if is_unresolved(uri):
        return
    if not _S3_URI.match(uri) or not (uri.endswith("/") or uri.endswith(".tar.gz")):
        p.add(
            f"{mkey}.s3_uri",
            f"{uri} is neither an archive nor a prefix",
            "use s3://bucket/key.tar.gz or s3://bucket/prefix/",
        )
    elif req.serving.is_llm and not uri.endswith("/"):
        p.add(
            f"{mkey}.s3_uri",
            f"{uri} is an archive; llm weights are served from an uncompressed prefix",
            "upload the weights unpacked and give s3://bucket/prefix/ (an archive is extracted on every start)",
        )
    elif req.kind is EndpointKind.SERVERLESS and uri.endswith("/"):
        p.add(
            f"{mkey}.s3_uri", f"{uri} is a prefix; serverless endpoints need one archive", "give s3://bucket/key.tar.gz"
        )


def check_image(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    key = key_path(path, "image")
    if req.serving is Serving.CUSTOM:
        if not req.image:
            p.add(
                key,
                "required when serving: custom",
                "give the full image uri (account.dkr.ecr.region.amazonaws.com/repo:tag)",
                code="conflict",
            )
        elif not is_unresolved(req.image) and not _IMAGE_URI.match(req.image):
            p.add(
                key,
                f"{req.image} is not an image uri",
                "use registry/repository:tag or registry/repository@sha256:digest",
            )
    elif req.image:
        p.add(key, f"is only used with serving custom, not {req.serving.value}", "remove image, or use serving custom")


def check_serverless(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    s = req.serverless or ServerlessOptions()
    skey = key_path(path, "serverless")
    if EndpointKind.SERVERLESS not in endpoint_kinds(req.serving, ImageVariant.CPU):
        able = ", ".join(v.value for v in Serving if EndpointKind.SERVERLESS in endpoint_kinds(v, ImageVariant.CPU))
        p.add(
            key_path(path, "serving"),
            f"{req.serving.value} needs a gpu or neuron host, but serverless endpoints run on cpu only",
            f"use type realtime or async, or a cpu serving stack ({able})",
        )
    variant = _choice_variant(req.accelerator)
    if variant is not None and not variant_hosts(EndpointKind.SERVERLESS, variant):
        p.add(
            key_path(path, "accelerator"),
            f"{req.accelerator.value} is not available to serverless endpoints (cpu only)",
            "use accelerator auto or cpu, or type realtime",
        )
    if req.instance_type:
        p.add(key_path(path, "instance_type"), "serverless endpoints have no instance type", "remove instance_type")
    if req.multi_model is not None:
        p.add(
            key_path(path, "multi_model"),
            "serverless endpoints cannot host multiple models",
            "use type multi-model on instances, or remove multi_model",
        )
    if req.vpc is not None:
        p.add(
            key_path(path, "vpc"),
            "serverless endpoints do not support vpc configuration",
            "use type realtime, or remove vpc",
        )
    if req.network_isolation:
        p.add(
            key_path(path, "network_isolation"),
            "serverless endpoints do not support network isolation",
            "use type realtime",
        )
    if req.data_capture is not None and req.data_capture.sampling_percent > 0:
        p.add(
            key_path(path, "data_capture"),
            "serverless endpoints do not support data capture",
            "use type realtime, or sampling_percent 0",
        )
    if s.memory_mb is not None and s.memory_mb not in SERVERLESS_MEMORY_MB:
        low, high = SERVERLESS_MEMORY_MB[0], SERVERLESS_MEMORY_MB[-1]
        p.add(f"{skey}.memory_mb", f"{s.memory_mb} is not allowed", f"use {low}..{high} in steps of {low}")
    check_provisioned_concurrency_bounds(
        p, path, min_capacity=s.provisioned_concurrency, max_capacity=s.max_concurrency
    )


def _choice_variant(choice: AcceleratorChoice) -> ImageVariant | None:
    """The image variant an explicit accelerator choice needs (None for ``auto``)."""
    if choice is AcceleratorChoice.AUTO:
        return None
    if choice is AcceleratorChoice.GPU:
        return ImageVariant.GPU
    return ImageVariant.CPU if choice is AcceleratorChoice.CPU else ImageVariant.NEURON


def hosts_kind(kind: EndpointKind, serving: Serving, variant: ImageVariant) -> bool:
    """True when ``serving`` on a ``variant`` host can be a ``kind`` endpoint (the compatibility data)."""
    return kind in endpoint_kinds(serving, variant)


def _kind_servings(kind: EndpointKind, variant: ImageVariant) -> str:
    """The serving stacks that can be a ``kind`` endpoint on a ``variant`` host, for messages (``triton``)."""
    return " or ".join(v.value for v in Serving if v is not Serving.CUSTOM and hosts_kind(kind, v, variant))


def _multi_model_gpu_servings(req: EndpointRequest, variant: ImageVariant) -> str | None:
    """The serving stacks a multi-model ``req`` needs on a gpu ``variant`` host when its own cannot serve there
    (Triton only, for messages); None when it can, or when ``req`` is not multi-model on a gpu host."""
    if req.kind is not EndpointKind.MULTI_MODEL or variant is not ImageVariant.GPU:
        return None
    return None if hosts_kind(req.kind, req.serving, variant) else _kind_servings(req.kind, variant)


def _kind_block(req: EndpointRequest, p: ProblemCollector, path: str, key: str, owner: EndpointKind) -> None:
    """A block that only ``owner`` endpoints read (``serverless``, ``async``, ``multi_model``)."""
    p.add(
        key_path(path, key),
        f"only applies to type: {owner.value}, not {req.kind.value}",
        f"remove {key}, or use type: {owner.value}",
        code="conflict",
    )


def refuse_with_inference_component(
    req: EndpointRequest, p: ProblemCollector, key: str, *, option: str, why: str
) -> None:
    """``option`` (at ``key``) on a real-time endpoint with ``capacity.min`` 0, which is hosted through an inference
    component and whose plan leaves the option out: one conflict, ``why`` saying how that hosting excludes it."""
    if uses_inference_component(req.kind, req.capacity.min):
        p.add(
            key,
            f"a real-time endpoint with capacity.min 0 is hosted through an inference component{why}",
            f"set capacity.min to 1 or more, or remove {option}",
            code="conflict",
        )


def check_kind_blocks(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    if req.kind is not EndpointKind.SERVERLESS and req.serverless is not None:
        _kind_block(req, p, path, "serverless", EndpointKind.SERVERLESS)
    if req.kind is EndpointKind.MULTI_MODEL and req.multi_model is None:
        p.add(
            key_path(path, "multi_model"),
            "required for type: multi-model",
            "add multi_model.model_data_prefix (s3://bucket/models/)",
            code="conflict",
        )
    if req.kind not in (EndpointKind.MULTI_MODEL, EndpointKind.SERVERLESS) and req.multi_model is not None:
        _kind_block(req, p, path, "multi_model", EndpointKind.MULTI_MODEL)
    if req.kind is not EndpointKind.ASYNC and req.async_inference is not None:
        _kind_block(req, p, path, "async", EndpointKind.ASYNC)
    variant = _choice_variant(req.accelerator)
    if req.kind is EndpointKind.MULTI_MODEL and variant is not None:
        if not variant_hosts(req.kind, variant):
            p.add(
                key_path(path, "accelerator"),
                f"multi-model endpoints do not run on {req.accelerator.value}",
                f"use cpu, or gpu with {_kind_servings(req.kind, ImageVariant.GPU)}",
            )
        elif (able := _multi_model_gpu_servings(req, variant)) is not None:
            p.add(
                key_path(path, "accelerator"),
                f"{req.accelerator.value} multi-model endpoints need serving {able}, not {req.serving.value}",
                f"use serving {able}, or accelerator cpu",
            )
    if req.multi_model is not None:
        check_s3(req.multi_model.model_data_prefix, p, key_path(path, "multi_model.model_data_prefix"), prefix=True)
    if req.async_inference is not None:
        a = req.async_inference
        check_s3(a.output_s3_uri, p, key_path(path, "async.output_s3_uri"))
        n = a.max_concurrent_invocations_per_instance
        if n is not None and not 1 <= n <= MAX_ASYNC_CONCURRENT_INVOCATIONS:
            p.add(
                key_path(path, "async.max_concurrent_invocations_per_instance"),
                f"{n} is not allowed",
                f"use 1..{MAX_ASYNC_CONCURRENT_INVOCATIONS}",
            )


def check_network(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    if req.vpc is not None:
        key = key_path(path, "vpc")
        subnets, groups = req.vpc.subnet_ids, req.vpc.security_group_ids
        if not subnets or not groups:
            missing = [n for n, v in (("subnet_ids", subnets), ("security_group_ids", groups)) if not v]
            p.add(
                f"{key}.{missing[0]}" if len(missing) == 1 else key,
                f"{' and '.join(missing)} missing; a vpc needs both subnets and security groups",
                "give both lists, or remove vpc",
                code="conflict",
            )
        if len(subnets) > MAX_SUBNETS:
            p.add(f"{key}.subnet_ids", f"{len(subnets)} subnets are too many", f"use at most {MAX_SUBNETS}")
        if len(groups) > MAX_SECURITY_GROUPS:
            p.add(
                f"{key}.security_group_ids",
                f"{len(groups)} security groups are too many",
                f"use at most {MAX_SECURITY_GROUPS}",
            )
        for i, s in enumerate(subnets):
            if not is_unresolved(s) and not _SUBNET.match(s):
                p.add(f"{key}.subnet_ids[{i}]", f"{s} is not a subnet id", "use subnet-0123456789abcdef0")
        for i, g in enumerate(groups):
            if not is_unresolved(g) and not _SECURITY_GROUP.match(g):
                p.add(f"{key}.security_group_ids[{i}]", f"{g} is not a security group id", "use sg-0123456789abcdef0")
    if req.data_capture is not None:
        dc = req.data_capture
        if not 0 <= dc.sampling_percent <= 100:
            p.add(
                key_path(path, "data_capture.sampling_percent"), f"{dc.sampling_percent} is not allowed", "use 0..100"
            )
        check_s3(dc.s3_uri, p, key_path(path, "data_capture.s3_uri"))


def check_deployment(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    d = req.deployment
    key = key_path(path, "deployment")
    for name, value, low, high in (
        ("canary_size_percent", d.canary_size_percent, 1, 50),
        ("linear_step_percent", d.linear_step_percent, 1, 50),
        ("wait_interval_seconds", d.wait_interval_seconds, 0, 3600),
        ("termination_wait_seconds", d.termination_wait_seconds, 0, 3600),
    ):
        if not low <= value <= high:
            p.add(f"{key}.{name}", f"{value} is not allowed", f"use {low}..{high}")
    if not 0 < d.max_error_rate_percent <= 100:
        p.add(
            f"{key}.max_error_rate_percent",
            f"{d.max_error_rate_percent} is not allowed",
            "use a percent above 0, up to 100",
        )
    if d.max_p99_model_latency_ms is not None and d.max_p99_model_latency_ms <= 0:
        p.add(
            f"{key}.max_p99_model_latency_ms",
            f"{d.max_p99_model_latency_ms} is not allowed",
            "use a positive number of milliseconds",
        )


# ------------------------------------------------------------------------------------------------ host


def has_image(serving: Serving, inst: InstanceType) -> bool:
    if serving is Serving.CUSTOM:
        return True
    return image_key(serving, ImageVariant.for_host(inst.accelerator, inst.architecture)) is not None


def check_explicit_host(req: EndpointRequest, catalog: Catalog, p: ProblemCollector, path: str) -> None:
    """The container/host rules for an explicit instance type, stated before the sizing checks memory."""
    name = req.instance_type
    if name is None or is_unresolved(name):
        return
    inst = catalog.get(name)
    if inst is None:
        return  # sizing reports unknown instance types with suggestions
    key = key_path(path, "instance_type")
    variant = ImageVariant.for_host(inst.accelerator, inst.architecture)
    if inst.accelerator.is_neuron and not has_image(req.serving, inst):
        p.add(
            key,
            f"{name} is an {inst.accelerator.value} host, but serving {req.serving.value} has no neuron container",
            "use serving neuron, lmi or tgi (neuron images), or a gpu/cpu instance type",
        )
    elif req.serving is Serving.NEURON and not inst.accelerator.is_neuron:
        p.add(
            key,
            f"{name} is a {inst.accelerator.value} host, but serving neuron needs inferentia2 or trainium",
            "use an ml.inf2.* or ml.trn1.* instance type, or serving lmi/tgi/vllm on gpu",
        )
    elif (able := _multi_model_gpu_servings(req, variant)) is not None:
        p.add(
            key,
            f"{name} is a gpu host; multi-model endpoints on gpu need serving {able}, not {req.serving.value}",
            f"use serving {able}, or a cpu instance type",
        )
    elif not variant_hosts(req.kind, variant):
        p.add(
            key,
            f"{name} is an {inst.accelerator.value} host; {req.kind.value} endpoints do not run on {variant.value}",
            "use a cpu or single-gpu instance type",
        )
    elif not has_image(req.serving, inst):
        p.add(
            key,
            f"{name} ({inst.architecture}) has no {req.serving.value} image",
            "use an x86_64 instance type, or serving custom",
        )


def check_multi_model_host(req: EndpointRequest, host: HostDecision, p: ProblemCollector, path: str) -> None:
    """A given host (or the sizing's choice) must take the request's kind with its serving stack."""
    inst = host.instance
    able = _multi_model_gpu_servings(req, ImageVariant.for_host(inst.accelerator, inst.architecture))
    if able is not None:
        p.add(
            key_path(path, "serving"),
            f"{req.serving.value} cannot serve a multi-model endpoint on gpu host {inst.name}",
            f"use serving {able} (the only multi-model container on gpu), or accelerator cpu",
        )


def check_model_access(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    """The ``environment`` passthrough, and gated models: they need a route (a token secret, or weights in s3), and
    the token secret a source and stack that download from the hub."""
    m = req.model
    key = key_path(path, "model.hf_token")
    validate_user_environment(req.environment, req.serving, p, key_path(path, "environment"))
    if req.hf_token is not None:
        if looks_like_token(req.hf_token.secret):
            # The value is never repeated: it is a credential that must not reach a log or a template.
            p.add(
                f"{key}.secret",
                "looks like a hugging face token itself, not the name or arn of the secret that holds it",
                "put the token in a secrets manager secret and give that secret's name or arn",
            )
        else:
            for sub, what, fix in req.hf_token.problems():
                p.add(f"{key}.{sub}", what, fix)
        if m.source is not ModelSourceKind.HUGGINGFACE or req.kind is EndpointKind.MULTI_MODEL:
            p.add(key, "is only used when the container downloads from the hugging face hub", "remove hf_token")
        elif req.serving not in TOKEN_VARIABLES:
            p.add(key, f"serving {req.serving.value} does not download from the hugging face hub", "remove hf_token")
        elif not req.hf_token.in_environment:
            _check_staging(req, p, path)
        elif m.revision is not None:
            p.add(
                key_path(path, "model.revision"),
                "is only used when model.hf_token stages the weights into s3",
                "remove model.revision, or remove model.hf_token.in_environment to stage that commit",
            )
        return
    if m.revision is not None:
        p.add(
            key_path(path, "model.revision"),
            "is only used when model.hf_token stages a gated or private model into s3",
            "remove model.revision, or name the token secret in model.hf_token",
        )
    downloads = m.source is ModelSourceKind.HUGGINGFACE and req.serving.is_llm  # the preset downloads model.id
    prefix = gated_prefix(m.id) if downloads else None
    if prefix is not None and req.kind is not EndpointKind.MULTI_MODEL and not req.network_isolation:
        p.add(
            key_path(path, "model.id"),
            f"{m.id} is gated on the hugging face hub ({prefix}*), so the container's download fails without a token",
            "name a secrets manager secret holding a read token in model.hf_token.secret (config) or hf_token= "
            "(python), or stage the weights in s3 (model.source: s3, model.s3_uri: s3://bucket/prefix/)",
        )


def _check_staging(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    """The staged route (``model.hf_token`` without ``in_environment``): a pinned commit, and an endpoint type whose
    Model can load an uncompressed S3 prefix."""
    revision = req.model.revision
    rkey = key_path(path, "model.revision")
    stage_or_opt_in = "or set model.hf_token.in_environment: true to put the token on the model instead (plaintext)"
    if revision is None:
        p.add(
            rkey,
            "is required when model.hf_token stages the weights into s3 (the copy is made once per revision)",
            "pin the commit id from the model page's files and versions tab (40 hex characters), " + stage_or_opt_in,
        )
    elif not is_unresolved(revision) and not is_commit_hash(revision):
        p.add(
            rkey,
            f"{revision!r} is not a commit id: a branch or tag moves, and the staged copy would silently go stale",
            "use the full 40-character commit id from the model page's files and versions tab, " + stage_or_opt_in,
        )
    if req.kind is EndpointKind.SERVERLESS:
        p.add(
            key_path(path, "model.hf_token"),
            "staging into s3 is not offered for serverless endpoints",
            "use type realtime or async, or stage the weights yourself (model.source: s3)",
        )
