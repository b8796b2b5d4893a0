"""The inference components of an endpoint that hosts several models (``plan.components``), after the first.

The first component is the endpoint's own ``Model`` and ``InferenceComponent``
(:class:`~inference_constructs.hosting.endpoint.InferenceEndpoint`); every further component gets, under a child
named after it in PascalCase (``Summarize``), its ``Model``, its ``InferenceComponent`` and its two rollback alarms,
and every adapter an ``AWS::SageMaker::InferenceComponent`` (id ``<Adapter>Adapter``) that names its base component
(``BaseInferenceComponentName``) and its artifacts (``Container.ArtifactUrl``), created after the base. This module
only translates the plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct, IDependable

from inference_constructs.hosting import properties
from inference_constructs.hosting.endpoint_plan import ComponentPlan, ComponentsPlan, InferenceComponentPlan
from inference_constructs.hosting.rollback import rollback_alarms
from inference_constructs.observability.metric_definitions import endpoint_dimensions
from inference_constructs.scaling.decisions import ScalingPlan
from inference_constructs.scaling.inference_component import InferenceComponentScaling, ModelInferenceComponent

__all__ = [
    "ComponentHost",
    "ComponentResources",
    "add_components",
    "component_id",
    "model_component",
    "scale_components",
]


def component_id(name: str) -> str:
    """The construct id of a component or adapter named ``name`` (``summarize-v2`` -> ``SummarizeV2``)."""
    return "".join(part.capitalize() for part in name.split("-"))


@dataclass(frozen=True)
class ComponentResources:
    """What one further component adds: its model, its inference component and its rollback alarms."""

    model: sagemaker.CfnModel
    component: ModelInferenceComponent
    rollback_alarms: tuple[cloudwatch.CfnAlarm, ...]


@dataclass(frozen=True)
class ComponentHost:
    """The endpoint the components are placed on, as their resources need it: its execution role and policy (a model
    is created once its role may pull and read), the endpoint resource (a component is placed once it exists), its
    names, the first component and its model (whose network settings every model shares)."""

    role_arn: str
    policy: IDependable
    endpoint: IDependable
    endpoint_name: str
    variant_name: str
    primary: ModelInferenceComponent
    primary_model: sagemaker.CfnModel


def add_components(
    scope: Construct, plan: ComponentsPlan, host: ComponentHost, images: Mapping[str, str]
) -> tuple[dict[str, ComponentResources], dict[str, sagemaker.CfnInferenceComponent]]:
    """Create the components after the first and every adapter; returns them by name (``images``: each further
    component's image URI by name)."""
    created: dict[str, ComponentResources] = {}
    names = {plan.components[0].name: host.primary}
    for c in plan.components[1:]:
        created[c.name] = _component(scope, plan, c, host, images[c.name])
        names[c.name] = created[c.name].component
    adapters: dict[str, sagemaker.CfnInferenceComponent] = {}
    for a in plan.adapters:
        base = names[a.base]
        adapter = sagemaker.CfnInferenceComponent(
            scope,
            f"{component_id(a.name)}Adapter",
            endpoint_name=host.endpoint_name,
            specification=sagemaker.CfnInferenceComponent.InferenceComponentSpecificationProperty(
                base_inference_component_name=base.inference_component_name,
                container=sagemaker.CfnInferenceComponent.InferenceComponentContainerSpecificationProperty(
                    artifact_url=a.artifact_url
                ),
            ),
        )
        # The base's name is a literal string: create the adapter once the base exists.
        adapter.node.add_dependency(base.resource)
        adapters[a.name] = adapter
    return created, adapters


def _component(
    scope: Construct, plan: ComponentsPlan, c: ComponentPlan, host: ComponentHost, image: str
) -> ComponentResources:
    owner = Construct(scope, component_id(c.name))
    model = sagemaker.CfnModel(
        owner,
        "Model",
        execution_role_arn=host.role_arn,
        primary_container=properties.container(c.plan, image),
        enable_network_isolation=c.plan.network_isolation or None,
        vpc_config=host.primary_model.vpc_config,
    )
    model.node.add_dependency(host.policy)
    component = model_component(
        owner,
        host.endpoint,
        endpoint_name=host.endpoint_name,
        variant_name=host.variant_name,
        model_name=model.attr_model_name,
        accelerator_devices=c.accelerator_devices,
        min_memory_required_mb=c.min_memory_required_mb,
        copy_count=c.copy_count,
        timeouts=c.plan.inference_component,
        shared=plan,
    )
    dimensions = endpoint_dimensions(
        host.endpoint_name, host.variant_name, inference_component_name=component.inference_component_name
    )
    alarms = rollback_alarms(owner, c.plan, tuple(dimensions.items()))
    component.resource.deployment_config = properties.component_deployment_config(c.plan.update_policy, alarms)
    return ComponentResources(model, component, tuple(alarms))


def model_component(
    scope: Construct,
    endpoint: IDependable,
    *,
    endpoint_name: str,
    variant_name: str,
    model_name: str,
    accelerator_devices: int,
    min_memory_required_mb: int,
    copy_count: int,
    timeouts: InferenceComponentPlan | None,
    shared: ComponentsPlan | None,
) -> ModelInferenceComponent:
    """The ``InferenceComponent`` (construct id) of one model on the endpoint, the first or a further one: what a copy
    reserves, its copies at creation, its start-up timeouts (``timeouts``; None: SageMaker's defaults) and the
    placement the endpoint's components share (``shared``; None for a single model). It is placed once ``endpoint``
    exists: ``endpoint_name`` is a literal string."""
    component = ModelInferenceComponent(
        scope,
        "InferenceComponent",
        endpoint_name=endpoint_name,
        model_name=model_name,
        min_memory_required_in_mb=min_memory_required_mb,
        accelerator_devices=accelerator_devices,
        variant_name=variant_name,
        copy_count=copy_count,
        model_data_download_timeout_in_seconds=timeouts.model_data_download_timeout_seconds if timeouts else None,
        container_startup_health_check_timeout_in_seconds=(
            timeouts.container_startup_health_check_timeout_seconds if timeouts else None
        ),
        placement_strategy=shared.placement.value if shared and shared.placement else None,
        max_az_imbalance=shared.max_az_imbalance if shared else None,
        enable_data_caching=shared.data_cache if shared else None,
    )
    component.node.add_dependency(endpoint)
    return component


def scale_components(
    components: Mapping[str, ComponentResources], names: tuple[str, ...], plans: tuple[ScalingPlan, ...]
) -> dict[str, InferenceComponentScaling]:
    """Scale each further component's copies as its plan says (``names[i]`` takes ``plans[i]``; a plan that scales
    nothing adds nothing)."""
    scaled: dict[str, InferenceComponentScaling] = {}
    for name, plan in zip(names, plans, strict=True):
        if plan.enabled:
            scaled[name] = components[name].component.auto_scale_from_plan(plan)
    return scaled
