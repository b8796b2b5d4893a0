"""Hosting decisions: from an endpoint request to everything its resources need, with reasons.

Pure Python (no ``aws_cdk`` import). The constructs in this package translate an
:class:`EndpointPlan` into CloudFormation; the ``plan`` command and the tests reuse it directly.

Every user mistake found is collected and raised together as one :class:`InferenceConfigError`
whose lines read ``<key path>: <what is wrong>; <how to fix>``. Key paths use the config file's
key names (``endpoints:``) under the ``path`` prefix given by the caller.
"""

from __future__ import annotations

import math
from types import MappingProxyType

from inference_constructs._lazy import moved_names
from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.containers import (
    MODEL_DIR,
    ContainerImage,
    ServingParameters,
    container_environment,
    default_quantization,
    select_image,
    validate_environment,
    validate_quantization,
)
from inference_constructs.containers.model_access import (
    TOKEN_VARIABLES,
    ModelAccess,
    ModelStaging,
    TokenRoute,
    staged_key_prefix,
)
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.hosting.checks import (
    SERVERLESS_MEMORY_MB,
    check_capacity,
    check_deployment,
    check_explicit_host,
    check_image,
    check_kind_blocks,
    check_model_access,
    check_model_source,
    check_multi_model_host,
    check_network,
    check_serverless,
    key_path,
    stages_weights,
)
from inference_constructs.hosting.deployment import plan_deployment
from inference_constructs.hosting.endpoint_plan import (
    EndpointPlan,
    InferenceComponentPlan,
    ModelData,
    ModelDataKind,
    ServerlessPlan,
)
from inference_constructs.hosting.host_ami import HostAmiDecision, decide_host_ami
from inference_constructs.hosting.metrics_config import check_metrics, decide_metrics_config
from inference_constructs.hosting.pools import check_instance_pools, plan_instance_pools, ranked_first_host
from inference_constructs.hosting.request import AsyncOptions, EndpointRequest, ServerlessOptions
from inference_constructs.hosting.reservation import check_capacity_reservation, decide_reservation, reservation_warning
from inference_constructs.hosting.serving_rules import decide_options, decide_prefix_routing, host_filter, sized_model
from inference_constructs.isolation import decide_isolation
from inference_constructs.scaling.decisions import uses_inference_component
from inference_constructs.sizing import GPU_USABLE_FRACTION, HostDecision, choose_host
from inference_constructs.spec import (
    Accelerator,
    EndpointKind,
    ModelSourceKind,
    Serving,
)

__all__ = [
    "DEFAULT_VARIANT_NAME",
    "AsyncOptions",
    "EndpointPlan",
    "EndpointRequest",
    "InferenceComponentPlan",
    "ModelData",
    "ModelDataKind",
    "ServerlessOptions",
    "ServerlessPlan",
    "plan_endpoint",
    "startup_timeouts",
]

#: The request types this module re-exported, kept for one release: they live in ``hosting.request``.
__getattr__ = moved_names(
    __name__,
    dict.fromkeys(
        (
            "Capacity",
            "DataCaptureOptions",
            "DeploymentOptions",
            "DeploymentStrategy",
            "MultiModelOptions",
            "VpcOptions",
        ),
        "inference_constructs.hosting.request",
    ),
)

DEFAULT_VARIANT_NAME = "AllTraffic"
"""Production variant name. Blue/green updates need the same variant name in the new config."""
#: Endpoint kinds a production variant's ``RoutingConfig`` is emitted for. SageMaker documents routing strategies
#: for real-time inference endpoints (developer guide, routing strategies of real-time inference; API
#: ``PrefixAwareRoutingConfig``: "on a SageMaker real-time inference endpoint"); no source documents them for
#: asynchronous endpoints, which take requests from their internal queue, nor for multi-model endpoints. So only
#: real-time variants carry one (the refusing side).
ROUTING_STRATEGY_KINDS = frozenset({EndpointKind.REALTIME})

