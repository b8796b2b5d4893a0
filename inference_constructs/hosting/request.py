"""What a user asks of one endpoint: its kind, model, serving stack, capacity and options (config entry or
construct props). Pure Python (no ``aws_cdk`` import); :func:`~inference_constructs.hosting.decisions.plan_endpoint`
turns a request into an :class:`~inference_constructs.hosting.decisions.EndpointPlan`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from inference_constructs._coerce import int_prop, prop_type_error
from inference_constructs.containers.serving_options import ServingOptions
from inference_constructs.errors import InferenceConfigError, Problem
from inference_constructs.hf_token import HfTokenSecret
from inference_constructs.scaling.defaults import (
    DEFAULT_SERVERLESS_MAX_CONCURRENCY,
    DEFAULT_SERVERLESS_PROVISIONED_CONCURRENCY,
)
from inference_constructs.spec import (
    AcceleratorChoice,
    EndpointKind,
    ModelSpec,
    Serving,
)

__all__ = [
    "AdapterRequest",
    "AsyncOptions",
    "Capacity",
    "CapacityLike",
    "CapacityReservation",
    "ComponentRequest",
    "ComponentsOptions",
    "DataCaptureOptions",
    "DeploymentOptions",
    "DeploymentStrategy",
    "EndpointRequest",
    "InstancePoolsLike",
    "MetricsOptions",
    "MultiModelOptions",
    "PlacementStrategy",
    "ServerlessOptions",
    "VpcOptions",
    "coerce_capacity",
]

#: The request's value types (every public name but the capacity coercion): what an app passes to the endpoint
#: constructs; the plan package re-exports them by this list.
REQUEST_TYPES = tuple(name for name in __all__ if name not in ("CapacityLike", "InstancePoolsLike", "coerce_capacity"))

#: What ``instance_pools`` may be: ``"auto"`` (the cheapest hosts that fit, up to
#: :data:`~inference_constructs.hosting.pools.AUTO_POOL_COUNT`), a count of pools (1-5), or an explicit ranked list
#: of instance types (the first is the variant's host).
InstancePoolsLike = str | int | tuple[str, ...]


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


#: What a ``capacity`` prop may be besides a ``Capacity``: ``(min, max)`` or ``{"min": .., "max": ..}``.
CapacityLike = tuple[int, int] | Mapping[str, int]


def coerce_capacity(prop: str, value: Capacity | CapacityLike | None) -> Capacity | None:
    """``value`` as a :class:`Capacity`; ``None`` stays ``None`` (the default).

    Accepts a ``Capacity``, a ``(min, max)`` tuple or list, or a mapping with ``min`` and/or ``max``
    (a missing bound takes the ``Capacity`` default).

    Raises
    ------
    InferenceConfigError
        A pair of the wrong length or an unknown key.
    InferencePropTypeError
        Anything else, or a bound that is not an int.
    """
    if value is None or isinstance(value, Capacity):
        return value
    allowed = "a Capacity, a (min, max) tuple or a {'min': .., 'max': ..} dict of ints"
    if isinstance(value, tuple | list):
        if len(value) != 2:
            raise InferenceConfigError([Problem(prop, f"{value!r} has {len(value)} items", f"use {allowed}", "length")])
        return Capacity(min=int_prop(f"{prop}[0]", value[0]), max=int_prop(f"{prop}[1]", value[1]))
    if isinstance(value, Mapping):
        unknown = sorted(str(k) for k in value if k not in ("min", "max"))
        if unknown:
            raise InferenceConfigError(
                [Problem(f"{prop}.{unknown[0]}", "is not a capacity key", "use min and max", "unknown_key")]
            )
        bounds = {k: int_prop(f"{prop}.{k}", v) for k, v in value.items()}
        return Capacity(**bounds)
    raise prop_type_error(prop, value, allowed)


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
    max_concurrency: int = DEFAULT_SERVERLESS_MAX_CONCURRENCY
    provisioned_concurrency: int = DEFAULT_SERVERLESS_PROVISIONED_CONCURRENCY


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
class CapacityReservation:
    """ML capacity (a SageMaker training plan or ML reservation for endpoints) the variant's instances run on.

    The variant gets ``CapacityReservationConfig`` with ``CapacityReservationPreference:
    capacity-reservations-only``: instances launch only into the reservation, so the endpoint stops serving when
    it ends.

    Parameters
    ----------
    ml_reservation_arn:
        ``MlReservationArn``: ``arn:aws:sagemaker:<region>:<account>:<resource>/<name>`` (e.g. a
        ``training-plan/...`` ARN). The reservation's instance type cannot be read at synth: the endpoint's
        ``instance_type`` must be given explicitly and is assumed to be the reservation's.
    ends_at:
        The reservation's end (``YYYY-MM-DD``), stated in the plan's warning. Default: not stated (the warning
        says the end date is unknown to the plan).
    """

    ml_reservation_arn: str
    ends_at: str | None = None


@dataclass(frozen=True)
class MetricsOptions:
    """The endpoint config's ``MetricsConfig`` (create-only: changing it creates a new endpoint config).

    Parameters
    ----------
    detailed_observability:
        ``EnableDetailedObservability``: container metrics, per-GPU metrics, per-instance host metrics.
        Default: not written, so SageMaker's default applies (on for endpoint configs created after 2026-06-17).
    enhanced_metrics:
        ``EnableEnhancedMetrics``: utilization and invocation metrics per instance and container. Default: not
        written (SageMaker's default: off).
    publish_frequency_seconds:
        ``MetricPublishFrequencyInSeconds``: 10, 30, 60, 120, 180, 240 or 300. Default: not written (SageMaker
        publishes every 60 s).
    """

    detailed_observability: bool | None = None
    enhanced_metrics: bool | None = None
    publish_frequency_seconds: int | None = None

    @property
    def is_set(self) -> bool:
        """True when any field is given (only then is ``MetricsConfig`` written)."""
        return any(
            v is not None for v in (self.detailed_observability, self.enhanced_metrics, self.publish_frequency_seconds)
        )


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


#: ``SchedulingConfig.AvailabilityZoneBalance.MaxImbalance`` range, in copies (the AWS::SageMaker::InferenceComponent
#: schema).
MAX_AZ_IMBALANCE = (0, 100)


class PlacementStrategy(StrEnum):
    """How SageMaker places inference component copies on the variant's instances (``SchedulingConfig``):
    ``SPREAD`` distributes copies evenly across instances (resilience), ``BINPACK`` packs them onto fewer
    instances (utilization) (API reference, ``InferenceComponentSchedulingConfig``)."""

    SPREAD = "SPREAD"
    BINPACK = "BINPACK"


@dataclass(frozen=True)
class ComponentRequest:
    """One model an endpoint hosts as an inference component, with its own copies and scaling.

    Parameters
    ----------
    name:
        The component's name in the config (lowercase letters, digits, hyphens); its construct ids and its
        physical name derive from it.
    model:
        What the component serves (the endpoint's ``model`` shape).
    serving:
        The serving stack of the component's container (the config's default is ``lmi``, as an endpoint's).
    copies:
        Copy count bounds (the component's scaling range). ``min`` 0: the component may scale to zero copies.
        Default: 1..1.
    accelerators_per_copy:
        ``NumberOfAcceleratorDevicesRequired`` per copy. Default: what the sizing needs on the chosen host (the
        devices of the smallest tensor parallel degree that fits).
    memory_mb_per_copy:
        ``MinMemoryRequiredInMb`` per copy. Default: the host RAM the sizing says the weights need to load.
    environment:
        Extra container variables, as the endpoint's ``environment``. Default: none.
    max_lora_rank:
        The largest rank of the LoRA adapters on this component (vLLM ``max_lora_rank``, one of the engine's ranks:
        ``containers/compatibility.json`` ``lora.ranks``); the engine reserves device memory for it in every adapter
        slot, and the sizing counts it. Only with adapters on the component. Default: the engine's default (16).
    """

    name: str
    model: ModelSpec
    serving: Serving
    copies: Capacity = field(default_factory=Capacity)
    """(``InferenceComponentsEndpoint`` also takes ``(min, max)`` or a dict, and ``serving`` as its string.)"""
    accelerators_per_copy: int | None = None
    memory_mb_per_copy: int | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    max_lora_rank: int | None = None


@dataclass(frozen=True)
class AdapterRequest:
    """A LoRA adapter served on a base component (an adapter inference component, ``BaseInferenceComponentName``).

    ``s3_uri`` is the adapter's artifacts in S3 (``Container.ArtifactUrl``); the adapter uses its base's compute
    resources and copies."""

    name: str
    base: str
    s3_uri: str


@dataclass(frozen=True)
class ComponentsOptions:
    """The inference components of a real-time endpoint that hosts several models on one instance type.

    Parameters
    ----------
    components:
        The models, each with its copies; the first is the endpoint's primary component (its ``Model`` and
        ``InferenceComponent`` ids are the endpoint's own).
    adapters:
        LoRA adapters on the components. Default: none.
    placement:
        ``SchedulingConfig.PlacementStrategy`` of every component. Default: not written (SageMaker's placement).
    max_az_imbalance:
        ``SchedulingConfig.AvailabilityZoneBalance.MaxImbalance`` (0..100 copies) with ``PERMISSIVE`` enforcement;
        only with ``placement``. Default: no limit given.
    data_cache:
        ``DataCacheConfig.EnableCaching`` of every component: each instance caches the model artifacts and image,
        for faster scale-out. Default: not written (SageMaker enables it by itself on hosts with more than 232 GiB
        of local NVMe storage).
    """

    components: tuple[ComponentRequest, ...]
    adapters: tuple[AdapterRequest, ...] = ()
    placement: PlacementStrategy | None = None
    max_az_imbalance: int | None = None
    data_cache: bool | None = None


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
    network_isolation: bool | None = None
    """Block the container's network. None: on when the model needs no internet (see ``isolation.decide_isolation``)."""
    data_capture: DataCaptureOptions | None = None
    deployment: DeploymentOptions = field(default_factory=DeploymentOptions)
    quantization: str | None = None
    """Runtime quantization method (the config's ``serving_options.quantization``), e.g. ``awq`` with ``model.dtype``
    int4. Default: ``serving_options.quantization``, else ``fp8`` when ``model.dtype`` is fp8 on a GPU LLM server,
    else none."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """Extra container variables, merged after the library's; keys the library writes are refused."""
    hf_token: HfTokenSecret | None = None
    """Secrets Manager secret with a Hugging Face token for a gated or private model (source huggingface).
    Default: ``model.hf_token``."""
    host_ami: str | None = "auto"
    """``InferenceAmiVersion`` of the production variant. ``auto`` (or None): the plan chooses the AMI whose driver
    runs the image on GPU and Neuron hosts (``hosting/host_ami.py``); an explicit version is checked."""
    instance_pools: InstancePoolsLike | None = None
    """``InstancePools`` of the variant: ``auto``, a count, or a ranked list of instance types
    (``hosting/pools.py``). None: one instance type."""
    instance_provision_timeout_seconds: int | None = None
    """``VariantInstanceProvisionTimeoutInSeconds`` (300..3600), only with ``instance_pools``. None: not written
    (SageMaker's default)."""
    capacity_reservation: CapacityReservation | None = None
    """Run the variant on reserved ML capacity (``CapacityReservationConfig``). None: on-demand capacity."""
    metrics: MetricsOptions | None = None
    """The endpoint config's ``MetricsConfig``. None: not written (SageMaker's defaults)."""
    serving_options: ServingOptions | None = None
    """Speculative decoding, prefix caching, batching limits and routing (the config's ``serving_options``),
    written to the engine's own variables and sized. Default: none (the engine's defaults; LLM real-time endpoints
    route to the instance with the fewest outstanding requests)."""
    components: ComponentsOptions | None = None
    """Host several models as inference components on one instance type (real-time only). None: the endpoint
    hosts ``model`` itself."""

    def __post_init__(self) -> None:
        # One secret per endpoint: a ModelSpec that carries it (Python API) is read the same as the config key.
        if self.hf_token is None and self.model.hf_token is not None:
            object.__setattr__(self, "hf_token", self.model.hf_token)
        # The quantization prop and serving_options.quantization are one setting: either may carry it.
        options_q = self.serving_options.quantization if self.serving_options else None
        if options_q is not None and self.quantization not in (None, options_q):
            raise InferenceConfigError(
                [
                    Problem(
                        "serving_options.quantization",
                        f"{options_q} differs from quantization {self.quantization}",
                        "give the method once",
                        "conflict",
                    )
                ]
            )
        if self.quantization is None and options_q is not None:
            object.__setattr__(self, "quantization", options_q)
