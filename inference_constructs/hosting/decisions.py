"""Hosting decisions: from an endpoint request to everything its resources need, with reasons.

Pure Python (no ``aws_cdk`` import). The constructs in this package translate an
:class:`EndpointPlan` into CloudFormation; the ``plan`` command and the tests reuse it directly.

Every user mistake found is collected and raised together as one :class:`InferenceConfigError`
whose lines read ``<key path>: <what is wrong>; <how to fix>``. Key paths use the config file's
key names (CONFIG.md ``endpoints:``) under the ``path`` prefix given by the caller.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from inference_constructs._tokens import is_unresolved
from inference_constructs.catalog import Catalog, InstanceType, load_catalog
from inference_constructs.containers import (
    MODEL_DIR,
    ContainerImage,
    ImageVariant,
    ServingParameters,
    container_environment,
    default_quantization,
    image_key,
    select_image,
    validate_environment,
    validate_quantization,
    validate_user_environment,
)
from inference_constructs.containers.model_access import TOKEN_VARIABLES, HfTokenSecret, gated_prefix
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.sizing import HostDecision, choose_host
from inference_constructs.spec import (
    Accelerator,
    AcceleratorChoice,
    EndpointKind,
    ModelSourceKind,
    ModelSpec,
    Serving,
)

__all__ = [
    "DEFAULT_VARIANT_NAME",
    "AsyncOptions",
    "Capacity",
    "DataCaptureOptions",
    "DeploymentOptions",
    "DeploymentStrategy",
    "EndpointPlan",
    "EndpointRequest",
    "InferenceComponentPlan",
    "ModelData",
    "ModelDataKind",
    "MultiModelOptions",
    "ServerlessOptions",
    "VpcOptions",
    "plan_endpoint",
    "startup_timeouts",
]

DEFAULT_VARIANT_NAME = "AllTraffic"
"""Production variant name. Blue/green updates need the same variant name in the new config."""

SERVERLESS_MEMORY_MB = (1024, 2048, 3072, 4096, 5120, 6144)
_MIN_TIMEOUT_S, _MAX_TIMEOUT_S = 60, 3600
_MAX_VOLUME_GB = 512
_S3_URI = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$")
_IMAGE_URI = re.compile(r"^[a-z0-9.-]+(:\d+)?/[a-z0-9._/-]+(:[\w.-]+|@sha256:[0-9a-f]{64})$")
_SUBNET = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_SECURITY_GROUP = re.compile(r"^sg-[0-9a-f]{8,17}$")


class DeploymentStrategy(StrEnum):
    """How an endpoint update shifts traffic from the old fleet (blue) to the new one (green).

    All are SageMaker blue/green deployments with automatic rollback on the endpoint's alarms:
    ``all-at-once`` shifts everything at once and ends without a baking period; ``blue-green``
    shifts everything at once and keeps the old fleet during a baking period; ``canary`` shifts a
    small share first; ``linear`` shifts in equal steps.
    """

    ALL_AT_ONCE = "all-at-once"
    BLUE_GREEN = "blue-green"
    CANARY = "canary"
    LINEAR = "linear"


@dataclass(frozen=True)
class Capacity:
    """Instance count bounds (the scaling range).

    ``min`` 0 only where the kind can scale to zero: async endpoints (on their backlog) and real-time
    endpoints, which are then hosted through an inference component. Not used by serverless endpoints.
    """

    min: int = 1
    max: int = 1


@dataclass(frozen=True)
class ServerlessOptions:
    """Serverless variant settings.

    Parameters
    ----------
    memory_mb:
        1024..6144 in steps of 1024. Default: the smallest size that holds the model (2048 when its size
        is unknown).
    max_concurrency:
        1..200 concurrent invocations. Default: 20.
    provisioned_concurrency:
        0..``max_concurrency`` warm instances (0 = none, every cold start is paid by a request). Default: 0.
    """

    memory_mb: int | None = None
    max_concurrency: int = 20
    provisioned_concurrency: int = 0


@dataclass(frozen=True)
class AsyncOptions:
    """Asynchronous inference settings.

    Parameters
    ----------
    output_s3_uri:
        ``s3://bucket/prefix`` for results (failures go under ``<prefix>/failures``). Default: a
        prefix in the stack's shared, encrypted inference bucket.
    max_concurrent_invocations_per_instance:
        1..1000 requests each instance works on at once. Default: SageMaker picks (the container's
        worker count); the library sets ``max_concurrent_sequences`` for LLM serving stacks.
    notifications:
        Publish success and error notifications to two KMS-encrypted SNS topics. Default: yes.
    """

    output_s3_uri: str | None = None
    max_concurrent_invocations_per_instance: int | None = None
    notifications: bool = True


@dataclass(frozen=True)
class MultiModelOptions:
    """Multi-model endpoint settings: the S3 prefix holding one ``.tar.gz`` per model, and the model cache."""

    model_data_prefix: str
    cache: bool = True


@dataclass(frozen=True)
class VpcOptions:
    """Subnets and security groups for the endpoint's ENIs; both lists must be non-empty."""

    subnet_ids: tuple[str, ...] = ()
    security_group_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class DataCaptureOptions:
    """Capture requests and responses to S3. ``sampling_percent`` 0 disables capture.

    ``s3_uri`` Default: a prefix in the stack's shared, encrypted inference bucket.
    """

    sampling_percent: int = 0
    s3_uri: str | None = None