#: ``RuntimeConfig.CopyCount`` of an inference component, the same in every template. Application Auto Scaling owns
#: the copy count after creation (``sagemaker:inference-component:DesiredCopyCount``); the CloudFormation schema marks
#: ``CopyCount`` write-only and the update handler may call ``UpdateInferenceComponentRuntimeConfig`` (it is among the
#: handler's update permissions), so a template value that changed between deployments could set the running copies
#: back. Held constant, an update never changes it. Whether an update that changes only the specification sends the
#: unchanged ``CopyCount`` again is UNCONFIRMED: docs/scaling.md says when to deploy such changes.
COMPONENT_COPIES_AT_CREATE = 1

_MIN_TIMEOUT_S, _MAX_TIMEOUT_S = 60, 3600
_MAX_VOLUME_GB = 512


def startup_timeouts(weights_gb: float, accelerator: Accelerator) -> tuple[int, int]:
    """(model download, container start-up health check) timeouts in seconds for a model of ``weights_gb``.

    Download: 600 s plus 20 s per GB (S3 or the Hub at ~50 MB/s). Start-up: 600 s plus 30 s per GB
    on GPU (loading shards, CUDA graphs), 1200 s plus 60 s per GB on Neuron (ahead-of-time compilation).
    Both are clamped to SageMaker's 60..3600 s.
    """
    download = 600 + 20 * weights_gb
    startup = 1200 + 60 * weights_gb if accelerator.is_neuron else 600 + 30 * weights_gb
    return _clamp_timeout(download), _clamp_timeout(startup)


def _clamp_timeout(seconds: float) -> int:
    return int(min(_MAX_TIMEOUT_S, max(_MIN_TIMEOUT_S, math.ceil(seconds))))


# ------------------------------------------------------------------------------------------------ plan


def _choose(req: EndpointRequest, catalog: Catalog, path: str) -> HostDecision:
    multi_gpu_rule = req.kind is EndpointKind.MULTI_MODEL
    fits_rules = host_filter(req, explicit=req.instance_type is not None)
    return choose_host(
        sized_model(req),
        serving=req.serving,
        accelerator=req.accelerator,
        instance_type=req.instance_type,
        catalog=catalog,
        path=path or "endpoint",
        max_devices=1 if multi_gpu_rule else None,
        predicate=fits_rules,
    )


def _serverless_memory(req: EndpointRequest, reasons: list[str], p: ProblemCollector, path: str) -> int:
    s = req.serverless or ServerlessOptions()
    weights = (req.model.parameters_billion or 0.0) * req.model.dtype.bytes_per_parameter * 1e9 / 2**30
    needed_mb = math.ceil((weights * 1.5 + 1.0) * 1024) if req.model.parameters_billion else 2048
    if s.memory_mb is not None:
        if req.model.parameters_billion and s.memory_mb < needed_mb and s.memory_mb in SERVERLESS_MEMORY_MB:
            p.add(
                key_path(path, "serverless.memory_mb"),
                f"{s.memory_mb} MB cannot hold a {weights:.1f} GB model (needs about {needed_mb} MB)",
                f"raise memory_mb (max {SERVERLESS_MEMORY_MB[-1]}), quantize the model, or use type realtime",
            )
        return s.memory_mb
    fitting = [m for m in SERVERLESS_MEMORY_MB if m >= needed_mb]
    if not fitting:
        p.add(
            key_path(path, "model"),
            f"a {weights:.1f} GB model needs about {needed_mb} MB, above serverless' {SERVERLESS_MEMORY_MB[-1]} MB",
            "use type realtime or async, or a smaller model",
        )
        return SERVERLESS_MEMORY_MB[-1]
    reasons.append(f"serverless memory {fitting[0]} MB: the smallest size that holds about {needed_mb} MB")
    return fitting[0]


def _model_data(req: EndpointRequest, access: ModelAccess | None = None) -> ModelData:
    if req.kind is EndpointKind.MULTI_MODEL and req.multi_model is not None:
        return ModelData(ModelDataKind.MULTI_MODEL, req.multi_model.model_data_prefix)
    if access is not None and access.staging is not None:
        return ModelData(ModelDataKind.PREFIX, staging=access.staging)
    m = req.model
    if m.source is ModelSourceKind.S3 and m.s3_uri:
        kind = ModelDataKind.PREFIX if m.s3_uri.endswith("/") else ModelDataKind.ARCHIVE
        return ModelData(kind, m.s3_uri)
    return ModelData(ModelDataKind.NONE)


