"""Pydantic v2 models of the platform config file (``docs/config.md`` is the contract: key names are API).

Every model forbids unknown keys; defaults are what an omitted key means. A key that the decision types
also have (:class:`~inference_constructs.spec.ModelSpec`, the hosting request's options, the Bedrock and
cost specs) takes its default from them through :func:`_default`, so each default is written once, in the
decision type; ``tests/unit/config/test_defaults.py`` fails on a default written here as well. Field-level
ranges live here; rules that span fields are in :mod:`inference_constructs.config.rules` or, when a
decision guards them, next to that decision.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from datetime import date
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from inference_constructs.agents.runtime_plan import (
    MAX_INSTANCE_SECONDS,
    MIN_LIFECYCLE_SECONDS,
    AgentRuntimeSpec,
    CodeArtifact,
)
from inference_constructs.bedrock.guardrail_plan import LIMITS as GUARDRAIL_LIMITS
from inference_constructs.bedrock.guardrail_plan import ContentFilter, GuardrailSpec, PiiEntity
from inference_constructs.bedrock.inference_profile_plan import ProfileSpec
from inference_constructs.bedrock.invocation_logging_plan import InvocationLoggingSpec
from inference_constructs.bedrock.pricing import Workload
from inference_constructs.config.components import MAX_AZ_IMBALANCE, Adapter, Component
from inference_constructs.containers.model_access import HfTokenSecret
from inference_constructs.containers.routing import CONCURRENCY_THRESHOLD_RANGE, PREFIX_LENGTH_RANGE, RoutingOptions
from inference_constructs.containers.serving_options import SpeculativeDecoding
from inference_constructs.cost.commitment import recommend_commitment
from inference_constructs.cost.decisions import AnomalySubscriptionPlan, BudgetPlan
from inference_constructs.hosting.checks import (
    MAX_ASYNC_CONCURRENT_INVOCATIONS,
    MAX_SECURITY_GROUPS,
    MAX_SUBNETS,
    S3_URI_PATTERN,
    SECURITY_GROUP_PATTERN,
    SERVERLESS_MEMORY_MB,
    SUBNET_PATTERN,
)
from inference_constructs.hosting.pools import PROVISION_TIMEOUT_SECONDS
from inference_constructs.hosting.request import (
    Capacity as CapacityRequest,
)
from inference_constructs.hosting.request import (
    DataCaptureOptions,
    DeploymentOptions,
    EndpointRequest,
    MultiModelOptions,
    ServerlessOptions,
)
from inference_constructs.hosting.reservation import RESERVATION_ARN_LENGTH
from inference_constructs.observability.cross_account_plan import (
    DEFAULT_LABEL_TEMPLATE,
    LINK_RESOURCE_TYPES,
    MAX_LABEL_TEMPLATE,
    TransactionSearchDecision,
)
from inference_constructs.observability.decisions import AlarmSettings, XRaySamplingDecision
from inference_constructs.scaling.decisions import (
    MAX_BACKLOG_TARGET,
    MAX_CAPACITY,
    MAX_CONCURRENCY_TARGET,
    MAX_INVOCATIONS_TARGET,
    MAX_SERVERLESS_CONCURRENCY,
)
from inference_constructs.spec import AcceleratorChoice, DType, EndpointKind, ModelSourceKind, ModelSpec, Serving


def _default(owner: type[Any] | Callable[..., Any], name: str, *, literal: bool = False) -> Any:
    """The default of ``owner``'s field (a dataclass) or keyword parameter (a function) ``name``: the one place
    it is written. ``literal``: the enum member's string value, for keys typed as a ``Literal`` of strings."""
    fields = getattr(owner, "__dataclass_fields__", None)
    value = fields[name].default if fields is not None else inspect.signature(owner).parameters[name].default
    if value is inspect.Parameter.empty or value is dataclasses.MISSING:
        raise TypeError(f"{getattr(owner, '__qualname__', owner)}.{name} has no default")
    return value.value if literal and isinstance(value, Enum) else value


