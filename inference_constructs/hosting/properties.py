"""CloudFormation properties of an endpoint's Model, EndpointConfig, Endpoint and InferenceComponent, from its plan.

The model's container (image, environment, model data as an archive, an uncompressed prefix or a multi-model
prefix), the production variant (instances, serverless, or a model-less variant for an inference component),
and the deployment configuration (blue/green traffic shifting on the endpoint, a rolling update of an
inference component's copies), each with auto-rollback on the given alarms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_sagemaker as sagemaker

from inference_constructs.hosting.decisions import DeploymentOptions, DeploymentStrategy, EndpointPlan, ModelDataKind
from inference_constructs.scaling.inference_component import scale_to_zero_variant

__all__ = ["component_deployment_config", "container", "deployment_config", "production_variant"]


def container(plan: EndpointPlan, image: str) -> sagemaker.CfnModel.ContainerDefinitionProperty:
    """The model's primary container: ``image``, the plan's environment and model data."""
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
                    s3_uri=data.uri or "", s3_data_type="S3Prefix", compression_type="None"
                )
            ),
        )
    if data.kind is ModelDataKind.ARCHIVE:
        return sagemaker.CfnModel.ContainerDefinitionProperty(**common, model_data_url=data.uri)
    return sagemaker.CfnModel.ContainerDefinitionProperty(**common)


def production_variant(plan: EndpointPlan, model_name: str) -> sagemaker.CfnEndpointConfig.ProductionVariantProperty:
    """The endpoint config's one production variant: serverless, a model-less variant hosting an inference
    component, or instances serving ``model_name``."""
    if plan.serverless is not None:
        s = plan.serverless
        return sagemaker.CfnEndpointConfig.ProductionVariantProperty(
            variant_name=plan.variant_name,
            model_name=model_name,
            serverless_config=sagemaker.CfnEndpointConfig.ServerlessConfigProperty(
                memory_size_in_mb=s.memory_mb or 2048,
                max_concurrency=s.max_concurrency,
                provisioned_concurrency=s.provisioned_concurrency or None,
            ),
        )
    if plan.inference_component is not None and plan.instance_type is not None:
        return scale_to_zero_variant(
            instance_type=plan.instance_type,
            max_instance_count=plan.inference_component.max_instance_count,
            variant_name=plan.variant_name,
            initial_instance_count=plan.initial_instance_count or 1,
            volume_size_in_gb=plan.volume_size_gb,
        )
    return sagemaker.CfnEndpointConfig.ProductionVariantProperty(
        variant_name=plan.variant_name,
        model_name=model_name,
        instance_type=plan.instance_type,
        initial_instance_count=plan.initial_instance_count,
        initial_variant_weight=1,
        model_data_download_timeout_in_seconds=plan.model_data_download_timeout_seconds,
        container_startup_health_check_timeout_in_seconds=plan.container_startup_health_check_timeout_seconds,
        volume_size_in_gb=plan.volume_size_gb,
        routing_config=(
            sagemaker.CfnEndpointConfig.RoutingConfigProperty(routing_strategy=plan.routing_strategy)
            if plan.routing_strategy
            else None
        ),
    )


def deployment_config(
    plan: EndpointPlan, rollback_alarms: Sequence[cloudwatch.CfnAlarm]
) -> sagemaker.CfnEndpoint.DeploymentConfigProperty:
    """Blue/green update of the endpoint (all at once, canary or linear), rolled back on ``rollback_alarms``."""
    d = plan.deployment
    cfn = sagemaker.CfnEndpoint
    wait = d.wait_interval_seconds
    if d.strategy is DeploymentStrategy.CANARY:
        routing = cfn.TrafficRoutingConfigProperty(
            type="CANARY",
            canary_size=cfn.CapacitySizeProperty(type="CAPACITY_PERCENT", value=d.canary_size_percent),
            wait_interval_in_seconds=wait,
        )
        steps = 2
    elif d.strategy is DeploymentStrategy.LINEAR:
        routing = cfn.TrafficRoutingConfigProperty(
            type="LINEAR",
            linear_step_size=cfn.CapacitySizeProperty(type="CAPACITY_PERCENT", value=d.linear_step_percent),
            wait_interval_in_seconds=wait,
        )
        steps = math.ceil(100 / d.linear_step_percent)
    else:
        routing = cfn.TrafficRoutingConfigProperty(type="ALL_AT_ONCE", wait_interval_in_seconds=wait)
        steps = 1
    termination = 0 if d.strategy is DeploymentStrategy.ALL_AT_ONCE else d.termination_wait_seconds
    startup = (plan.model_data_download_timeout_seconds or 0) + (
        plan.container_startup_health_check_timeout_seconds or 0
    )
    timeout = min(28_800, max(600, startup + wait * steps + termination + 900))
    return cfn.DeploymentConfigProperty(
        blue_green_update_policy=cfn.BlueGreenUpdatePolicyProperty(
            traffic_routing_configuration=routing,
            termination_wait_in_seconds=termination,
            maximum_execution_timeout_in_seconds=timeout,
        ),
        auto_rollback_configuration=(
            cfn.AutoRollbackConfigProperty(alarms=[cfn.AlarmProperty(alarm_name=a.ref) for a in rollback_alarms])
            if rollback_alarms
            else None
        ),
    )


def component_deployment_config(
    plan: EndpointPlan, rollback_alarms: Sequence[cloudwatch.CfnAlarm]
) -> sagemaker.CfnInferenceComponent.InferenceComponentDeploymentConfigProperty:
    """Rolling update of the component's copies with alarm rollback (the endpoint's blue/green does not apply)."""
    d = plan.deployment
    cfn = sagemaker.CfnInferenceComponent
    percent = _rolling_batch_percent(d)
    steps = math.ceil(100 / percent)
    startup = (plan.model_data_download_timeout_seconds or 0) + (
        plan.container_startup_health_check_timeout_seconds or 0
    )
    timeout = min(28_800, max(600, steps * (startup + d.wait_interval_seconds) + 900))
    return cfn.InferenceComponentDeploymentConfigProperty(
        rolling_update_policy=cfn.InferenceComponentRollingUpdatePolicyProperty(
            maximum_batch_size=cfn.InferenceComponentCapacitySizeProperty(type="CAPACITY_PERCENT", value=percent),
            wait_interval_in_seconds=d.wait_interval_seconds,
            maximum_execution_timeout_in_seconds=timeout,
        ),
        auto_rollback_configuration=(
            cfn.AutoRollbackConfigurationProperty(alarms=[cfn.AlarmProperty(alarm_name=a.ref) for a in rollback_alarms])
            if rollback_alarms
            else None
        ),
    )


def _rolling_batch_percent(d: DeploymentOptions) -> int:
    """Share of copies replaced per rolling step; SageMaker accepts 5..50 % of the copy count."""
    if d.strategy is DeploymentStrategy.CANARY:
        return max(5, d.canary_size_percent)
    if d.strategy is DeploymentStrategy.LINEAR:
        return max(5, d.linear_step_percent)
    return 50
