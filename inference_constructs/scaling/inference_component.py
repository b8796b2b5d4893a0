"""Real-time scale to zero: an inference component on a managed-instance-scaling variant, and its copy scaling.

A real-time endpoint scales to zero instances only when its model is hosted through an
inference component (SageMaker "Scale an endpoint to zero instances"). The pieces:

1. the endpoint config's variant has no ``ModelName`` and has
   ``ManagedInstanceScaling{Status: ENABLED, MinInstanceCount: 0, MaxInstanceCount: n}``
   (:func:`scale_to_zero_variant`); the endpoint config then needs an ``ExecutionRoleArn``;
2. the model is placed by an ``AWS::SageMaker::InferenceComponent`` that reserves the host's
   accelerators and memory (:class:`ModelInferenceComponent`);
3. the component's copy count is scaled between 0 and n (:class:`InferenceComponentScaling`):
   target tracking per copy, plus a step policy (+1 copy) driven by an alarm on
   ``NoCapacityInvocationFailures >= 1``, because target tracking cannot leave zero.

The first requests after idle fail while an instance starts (several minutes): say so to users.

::

    variant = scale_to_zero_variant(instance_type="ml.g5.12xlarge", max_instance_count=2)
    # ... CfnEndpointConfig(production_variants=[variant], execution_role_arn=role.role_arn), CfnEndpoint ...
    component = ModelInferenceComponent(
        self, "Component", endpoint_name=endpoint.attr_endpoint_name, model_name=model.attr_model_name,
        accelerator_devices=4, min_memory_required_in_mb=16384)
    component.auto_scale_copies(max_copy_count=2).scale_on_concurrency(per_copy=8)
"""

from __future__ import annotations

import re
from typing import Unpack

from aws_cdk import Names
from aws_cdk import aws_applicationautoscaling as appscaling
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

from inference_constructs._arns import keep_stack
from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.observability.metric_definitions import Dimension
from inference_constructs.region_rules import RegionRules
from inference_constructs.regions import type_requirement
from inference_constructs.scaling._base import CapacityScaling, Cooldowns
from inference_constructs.scaling.autoscaling import DEFAULT_VARIANT_NAME
from inference_constructs.scaling.checks import check_capacity
from inference_constructs.scaling.decisions import (
    ScalableDimension,
    ScalingIntent,
    ScalingPlan,
    inference_component_wake_up_policy,
)
from inference_constructs.spec import EndpointKind

_IC_NAME_MAX = 63


def managed_instance_scaling(
    *, max_instance_count: int, min_instance_count: int = 0
) -> sagemaker.CfnEndpointConfig.ManagedInstanceScalingProperty:
    """``ManagedInstanceScaling`` of a variant whose instances follow its inference components' copies.

    Parameters
    ----------
    max_instance_count:
        Most instances, >= 1.
    min_instance_count:
        Fewest instances. Default: 0, the endpoint releases every instance when no copy runs.

    Raises
    ------
    InferenceConfigError
        Counts out of range or min > max.
    """
    problems = ProblemCollector()
    check_capacity(
        problems, "", kind=EndpointKind.REALTIME, min_capacity=min_instance_count, max_capacity=max_instance_count
    )
    problems.raise_if_any()
    return sagemaker.CfnEndpointConfig.ManagedInstanceScalingProperty(
        status="ENABLED", min_instance_count=min_instance_count, max_instance_count=max_instance_count
    )


