"""CloudFormation properties of an endpoint's Model, EndpointConfig, Endpoint and InferenceComponent, from its plan.

The model's container (image, environment, model data as an archive, an uncompressed prefix or a multi-model
prefix), the production variant (instances, serverless, or a model-less variant for an inference component),
and the deployment configuration (blue/green traffic shifting on the endpoint, a rolling update of an
inference component's copies), each with auto-rollback on the given alarms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_sagemaker as sagemaker

from inference_constructs.hosting.decisions import EndpointPlan, ModelDataKind
from inference_constructs.hosting.deployment import DeploymentPlan
from inference_constructs.scaling.inference_component import scale_to_zero_variant

__all__ = [
    "component_deployment_config",
    "container",
    "deployment_config",
    "metrics_config",
    "production_variant",
]


def container(
    plan: EndpointPlan, image: str, *, staged_s3_uri: str | None = None
) -> sagemaker.CfnModel.ContainerDefinitionProperty:
    """The model's primary container: ``image``, the plan's environment and model data (``staged_s3_uri``: where
    the staging job put a hub model the plan stages, the staging resource's ``S3Uri``)."""
    data = plan.model_data
    env: dict[str, str] = dict(plan.environment)
    common: dict[str, Any] = {"image": image, "environment": env or None}
    if data.kind is ModelDataKind.MULTI_MODEL:
        cache = "Enabled" if (plan.multi_model is None or plan.multi_model.cache) else "Disabled"
        return sagemaker.CfnModel.ContainerDefinitionProperty(
            **common,
            mode="MultiModel",
            model_data_url=data.uri,
            multi_model_config=sagemaker.CfnModel.MultiModelConfigProperty(model_cache_setting=cache),
        )
    if data.kind is ModelDataKind.PREFIX:
        return sagemaker.CfnModel.ContainerDefinitionProperty(
            **common,
            model_data_source=sagemaker.CfnModel.ModelDataSourceProperty(
                s3_data_source=sagemaker.CfnModel.S3DataSourceProperty(
                    s3_uri=(staged_s3_uri if data.staging is not None else data.uri) or "",
                    s3_data_type="S3Prefix",
                    compression_type="None",
                )
            ),
        )
    if data.kind is ModelDataKind.ARCHIVE:
        return sagemaker.CfnModel.ContainerDefinitionProperty(**common, model_data_url=data.uri)
    return sagemaker.CfnModel.ContainerDefinitionProperty(**common)


def production_variant(
    plan: EndpointPlan, model_name: str, pool_models: Mapping[int, str] | None = None
) -> sagemaker.CfnEndpointConfig.ProductionVariantProperty:
    """The endpoint config's one production variant: serverless, a model-less variant hosting an inference
    component, or instances serving ``model_name``; on GPU and Neuron hosts with the plan's
    ``InferenceAmiVersion``. With instance pools the variant names no ``InstanceType`` of its own: its
    ``InstancePools`` list every host by priority, a pool in ``pool_models`` (priority -> model name) with its own
    model (``ModelNameOverride``)."""
    if plan.serverless is not None:
        s = plan.serverless
        return sagemaker.CfnEndpointConfig.ProductionVariantProperty(
            variant_name=plan.variant_name,
            model_name=model_name,
            serverless_config=sagemaker.CfnEndpointConfig.ServerlessConfigProperty(
                memory_size_in_mb=s.memory_mb,
                max_concurrency=s.max_concurrency,
                provisioned_concurrency=s.provisioned_concurrency or None,
            ),
        )
    if plan.inference_component is not None and plan.instance_type is not None:
        components = plan.components
        return scale_to_zero_variant(
            instance_type=plan.instance_type,
            max_instance_count=plan.inference_component.max_instance_count,
            variant_name=plan.variant_name,
            initial_instance_count=(
                components.initial_instance_count if components else plan.inference_component.initial_instance_count
            ),
            volume_size_in_gb=plan.volume_size_gb,
            inference_ami_version=plan.inference_ami_version,
            min_instance_count=components.min_instance_count if components else 0,
        )
    cfn = sagemaker.CfnEndpointConfig
    pools = plan.instance_pools
    reservation = plan.capacity_reservation
    return cfn.ProductionVariantProperty(
        variant_name=plan.variant_name,
        model_name=model_name,
        instance_type=plan.instance_type if pools is None else None,
        instance_pools=(
            None
            if pools is None
            else [
                cfn.InstancePoolProperty(
                    instance_type=pool.instance_type,
                    priority=pool.priority,
                    model_name_override=(pool_models or {}).get(pool.priority),
                )
                for pool in pools.pools
            ]
        ),
        variant_instance_provision_timeout_in_seconds=pools.provision_timeout_seconds if pools else None,
        capacity_reservation_config=(
            None
            if reservation is None
            else cfn.CapacityReservationConfigProperty(
                capacity_reservation_preference=reservation.preference,
                ml_reservation_arn=reservation.ml_reservation_arn,
            )
        ),
        initial_instance_count=plan.initial_instance_count,
        initial_variant_weight=1,
        model_data_download_timeout_in_seconds=plan.model_data_download_timeout_seconds,
        container_startup_health_check_timeout_in_seconds=plan.container_startup_health_check_timeout_seconds,
        volume_size_in_gb=plan.volume_size_gb,
        inference_ami_version=plan.inference_ami_version,
        routing_config=(
            sagemaker.CfnEndpointConfig.RoutingConfigProperty(
                routing_strategy=plan.routing_strategy,
                prefix_aware_routing_config=_prefix_aware(plan),
            )
            if plan.routing_strategy
            else None
        ),
    )


def metrics_config(plan: EndpointPlan) -> sagemaker.CfnEndpointConfig.MetricsConfigProperty | None:
    """The endpoint config's ``MetricsConfig`` with the fields the plan sets; None when it sets none."""
    m = plan.metrics_config
    if m is None:
        return None
    return sagemaker.CfnEndpointConfig.MetricsConfigProperty(
        enable_detailed_observability=m.enable_detailed_observability,
        enable_enhanced_metrics=m.enable_enhanced_metrics,
        metric_publish_frequency_in_seconds=m.metric_publish_frequency_seconds,
    )


def _prefix_aware(plan: EndpointPlan) -> sagemaker.CfnEndpointConfig.PrefixAwareRoutingConfigProperty | None:
    """``PrefixAwareRoutingConfig`` when the plan routes by prefix (its length and threshold are the plan's)."""
    r = plan.prefix_aware_routing
    if r is None:
        return None
    return sagemaker.CfnEndpointConfig.PrefixAwareRoutingConfigProperty(
        prefix_length=r.prefix_length, concurrency_threshold=r.concurrency_threshold
    )


def deployment_config(
    policy: DeploymentPlan, rollback_alarms: Sequence[cloudwatch.CfnAlarm]
) -> sagemaker.CfnEndpoint.DeploymentConfigProperty:
    """Blue/green update of the endpoint (all at once, canary or linear), rolled back on ``rollback_alarms``."""
    cfn = sagemaker.CfnEndpoint
    routing = cfn.TrafficRoutingConfigProperty(
        type=policy.traffic_routing,
        canary_size=_capacity_percent(policy.canary_size_percent),
        linear_step_size=_capacity_percent(policy.linear_step_percent),
        wait_interval_in_seconds=policy.wait_interval_seconds,
    )
    alarms = [cfn.AlarmProperty(alarm_name=a.ref) for a in rollback_alarms]
    return cfn.DeploymentConfigProperty(
        blue_green_update_policy=cfn.BlueGreenUpdatePolicyProperty(
            traffic_routing_configuration=routing,
            termination_wait_in_seconds=policy.termination_wait_seconds,
            maximum_execution_timeout_in_seconds=policy.maximum_execution_timeout_seconds,
        ),
        auto_rollback_configuration=cfn.AutoRollbackConfigProperty(alarms=alarms) if alarms else None,
    )


def _capacity_percent(percent: int | None) -> sagemaker.CfnEndpoint.CapacitySizeProperty | None:
    """A traffic shift of ``percent`` of the fleet's capacity; None when the strategy shifts none in steps."""
    if percent is None:
        return None
    return sagemaker.CfnEndpoint.CapacitySizeProperty(type="CAPACITY_PERCENT", value=percent)


def component_deployment_config(
    policy: DeploymentPlan, rollback_alarms: Sequence[cloudwatch.CfnAlarm]
) -> sagemaker.CfnInferenceComponent.InferenceComponentDeploymentConfigProperty:
    """Rolling update of the component's copies with alarm rollback (the endpoint's blue/green does not apply)."""
    cfn = sagemaker.CfnInferenceComponent
    alarms = [cfn.AlarmProperty(alarm_name=a.ref) for a in rollback_alarms]
    return cfn.InferenceComponentDeploymentConfigProperty(
        rolling_update_policy=cfn.InferenceComponentRollingUpdatePolicyProperty(
            maximum_batch_size=cfn.InferenceComponentCapacitySizeProperty(
                type="CAPACITY_PERCENT", value=policy.rolling_batch_percent
            ),
            wait_interval_in_seconds=policy.wait_interval_seconds,
            maximum_execution_timeout_in_seconds=policy.rolling_maximum_execution_timeout_seconds,
        ),
        auto_rollback_configuration=cfn.AutoRollbackConfigurationProperty(alarms=alarms) if alarms else None,
    )