AccountId = Annotated[str, StringConstraints(pattern=r"^[0-9]{12}$")]
RoleArn = Annotated[
    str, StringConstraints(max_length=2048, pattern=r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]+$")
]
S3Uri = Annotated[str, StringConstraints(pattern=S3_URI_PATTERN)]
Email = Annotated[str, StringConstraints(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
TagKey = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^[\w\s.:/=+@-]+$")]
TagValue = Annotated[str, StringConstraints(max_length=256, pattern=r"^[\w\s.:/=+@-]*$")]
KmsKeyArn = Annotated[str, StringConstraints(pattern=r"^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/[A-Za-z0-9_-]+$")]
CronExpr = Annotated[str, StringConstraints(pattern=r"^cron\(.+\)$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, use_enum_values=False)


class Architecture(_Model):
    """The model's shape (any subset); what is omitted comes from the known-model table, else an estimate."""

    family: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{0,63}$")
    layers: int | None = Field(default=None, ge=1, le=512)
    attention_heads: int | None = Field(default=None, ge=1, le=1024)
    kv_heads: int | None = Field(default=None, ge=1, le=1024)
    head_dim: int | None = Field(default=None, ge=1, le=1024)
    hidden_size: int | None = Field(default=None, ge=1, le=262_144)
    vocab_size: int | None = Field(default=None, ge=1, le=4_194_304)
    tie_word_embeddings: bool | None = None


class HfToken(_Model):
    """A Secrets Manager secret holding a Hugging Face read token (gated or private models, source huggingface)."""

    secret: str = Field(min_length=1, max_length=2048)
    json_key: str | None = Field(default=None, min_length=1, max_length=256)
    version_id: str | None = Field(default=None, min_length=32, max_length=64)
    kms_key_arn: KmsKeyArn | None = None
    # Opt-in: the token in the container environment (plaintext on the Model; the plan warns).
    in_environment: bool = _default(HfTokenSecret, "in_environment")


class Model(_Model):
    """What is served. ``parameters_billion`` is needed for accelerator sizing unless ``instance_type`` is set."""

    source: ModelSourceKind = _default(ModelSpec, "source")
    id: str | None = Field(default=None, min_length=1, max_length=512)
    s3_uri: S3Uri | None = None
    parameters_billion: float | None = Field(default=None, gt=0, le=2000)
    dtype: DType = _default(ModelSpec, "dtype")
    max_context_tokens: int = Field(default=_default(ModelSpec, "max_context_tokens"), ge=1, le=2_000_000)
    max_concurrent_sequences: int = Field(default=_default(ModelSpec, "max_concurrent_sequences"), ge=1, le=4096)
    architecture: Architecture | None = None
    neuron_compiled: bool = _default(ModelSpec, "neuron_compiled")
    revision: str | None = Field(default=None, min_length=1, max_length=128)
    hf_token: HfToken | None = None


class CapacityConfig(_Model):
    """The ``capacity`` block: instance count bounds; ``min: 0`` only where the endpoint type can scale to zero."""

    min: int = Field(default=_default(CapacityRequest, "min"), ge=0, le=MAX_CAPACITY)
    max: int = Field(default=_default(CapacityRequest, "max"), ge=1, le=MAX_CAPACITY)


class ScheduledFloorConfig(_Model):
    """One ``scaling.schedule`` entry: a scheduled change of the minimum capacity (Application Auto Scaling
    cron, UTC)."""

    cron: CronExpr
    min: int = Field(ge=0, le=MAX_CAPACITY)
    max: int | None = Field(default=None, ge=1, le=MAX_CAPACITY)


class Scaling(_Model):
    """Scaling intent; each key present becomes its own policy."""

    concurrency_per_instance: float | None = Field(default=None, gt=0, le=int(MAX_CONCURRENCY_TARGET))
    invocations_per_instance_per_minute: float | None = Field(default=None, gt=0, le=int(MAX_INVOCATIONS_TARGET))
    gpu_memory_percent: float | None = Field(default=None, gt=0, le=100)
    backlog_per_instance: float | None = Field(default=None, gt=0, le=int(MAX_BACKLOG_TARGET))
    schedule: list[ScheduledFloorConfig] = Field(default_factory=list, max_length=50)


class Serverless(_Model):
    """Serverless inference settings (CPU only). ``memory_mb`` null: sized from the model's footprint."""

    memory_mb: int | None = Field(
        default=None, ge=SERVERLESS_MEMORY_MB[0], le=SERVERLESS_MEMORY_MB[-1], multiple_of=SERVERLESS_MEMORY_MB[0]
    )
    max_concurrency: int = Field(
        default=_default(ServerlessOptions, "max_concurrency"), ge=1, le=MAX_SERVERLESS_CONCURRENCY
    )
    provisioned_concurrency: int = Field(
        default=_default(ServerlessOptions, "provisioned_concurrency"), ge=0, le=MAX_SERVERLESS_CONCURRENCY
    )


class AsyncInference(_Model):
    """Asynchronous inference settings; the output bucket is created when ``output_s3_uri`` is null."""

    output_s3_uri: S3Uri | None = None
    max_concurrent_invocations_per_instance: int = Field(default=4, ge=1, le=MAX_ASYNC_CONCURRENT_INVOCATIONS)


class MultiModel(_Model):
    """Multi-model endpoint settings."""

    model_data_prefix: S3Uri
    cache: bool = _default(MultiModelOptions, "cache")


class Vpc(_Model):
    """VPC placement; subnets and security groups go together."""

    subnet_ids: list[Annotated[str, StringConstraints(pattern=SUBNET_PATTERN)]] = Field(
        default_factory=list, max_length=MAX_SUBNETS
    )
    security_group_ids: list[Annotated[str, StringConstraints(pattern=SECURITY_GROUP_PATTERN)]] = Field(
        default_factory=list, max_length=MAX_SECURITY_GROUPS
    )


class DataCapture(_Model):
    """Request/response capture to S3."""

    s3_uri: S3Uri | None = None
    sampling_percent: int = Field(default=_default(DataCaptureOptions, "sampling_percent"), ge=0, le=100)


class CapacityReservationConfig(_Model):
    """Reserved ML capacity (a training plan for endpoints) the variant runs on; needs an explicit instance_type."""

    ml_reservation_arn: str = Field(min_length=RESERVATION_ARN_LENGTH[0], max_length=RESERVATION_ARN_LENGTH[1])
    ends_at: date | None = None  # null: the plan's warning says the end is not known to it


class EndpointMetrics(_Model):
    """The endpoint config's MetricsConfig; a key left null is not written (SageMaker's default applies)."""

    detailed_observability: bool | None = None
    enhanced_metrics: bool | None = None
    publish_frequency_seconds: int | None = None  # 10, 30, 60, 120, 180, 240 or 300


class Deployment(_Model):
    """How updates shift traffic, and whether alarms roll them back."""

    strategy: Literal["all-at-once", "blue-green", "canary", "linear"] = _default(
        DeploymentOptions, "strategy", literal=True
    )
    rollback_on_alarms: bool = _default(DeploymentOptions, "rollback_on_alarms")


class SpeculativeDecodingConfig(_Model):
    """``serving_options.speculative_decoding``: a proposer suggests ``tokens`` tokens per step, the served model
    verifies them."""

    tokens: int = Field(ge=1, le=64)
    method: Literal["draft_model", "eagle", "eagle3", "medusa", "ngram"] = _default(
        SpeculativeDecoding, "method", literal=True
    )
    model: str | None = Field(default=None, min_length=1, max_length=512)
    parameters_billion: float | None = Field(default=None, gt=0, le=2000)
    ngram_lookup_max: int | None = Field(default=None, ge=1, le=64)


class BatchingConfig(_Model):
    """``serving_options.batching``: continuous-batching limits; each null keeps the engine's default."""

    max_batch_prefill_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    max_batched_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    max_sequences: int | None = Field(default=None, ge=1, le=4096)


RoutingStrategyName = Literal["prefix_aware", "least_outstanding_requests"]


class RoutingConfig(_Model):
    """``serving_options.routing`` as a mapping: the strategy and, for prefix-aware routing, its two values."""

    strategy: RoutingStrategyName = _default(RoutingOptions, "strategy", literal=True)
    prefix_length: int | None = Field(default=None, ge=PREFIX_LENGTH_RANGE[0], le=PREFIX_LENGTH_RANGE[1])
    concurrency_threshold: int | None = Field(
        default=None, ge=CONCURRENCY_THRESHOLD_RANGE[0], le=CONCURRENCY_THRESHOLD_RANGE[1]
    )


class ServingOptionsConfig(_Model):
    """``serving_options``: the serving engine's options (speculative decoding, prefix caching, quantization,
    batching limits, routing), written to the engine named by ``serving``."""

    speculative_decoding: SpeculativeDecodingConfig | None = None
    prefix_caching: bool | None = None
    quantization: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")
    batching: BatchingConfig | None = None
    routing: RoutingStrategyName | RoutingConfig | None = None


class Endpoint(_Model):
    """One SageMaker endpoint."""

    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,39}$")]
    type: EndpointKind = EndpointKind.REALTIME
    model: Model = Field(default_factory=Model)
    serving: Serving = Serving.LMI
    serving_options: ServingOptionsConfig | None = None
    image: str | None = Field(default=None, min_length=1, max_length=255)
    accelerator: AcceleratorChoice = _default(EndpointRequest, "accelerator")
    instance_type: Annotated[str, StringConstraints(pattern=r"^(auto|ml\.[a-z0-9-]+\.[a-z0-9]+)$")] = "auto"
    # auto: the plan chooses the InferenceAmiVersion that runs the image; the plan checks an explicit one
    host_ami: Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]{1,64}$")] = _default(EndpointRequest, "host_ami")
    capacity: CapacityConfig = Field(default_factory=CapacityConfig)
    scaling: Scaling = Field(default_factory=Scaling)
    serverless: Serverless | None = None
    async_: AsyncInference | None = Field(default=None, alias="async")
    multi_model: MultiModel | None = None
    kms_key_arn: KmsKeyArn | None = None
    vpc: Vpc = Field(default_factory=Vpc)
    network_isolation: bool | None = None  # null: on when the model needs no internet (see the plan)
    data_capture: DataCapture = Field(default_factory=DataCapture)
    deployment: Deployment = Field(default_factory=Deployment)
    environment: dict[str, str | int | float | bool] = Field(default_factory=dict, max_length=100)
    stack: int | None = Field(default=None, ge=1)  # null: hosting stack 1; the stack never moves unless this changes
    # null: one instance type; auto: the cheapest hosts that fit (up to 3); a count 1..5; or a ranked list of types
    # checked by the plan (hosting/pools.py): auto, 1..5, or 1..5 distinct ml.<family>.<size> names
    instance_pools: str | int | list[str] | None = None
    instance_provision_timeout_seconds: int | None = Field(
        default=None, ge=PROVISION_TIMEOUT_SECONDS[0], le=PROVISION_TIMEOUT_SECONDS[1]
    )
    capacity_reservation: CapacityReservationConfig | None = None
    metrics: EndpointMetrics | None = None
    components: list[Component[Model, Scaling]] = Field(default_factory=list)  # several models: components.py
    adapters: list[Adapter] = Field(default_factory=list)
    placement: Literal["SPREAD", "BINPACK"] | None = None
    max_az_imbalance: int | None = Field(default=None, ge=MAX_AZ_IMBALANCE[0], le=MAX_AZ_IMBALANCE[1])
    data_cache: bool | None = None


class GuardrailContentFilter(_Model):
    """A harmful-content category and how strictly prompts and responses are filtered."""

    type: Annotated[str, StringConstraints(pattern=r"^[A-Z_]+$")]
    input_strength: Literal["NONE", "LOW", "MEDIUM", "HIGH"] = _default(ContentFilter, "input_strength")
    output_strength: Literal["NONE", "LOW", "MEDIUM", "HIGH"] = _default(ContentFilter, "output_strength")


class GuardrailDeniedTopic(_Model):
    """A topic the guardrail refuses."""

    name: str = Field(min_length=1, max_length=GUARDRAIL_LIMITS["topic_name_max_length"][0])
    definition: str = Field(min_length=1, max_length=GUARDRAIL_LIMITS["topic_definition_max_length"][0])
    examples: list[
        Annotated[str, StringConstraints(min_length=1, max_length=GUARDRAIL_LIMITS["topic_example_max_length"][0])]
    ] = Field(default_factory=list, max_length=GUARDRAIL_LIMITS["topic_examples_max"][0])


class GuardrailPiiEntity(_Model):
    """A PII entity type and what the guardrail does with it."""

    type: Annotated[str, StringConstraints(pattern=r"^[A-Z_]+$")]
    action: Literal["BLOCK", "ANONYMIZE", "NONE"] = _default(PiiEntity, "action")


class GuardrailGrounding(_Model):
    """Contextual grounding thresholds (checked when callers mark grounding source and query)."""

    grounding_threshold: float | None = Field(default=None, ge=0, lt=1)
    relevance_threshold: float | None = Field(default=None, ge=0, lt=1)


class BedrockGuardrail(_Model):
    """The guardrail a profile enforces: filters for a new one, or ``id`` + ``version`` of an existing one."""

    id: str | None = Field(default=None, min_length=1, max_length=64)
    version: int | str | None = None
    name: str | None = Field(default=None, min_length=1, max_length=GUARDRAIL_LIMITS["name_max_length"][0])
    description: str | None = Field(
        default=None, min_length=1, max_length=GUARDRAIL_LIMITS["description_max_length"][0]
    )
    content_filters: list[GuardrailContentFilter] = Field(
        default_factory=list, max_length=GUARDRAIL_LIMITS["content_filters_max"][0]
    )
    denied_topics: list[GuardrailDeniedTopic] = Field(
        default_factory=list, max_length=GUARDRAIL_LIMITS["topics_max"][0]
    )
    pii_entities: list[GuardrailPiiEntity] = Field(default_factory=list, max_length=50)
    contextual_grounding: GuardrailGrounding | None = None
    blocked_input_messaging: str | None = Field(
        default=None, min_length=1, max_length=GUARDRAIL_LIMITS["messaging_max_length"][0]
    )
    blocked_outputs_messaging: str | None = Field(
        default=None, min_length=1, max_length=GUARDRAIL_LIMITS["messaging_max_length"][0]
    )
    intervention_alarm_percent: float = Field(
        default=_default(GuardrailSpec, "intervention_alarm_percent"), gt=0, le=100
    )


class InvocationLogging(_Model):
    """Model invocation logging of the account and Region (one configuration per account and Region)."""

    s3: bool | Annotated[str, StringConstraints(min_length=3, max_length=63)] = _default(InvocationLoggingSpec, "s3")
    cloudwatch_logs: bool = _default(InvocationLoggingSpec, "cloudwatch_logs")
    retention_days: int = Field(default=_default(InvocationLoggingSpec, "retention_days"), ge=1, le=3653)
    text_data: bool = _default(InvocationLoggingSpec, "text_data")
    image_data: bool = _default(InvocationLoggingSpec, "image_data")
    embedding_data: bool = _default(InvocationLoggingSpec, "embedding_data")
    video_data: bool = _default(InvocationLoggingSpec, "video_data")
    audio_data: bool = _default(InvocationLoggingSpec, "audio_data")
    overwrite_existing: bool = _default(InvocationLoggingSpec, "overwrite_existing")


TokenCount = Annotated[int, Field(ge=0, le=10**15)]


class BedrockWorkload(_Model):
    """Expected tokens of one profile or router: monthly totals, or requests x tokens per request."""

    input_tokens_per_month: TokenCount | None = None
    output_tokens_per_month: TokenCount | None = None
    cache_read_tokens_per_month: TokenCount | None = None
    cache_write_tokens_per_month: TokenCount | None = None
    requests_per_month: TokenCount | None = None
    input_tokens_per_request: TokenCount | None = None
    output_tokens_per_request: TokenCount | None = None
    cache_read_tokens_per_request: TokenCount | None = None
    cache_write_tokens_per_request: TokenCount | None = None
    latency: Literal["interactive", "flexible", "offline"] = _default(Workload, "latency", literal=True)


class BedrockProfile(_Model):
    """One application inference profile (one per team, tagged, for attribution)."""

    name: Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^([0-9a-zA-Z][ _-]?)+$")]
    model: str = Field(min_length=1, max_length=2048)
    tags: dict[TagKey, TagValue] = Field(default_factory=dict, max_length=200)
    invoke_role_arns: list[RoleArn] = Field(default_factory=list, max_length=50)
    max_output_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    residency: Literal["any", "single-region"] = _default(ProfileSpec, "residency", literal=True)
    workload: BedrockWorkload | None = None
    guardrail: BedrockGuardrail | None = None


class BedrockRouter(_Model):
    """One intelligent prompt router between two models of one family (one per team, tagged)."""

    name: Annotated[str, StringConstraints(min_length=1, max_length=55, pattern=r"^([0-9a-zA-Z][ _-]?)+$")]
    models: list[Annotated[str, StringConstraints(min_length=1, max_length=2048)]] = Field(min_length=2, max_length=2)
    fallback_model: str = Field(min_length=1, max_length=2048)
    response_quality_difference: float = Field(ge=0, le=100)
    description: str | None = Field(default=None, min_length=1, max_length=200)
    tags: dict[TagKey, TagValue] = Field(default_factory=dict, max_length=200)
    invoke_role_arns: list[RoleArn] = Field(default_factory=list, max_length=50)
    workload: BedrockWorkload | None = None


class Bedrock(_Model):
    """Bedrock application inference profiles, prompt routers and model invocation logging."""

    profiles: list[BedrockProfile] = Field(default_factory=list, max_length=100)
    routers: list[BedrockRouter] = Field(default_factory=list, max_length=100)
    invocation_logging: InvocationLogging | None = None


class XRaySampling(_Model):
    """X-Ray sampling rule at the entry service."""

    service_name: str = Field(min_length=1, max_length=64)
    url_path: str = Field(default=_default(XRaySamplingDecision, "url_path"), min_length=1, max_length=128)
    fixed_rate: float = Field(default=_default(XRaySamplingDecision, "fixed_rate"), ge=0, le=1)
    priority: int = Field(default=_default(XRaySamplingDecision, "priority"), ge=1, le=9999)
    reservoir_size: int = Field(default=_default(XRaySamplingDecision, "reservoir_size"), ge=0, le=100_000)


class CrossAccount(_Model):
    """CloudWatch cross-account observability: the sink in this (monitoring) account and a link from each of
    ``observability.source_account_ids``. ``sink_arn`` (known once the sink exists) adds one link stack per
    source account; ``organization_id`` admits the organization's accounts instead of the listed ones."""

    sink: bool = True
    sink_name: str | None = Field(default=None, min_length=1, max_length=255, pattern=r"^[a-zA-Z0-9_.-]+$")
    organization_id: str | None = Field(default=None, pattern=r"^o-[a-z0-9]{10,32}$")
    sink_arn: str | None = Field(default=None, min_length=1, max_length=2048)
    resource_types: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] | None = Field(
        default=None, min_length=1, max_length=len(LINK_RESOURCE_TYPES)
    )
    label_template: str = Field(default=DEFAULT_LABEL_TEMPLATE, min_length=1, max_length=MAX_LABEL_TEMPLATE)


class TransactionSearch(_Model):
    """X-Ray Transaction Search (an account-wide setting) in this account, and in each linked source account."""

    indexing_percentage: float = Field(default=_default(TransactionSearchDecision, "indexing_percentage"), ge=0, le=100)
    source_accounts: bool = True


class Observability(_Model):
    """Dashboards, alarms and tracing."""

    dashboard: bool = True
    alarm_email: Email | None = None
    anomaly_std_devs: float = Field(default=_default(AlarmSettings, "anomaly_std_devs"), gt=0, le=10)
    source_account_ids: list[AccountId] = Field(default_factory=list, max_length=100)
    xray_sampling: XRaySampling | None = None
    cross_account: CrossAccount | None = None
    transaction_search: TransactionSearch | None = None


class AgentNetwork(_Model):
    """Where an agent runtime runs: ``PUBLIC``, or ``VPC`` with its subnets and security groups."""

    mode: Literal["PUBLIC", "VPC"] = _default(AgentRuntimeSpec, "network_mode")
    subnets: list[Annotated[str, StringConstraints(pattern=SUBNET_PATTERN)]] = Field(
        default_factory=list, max_length=16
    )
    security_groups: list[Annotated[str, StringConstraints(pattern=SECURITY_GROUP_PATTERN)]] = Field(
        default_factory=list, max_length=16
    )


class AgentCode(_Model):
    """An agent's code in S3 (a zip), run by a managed runtime."""

    s3_uri: S3Uri
    runtime: Annotated[str, StringConstraints(min_length=1, max_length=32)] = _default(CodeArtifact, "runtime")
    entry_point: list[Annotated[str, StringConstraints(min_length=1, max_length=256)]] = Field(
        default_factory=lambda: list(_default(CodeArtifact, "entry_point")), min_length=1, max_length=2
    )


class Agent(_Model):
    """An agent on Amazon Bedrock AgentCore Runtime: deployed by the platform (an artifact and a role), or an
    existing runtime (``runtime_id``)."""

    name: Annotated[str, StringConstraints(pattern=r"^[a-zA-Z][a-zA-Z0-9_]{0,26}$")]
    runtime_id: Annotated[str, StringConstraints(pattern=r"^[a-zA-Z][a-zA-Z0-9_]{0,99}-[a-zA-Z0-9]{10}$")] | None = None
    container_uri: str | None = Field(default=None, min_length=1, max_length=1024)
    code: AgentCode | None = None
    role_arn: RoleArn | None = None
    network: AgentNetwork = Field(default_factory=AgentNetwork)
    protocol: Annotated[str, StringConstraints(min_length=1, max_length=8)] = _default(AgentRuntimeSpec, "protocol")
    conversation: Literal["short", "long"] | None = None
    idle_timeout_seconds: int | None = Field(default=None, ge=MIN_LIFECYCLE_SECONDS, le=MAX_INSTANCE_SECONDS)
    max_lifetime_seconds: int | None = Field(default=None, ge=MIN_LIFECYCLE_SECONDS, le=MAX_INSTANCE_SECONDS)
    capacity_provider_arn: str | None = Field(default=None, min_length=1, max_length=2048)
    environment: dict[Annotated[str, StringConstraints(pattern=r"^[a-zA-Z_][a-zA-Z0-9_]{0,127}$")], str] = Field(
        default_factory=dict, max_length=50
    )
    tags: dict[TagKey, TagValue] = Field(default_factory=dict, max_length=50)


class SavingsPlan(_Model):
    """Savings Plan commitment recommendation settings."""

    term_years: Literal[1, 3] = _default(recommend_commitment, "term_years")
    payment: Literal["no-upfront", "partial-upfront", "all-upfront"] = _default(
        recommend_commitment, "payment", literal=True
    )


class Budget(_Model):
    """Monthly cost budget and the deny guardrail. ``scope: platform`` counts only spend tagged
    ``inference:platform`` with the platform's name; ``account`` counts the whole account."""

    monthly_limit_usd: float | None = Field(default=None, gt=0, le=100_000_000)
    notify_email: Email | None = None
    deny_new_endpoints_at_percent: float = Field(default=_default(BudgetPlan, "deny_at_percent"), gt=0, le=1000)
    deny_role_arns: list[RoleArn] = Field(default_factory=list, max_length=100)
    scope: Literal["platform", "account"] = "platform"


class AnomalyMonitor(_Model):
    """Cost anomaly detection: a CUSTOM monitor of the platform's tagged spend, or a subscription to an
    existing monitor (``existing_monitor_arn``)."""

    threshold_usd: float = Field(default=_default(AnomalySubscriptionPlan, "threshold_usd"), gt=0, le=10_000_000)
    notify_email: Email | None = None
    existing_monitor_arn: (
        Annotated[str, StringConstraints(pattern=r"^arn:aws[a-z-]*:ce::\d{12}:anomalymonitor/[0-9A-Za-z_-]+$")] | None
    ) = None


class Cost(_Model):
    """Cost attribution and controls."""

    capacity_tags: bool = True
    activate_cost_allocation_tags: list[TagKey] = Field(default_factory=list, max_length=100)
    savings_plan: SavingsPlan = Field(default_factory=SavingsPlan)
    budget: Budget = Field(default_factory=Budget)
    anomaly_monitor: AnomalyMonitor = Field(default_factory=AnomalyMonitor)


class PlatformConfig(_Model):
    """The whole platform file. Only ``name`` is required."""

    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{1,19}$")]
    account: AccountId | None = None
    region: Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-[a-z]+)+-[0-9]$")] | None = None
    tags: dict[TagKey, TagValue] = Field(default_factory=dict, max_length=50)
    endpoints: list[Endpoint] = Field(default_factory=list, max_length=1000)
    bedrock: Bedrock = Field(default_factory=Bedrock)
    observability: Observability = Field(default_factory=Observability)
    cost: Cost = Field(default_factory=Cost)
    agents: list[Agent] = Field(default_factory=list, max_length=100)