def scale_to_zero_variant(
    *,
    instance_type: str,
    max_instance_count: int,
    variant_name: str = DEFAULT_VARIANT_NAME,
    initial_instance_count: int = 1,
    volume_size_in_gb: int | None = None,
    inference_ami_version: str | None = None,
    min_instance_count: int = 0,
) -> sagemaker.CfnEndpointConfig.ProductionVariantProperty:
    """A production variant for inference components that may scale to zero instances.

    No ``ModelName`` (the inference component names the model), managed instance scaling from 0 to
    ``max_instance_count``, and least-outstanding-requests routing (requests go to the copy with the
    fewest in flight). The endpoint config that holds it needs an ``ExecutionRoleArn``.

    Parameters
    ----------
    instance_type:
        Host instance type, e.g. ``ml.g5.12xlarge``.
    max_instance_count:
        Most instances (``capacity.max``).
    variant_name:
        Variant name. Default: ``AllTraffic``.
    initial_instance_count:
        Instances at creation, so the first copy can be placed. Default: 1.
    volume_size_in_gb:
        EBS volume per instance. Default: none, as required on hosts with local NVMe storage.
    inference_ami_version:
        ``InferenceAmiVersion`` of the hosts (the AMI whose driver runs the component's image, e.g.
        ``al2023-ami-sagemaker-inference-gpu-4-1`` for CUDA 13 images). Default: none, SageMaker's default host
        image (NVIDIA driver 470 on g4dn/g5/p4d): pass the plan's ``inference_ami_version`` on GPU/Neuron hosts.
    min_instance_count:
        Fewest instances of the managed instance scaling. Default: 0, the endpoint may release every instance.
    """
    return sagemaker.CfnEndpointConfig.ProductionVariantProperty(
        variant_name=variant_name,
        instance_type=instance_type,
        initial_instance_count=initial_instance_count,
        volume_size_in_gb=volume_size_in_gb,
        inference_ami_version=inference_ami_version,
        managed_instance_scaling=managed_instance_scaling(
            max_instance_count=max_instance_count, min_instance_count=min_instance_count
        ),
        routing_config=sagemaker.CfnEndpointConfig.RoutingConfigProperty(routing_strategy="LEAST_OUTSTANDING_REQUESTS"),
    )