@dataclass(frozen=True)
class DeploymentOptions:
    """Blue/green update policy.

    Parameters
    ----------
    strategy:
        Traffic shifting mode. Default: ``blue-green`` (all at once, then a baking period).
    rollback_on_alarms:
        Create a 5XX-rate alarm and a p99 ModelLatency alarm and roll back when either fires during
        an update. Default: yes.
    canary_size_percent:
        Share of capacity that gets traffic first with ``canary``. Default: 10.
    linear_step_percent:
        Share of capacity added per step with ``linear``. Default: 25.
    wait_interval_seconds:
        Baking time between traffic shifts, 0..3600. Default: 300.
    termination_wait_seconds:
        Time the old fleet is kept after the full shift, 0..3600 (0 for ``all-at-once``). Default: 600.
    max_error_rate_percent:
        5XX errors per invocation (percent) that trip the rollback alarm. Default: 5.
    max_p99_model_latency_ms:
        p99 ModelLatency (milliseconds) that trips the rollback alarm. Default: 60000 for LLM serving
        stacks (whole generations), 2000 otherwise.
    """

    strategy: DeploymentStrategy = DeploymentStrategy.BLUE_GREEN
    rollback_on_alarms: bool = True
    canary_size_percent: int = 10
    linear_step_percent: int = 25
    wait_interval_seconds: int = 300
    termination_wait_seconds: int = 600
    max_error_rate_percent: float = 5.0
    max_p99_model_latency_ms: float | None = None


@dataclass(frozen=True)
class EndpointRequest:
    """Everything a user says about one endpoint (config entry or construct props).

    ``kms_key_arn`` may be a CDK token; only its presence matters here.
    """

    kind: EndpointKind
    model: ModelSpec
    serving: Serving
    image: str | None = None
    accelerator: AcceleratorChoice = AcceleratorChoice.AUTO
    instance_type: str | None = None
    capacity: Capacity = field(default_factory=Capacity)
    serverless: ServerlessOptions | None = None
    async_inference: AsyncOptions | None = None
    multi_model: MultiModelOptions | None = None
    kms_key_arn: str | None = None
    vpc: VpcOptions | None = None
    network_isolation: bool = False
    data_capture: DataCaptureOptions | None = None
    deployment: DeploymentOptions = field(default_factory=DeploymentOptions)
    quantization: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    """Extra container variables, merged after the library's; keys the library writes are refused."""
    hf_token: HfTokenSecret | None = None
    """Secrets Manager secret with a Hugging Face token for a gated or private model (source huggingface)."""


class ModelDataKind(StrEnum):
    """How the weights reach the container."""

    NONE = "none"
    """The container downloads them (Hugging Face id)."""
    ARCHIVE = "archive"
    """``ModelDataUrl``: one ``.tar.gz`` SageMaker downloads and extracts to /opt/ml/model."""
    PREFIX = "prefix"
    """``ModelDataSource``: an uncompressed S3 prefix SageMaker copies to /opt/ml/model."""
    MULTI_MODEL = "multi-model"
    """``ModelDataUrl`` is the prefix of many ``.tar.gz`` models, loaded on demand."""


