"""From one config-file endpoint to the typed inputs of the hosting decisions: its :class:`ModelSpec` and the
:class:`EndpointRequest` (the construct props the same endpoint would take from Python).
"""

from __future__ import annotations

from inference_constructs.config.schema import Endpoint, Model, RoutingConfig
from inference_constructs.containers.routing import RoutingOptions, RoutingStrategy
from inference_constructs.containers.serving_options import BatchingLimits, ServingOptions, SpeculativeDecoding
from inference_constructs.hf_token import HfTokenSecret
from inference_constructs.hosting.request import (
    AdapterRequest,
    AsyncOptions,
    Capacity,
    CapacityReservation,
    ComponentRequest,
    ComponentsOptions,
    DataCaptureOptions,
    DeploymentOptions,
    DeploymentStrategy,
    EndpointRequest,
    MetricsOptions,
    MultiModelOptions,
    PlacementStrategy,
    ServerlessOptions,
    VpcOptions,
)
from inference_constructs.spec import AcceleratorChoice, ModelArchitecture, ModelSpec

__all__ = ["components_options", "endpoint_request", "model_spec", "serving_options"]


def model_spec(endpoint: Endpoint) -> ModelSpec:
    """The typed :class:`ModelSpec` of a config endpoint.

    The config's ``model`` block names its keys after :class:`ModelSpec`'s fields, so each value is passed as
    it is; the nested ``architecture`` becomes a :class:`ModelArchitecture`, and ``hf_token`` goes on the
    :class:`EndpointRequest` (:func:`endpoint_request`) instead.
    """
    return _spec(endpoint.model)


def _spec(m: Model, *, with_token: bool = False) -> ModelSpec:
    """The :class:`ModelSpec` of one ``model`` block (``with_token``: its ``hf_token`` on the spec, as a component
    carries it)."""
    arch = m.architecture
    token = m.hf_token if with_token else None
    return ModelSpec(
        **m.model_dump(exclude={"architecture", "hf_token"}),
        architecture=ModelArchitecture(**arch.model_dump()) if arch else None,
        hf_token=(
            HfTokenSecret(token.secret, token.json_key, token.version_id, token.kms_key_arn, token.in_environment)
            if token
            else None
        ),
    )


def components_options(endpoint: Endpoint) -> ComponentsOptions | None:
    """The :class:`ComponentsOptions` of an endpoint's ``components`` and ``adapters`` (None without components)."""
    e = endpoint
    if not e.components:
        return None
    return ComponentsOptions(
        components=tuple(
            ComponentRequest(
                name=c.name,
                model=_spec(c.model, with_token=True),
                copies=Capacity(c.copies.min, c.copies.max),
                serving=c.serving,
                accelerators_per_copy=c.accelerators_per_copy,
                memory_mb_per_copy=c.memory_mb_per_copy,
                environment={key: _env_value(value) for key, value in c.environment.items()},
                max_lora_rank=c.max_lora_rank,
            )
            for c in e.components
        ),
        adapters=tuple(AdapterRequest(a.name, a.base, a.s3_uri) for a in e.adapters),
        placement=PlacementStrategy(e.placement) if e.placement else None,
        max_az_imbalance=e.max_az_imbalance,
        data_cache=e.data_cache,
    )


def _env_value(value: str | int | float | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def endpoint_request(endpoint: Endpoint) -> EndpointRequest:
    """The hosting request (construct props) that a config endpoint describes."""
    e = endpoint
    token = e.model.hf_token
    return EndpointRequest(
        kind=e.type,
        model=model_spec(e),
        serving=e.serving,
        image=e.image,
        accelerator=AcceleratorChoice(e.accelerator),
        instance_type=None if e.instance_type == "auto" else e.instance_type,
        capacity=Capacity(min=e.capacity.min, max=e.capacity.max),
        serverless=(
            ServerlessOptions(
                e.serverless.memory_mb, e.serverless.max_concurrency, e.serverless.provisioned_concurrency
            )
            if e.serverless
            else None
        ),
        async_inference=(
            AsyncOptions(
                output_s3_uri=e.async_.output_s3_uri,
                max_concurrent_invocations_per_instance=e.async_.max_concurrent_invocations_per_instance,
            )
            if e.async_
            else None
        ),
        multi_model=MultiModelOptions(e.multi_model.model_data_prefix, e.multi_model.cache) if e.multi_model else None,
        kms_key_arn=e.kms_key_arn,
        vpc=(
            VpcOptions(tuple(e.vpc.subnet_ids), tuple(e.vpc.security_group_ids))
            if e.vpc.subnet_ids or e.vpc.security_group_ids
            else None
        ),
        network_isolation=e.network_isolation,
        data_capture=(
            DataCaptureOptions(sampling_percent=e.data_capture.sampling_percent, s3_uri=e.data_capture.s3_uri)
            if e.data_capture.sampling_percent
            else None
        ),
        deployment=DeploymentOptions(
            strategy=DeploymentStrategy(e.deployment.strategy), rollback_on_alarms=e.deployment.rollback_on_alarms
        ),
        environment={key: _env_value(value) for key, value in e.environment.items()},
        hf_token=(
            HfTokenSecret(token.secret, token.json_key, token.version_id, token.kms_key_arn, token.in_environment)
            if token
            else None
        ),
        host_ami=e.host_ami,
        instance_pools=tuple(e.instance_pools) if isinstance(e.instance_pools, list) else e.instance_pools,
        instance_provision_timeout_seconds=e.instance_provision_timeout_seconds,
        capacity_reservation=(
            CapacityReservation(
                e.capacity_reservation.ml_reservation_arn,
                e.capacity_reservation.ends_at.isoformat() if e.capacity_reservation.ends_at else None,
            )
            if e.capacity_reservation
            else None
        ),
        metrics=(
            MetricsOptions(
                e.metrics.detailed_observability, e.metrics.enhanced_metrics, e.metrics.publish_frequency_seconds
            )
            if e.metrics
            else None
        ),
        serving_options=serving_options(e),
        components=components_options(e),
    )


def serving_options(endpoint: Endpoint) -> ServingOptions | None:
    """The :class:`ServingOptions` of an endpoint's ``serving_options`` block (None without one).

    ``routing`` as a string is the strategy; the scaling target ``scaling.concurrency_per_instance`` is copied into
    the routing options, where the prefix-aware routing decision reads it.
    """
    block = endpoint.serving_options
    if block is None:
        return None
    sd = block.speculative_decoding
    b = block.batching
    r = block.routing
    routing = None
    if r is not None:
        cfg = RoutingConfig(strategy=r) if isinstance(r, str) else r
        routing = RoutingOptions(
            strategy=RoutingStrategy(cfg.strategy),
            prefix_length=cfg.prefix_length,
            concurrency_threshold=cfg.concurrency_threshold,
            concurrency_per_instance=endpoint.scaling.concurrency_per_instance,
        )
    return ServingOptions(
        speculative_decoding=SpeculativeDecoding(**sd.model_dump()) if sd else None,
        prefix_caching=block.prefix_caching,
        quantization=block.quantization,
        batching=BatchingLimits(**b.model_dump()) if b else None,
        routing=routing,
    )