class ModelInferenceComponent(Construct):
    """An ``AWS::SageMaker::InferenceComponent`` (id ``Resource``) that places a model on an endpoint variant.

    Parameters
    ----------
    endpoint_name:
        Endpoint to place the model on; pass the endpoint's name attribute so the component is
        created after the endpoint.
    model_name:
        The ``AWS::SageMaker::Model`` to serve (its name attribute).
    min_memory_required_in_mb:
        Host memory reserved per copy, in MiB (at least the model's load footprint).
    accelerator_devices:
        GPUs (or Neuron devices) reserved per copy; the host's full count makes one copy fill one
        instance, so copies and instances scale together. Default: 0, a CPU model.
    number_of_cpu_cores:
        CPU cores reserved per copy. Default: no CPU reservation.
    variant_name:
        Variant to place the model on. Default: ``AllTraffic``.
    copy_count:
        Copies at creation. Default: 1, so the deployment can be verified; scaling may take it to 0.
    inference_component_name:
        Physical name (1–63 letters, digits, hyphens). Default: a unique name derived from the
        construct path, needed because the scalable target's resource id contains it.
    model_data_download_timeout_in_seconds:
        Time allowed to download the model. Default: SageMaker's default.
    container_startup_health_check_timeout_in_seconds:
        Time allowed for the container to pass its health check. Default: SageMaker's default.
    placement_strategy:
        ``SchedulingConfig.PlacementStrategy``, ``SPREAD`` or ``BINPACK``. Default: no ``SchedulingConfig``
        (SageMaker's placement).
    max_az_imbalance:
        ``AvailabilityZoneBalance.MaxImbalance`` (0..100 copies), with ``placement_strategy``. Default: no limit
        (the schema's required ``AvailabilityZoneBalance`` is written with ``EnforcementMode`` ``PERMISSIVE`` only).
    enable_data_caching:
        ``DataCacheConfig.EnableCaching``: each instance caches the model artifacts and image. Default: not
        written (SageMaker enables it by itself on hosts with more than 232 GiB of local NVMe storage).

    Raises
    ------
    InferenceConfigError
        Negative reservations or copy count, or a bad name.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        model_name: str,
        min_memory_required_in_mb: int,
        accelerator_devices: int = 0,
        number_of_cpu_cores: float | None = None,
        variant_name: str = DEFAULT_VARIANT_NAME,
        copy_count: int = 1,
        inference_component_name: str | None = None,
        model_data_download_timeout_in_seconds: int | None = None,
        container_startup_health_check_timeout_in_seconds: int | None = None,
        placement_strategy: str | None = None,
        max_az_imbalance: int | None = None,
        enable_data_caching: bool | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        stack = keep_stack(self, scope)
        path = self.node.path
        problems = ProblemCollector()
        if not is_unresolved(min_memory_required_in_mb) and min_memory_required_in_mb < 128:
            problems.add(f"{path}.min_memory_required_in_mb", f"{min_memory_required_in_mb} is too small", "use 128+")
        if not is_unresolved(accelerator_devices) and accelerator_devices < 0:
            problems.add(f"{path}.accelerator_devices", f"{accelerator_devices} is negative", "use 0 or more")
        if not is_unresolved(copy_count) and copy_count < 0:
            problems.add(f"{path}.copy_count", f"{copy_count} is negative", "use 0 or more")
        if (
            inference_component_name is not None
            and not is_unresolved(inference_component_name)
            and not _valid_name(inference_component_name)
        ):
            problems.add(
                f"{path}.inference_component_name",
                f"{inference_component_name!r} is not a valid name",
                "use 1-63 letters, digits and hyphens, starting and ending with a letter or digit",
            )
        problems.raise_if_any()
        self.inference_component_name = inference_component_name or Names.unique_resource_name(
            self, max_length=_IC_NAME_MAX, separator="-", allowed_special_characters="-"
        )
        """Physical name of the component (``inference-component/<name>`` is its scalable resource id)."""
        startup = None
        if model_data_download_timeout_in_seconds or container_startup_health_check_timeout_in_seconds:
            startup = sagemaker.CfnInferenceComponent.InferenceComponentStartupParametersProperty(
                model_data_download_timeout_in_seconds=model_data_download_timeout_in_seconds,
                container_startup_health_check_timeout_in_seconds=container_startup_health_check_timeout_in_seconds,
            )
        RegionRules.of(stack).require(
            type_requirement("AWS::SageMaker::InferenceComponent", "sagemaker inference components", [path])
        )
        self.resource = sagemaker.CfnInferenceComponent(
            self,
            "Resource",
            endpoint_name=endpoint_name,
            variant_name=variant_name,
            inference_component_name=self.inference_component_name,
            specification=sagemaker.CfnInferenceComponent.InferenceComponentSpecificationProperty(
                model_name=model_name,
                compute_resource_requirements=sagemaker.CfnInferenceComponent.InferenceComponentComputeResourceRequirementsProperty(
                    min_memory_required_in_mb=min_memory_required_in_mb,
                    number_of_accelerator_devices_required=accelerator_devices or None,
                    number_of_cpu_cores_required=number_of_cpu_cores,
                ),
                startup_parameters=startup,
                scheduling_config=_scheduling(placement_strategy, max_az_imbalance),
                data_cache_config=(
                    None
                    if enable_data_caching is None
                    else sagemaker.CfnInferenceComponent.InferenceComponentDataCacheConfigProperty(
                        enable_caching=enable_data_caching
                    )
                ),
            ),
            runtime_config=sagemaker.CfnInferenceComponent.InferenceComponentRuntimeConfigProperty(
                copy_count=copy_count
            ),
        )
        """The ``CfnInferenceComponent`` L1."""

    def auto_scale_copies(self, *, max_copy_count: int, min_copy_count: int = 0) -> InferenceComponentScaling:
        """Scale this component's copy count (id ``CopyScaling``), created after the component.

        Parameters
        ----------
        max_copy_count:
            Most copies.
        min_copy_count:
            Fewest copies. Default: 0, with the ``NoCapacityInvocationFailures`` wake-up.
        """
        scaling = InferenceComponentScaling(
            self,
            "CopyScaling",
            inference_component_name=self.inference_component_name,
            min_copy_count=min_copy_count,
            max_copy_count=max_copy_count,
        )
        scaling.node.add_dependency(self.resource)
        return scaling

    def auto_scale_from_plan(self, plan: ScalingPlan) -> InferenceComponentScaling:
        """Scale this component's copies as a real-time scale-to-zero :class:`ScalingPlan` says (id ``CopyScaling``).

        Raises
        ------
        InferenceConfigError
            The plan does not scale inference-component copies.
        """
        scaling = InferenceComponentScaling.from_plan(
            self, "CopyScaling", inference_component_name=self.inference_component_name, plan=plan
        )
        scaling.node.add_dependency(self.resource)
        return scaling


def _scheduling(
    strategy: str | None, max_imbalance: int | None
) -> sagemaker.CfnInferenceComponent.InferenceComponentSchedulingConfigProperty | None:
    """``SchedulingConfig``: the schema requires ``AvailabilityZoneBalance`` (``EnforcementMode``: ``PERMISSIVE``,
    its only value) with any strategy."""
    if strategy is None:
        return None
    cfn = sagemaker.CfnInferenceComponent
    return cfn.InferenceComponentSchedulingConfigProperty(
        placement_strategy=strategy,
        availability_zone_balance=cfn.InferenceComponentAvailabilityZoneBalanceProperty(
            enforcement_mode="PERMISSIVE", max_imbalance=max_imbalance
        ),
    )


def _valid_name(name: str) -> bool:
    return bool(re.fullmatch(r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}", name))


class InferenceComponentScaling(CapacityScaling):
    """Scale an inference component's copy count, to and from zero.

    Creates a scalable target (id ``Target``) on ``sagemaker:inference-component:DesiredCopyCount``
    of ``inference-component/<name>`` with the service-linked role. With ``min_copy_count`` 0 it also
    creates the wake-up: a step policy ``ScaleOutFromZeroPolicy`` (+1 copy, Maximum aggregation,
    60 s cooldown) and the alarm ``ScaleOutFromZeroAlarm`` on ``NoCapacityInvocationFailures``
    (``AWS/SageMaker``, dimension ``InferenceComponentName``, Sum over 1 minute,
    ``GreaterThanOrEqualToThreshold`` 1) that triggers it. Add a copy-count policy with
    ``scale_on_concurrency`` or ``scale_on_invocations`` so copies return to zero when idle, and warm floors with
    ``scale_on_schedule`` (inherited).

    Parameters
    ----------
    inference_component_name:
        Physical name of the component.
    max_copy_count:
        Most copies, 1..1000.
    min_copy_count:
        Fewest copies. Default: 0, the endpoint may release every instance; the first requests after
        idle fail while an instance starts.

    Raises
    ------
    InferenceConfigError
        Bounds out of range or min > max.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        inference_component_name: str,
        max_copy_count: int,
        min_copy_count: int = 0,
    ) -> None:
        super().__init__(scope, construct_id)
        self._path = self.node.path
        problems = ProblemCollector()
        check_capacity(
            problems, self._path, kind=EndpointKind.REALTIME, min_capacity=min_copy_count, max_capacity=max_copy_count
        )
        problems.raise_if_any()
        self.min_copy_count = min_copy_count
        self.max_copy_count = max_copy_count
        self._create_target(
            resource_id=f"inference-component/{inference_component_name}",
            dimension=ScalableDimension.INFERENCE_COMPONENT_COPIES,
            min_capacity=min_copy_count,
            max_capacity=max_copy_count,
            dimensions={Dimension.INFERENCE_COMPONENT_NAME: inference_component_name},
        )
        if min_copy_count == 0:
            self._add_wake_up(inference_component_wake_up_policy())

    @classmethod
    def from_plan(
        cls, scope: Construct, construct_id: str, *, inference_component_name: str, plan: ScalingPlan
    ) -> InferenceComponentScaling:
        """Create the copy scaling a real-time scale-to-zero :class:`ScalingPlan` describes."""
        if not plan.uses_inference_component:
            raise InferenceConfigError(
                f"{construct_id}: the plan scales {plan.dimension.value}, not inference-component copies; use "
                "EndpointScaling"
            )
        scaling = cls(
            scope,
            construct_id,
            inference_component_name=inference_component_name,
            min_copy_count=plan.min_capacity,
            max_copy_count=plan.max_capacity,
        )
        scaling._apply_plan(plan)
        return scaling

    def scale_on_concurrency(
        self, *, per_copy: float, **cooldowns: Unpack[Cooldowns]
    ) -> appscaling.TargetTrackingScalingPolicy:
        """Keep in-flight requests per copy near ``per_copy`` (> 0; ``ConcurrentRequestsPerCopy``, high resolution).

        ``cooldowns``: 60 s after a scale-out, 600 s after a scale-in by default.
        """
        return self._track(ScalingIntent(concurrency_per_instance=per_copy), cooldowns)

    def scale_on_invocations(
        self, *, per_copy_per_minute: float, **cooldowns: Unpack[Cooldowns]
    ) -> appscaling.TargetTrackingScalingPolicy:
        """Keep ``InvocationsPerCopy`` near ``per_copy_per_minute`` (> 0), the predefined metric
        ``SageMakerInferenceComponentInvocationsPerCopy``; ``cooldowns``: 120 s after a scale-out, 600 s after a
        scale-in by default."""
        return self._track(ScalingIntent(invocations_per_instance_per_minute=per_copy_per_minute), cooldowns)