@dataclass(frozen=True)
class ModelData:
    """Where the weights are; ``bucket``/``key_prefix`` scope the execution role's S3 read."""

    kind: ModelDataKind
    uri: str | None = None

    @property
    def bucket(self) -> str | None:
        """The S3 bucket name, or ``None``."""
        if not self.uri:
            return None
        return self.uri[len("s3://") :].split("/", 1)[0]

    @property
    def key_prefix(self) -> str:
        """The object key (archive) or key prefix (prefix, multi-model) read by the role; '' for a whole bucket."""
        if not self.uri:
            return ""
        rest = self.uri[len("s3://") :].split("/", 1)
        return rest[1] if len(rest) > 1 else ""


@dataclass(frozen=True)
class InferenceComponentPlan:
    """How a real-time endpoint with ``capacity.min: 0`` hosts its model: through one inference component.

    Real-time endpoints reach zero instances only this way. The variant uses managed instance scaling
    (0..``max_instance_count``) and names no model; the component reserves the whole host per copy, so one
    copy fills one instance and copies and instances scale together.

    Parameters
    ----------
    accelerator_devices:
        ``NumberOfAcceleratorDevicesRequired``: the host's GPUs, or its Neuron devices; 0 on a CPU host.
    min_memory_required_mb:
        ``MinMemoryRequiredInMb``: host RAM the model needs to load (its weights, or the sizing's host-RAM
        estimate), at most 90% of the host's RAM.
    max_instance_count:
        ``ManagedInstanceScaling.MaxInstanceCount`` and the most copies (``capacity.max``).
    model_data_download_timeout_seconds, container_startup_health_check_timeout_seconds:
        The component's start-up parameters (the variant has none). ``None``: SageMaker's defaults.
    """

    accelerator_devices: int
    min_memory_required_mb: int
    max_instance_count: int
    model_data_download_timeout_seconds: int | None = None
    container_startup_health_check_timeout_seconds: int | None = None


@dataclass(frozen=True)
class EndpointPlan:
    """The decisions for one endpoint; the constructs only translate these into resources.

    ``reasons`` explains each non-obvious choice in one sentence.
    """

    kind: EndpointKind
    serving: Serving
    host: HostDecision | None
    accelerator: Accelerator
    image: ContainerImage | None
    custom_image: str | None
    environment: Mapping[str, str]
    model_data: ModelData
    variant_name: str
    initial_instance_count: int | None
    capacity: Capacity
    model_data_download_timeout_seconds: int | None
    container_startup_health_check_timeout_seconds: int | None
    routing_strategy: str | None
    volume_size_gb: int | None
    kms_key_arn: str | None
    kms_omitted_reason: str | None
    serverless: ServerlessOptions | None
    async_inference: AsyncOptions | None
    max_concurrent_invocations_per_instance: int | None
    multi_model: MultiModelOptions | None
    vpc: VpcOptions | None
    network_isolation: bool
    data_capture: DataCaptureOptions | None
    deployment: DeploymentOptions
    rollback_p99_model_latency_ms: float
    reasons: tuple[str, ...]
    inference_component: InferenceComponentPlan | None = None
    """Set for a real-time endpoint with ``capacity.min: 0``: the model is hosted through an inference component."""

    @property
    def uses_inference_component(self) -> bool:
        """True when the model is hosted through an inference component (real-time scale to zero)."""
        return self.inference_component is not None

    @property
    def instance_type(self) -> str | None:
        """The instance type, or ``None`` for serverless endpoints."""
        return self.host.instance.name if self.host else None

    @property
    def gpu_count(self) -> int:
        """GPUs per instance (GPU metrics on ``/aws/sagemaker/Endpoints`` run 0..100 x this)."""
        if self.host is None or self.host.instance.accelerator is not Accelerator.GPU:
            return 0
        return self.host.instance.devices

    @property
    def data_capture_enabled(self) -> bool:
        """True when a sampling percent above 0 was given."""
        return self.data_capture is not None and self.data_capture.sampling_percent > 0


