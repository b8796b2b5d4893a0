"""The endpoint kinds as constructs with their own parameters (real-time with an async mode, serverless,
multi-model), and :func:`endpoint_from_request`, which builds any kind from a request (the config layer's
entry point).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TypedDict, Unpack

from aws_cdk import Duration
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from inference_constructs import _coerce
from inference_constructs.catalog import Catalog
from inference_constructs.containers.model_access import HfTokenSecret
from inference_constructs.containers.serving_options import ServingOptions
from inference_constructs.errors import ProblemCollector
from inference_constructs.hosting.decisions import EndpointPlan
from inference_constructs.hosting.endpoint import InferenceEndpoint
from inference_constructs.hosting.request import (
    AdapterRequest,
    AsyncOptions,
    Capacity,
    CapacityLike,
    CapacityReservation,
    ComponentRequest,
    ComponentsOptions,
    DataCaptureOptions,
    DeploymentOptions,
    EndpointRequest,
    InstancePoolsLike,
    MetricsOptions,
    MultiModelOptions,
    PlacementStrategy,
    ServerlessOptions,
    VpcOptions,
    coerce_capacity,
)
from inference_constructs.scaling.autoscaling import ServerlessScaling
from inference_constructs.scaling.decisions import DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import AcceleratorChoice, EndpointKind, ModelSpec, Serving

__all__ = [
    "InferenceComponentsEndpoint",
    "MultiModelEndpoint",
    "RealtimeEndpoint",
    "ServerlessEndpoint",
    "endpoint_from_request",
]


class _EndpointProps(TypedDict, total=False):
    """The props every kind takes, documented on :class:`RealtimeEndpoint`; their defaults are
    :class:`_KindEndpoint`'s."""

    image: str | None
    kms_key: kms.IKey | None
    role: iam.IRole | None
    deployment: DeploymentOptions | None
    environment: Mapping[str, str] | None
    endpoint_name: str | None
    catalog: Catalog | None
    path: str


class _InstanceProps(_EndpointProps, total=False):
    """The props the kinds that run on instances (real-time, async, multi-model) add to :class:`_EndpointProps`."""

    accelerator: AcceleratorChoice | str
    instance_type: str | None
    host_ami: str
    capacity: Capacity | CapacityLike | None
    vpc: VpcOptions | ec2.IVpc | None
    vpc_subnets: ec2.SubnetSelection | None
    security_groups: Sequence[ec2.ISecurityGroup] | None
    network_isolation: bool | None
    data_capture: DataCaptureOptions | None
    host: HostDecision | None
    instance_pools: InstancePoolsLike | Sequence[str] | None
    instance_provision_timeout_seconds: int | None
    capacity_reservation: CapacityReservation | None
    metrics: MetricsOptions | None


class _RequestOptions(TypedDict, total=False):
    """The :class:`InferenceEndpoint` props :func:`endpoint_from_request` passes on beside the request."""

    host: HostDecision | None
    catalog: Catalog | None
    kms_key: kms.IKey | None
    endpoint_name: str | None
    path: str
    plan: EndpointPlan | None


HfTokenLike = HfTokenSecret | secretsmanager.ISecret | str
"""What the ``hf_token`` prop takes: an :class:`HfTokenSecret`, a ``secretsmanager.ISecret``, or the secret's name
or ARN as a string (read as ``HfTokenSecret(name_or_arn)``)."""


def _token_secret(
    hf_token: HfTokenLike | None,
) -> tuple[HfTokenSecret | None, secretsmanager.ISecret | None]:
    """(the plan's view of the token secret, the secret construct when one was given)."""
    if hf_token is None or isinstance(hf_token, HfTokenSecret):
        return hf_token, None
    if isinstance(hf_token, str):
        return HfTokenSecret(hf_token), None
    key = hf_token.encryption_key
    # A secret imported by name has only a partial ARN (name-??????), which CodeBuild cannot read: use its name.
    secret_id = hf_token.secret_full_arn or hf_token.secret_name
    return HfTokenSecret(secret_id, kms_key_arn=key.key_arn if key is not None else None), hf_token