def _model_location(req: EndpointRequest, model_data: ModelData) -> str | None:
    """Where an LLM server loads the model from: the hub id without model data, else the model directory."""
    if not req.serving.is_llm:
        return None
    return req.model.id if model_data.kind is ModelDataKind.NONE else MODEL_DIR


_HOST_RAM_SHARE = 0.9
"""Share of host RAM an inference component may reserve; SageMaker's agents and the OS keep the rest."""


def _inference_component(
    req: EndpointRequest,
    host: HostDecision,
    download_s: int | None,
    startup_s: int | None,
    reasons: list[str],
) -> InferenceComponentPlan:
    inst = host.instance
    devices = inst.devices if inst.accelerator is not Accelerator.CPU else 0
    needed_gb = max(host.host_ram_required_gb, host.weights_gb, 1.0)
    host_mb = math.floor(inst.memory_gib * 1024 * _HOST_RAM_SHARE)
    memory_mb = max(128, min(math.ceil(needed_gb * 1024), host_mb))
    reasons.append(
        f"capacity.min 0 on a real-time endpoint: hosted through an inference component (the only real-time way to "
        f"zero instances), reserving {devices} {inst.accelerator.value} device(s) and {memory_mb} MiB of host memory "
        f"per copy on {inst.name}, so one copy fills one instance; managed instance scaling 0..{req.capacity.max}"
    )
    reasons.append(
        f"inference component copy count {COMPONENT_COPIES_AT_CREATE} at creation, the same in every template: "
        "auto scaling owns the copies afterwards, and a changed template value could set them back on an update"
    )
    return InferenceComponentPlan(
        accelerator_devices=devices,
        min_memory_required_mb=memory_mb,
        max_instance_count=req.capacity.max,
        initial_instance_count=COMPONENT_COPIES_AT_CREATE,
        model_data_download_timeout_seconds=download_s,
        container_startup_health_check_timeout_seconds=startup_s,
    )


def _serverless_plan(req: EndpointRequest, reasons: list[str], p: ProblemCollector, path: str) -> ServerlessPlan:
    check_serverless(req, p, path)
    memory = _serverless_memory(req, reasons, p, path)
    s = req.serverless or ServerlessOptions()
    return ServerlessPlan(memory, s.max_concurrency, s.provisioned_concurrency)


def _host(
    req: EndpointRequest, host: HostDecision | None, cat: Catalog, p: ProblemCollector, path: str
) -> HostDecision | None:
    """The given host, else the cheapest that fits (when the request has no problem so far), checked."""
    check_explicit_host(req, cat, p, path)
    if host is None and not p:
        try:
            host = _choose(req, cat, path)
        except InferenceConfigError as err:
            p.extend(err.problems)
    if host is not None:
        check_multi_model_host(req, host, p, path)
    return host


def _startup_and_storage(
    req: EndpointRequest, host: HostDecision | None, accelerator: Accelerator, reasons: list[str]
) -> tuple[int | None, int | None, str | None, int | None]:
    """(download timeout, start-up timeout, routing strategy, volume size) of an instance-backed endpoint."""
    download_s: int | None = None
    startup_s: int | None = None
    routing: str | None = None
    volume: int | None = None
    if host is None:
        return download_s, startup_s, routing, volume
    llm = req.serving.is_llm
    weights_gb = host.weights_gb + host.draft_weights_gb  # a speculative draft downloads and loads too
    if llm or req.model.parameters_billion is not None:
        download_s, startup_s = startup_timeouts(weights_gb, accelerator)
        reasons.append(
            f"model download timeout {download_s} s and start-up health check {startup_s} s "
            f"for {weights_gb:.1f} GB of weights on {accelerator.value}"
        )
    if llm and req.kind in ROUTING_STRATEGY_KINDS:
        routing = "LEAST_OUTSTANDING_REQUESTS"
        reasons.append("least outstanding requests routing: llm requests vary in length by orders of magnitude")
    elif llm:
        reasons.append(
            f"no routing strategy: SageMaker documents routing strategies for real-time endpoints only, not {req.kind}"
        )
    volume = ml_storage_volume_gb(host.instance, weights_gb)
    if volume is not None:
        reasons.append(
            f"ml storage volume {volume} GB: room for the download, the loaded copy and compiled artifacts "
            f"of {weights_gb:.1f} GB of weights on an EBS-only host"
        )
    return download_s, startup_s, routing, volume