def _key(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


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


# ------------------------------------------------------------------------------------------------ validation


def _check_capacity(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    cap = req.capacity
    key = _key(path, "capacity")
    if cap.min < 0:
        p.add(f"{key}.min", f"{cap.min} is negative", "use 0 or more")
    if cap.max < 1:
        p.add(f"{key}.max", f"{cap.max} is below 1", "use at least 1")
    if cap.min > cap.max:
        p.add(key, f"min {cap.min} is above max {cap.max}", "make min <= max")
    if cap.min == 0 and req.kind is EndpointKind.MULTI_MODEL:
        p.add(
            f"{key}.min",
            "0 is not allowed for a multi-model endpoint (only inference components scale a real-time endpoint to "
            "zero, and they host one model each)",
            "use min 1, or one realtime endpoint per model with min 0",
        )
    elif cap.min == 0 and req.kind is EndpointKind.SERVERLESS:
        p.add(
            f"{key}.min",
            "0 is not allowed for a serverless endpoint (it has no instances and already scales to zero by itself)",
            "remove capacity; keep warm capacity with serverless.provisioned_concurrency",
        )


def _check_s3(uri: str | None, p: ProblemCollector, key: str, *, prefix: bool = False) -> None:
    if uri is None or is_unresolved(uri):
        return
    if not _S3_URI.match(uri):
        p.add(key, f"{uri} is not an s3 uri", "use s3://bucket/prefix/")
    elif prefix and not uri.endswith("/"):
        p.add(key, f"{uri} is not a prefix", "end it with '/'")


def _check_model_source(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    m = req.model
    mkey = _key(path, "model")
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
        if req.network_isolation:
            p.add(
                _key(path, "network_isolation"),
                "true blocks the container from downloading the model from hugging face",
                "use model.source s3 with the weights in s3, or network_isolation false",
            )
        return
    uri = m.s3_uri
    if not uri:
        p.add(f"{mkey}.s3_uri", "is required for source s3", "give s3://bucket/key.tar.gz or s3://bucket/prefix/")
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


def _check_model_access(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    """Gated models need a route (a token secret, or weights in s3); the token secret needs a stack that reads it."""
    m = req.model
    key = _key(path, "model.hf_token")
    validate_user_environment(req.environment, req.serving, p, _key(path, "environment"))
    if req.hf_token is not None:
        for sub, what, fix in req.hf_token.problems():
            p.add(f"{key}.{sub}", what, fix)
        if m.source is not ModelSourceKind.HUGGINGFACE or req.kind is EndpointKind.MULTI_MODEL:
            p.add(key, "is only used when the container downloads from the hugging face hub", "remove hf_token")
        elif req.serving not in TOKEN_VARIABLES:
            p.add(key, f"serving {req.serving.value} does not download from the hugging face hub", "remove hf_token")
        return
    prefix = gated_prefix(m.id) if m.source is ModelSourceKind.HUGGINGFACE else None
    if prefix is not None and req.kind is not EndpointKind.MULTI_MODEL and not req.network_isolation:
        p.add(
            _key(path, "model.id"),
            f"{m.id} is gated on the hugging face hub ({prefix}*), so the container's download fails without a token",
            "name a secrets manager secret holding a read token in model.hf_token.secret, or stage the weights in s3 "
            "(model.source: s3, model.s3_uri: s3://bucket/prefix/)",
        )


def _token_environment(req: EndpointRequest, reasons: list[str]) -> dict[str, str]:
    token = req.hf_token
    variable = TOKEN_VARIABLES.get(req.serving)
    if token is None or variable is None:
        return {}
    reasons.append(
        f"{variable.name} is a cloudformation dynamic reference to secret {token.secret}: resolved when the model is "
        "created, so the token is in no template or plan; it is visible in DescribeModel, and a rotated token "
        "reaches the endpoint only with a deploy that replaces the model (change model.hf_token.version_id)"
    )
    return {variable.name: token.dynamic_reference}


def _check_image(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    key = _key(path, "image")
    if req.serving is Serving.CUSTOM:
        if not req.image:
            p.add(
                key,
                "is required for serving custom",
                "give the full image uri (account.dkr.ecr.region.amazonaws.com/repo:tag)",
            )
        elif not is_unresolved(req.image) and not _IMAGE_URI.match(req.image):
            p.add(
                key,
                f"{req.image} is not an image uri",
                "use registry/repository:tag or registry/repository@sha256:digest",
            )
    elif req.image:
        p.add(key, f"is only used with serving custom, not {req.serving.value}", "remove image, or use serving custom")


def _check_serverless(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    s = req.serverless or ServerlessOptions()
    skey = _key(path, "serverless")
    if req.serving.is_llm:
        p.add(
            _key(path, "serving"),
            f"{req.serving.value} needs a gpu or neuron host, but serverless endpoints run on cpu only",
            "use type realtime or async, or a cpu serving stack (sklearn, xgboost, pytorch, triton, custom)",
        )
    if req.accelerator not in (AcceleratorChoice.AUTO, AcceleratorChoice.CPU):
        p.add(
            _key(path, "accelerator"),
            f"{req.accelerator.value} is not available to serverless endpoints (cpu only)",
            "use accelerator auto or cpu, or type realtime",
        )
    if req.instance_type:
        p.add(_key(path, "instance_type"), "serverless endpoints have no instance type", "remove instance_type")
    if req.multi_model is not None:
        p.add(
            _key(path, "multi_model"),
            "serverless endpoints cannot host multiple models",
            "use type multi-model on instances, or remove multi_model",
        )
    if req.vpc is not None:
        p.add(
            _key(path, "vpc"),
            "serverless endpoints do not support vpc configuration",
            "use type realtime, or remove vpc",
        )
    if req.network_isolation:
        p.add(
            _key(path, "network_isolation"),
            "serverless endpoints do not support network isolation",
            "use type realtime",
        )
    if req.data_capture is not None and req.data_capture.sampling_percent > 0:
        p.add(
            _key(path, "data_capture"),
            "serverless endpoints do not support data capture",
            "use type realtime, or sampling_percent 0",
        )
    if s.memory_mb is not None and s.memory_mb not in SERVERLESS_MEMORY_MB:
        p.add(f"{skey}.memory_mb", f"{s.memory_mb} is not allowed", "use 1024..6144 in steps of 1024")
    if not 1 <= s.max_concurrency <= 200:
        p.add(f"{skey}.max_concurrency", f"{s.max_concurrency} is not allowed", "use 1..200")
    if not 0 <= s.provisioned_concurrency <= 200:
        p.add(f"{skey}.provisioned_concurrency", f"{s.provisioned_concurrency} is not allowed", "use 0..200")
    elif s.provisioned_concurrency > s.max_concurrency:
        p.add(
            f"{skey}.provisioned_concurrency",
            f"{s.provisioned_concurrency} is above max_concurrency {s.max_concurrency}",
            "keep it at or below max_concurrency",
        )


def _check_kind_blocks(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    if req.kind is not EndpointKind.SERVERLESS and req.serverless is not None:
        where = "multi-model endpoints run on instances" if req.kind is EndpointKind.MULTI_MODEL else "it is not used"
        p.add(
            _key(path, "serverless"),
            f"is set for a {req.kind.value} endpoint; {where}",
            "remove serverless, or use type serverless",
        )
    if req.kind is EndpointKind.MULTI_MODEL and req.multi_model is None:
        p.add(
            _key(path, "multi_model"),
            "is required for a multi-model endpoint",
            "give model_data_prefix: s3://bucket/models/",
        )
    if req.kind not in (EndpointKind.MULTI_MODEL, EndpointKind.SERVERLESS) and req.multi_model is not None:
        p.add(
            _key(path, "multi_model"),
            f"is set for a {req.kind.value} endpoint",
            "use type multi-model, or remove multi_model",
        )
    if req.kind is not EndpointKind.ASYNC and req.async_inference is not None:
        p.add(_key(path, "async"), f"is set for a {req.kind.value} endpoint", "use type async, or remove async")
    if req.kind is EndpointKind.MULTI_MODEL:
        if req.accelerator is AcceleratorChoice.GPU and req.serving is not Serving.TRITON:
            p.add(
                _key(path, "accelerator"),
                f"gpu multi-model endpoints need serving triton, not {req.serving.value}",
                "use serving triton, or accelerator cpu",
            )
        elif req.accelerator in (AcceleratorChoice.INFERENTIA, AcceleratorChoice.TRAINIUM):
            p.add(
                _key(path, "accelerator"),
                f"multi-model endpoints do not run on {req.accelerator.value}",
                "use cpu, or gpu with triton",
            )
    if req.multi_model is not None:
        _check_s3(req.multi_model.model_data_prefix, p, _key(path, "multi_model.model_data_prefix"), prefix=True)
    if req.async_inference is not None:
        a = req.async_inference
        _check_s3(a.output_s3_uri, p, _key(path, "async.output_s3_uri"))
        n = a.max_concurrent_invocations_per_instance
        if n is not None and not 1 <= n <= 1000:
            p.add(_key(path, "async.max_concurrent_invocations_per_instance"), f"{n} is not allowed", "use 1..1000")


def _check_network(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    if req.vpc is not None:
        key = _key(path, "vpc")
        subnets, groups = req.vpc.subnet_ids, req.vpc.security_group_ids
        if not subnets or not groups:
            missing = " and ".join(n for n, v in (("subnet_ids", subnets), ("security_group_ids", groups)) if not v)
            p.add(
                key,
                f"{missing} missing; a vpc needs both subnets and security groups",
                "give both lists, or remove vpc",
            )
        if len(subnets) > 16:
            p.add(f"{key}.subnet_ids", f"{len(subnets)} subnets are too many", "use at most 16")
        if len(groups) > 5:
            p.add(f"{key}.security_group_ids", f"{len(groups)} security groups are too many", "use at most 5")
        for i, s in enumerate(subnets):
            if not is_unresolved(s) and not _SUBNET.match(s):
                p.add(f"{key}.subnet_ids[{i}]", f"{s} is not a subnet id", "use subnet-0123456789abcdef0")
        for i, g in enumerate(groups):
            if not is_unresolved(g) and not _SECURITY_GROUP.match(g):
                p.add(f"{key}.security_group_ids[{i}]", f"{g} is not a security group id", "use sg-0123456789abcdef0")
    if req.data_capture is not None:
        dc = req.data_capture
        if not 0 <= dc.sampling_percent <= 100:
            p.add(_key(path, "data_capture.sampling_percent"), f"{dc.sampling_percent} is not allowed", "use 0..100")
        _check_s3(dc.s3_uri, p, _key(path, "data_capture.s3_uri"))


def _check_deployment(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    d = req.deployment
    key = _key(path, "deployment")
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


def _has_image(serving: Serving, inst: InstanceType) -> bool:
    if serving is Serving.CUSTOM:
        return True
    return image_key(serving, ImageVariant.for_host(inst.accelerator, inst.architecture)) is not None


def _check_explicit_host(req: EndpointRequest, catalog: Catalog, p: ProblemCollector, path: str) -> None:
    """The container/host rules for an explicit instance type, stated before the sizing checks memory."""
    name = req.instance_type
    if name is None or is_unresolved(name):
        return
    inst = catalog.get(name)
    if inst is None:
        return  # sizing reports unknown instance types with suggestions
    key = _key(path, "instance_type")
    if inst.accelerator.is_neuron and not _has_image(req.serving, inst):
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
    elif (
        req.kind is EndpointKind.MULTI_MODEL
        and inst.accelerator is Accelerator.GPU
        and req.serving is not Serving.TRITON
    ):
        p.add(
            key,
            f"{name} is a gpu host; multi-model endpoints on gpu need serving triton, not {req.serving.value}",
            "use serving triton, or a cpu instance type",
        )
    elif req.kind is EndpointKind.MULTI_MODEL and inst.accelerator.is_neuron:
        p.add(
            key,
            f"{name} is an {inst.accelerator.value} host; multi-model endpoints do not run on neuron",
            "use a cpu or single-gpu instance type",
        )
    elif not _has_image(req.serving, inst):
        p.add(
            key,
            f"{name} ({inst.architecture}) has no {req.serving.value} image",
            "use an x86_64 instance type, or serving custom",
        )


def _choose(req: EndpointRequest, catalog: Catalog, path: str) -> HostDecision:
    multi_gpu_rule = req.kind is EndpointKind.MULTI_MODEL

    def fits_rules(inst: InstanceType) -> bool:
        if not _has_image(req.serving, inst):
            return False
        if multi_gpu_rule:
            if inst.accelerator.is_neuron:
                return False
            if inst.accelerator is Accelerator.GPU and req.serving is not Serving.TRITON:
                return False
        return True

    return choose_host(
        req.model,
        serving=req.serving,
        accelerator=req.accelerator,
        instance_type=req.instance_type,
        catalog=catalog,
        path=path or "endpoint",
        max_devices=1 if multi_gpu_rule else None,
        predicate=fits_rules,
    )


def _check_multi_model_host(req: EndpointRequest, host: HostDecision, p: ProblemCollector, path: str) -> None:
    if req.kind is not EndpointKind.MULTI_MODEL:
        return
    inst = host.instance
    if inst.accelerator is Accelerator.GPU and req.serving is not Serving.TRITON:
        p.add(
            _key(path, "serving"),
            f"{req.serving.value} cannot serve a multi-model endpoint on gpu host {inst.name}",
            "use serving triton (the only multi-model container on gpu), or accelerator cpu",
        )


# ------------------------------------------------------------------------------------------------ plan


def _serverless_memory(req: EndpointRequest, reasons: list[str], p: ProblemCollector, path: str) -> int:
    s = req.serverless or ServerlessOptions()
    weights = (req.model.parameters_billion or 0.0) * req.model.dtype.bytes_per_parameter * 1e9 / 2**30
    needed_mb = math.ceil((weights * 1.5 + 1.0) * 1024) if req.model.parameters_billion else 2048
    if s.memory_mb is not None:
        if req.model.parameters_billion and s.memory_mb < needed_mb and s.memory_mb in SERVERLESS_MEMORY_MB:
            p.add(
                _key(path, "serverless.memory_mb"),
                f"{s.memory_mb} MB cannot hold a {weights:.1f} GB model (needs about {needed_mb} MB)",
                "raise memory_mb (max 6144), quantize the model, or use type realtime",
            )
        return s.memory_mb
    fitting = [m for m in SERVERLESS_MEMORY_MB if m >= needed_mb]
    if not fitting:
        p.add(
            _key(path, "model"),
            f"a {weights:.1f} GB model needs about {needed_mb} MB, above serverless' 6144 MB",
            "use type realtime or async, or a smaller model",
        )
        return SERVERLESS_MEMORY_MB[-1]
    reasons.append(f"serverless memory {fitting[0]} MB: the smallest size that holds about {needed_mb} MB")
    return fitting[0]


def _model_data(req: EndpointRequest) -> ModelData:
    if req.kind is EndpointKind.MULTI_MODEL and req.multi_model is not None:
        return ModelData(ModelDataKind.MULTI_MODEL, req.multi_model.model_data_prefix)
    m = req.model
    if m.source is ModelSourceKind.S3 and m.s3_uri:
        kind = ModelDataKind.PREFIX if m.s3_uri.endswith("/") else ModelDataKind.ARCHIVE
        return ModelData(kind, m.s3_uri)
    return ModelData(ModelDataKind.NONE)


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
    return InferenceComponentPlan(
        accelerator_devices=devices,
        min_memory_required_mb=memory_mb,
        max_instance_count=req.capacity.max,
        model_data_download_timeout_seconds=download_s,
        container_startup_health_check_timeout_seconds=startup_s,
    )


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
    _check_capacity(req, p, path)
    _check_kind_blocks(req, p, path)
    _check_model_source(req, p, path)
    _check_image(req, p, path)
    _check_network(req, p, path)
    _check_deployment(req, p, path)
    _check_model_access(req, p, path)
    serverless_opts: ServerlessOptions | None = None
    if req.kind is EndpointKind.SERVERLESS:
        _check_serverless(req, p, path)
        memory = _serverless_memory(req, reasons, p, path)
        s = req.serverless or ServerlessOptions()
        serverless_opts = ServerlessOptions(memory, s.max_concurrency, s.provisioned_concurrency)
        host = None
        accelerator = Accelerator.CPU
    else:
        _check_explicit_host(req, cat, p, path)
        if host is None and not p:
            try:
                host = _choose(req, cat, path)
            except InferenceConfigError as err:
                p.extend(err.problems)
        if host is not None:
            _check_multi_model_host(req, host, p, path)
        accelerator = host.accelerator if host else Accelerator.CPU
    quantization = req.quantization or default_quantization(req.serving, accelerator, req.model.dtype)
    validate_quantization(req.serving, accelerator, req.quantization, p, _key(path, "quantization"))
    p.raise_if_any()

    image: ContainerImage | None = None
    if req.serving is not Serving.CUSTOM:
        architecture = host.instance.architecture if host else "x86_64"
        image = select_image(
            req.serving,
            accelerator,
            architecture=architecture,
            instance_type=host.instance.name if host else "",
            path=_key(path, "serving"),
        )

    llm = req.serving.is_llm
    weights_gb = host.weights_gb if host else 0.0
    download_s: int | None = None
    startup_s: int | None = None
    routing: str | None = None
    volume: int | None = None
    if host is not None:
        if llm or req.model.parameters_billion is not None:
            download_s, startup_s = startup_timeouts(weights_gb, accelerator)
            reasons.append(
                f"model download timeout {download_s} s and start-up health check {startup_s} s "
                f"for {weights_gb:.1f} GB of weights on {accelerator.value}"
            )
        if llm:
            routing = "LEAST_OUTSTANDING_REQUESTS"
            reasons.append("least outstanding requests routing: llm requests vary in length by orders of magnitude")
        if not host.instance.local_nvme and weights_gb > 15:
            volume = min(_MAX_VOLUME_GB, math.ceil(weights_gb * 3 + 30))
            reasons.append(
                f"ml storage volume {volume} GB: room for the download, the loaded copy and compiled artifacts "
                f"of {weights_gb:.1f} GB of weights on an EBS-only host"
            )

    model_data = _model_data(req)
    if llm and model_data.kind is ModelDataKind.NONE:
        location: str | None = req.model.id
    elif llm:
        location = MODEL_DIR
    else:
        location = None
    tp = host.tensor_parallel_degree if host else 1
    env = container_environment(
        ServingParameters(
            serving=req.serving,
            accelerator=accelerator,
            model_location=location,
            tensor_parallel_degree=max(1, tp),
            max_model_len=req.model.max_context_tokens,
            max_concurrent_sequences=req.model.max_concurrent_sequences,
            dtype=req.model.dtype,
            quantization=quantization if llm else None,
            model_loading_timeout_seconds=startup_s if llm else None,
        ),
        {**req.environment, **_token_environment(req, reasons)},
    )
    limits = ProblemCollector()
    validate_environment(env, limits, _key(path, "environment"))
    limits.raise_if_any()

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

    max_invocations: int | None = None
    if req.kind is EndpointKind.ASYNC:
        a = req.async_inference or AsyncOptions()
        max_invocations = a.max_concurrent_invocations_per_instance
        if max_invocations is None and llm:
            max_invocations = req.model.max_concurrent_sequences
            reasons.append(f"async concurrency per instance {max_invocations}: the server's concurrent sequences")

    component: InferenceComponentPlan | None = None
    if req.kind is EndpointKind.REALTIME and req.capacity.min == 0 and host is not None:
        component = _inference_component(req, host, download_s, startup_s, reasons)

    latency = req.deployment.max_p99_model_latency_ms or (60_000.0 if llm else 2_000.0)
    initial = None if req.kind is EndpointKind.SERVERLESS else max(1, req.capacity.min)
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
        network_isolation=req.network_isolation,
        data_capture=req.data_capture,
        deployment=req.deployment,
        rollback_p99_model_latency_ms=latency,
        reasons=tuple(reasons),
        inference_component=component,
    )
