"""What the hosting decisions produce: the plan of one endpoint and its parts (model data, inference
component, serverless compute). Pure Python (no ``aws_cdk`` import); the constructs translate these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from inference_constructs.containers import ContainerImage
from inference_constructs.containers.model_access import ModelAccess, ModelStaging
from inference_constructs.containers.routing import RoutingDecision
from inference_constructs.containers.serving_options import OptionsDecision
from inference_constructs.hosting.deployment import DeploymentPlan
from inference_constructs.hosting.host_ami import HostAmiDecision
from inference_constructs.hosting.metrics_config import MetricsConfigPlan
from inference_constructs.hosting.pools import InstancePoolsPlan
from inference_constructs.hosting.request import (
    AsyncOptions,
    Capacity,
    DataCaptureOptions,
    DeploymentOptions,
    MultiModelOptions,
    PlacementStrategy,
    VpcOptions,
)
from inference_constructs.hosting.reservation import ReservationPlan
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import Accelerator, EndpointKind, Serving

__all__ = [
    "AdapterPlan",
    "ComponentPlan",
    "ComponentsPlan",
    "EndpointPlan",
    "InferenceComponentPlan",
    "ModelData",
    "ModelDataKind",
    "ServerlessPlan",
]


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
    """Where the weights are; ``bucket``/``key_prefix`` scope the execution role's S3 read.

    ``staging`` is set when a deploy-time job copies a hub model into the stack's data bucket: ``uri`` is then
    None (the bucket is created with the stack) and ``key_prefix`` is the staged prefix."""

    kind: ModelDataKind
    uri: str | None = None
    staging: ModelStaging | None = None

    @property
    def bucket(self) -> str | None:
        """The S3 bucket name, or ``None`` (also for staged weights: the stack's data bucket)."""
        if not self.uri:
            return None
        return self.uri[len("s3://") :].split("/", 1)[0]

    @property
    def key_prefix(self) -> str:
        """The object key (archive) or key prefix (prefix, multi-model) read by the role; '' for a whole bucket."""
        if self.staging is not None:
            return self.staging.key_prefix
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
    initial_instance_count: int = 1
    """Instances the variant starts with (the variant's ``InitialInstanceCount``)."""
    model_data_download_timeout_seconds: int | None = None
    container_startup_health_check_timeout_seconds: int | None = None


@dataclass(frozen=True)
class ServerlessPlan:
    """A serverless endpoint's compute: memory (decided: the smallest size that holds the model, unless given),
    concurrency and provisioned concurrency."""

    memory_mb: int
    max_concurrency: int
    provisioned_concurrency: int


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
    serverless: ServerlessPlan | None
    async_inference: AsyncOptions | None
    max_concurrent_invocations_per_instance: int | None
    multi_model: MultiModelOptions | None
    vpc: VpcOptions | None
    network_isolation: bool
    data_capture: DataCaptureOptions | None
    deployment: DeploymentOptions
    rollback_p99_model_latency_ms: float
    reasons: tuple[str, ...]
    update_policy: DeploymentPlan
    """How an update rolls out and rolls back (blue/green or rolling, time budgets, rollback alarms)."""
    inference_component: InferenceComponentPlan | None = None
    """Set for a real-time endpoint with ``capacity.min: 0``: the model is hosted through an inference component."""
    network_isolation_reason: str = ""
    """Why ``network_isolation`` is on or off (the config's value, or the library's default)."""
    host_ami: HostAmiDecision = field(default_factory=lambda: HostAmiDecision(None, "", ""))
    """The production variant's ``InferenceAmiVersion`` (none on CPU hosts and serverless), why, and its sources."""
    model_access: ModelAccess | None = None
    """How a gated or private hub model's token is used (staged into S3, or in the environment); None without one."""
    warnings: tuple[str, ...] = ()
    """What the plan warns about for this endpoint (e.g. the token-in-environment opt-in)."""
    instance_pools: InstancePoolsPlan | None = None
    """The variant's ``InstancePools`` (the first pool is ``host``); None: one instance type."""
    capacity_reservation: ReservationPlan | None = None
    """The variant's ``CapacityReservationConfig``; None: on-demand capacity."""
    metrics_config: MetricsConfigPlan | None = None
    """The endpoint config's ``MetricsConfig``; None: not written (SageMaker's defaults)."""
    prefix_aware_routing: RoutingDecision | None = None
    """``PrefixAwareRoutingConfig`` (``PrefixLength``, ``ConcurrencyThreshold``) and why, when ``routing_strategy`` is
    ``PREFIX_AWARE``; None otherwise."""
    serving_options: OptionsDecision | None = None
    """The container variables the endpoint's serving options wrote (speculative decoding, prefix caching,
    quantization, batching); None when none was given."""
    components: ComponentsPlan | None = None
    """The inference components of an endpoint that hosts several models (this plan is then the first one's, with
    the variant's managed instance scaling in ``inference_component``); None otherwise."""

    @property
    def inference_ami_version(self) -> str | None:
        """``InferenceAmiVersion`` of the production variant, or ``None``."""
        return self.host_ami.version

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


@dataclass(frozen=True)
class ComponentPlan:
    """One model of a multi-component endpoint: its container (``plan``, made on the endpoint's host), what one
    copy reserves, and its copy bounds.

    ``accelerator_devices`` and ``min_memory_required_mb`` are ``ComputeResourceRequirements`` per copy;
    ``copy_count`` the ``RuntimeConfig.CopyCount`` at creation (auto scaling owns it afterwards)."""

    name: str
    plan: EndpointPlan
    accelerator_devices: int
    min_memory_required_mb: int
    copies: Capacity
    copy_count: int
    reason: str
    model: str = ""
    """Where its weights come from: the S3 URI, or the Hugging Face id (``@<revision>`` when pinned)."""

    def to_dict(self) -> dict[str, object]:
        """The plan document's entry of this component."""
        host = self.plan.host
        entry: dict[str, object] = {
            "name": self.name,
            "model": self.model,
            "copies": {"min": self.copies.min, "max": self.copies.max},
            "copy_count_at_create": self.copy_count,
            "accelerators_per_copy": self.accelerator_devices,
            "memory_mb_per_copy": self.min_memory_required_mb,
            "tensor_parallel_degree": host.tensor_parallel_degree if host else 1,
            "memory_required_gb": round(host.memory_required_gb, 2) if host else None,
            "weights_gb": round(host.weights_gb, 2) if host else None,
            "image": self.plan.image.key if self.plan.image else self.plan.custom_image,
            "environment": dict(self.plan.environment),
            "reason": self.reason,
        }
        if host is not None and host.lora is not None:  # only on a base with adapters
            entry["lora_adapters"] = host.lora.to_dict()
        return entry


@dataclass(frozen=True)
class AdapterPlan:
    """A LoRA adapter inference component: its base component and its artifacts (``Container.ArtifactUrl``)."""

    name: str
    base: str
    artifact_url: str
    model_data: ModelData

    def to_dict(self) -> dict[str, object]:
        """The plan document's entry of this adapter."""
        return {"name": self.name, "base": self.base, "artifact_url": self.artifact_url}


@dataclass(frozen=True)
class ComponentsPlan:
    """How a real-time endpoint hosts several models on one instance type.

    ``packing`` lists, per instance, the components whose copies it holds when every component runs its minimum
    copies (at least one): that many instances (``instances_at_min``) must fit ``capacity.max``.
    ``initial_instance_count`` is the variant's instances at creation (one copy of each component).
    """

    instance_type: str
    components: tuple[ComponentPlan, ...]
    adapters: tuple[AdapterPlan, ...]
    packing: tuple[tuple[str, ...], ...]
    initial_instance_count: int
    min_instance_count: int
    max_instance_count: int
    reason: str
    placement: PlacementStrategy | None = None
    max_az_imbalance: int | None = None
    data_cache: bool | None = None
    candidates: tuple[str, ...] = ()
    """Why cheaper instance types were not chosen (``instance_type: auto``), cheapest first."""
    instances_for_min_copies: int = 0
    """Instances that hold every component at its ``copies.min`` (components scaled to zero hold none): the
    fewest instances that run while the components are at their minimum, whatever ``capacity.min`` says."""

    @property
    def instances_at_min(self) -> int:
        """Instances the components' minimum copies need (at least one copy each, as at creation)."""
        return len(self.packing)

    @property
    def billed_instances_at_min(self) -> int:
        """Instances billed at minimum: ``capacity.min``, or more where the minimum copies need more."""
        return max(self.min_instance_count, self.instances_for_min_copies)

    def to_dict(self) -> dict[str, object]:
        """The plan document's ``components`` block."""
        return {
            "instance_type": self.instance_type,
            "instances_at_min": self.instances_at_min,
            "billed_instances_at_min": self.billed_instances_at_min,
            "initial_instance_count": self.initial_instance_count,
            "managed_instance_scaling": {"min": self.min_instance_count, "max": self.max_instance_count},
            "packing": [list(names) for names in self.packing],
            "placement": self.placement.value if self.placement else None,
            "max_az_imbalance": self.max_az_imbalance,
            "data_cache": self.data_cache,
            "components": [c.to_dict() for c in self.components],
            "adapters": [a.to_dict() for a in self.adapters],
            "reason": self.reason,
            "passed_over": list(self.candidates),
        }