def ml_storage_volume_gb(inst: InstanceType, weights_gb: float) -> int | None:
    """``VolumeSizeInGB`` for ``weights_gb`` of weights on ``inst``: None on hosts with local NVMe storage and for
    up to 15 GB of weights (the default volume), else room for the download, the loaded copy and compiled artifacts."""
    if inst.local_nvme or weights_gb <= 15:
        return None
    return min(_MAX_VOLUME_GB, math.ceil(weights_gb * 3 + 30))


def _kms(req: EndpointRequest, host: HostDecision | None, reasons: list[str]) -> tuple[str | None, str | None]:
    """(the KMS key for the ML storage volume, or why it is left off)."""
    kms_arn: str | None = req.kms_key_arn
    kms_omitted: str | None = None
    if req.kms_key_arn is None:
        kms_omitted = (
            "no kms key was given (kms_key_arn); sagemaker encrypts the ml storage volume with an aws managed key"
        )
    elif host is not None and host.instance.local_nvme:
        kms_arn = None
        kms_omitted = (
            f"{host.instance.name} has local nvme instance storage: sagemaker does not accept a kms key for it "
            "(the volume is hardware-encrypted with aes-256), so KmsKeyId is left off"
        )
        reasons.append(kms_omitted)
    elif req.kind is EndpointKind.SERVERLESS:
        kms_arn = None
        kms_omitted = "serverless endpoints have no ml storage volume to encrypt with a customer key"
    return kms_arn, kms_omitted


def _async_concurrency(req: EndpointRequest, reasons: list[str]) -> int | None:
    """Concurrent invocations per instance of an async endpoint (the LLM server's sequences by default)."""
    max_invocations: int | None = None
    if req.kind is EndpointKind.ASYNC:
        a = req.async_inference or AsyncOptions()
        max_invocations = a.max_concurrent_invocations_per_instance
        if max_invocations is None and req.serving.is_llm:
            max_invocations = req.model.max_concurrent_sequences
            reasons.append(f"async concurrency per instance {max_invocations}: the server's concurrent sequences")
    return max_invocations


IN_ENVIRONMENT_WARNING = (
    "{path}model.hf_token.in_environment is true: cloudformation resolves secret {secret} into the model's "
    "environment, where anyone allowed sagemaker:DescribeModel reads the token in plain text, and a rotated token "
    "reaches the endpoint only when the model is replaced; remove in_environment and pin model.revision to stage "
    "the weights into s3 instead"
)


def _model_access(req: EndpointRequest) -> ModelAccess | None:
    """The route of a gated or private hub model's token: staged into S3 by a deploy-time job (the default), or the
    token in the container environment (the ``in_environment`` opt-in)."""
    token = req.hf_token
    variable = TOKEN_VARIABLES.get(req.serving)
    if token is None or variable is None:
        return None
    if stages_weights(req) and req.model.id and req.model.revision:
        prefix = staged_key_prefix(req.model.id, req.model.revision)
        return ModelAccess(
            TokenRoute.STAGED,
            token,
            f"weights staged at deploy time: a codebuild job reads secret {token.secret} itself and copies "
            f"{req.model.id} at commit {req.model.revision} into the stack's data bucket under {prefix}; the model "
            "loads that prefix with network isolation, so the token is never on the model, and a rotated secret is "
            "read by the next staging run (a new model.revision)",
            ModelStaging(req.model.id, req.model.revision, prefix, token),
        )
    return ModelAccess(
        TokenRoute.ENVIRONMENT,
        token,
        f"{variable.name} is a cloudformation dynamic reference to secret {token.secret} (model.hf_token."
        "in_environment): resolved when the model is created, so the token is in no template or plan, but it is "
        "stored in the model (DescribeModel shows it) and a rotated token reaches the endpoint only with a deploy "
        "that replaces the model (change model.hf_token.version_id)",
    )