def _prop(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class _KindEndpoint(InferenceEndpoint):
    """What the kinds share: one :class:`EndpointRequest` built from their props, each coerced with its key path
    and given its default here, ``vpc`` split into the request's ids (``VpcOptions``) or an ``ec2.IVpc``, and
    ``hf_token`` into the plan's view of the secret and the secret construct."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        kind: EndpointKind,
        model: ModelSpec,
        serving: Serving | str,
        serverless: ServerlessOptions | None = None,
        async_inference: AsyncOptions | None = None,
        multi_model: MultiModelOptions | None = None,
        quantization: str | None = None,
        serving_options: ServingOptions | None = None,
        hf_token: HfTokenLike | None = None,
        image: str | None = None,
        accelerator: AcceleratorChoice | str = AcceleratorChoice.AUTO,
        instance_type: str | None = None,
        host_ami: str = "auto",
        capacity: Capacity | CapacityLike | None = None,
        kms_key: kms.IKey | None = None,
        vpc: VpcOptions | ec2.IVpc | None = None,
        vpc_subnets: ec2.SubnetSelection | None = None,
        security_groups: Sequence[ec2.ISecurityGroup] | None = None,
        role: iam.IRole | None = None,
        network_isolation: bool | None = None,
        data_capture: DataCaptureOptions | None = None,
        deployment: DeploymentOptions | None = None,
        environment: Mapping[str, str] | None = None,
        endpoint_name: str | None = None,
        host: HostDecision | None = None,
        catalog: Catalog | None = None,
        path: str = "",
        instance_pools: InstancePoolsLike | Sequence[str] | None = None,
        instance_provision_timeout_seconds: int | None = None,
        capacity_reservation: CapacityReservation | None = None,
        metrics: MetricsOptions | None = None,
        components: ComponentsOptions | None = None,
    ) -> None:
        token, secret = _token_secret(hf_token)
        request = EndpointRequest(
            kind=kind,
            model=_coerce.typed_prop(_prop(path, "model"), model, ModelSpec),
            serving=_coerce.enum_prop(_prop(path, "serving"), serving, Serving),
            image=image,
            accelerator=_coerce.enum_prop(_prop(path, "accelerator"), accelerator, AcceleratorChoice),
            instance_type=instance_type,
            host_ami=host_ami,
            capacity=coerce_capacity(_prop(path, "capacity"), capacity) or Capacity(),
            serverless=serverless,
            async_inference=async_inference,
            multi_model=multi_model,
            vpc=vpc if isinstance(vpc, VpcOptions) else None,
            network_isolation=network_isolation,
            data_capture=data_capture,
            deployment=deployment or DeploymentOptions(),
            quantization=quantization,
            environment=dict(environment or {}),
            hf_token=token,
            serving_options=_coerce.typed_prop(_prop(path, "serving_options"), serving_options, ServingOptions)
            if serving_options is not None
            else None,
            instance_pools=(
                instance_pools
                if instance_pools is None or isinstance(instance_pools, str | int)
                else tuple(instance_pools)
            ),
            instance_provision_timeout_seconds=instance_provision_timeout_seconds,
            capacity_reservation=capacity_reservation,
            metrics=metrics,
            components=components,
        )
        super().__init__(
            scope,
            construct_id,
            request=request,
            host=host,
            catalog=catalog,
            kms_key=kms_key,
            endpoint_name=endpoint_name,
            path=path,
            vpc=None if isinstance(vpc, VpcOptions) else vpc,
            vpc_subnets=vpc_subnets,
            security_groups=security_groups,
            role=role,
            hf_token_secret=secret,
        )


class RealtimeEndpoint(_KindEndpoint):
    """A real-time SageMaker endpoint on right-sized instances, or an asynchronous one with ``async_inference``.

    Parameters
    ----------
    model:
        What is served (source, size, dtype, context, concurrency).
    serving:
        Serving stack preset. Default: ``lmi`` (LMI with the vLLM backend; its Neuron build on
        Inferentia/Trainium).
    image:
        Full image URI, required with ``serving=custom``. Default: the preset's pinned image.
    accelerator:
        Narrow the host's device kind. Default: ``auto`` (cheapest fitting host among those the
        serving stack supports).
    instance_type:
        Host to use instead of choosing one (it is still checked). Default: the right-sizing decides.
    host_ami:
        ``InferenceAmiVersion`` of the hosts, e.g. ``al2023-ami-sagemaker-inference-gpu-4-1``; refused when its
        driver cannot start the image or it does not run on the host. Default: ``auto``, the AMI whose driver runs
        the image on GPU and Neuron hosts (``plan.host_ami`` says which and why), none on CPU hosts.
    capacity:
        Instance count range for scaling; the initial count is ``max(1, min)``. ``min`` 0 scales to zero:
        an async endpoint on its backlog, a real-time one through an inference component (the first requests
        after idle fail while an instance starts; see :meth:`auto_scale_from_plan`). Default: 1..1, one
        instance always in service.
    async_inference:
        Make the endpoint asynchronous: S3 output location (created unless given), success/error SNS
        topics, concurrency per instance. Default: real-time.
    kms_key:
        Customer managed key. Default: AWS managed keys.
    vpc:
        An ``ec2.IVpc`` (or, as in the config file, ``VpcOptions`` of subnet and security group ids) for the
        model's network interfaces. Default: no VPC (SageMaker's managed network).
    vpc_subnets:
        The subnets of ``vpc`` to use. Default: its private subnets.
    security_groups:
        Security groups of the network interfaces (at most 5). Default: with an ``ec2.IVpc``, one new group
        ``SecurityGroup`` with no inbound rule and all outbound (``endpoint.connections`` opens more).
    role:
        Your own execution role (``iam.IRole``). A role created in your app gets the execution policy attached;
        an imported one is not changed (attach ``endpoint.policy`` where it is managed). Default: a new
        least-privilege role ``ExecutionRole``.
    network_isolation:
        Block the container's network. Default: on when the model needs no internet (weights from S3, or a
        multi-model prefix: SageMaker downloads them before the container starts); off for Hugging Face downloads,
        serverless endpoints and custom images. The reason is ``plan.network_isolation_reason``.
    data_capture:
        Capture requests/responses to S3 with a sampling percent. Default: off.
    deployment:
        Blue/green update policy and rollback alarms. Default: blue/green all at once with a 10-minute
        baking period and rollback on 5XX rate or p99 latency.
    quantization:
        Runtime quantization method (``awq``, ``gptq``, ``fp8``, ``bitsandbytes``, ...; ``model.dtype`` must be the
        dtype it serves, e.g. int4 for awq). Default: ``fp8`` when ``model.dtype`` is fp8 on GPU, else none.
    serving_options:
        Speculative decoding (a draft model, which the sizing counts, or ngram / EAGLE / Medusa), prefix caching,
        batching limits and prefix-aware routing, written to the engine's own variables
        (:class:`~inference_constructs.containers.serving_options.ServingOptions`; the config's ``serving:``
        mapping). Default: the engine's defaults, least-outstanding-requests routing.
    environment:
        Extra container variables, applied last. Default: only the ones derived from the decisions.
    hf_token:
        The token secret of a gated or private hub model (the Python form of the config's ``model.hf_token``): an
        ``HfTokenSecret``, a ``secretsmanager.ISecret`` (its key, if any, may then be used to decrypt it), or the
        secret's name or ARN as a string (never the token itself: that is refused). A deploy-time CodeBuild job
        reads it and stages ``model.id`` at ``model.revision`` (a pinned commit, required) into the stack's data
        bucket; the Model loads the staged prefix with network isolation and never holds the token
        (``HfTokenSecret(..., in_environment=True)`` opts in to the token in the container environment instead).
        Default: ``model.hf_token``, else no token.
    instance_pools:
        ``InstancePools`` of the variant: ``"auto"`` (the sizing's choice and the next cheapest hosts that fit and
        share its image, AMI, storage and GPU count, up to 3), a count 1..5, or a ranked list of instance types
        (the first is the variant's host; each is checked like ``instance_type``). Priorities follow the order;
        a host with another tensor parallel degree gets its own model (``ModelNameOverride``). ``plan.instance_pools``
        lists the pools, the hosts left out and why, and the worst-case cost. Real-time (``capacity.min`` 1 or
        more) and async endpoints only. Default: one instance type.
    instance_provision_timeout_seconds:
        ``VariantInstanceProvisionTimeoutInSeconds`` (300..3600), with ``instance_pools`` only. Default: not set
        (SageMaker's default).
    capacity_reservation:
        Run the instances on an ML capacity reservation (``CapacityReservation``; ``CapacityReservationConfig`` with
        ``capacity-reservations-only``); needs an explicit ``instance_type``, assumed to be the reservation's. The
        plan warns that the endpoint stops serving when it ends, and counts it as prepaid. Default: on-demand.
    metrics:
        The endpoint config's ``MetricsConfig`` (``MetricsOptions``), real-time endpoints only; create-only, so
        changing it creates a new endpoint config. Default: not written (SageMaker's defaults).
    endpoint_name, host, catalog, path:
        See :class:`InferenceEndpoint`.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model: ModelSpec,
        serving: Serving | str = Serving.LMI,
        async_inference: AsyncOptions | None = None,
        quantization: str | None = None,
        serving_options: ServingOptions | None = None,
        hf_token: HfTokenLike | None = None,
        **props: Unpack[_InstanceProps],
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            kind=EndpointKind.ASYNC if async_inference is not None else EndpointKind.REALTIME,
            model=model,
            serving=serving,
            async_inference=async_inference,
            quantization=quantization,
            serving_options=serving_options,
            hf_token=hf_token,
            **props,
        )


class InferenceComponentsEndpoint(_KindEndpoint):
    """A real-time endpoint that hosts several models as inference components, sized together on one instance type.

    Each component gets its own ``Model`` and ``InferenceComponent`` (the first's are the endpoint's own,
    :attr:`inference_component`; the others are :attr:`components`, by name), reserving what one copy needs
    (``ComputeResourceRequirements``: the sizing's devices and host memory, unless given); each adapter an adapter
    inference component on its base (:attr:`adapters`). The variant names no model and scales its instances with
    the copies (managed instance scaling ``capacity.min..capacity.max``). ``plan.components`` shows the per-copy
    needs, the packing of the minimum copies and why the instance type was chosen.

    Parameters
    ----------
    components:
        The models (:class:`ComponentRequest`: name, model, copies, serving, accelerators and memory per copy).
    adapters:
        LoRA adapters on the components (:class:`AdapterRequest`); the base must run ``lmi`` on GPU (vLLM). Default:
        none.
    placement:
        ``SPREAD`` or ``BINPACK`` for every component's copies. Default: SageMaker's placement.
    max_az_imbalance:
        Most copies of difference between Availability Zones (0..100), with ``placement``. Default: no limit.
    data_cache:
        Cache the model artifacts and image on each instance for faster scale-out. Default: not written
        (SageMaker's choice).
    props:
        As for :class:`RealtimeEndpoint`: ``instance_type`` (default: the type whose packing of the minimum copies
        costs least per hour; a given type that does not hold them is refused with the one that would),
        ``capacity`` (the variant's instances; default 1..1), ``accelerator``, ``kms_key``, ``vpc``, ``deployment``...

    Scale each component's copies with ``endpoint.inference_component.auto_scale_copies(...)`` and
    ``endpoint.components[name].component.auto_scale_copies(...)`` (a component with ``copies.min`` 0 needs it).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        components: Sequence[ComponentRequest],
        adapters: Sequence[AdapterRequest] = (),
        placement: PlacementStrategy | str | None = None,
        max_az_imbalance: int | None = None,
        data_cache: bool | None = None,
        **props: Unpack[_InstanceProps],
    ) -> None:
        path = props.get("path", "")
        options = ComponentsOptions(
            components=tuple(
                replace(
                    c,
                    serving=_coerce.enum_prop(_prop(path, f"components[{i}].serving"), c.serving, Serving),
                    copies=coerce_capacity(_prop(path, f"components[{i}].copies"), c.copies) or Capacity(),
                )
                for i, c in enumerate(components)
            ),
            adapters=tuple(adapters),
            placement=None
            if placement is None
            else _coerce.enum_prop(_prop(path, "placement"), placement, PlacementStrategy),
            max_az_imbalance=max_az_imbalance,
            data_cache=data_cache,
        )
        first = options.components[0] if options.components else None
        super().__init__(
            scope,
            construct_id,
            kind=EndpointKind.REALTIME,
            model=first.model if first else ModelSpec(),
            serving=first.serving if first else Serving.LMI,
            components=options,
            **props,
        )


def _serverless_options(
    memory_mb: int | None, max_concurrency: int | None, provisioned: int | None
) -> ServerlessOptions:
    """The options given, over :class:`ServerlessOptions`' own defaults (stated there only)."""
    given = {"memory_mb": memory_mb, "max_concurrency": max_concurrency, "provisioned_concurrency": provisioned}
    return ServerlessOptions(**{k: v for k, v in given.items() if v is not None})


class ServerlessEndpoint(_KindEndpoint):
    """A serverless SageMaker endpoint (CPU only; no VPC, network isolation or data capture).

    Parameters
    ----------
    model:
        What is served; ``s3_uri`` must be a ``.tar.gz`` archive.
    serving:
        A CPU serving stack: ``sklearn``, ``xgboost``, ``pytorch``, ``triton`` or ``custom``.
        Default: ``sklearn``.
    memory_size_in_mb, max_concurrency, provisioned_concurrency:
        The :class:`ServerlessOptions` ``memory_mb``, ``max_concurrency`` and ``provisioned_concurrency`` (their
        ranges are there). Default: each one's default there (memory sized to the model, its concurrency limit,
        no provisioned concurrency).
    hf_token:
        The token secret of a private or gated hub model a ``custom`` container downloads, as for
        :class:`RealtimeEndpoint`; serverless endpoints cannot stage weights into S3, so only
        ``HfTokenSecret(..., in_environment=True)`` is accepted (the Model then holds a dynamic reference to the
        secret, never its value). Default: ``model.hf_token``, else no token.
    image, kms_key, role, deployment, environment, endpoint_name, catalog, path:
        As for :class:`RealtimeEndpoint` (``kms_key`` encrypts nothing on the endpoint config: serverless
        has no ML storage volume).
    """

    imported_kind = EndpointKind.SERVERLESS

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model: ModelSpec,
        serving: Serving | str = Serving.SKLEARN,
        memory_size_in_mb: int | None = None,
        max_concurrency: int | None = None,
        provisioned_concurrency: int | None = None,
        hf_token: HfTokenLike | None = None,
        **props: Unpack[_EndpointProps],
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            kind=EndpointKind.SERVERLESS,
            model=model,
            serving=serving,
            serverless=_serverless_options(memory_size_in_mb, max_concurrency, provisioned_concurrency),
            hf_token=hf_token,
            **props,
        )

    def auto_scale_provisioned_concurrency(
        self,
        *,
        min_provisioned_concurrency: int | None = None,
        max_provisioned_concurrency: int | None = None,
        target_utilization: float = DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
        scale_out_cooldown: Duration | None = None,
        scale_in_cooldown: Duration | None = None,
    ) -> ServerlessScaling:
        """Scale the provisioned (warm) concurrency on its utilization (id ``Scaling``, created after the endpoint).

        Target tracking on ``SageMakerVariantProvisionedConcurrencyUtilization``
        (``ServerlessProvisionedConcurrencyUtilization``, a 0-1 ratio).

        Parameters
        ----------
        min_provisioned_concurrency:
            Least provisioned concurrency. Default: the endpoint's ``provisioned_concurrency``.
        max_provisioned_concurrency:
            Most provisioned concurrency, up to ``max_concurrency``. Default: the endpoint's ``max_concurrency``.
        target_utilization:
            Share of provisioned concurrency in use to keep, 0 < value <= 1. Default: 0.7 (30% warm headroom).
        scale_out_cooldown:
            Wait after a scale-out. Default: 60 s.
        scale_in_cooldown:
            Wait after a scale-in. Default: 300 s.

        Raises
        ------
        InferenceConfigError
            The endpoint has no provisioned concurrency to scale (``provisioned_concurrency`` 0), bounds
            out of range, or scaling added twice.
        """
        s = self.plan.serverless or ServerlessOptions()
        problems = ProblemCollector()
        if s.provisioned_concurrency < 1:
            problems.add(
                self._key("serverless.provisioned_concurrency"),
                "0 gives the variant no provisioned concurrency to scale",
                "set provisioned_concurrency to 1 or more",
            )
        self._check_not_scaled(problems)
        problems.raise_if_any()
        scaling = ServerlessScaling(
            self,
            "Scaling",
            endpoint_name=self.endpoint_name,
            variant_name=self.variant_name,
            min_provisioned_concurrency=(
                s.provisioned_concurrency if min_provisioned_concurrency is None else min_provisioned_concurrency
            ),
            max_provisioned_concurrency=(
                s.max_concurrency if max_provisioned_concurrency is None else max_provisioned_concurrency
            ),
            target_utilization=target_utilization,
            scale_out_cooldown=scale_out_cooldown,
            scale_in_cooldown=scale_in_cooldown,
        )
        return self._attach(scaling)


class MultiModelEndpoint(_KindEndpoint):
    """A multi-model SageMaker endpoint: many ``.tar.gz`` models under one S3 prefix, loaded on demand.

    Runs on CPU hosts with any classical serving stack, or on single-GPU hosts with Triton only.

    Parameters
    ----------
    model_data_prefix:
        ``s3://bucket/prefix/`` holding one archive per model (the ``TargetModel`` of an invocation).
    serving:
        Default: ``xgboost``.
    model:
        Size hints for the right-sizing (the largest model, if known). Default: unknown (host memory
        is sized for a small classical model).
    cache:
        Keep loaded models on the instance (``ModelCacheSetting: Enabled``). Default: on.
    image, accelerator, instance_type, host_ami, capacity, kms_key, vpc, vpc_subnets, security_groups, role,
    network_isolation, data_capture, deployment, environment, endpoint_name, host, catalog, path,
    capacity_reservation:
        As for :class:`RealtimeEndpoint` (``instance_pools`` and ``metrics`` are refused: no source documents them
        for multi-model endpoints).
    """

    imported_kind = EndpointKind.MULTI_MODEL

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model_data_prefix: str,
        serving: Serving | str = Serving.XGBOOST,
        model: ModelSpec | None = None,
        cache: bool = True,
        **props: Unpack[_InstanceProps],
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            kind=EndpointKind.MULTI_MODEL,
            model=ModelSpec() if model is None else model,
            serving=serving,
            multi_model=MultiModelOptions(model_data_prefix, cache),
            **props,
        )


def endpoint_from_request(
    scope: Construct, construct_id: str, request: EndpointRequest, **options: Unpack[_RequestOptions]
) -> InferenceEndpoint:
    """Build an endpoint of any kind from a request (the config layer's entry point).

    ``options`` (``host``, ``catalog``, ``kms_key``, ``endpoint_name``, ``path``, ``plan``) are those of
    :class:`InferenceEndpoint`, with their defaults. ``request.kms_key_arn`` (a literal ARN from the config) is
    imported as a key when ``kms_key`` is not given. ``plan``: the decisions already made for ``request``; default:
    made here.
    """
    if options.get("kms_key") is None and request.kms_key_arn is not None:
        options["kms_key"] = kms.Key.from_key_arn(scope, f"{construct_id}Key", request.kms_key_arn)
    return InferenceEndpoint(scope, construct_id, request=request, **options)