def _token_environment(req: EndpointRequest, access: ModelAccess | None, reasons: list[str]) -> dict[str, str]:
    variable = TOKEN_VARIABLES.get(req.serving)
    if access is None or variable is None:
        return {}
    reasons.append(access.reason)
    if access.route is not TokenRoute.ENVIRONMENT:
        return {}
    return {variable.name: access.secret.dynamic_reference}


def _image_and_ami(
    req: EndpointRequest, host: HostDecision | None, accelerator: Accelerator, reasons: list[str], path: str
) -> tuple[ContainerImage | None, HostAmiDecision]:
    """The pinned image for the serving stack on this host, and the host AMI that runs it (refused when it cannot)."""
    image: ContainerImage | None = None
    if req.serving is not Serving.CUSTOM:
        architecture = host.instance.architecture if host else "x86_64"
        image = select_image(
            req.serving,
            accelerator,
            architecture=architecture,
            instance_type=host.instance.name if host else "",
            path=key_path(path, "serving"),
        )
    ami_problems = ProblemCollector()
    ami = decide_host_ami(
        requested=req.host_ami,
        image_key=image.key if image else None,
        inst=host.instance if host else None,
        p=ami_problems,
        key=key_path(path, "host_ami"),
    )
    ami_problems.raise_if_any()
    if ami.version:
        reasons.append(f"host AMI {ami.reason}")
    return image, ami


def plan_endpoint(
    request: EndpointRequest,
    *,
    host: HostDecision | None = None,
    catalog: Catalog | None = None,
    path: str = "",
) -> EndpointPlan:
    """Decide the host, image, environment, timeouts, routing, storage and update policy of one endpoint.

    Parameters
    ----------
    request:
        What the user asked for.
    host:
        A host decision made elsewhere (e.g. by the plan). Default: chosen here with
        :func:`inference_constructs.sizing.choose_host`, restricted to hosts this preset has an image for
        (and to CPU or single-GPU Triton hosts for multi-model endpoints). Ignored for serverless.
    catalog:
        Instance facts and prices. Default: the packaged catalog.
    path:
        Key path prefix for messages, e.g. ``endpoints[2]``. Default: none (construct props).

    Raises
    ------
    InferenceConfigError
        Every problem found, one per line.
    """
    req = request
    p = ProblemCollector()
    reasons: list[str] = []
    cat = catalog or load_catalog()
    # The checks sizing depends on run first: a problem there leaves the host unchosen. The others (network,
    # deployment, model access) are independent of it, so they run after and a refusal lists both at once.
    for check in (check_capacity, check_kind_blocks, check_model_source, check_image, check_instance_pools):
        check(req, p, path)
    req = ranked_first_host(req)
    serverless_opts: ServerlessPlan | None = None
    if req.kind is EndpointKind.SERVERLESS:
        serverless_opts = _serverless_plan(req, reasons, p, path)
        host = None
    else:
        host = _host(req, host, cat, p, path)
    for check in (check_network, check_deployment, check_model_access, check_capacity_reservation, check_metrics):
        check(req, p, path)
    accelerator = host.accelerator if host else Accelerator.CPU
    quantization = req.quantization or default_quantization(req.serving, accelerator, req.model.dtype)
    validate_quantization(req.serving, accelerator, req.quantization, p, key_path(path, "quantization"))
    p.raise_if_any()

    image, ami = _image_and_ami(req, host, accelerator, reasons, path)

    llm = req.serving.is_llm
    download_s, startup_s, routing, volume = _startup_and_storage(req, host, accelerator, reasons)

    access = _model_access(req)
    model_data = _model_data(req, access)
    location = _model_location(req, model_data)
    options = decide_options(req, host, accelerator, image, reasons, path=path) if llm or req.serving_options else None
    serving_parameters = ServingParameters(
        serving=req.serving,
        accelerator=accelerator,
        model_location=location,
        tensor_parallel_degree=max(1, host.tensor_parallel_degree if host else 1),
        max_model_len=req.model.max_context_tokens,
        max_concurrent_sequences=req.model.max_concurrent_sequences,
        dtype=req.model.dtype,
        quantization=quantization if llm else None,
        model_loading_timeout_seconds=startup_s if llm else None,
        gpu_memory_fraction=GPU_USABLE_FRACTION if llm and accelerator is Accelerator.GPU else None,
    )
    extra_env = {
        **(options.environment if options else {}),
        **req.environment,
        **_token_environment(req, access, reasons),
    }
    env = container_environment(serving_parameters, extra_env)
    limits = ProblemCollector()
    validate_environment(env, limits, key_path(path, "environment"))
    limits.raise_if_any()

    prefix_routing = decide_prefix_routing(req, host, options, routing, reasons, path=path)
    routing = prefix_routing.strategy if prefix_routing is not None else routing

    pools = plan_instance_pools(
        req,
        host,
        catalog=cat,
        path=path,
        image_key=image.key if image else None,
        ami_version=ami.version,
        volume_size_gb=volume,
        parameters=serving_parameters,
        extra_env=extra_env,
        volume_for=ml_storage_volume_gb,
    )
    reservation, metrics_config = decide_reservation(req, host), decide_metrics_config(req)
    reasons.extend(x.reason for x in (pools, reservation, metrics_config) if x is not None)

    kms_arn, kms_omitted = _kms(req, host, reasons)

    max_invocations = _async_concurrency(req, reasons)

    component: InferenceComponentPlan | None = None
    if uses_inference_component(req.kind, req.capacity.min) and host is not None:
        component = _inference_component(req, host, download_s, startup_s, reasons)

    latency = req.deployment.max_p99_model_latency_ms or (60_000.0 if llm else 2_000.0)
    initial = None if req.kind is EndpointKind.SERVERLESS else max(1, req.capacity.min)
    update_policy = plan_deployment(
        req.deployment,
        startup_seconds=(download_s or 0) + (startup_s or 0),
        p99_model_latency_ms=latency,
        inference_component=component is not None,
    )
    isolation = decide_isolation(
        kind=req.kind,
        source=req.model.source,
        serving=req.serving,
        configured=req.network_isolation,
        staged=model_data.staging is not None,
    )
    warnings: tuple[str, ...] = ()
    if access is not None and access.route is TokenRoute.ENVIRONMENT:
        warnings = (IN_ENVIRONMENT_WARNING.format(path=f"{path}." if path else "", secret=access.secret.secret),)
    return EndpointPlan(
        kind=req.kind,
        serving=req.serving,
        host=host,
        accelerator=accelerator,
        image=image,
        custom_image=req.image if req.serving is Serving.CUSTOM else None,
        environment=MappingProxyType(env),
        model_data=model_data,
        variant_name=DEFAULT_VARIANT_NAME,
        initial_instance_count=initial,
        capacity=req.capacity,
        model_data_download_timeout_seconds=download_s,
        container_startup_health_check_timeout_seconds=startup_s,
        routing_strategy=routing,
        volume_size_gb=volume,
        kms_key_arn=kms_arn,
        kms_omitted_reason=kms_omitted,
        serverless=serverless_opts,
        async_inference=(req.async_inference or AsyncOptions()) if req.kind is EndpointKind.ASYNC else None,
        max_concurrent_invocations_per_instance=max_invocations,
        multi_model=req.multi_model,
        vpc=req.vpc,
        network_isolation=isolation.enabled,
        network_isolation_reason=isolation.reason,
        data_capture=req.data_capture,
        deployment=req.deployment,
        rollback_p99_model_latency_ms=latency,
        reasons=tuple(reasons),
        update_policy=update_policy,
        inference_component=component,
        host_ami=ami,
        model_access=access,
        warnings=(*warnings, *([reservation_warning(reservation, path)] if reservation else [])),
        prefix_aware_routing=prefix_routing,
        serving_options=options if options is not None and options.environment else None,
        instance_pools=pools,
        capacity_reservation=reservation,
        metrics_config=metrics_config,
    )
