"""SageMaker endpoint constructs: real-time (with an async mode), serverless and multi-model.

Each endpoint is one execution role + one customer-managed policy, one Model, one EndpointConfig,
one Endpoint, and (by default) two rollback alarms; async endpoints add two SNS topics and one topic
policy; real-time endpoints with ``capacity.min`` 0 add one inference component. Scaling is added with
``auto_scale``, ``auto_scale_provisioned_concurrency``, ``auto_scale_copies`` or ``auto_scale_from_plan``.
The decisions come from :func:`inference_constructs.hosting.decisions.plan_endpoint`; this module only
translates them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, TypeVar

import jsii
from aws_cdk import ArnFormat, Duration, Names, Stack, Token
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk import aws_sns as sns
from constructs import Construct, IValidation

from inference_constructs import _tokens
from inference_constructs.catalog import Catalog
from inference_constructs.compliance import acknowledge, acknowledge_all
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.hosting._shared import InferenceStorage, image_uri, stack_env
from inference_constructs.hosting.decisions import (
    AsyncOptions,
    Capacity,
    DataCaptureOptions,
    DeploymentOptions,
    DeploymentStrategy,
    EndpointPlan,
    EndpointRequest,
    InferenceComponentPlan,
    ModelDataKind,
    MultiModelOptions,
    ServerlessOptions,
    VpcOptions,
    plan_endpoint,
)
from inference_constructs.observability._alarm import AlarmMetric, add_alarm
from inference_constructs.scaling.autoscaling import EndpointAutoScaling, ServerlessProvisionedConcurrencyScaling
from inference_constructs.scaling.decisions import (
    DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
    ScalableDimension,
    ScalingPlan,
)
from inference_constructs.scaling.inference_component import (
    InferenceComponentScaling,
    ModelInferenceComponent,
    scale_to_zero_variant,
)
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import AcceleratorChoice, EndpointKind, ModelSpec, Serving

__all__ = [
    "InferenceEndpoint",
    "MultiModelEndpoint",
    "RealtimeEndpoint",
    "ServerlessEndpoint",
    "endpoint_from_request",
]

_ECR_URI = re.compile(r"^(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.[a-z0-9.-]+/(?P<repo>[^:@]+)")
_ENDPOINT_METRICS = "/aws/sagemaker/Endpoints"
_SAGEMAKER = "AWS/SageMaker"
_COMPONENT_METRICS = "/aws/sagemaker/InferenceComponents"
_C = TypeVar("_C", bound=Construct)


@jsii.implements(IValidation)
class _ComponentNeedsCopyScaling:
    """Synth-time check: an inference-component endpoint (real-time min 0) needs copy scaling to reach zero."""

    def __init__(self, owner: InferenceEndpoint) -> None:
        self._owner = owner

    def validate(self) -> list[str]:
        if self._owner.scaling is None:
            key = self._owner._key("capacity.min")
            return [
                f"{key}: 0 on a realtime endpoint needs copy scaling to leave and return to zero; call "
                "auto_scale_from_plan(plan) or auto_scale_copies().scale_on_concurrency(per_copy=...)"
            ]
        return []


class InferenceEndpoint(Construct):
    """A SageMaker endpoint built from an :class:`EndpointRequest` (the common base of every kind).

    Prefer :class:`RealtimeEndpoint`, :class:`ServerlessEndpoint` or :class:`MultiModelEndpoint`
    from Python; the config layer uses :func:`endpoint_from_request`.

    Parameters
    ----------
    scope, construct_id:
        Where the endpoint goes.
    request:
        What to host (kind, model, serving stack, options).
    host:
        A host decision made elsewhere. Default: chosen by the right-sizing (the cheapest host
        whose accelerator memory fits the model).
    catalog:
        Instance facts and prices. Default: the packaged catalog.
    kms_key:
        Customer managed key for the ML storage volume, async outputs, data capture and SNS topics.
        Default: AWS managed keys (and a nag acknowledgment saying so).
    endpoint_name:
        Physical endpoint name (``[a-zA-Z0-9](-*[a-zA-Z0-9])*``, up to 63 characters). Default: a
        deterministic name derived from the construct path (an endpoint is never replaced in place,
        so a stable name is safe; Model and EndpointConfig never get names).
    path:
        Key path prefix for error messages, e.g. ``endpoints[2]``. Default: none.
    plan:
        The decisions for ``request``, already made by :func:`plan_endpoint` (the platform plan makes them
        before any construct exists). Default: planned here from ``request``, ``host`` and ``catalog``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        request: EndpointRequest,
        host: HostDecision | None = None,
        catalog: Catalog | None = None,
        kms_key: kms.IKey | None = None,
        endpoint_name: str | None = None,
        path: str = "",
        plan: EndpointPlan | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        if kms_key is not None and request.kms_key_arn is None:
            request = _replace_kms(request, kms_key.key_arn)
        self.plan: EndpointPlan = plan or plan_endpoint(request, host=host, catalog=catalog, path=path)
        """The decisions this endpoint was built from (host, image, environment, timeouts, reasons)."""
        self.kind: EndpointKind = self.plan.kind
        self.variant_name: str = self.plan.variant_name
        self.endpoint_name: str = endpoint_name or Names.unique_resource_name(self, max_length=63, separator="-")
        self._kms_key = kms_key
        self._path = path
        plan = self.plan
        stack = Stack.of(self)

        self.role = iam.Role(
            self,
            "ExecutionRole",
            assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"),
            description="SageMaker execution role of one inference endpoint (least privilege)",
        )
        self._statements: list[iam.PolicyStatement] = []
        # IAM5 wildcard findings of the execution policy, acknowledged on this construct in one call below.
        self._wildcards: list[tuple[str, str]] | None = []
        image, repository_arn = self._image(stack)
        self._grant_image_pull(repository_arn)
        self._grant_model_data()
        self._grant_logs_and_metrics(stack)
        if plan.vpc is not None:
            self._grant_vpc()
        if kms_key is not None:
            self._statements.append(iam.PolicyStatement(actions=["kms:Decrypt"], resources=[kms_key.key_arn]))

        self.async_output_s3_uri: str | None = None
        self.async_input_s3_prefix: str | None = None
        self.success_topic: sns.ITopic | None = None
        self.error_topic: sns.ITopic | None = None
        async_config = self._async_config(stack) if plan.async_inference is not None else None
        data_capture = self._data_capture() if plan.data_capture_enabled else None
        acknowledge_all(self, self._wildcards)
        self._wildcards = None

        self.policy = iam.ManagedPolicy(
            self,
            "ExecutionPolicy",
            description="What the endpoint's container and SageMaker need: image pull, model data read, logs, metrics",
            statements=self._statements,
            roles=[self.role],
        )

        self.model = sagemaker.CfnModel(
            self,
            "Model",
            execution_role_arn=self.role.role_arn,
            primary_container=self._container(image),
            enable_network_isolation=plan.network_isolation or None,
            vpc_config=(
                sagemaker.CfnModel.VpcConfigProperty(
                    subnets=list(plan.vpc.subnet_ids), security_group_ids=list(plan.vpc.security_group_ids)
                )
                if plan.vpc
                else None
            ),
        )
        self.model.node.add_dependency(self.policy)

        component_plan = plan.inference_component
        self.endpoint_config = sagemaker.CfnEndpointConfig(
            self,
            "Config",
            production_variants=[self._variant()],
            kms_key_id=plan.kms_key_arn,
            async_inference_config=async_config,
            data_capture_config=data_capture,
            # An endpoint config whose variant names no model (inference components) needs an execution role.
            execution_role_arn=self.role.role_arn if component_plan is not None else None,
        )
        if component_plan is not None:
            self.endpoint_config.node.add_dependency(self.policy)
        if plan.kms_omitted_reason is not None:
            reason = f"kms key left off: {plan.kms_omitted_reason}"
            acknowledge_all(
                self.endpoint_config,
                [
                    ("NIST.800.53.R5-SageMakerEndpointConfigurationKMSKeyConfigured", reason),
                    ("HIPAA.Security-SageMakerEndpointConfigurationKMSKeyConfigured", reason),
                ],
            )

        self.inference_component: ModelInferenceComponent | None = None
        """The inference component hosting the model (real-time ``capacity.min: 0`` only), id ``InferenceComponent``."""
        self.rollback_alarms: list[cloudwatch.CfnAlarm] = []
        """The 5XX-rate and p99-latency alarms SageMaker's deployment auto-rollback watches (ids
        ``Rollback5xxAlarm``, ``RollbackLatencyAlarm``); empty when rollback on alarms is off."""
        if plan.deployment.rollback_on_alarms and component_plan is None:
            self.rollback_alarms = self._rollback_alarms()

        self.resource = sagemaker.CfnEndpoint(
            self,
            "Resource",
            endpoint_config_name=self.endpoint_config.attr_endpoint_config_name,
            endpoint_name=self.endpoint_name,
            # Inference-component endpoints roll model updates out per component (its own DeploymentConfig).
            deployment_config=self._deployment_config() if component_plan is None else None,
        )
        self.endpoint_arn: str = stack.format_arn(
            service="sagemaker", resource="endpoint", resource_name=self.endpoint_name.lower()
        )
        """ARN of the endpoint (SageMaker lower-cases endpoint names in ARNs)."""
        self.scaling: Construct | None = None
        """The auto scaling added by :meth:`auto_scale` or :meth:`auto_scale_from_plan` (id ``Scaling``), if any."""
        if component_plan is not None:
            self.inference_component = self._component(component_plan)
            if plan.deployment.rollback_on_alarms:
                self.rollback_alarms = self._rollback_alarms()
            self.inference_component.resource.deployment_config = self._component_deployment_config()
            self.node.add_validation(_ComponentNeedsCopyScaling(self))

    # ------------------------------------------------------------------------------------------ facts

    @property
    def instance_type(self) -> str | None:
        """The chosen instance type, or ``None`` for serverless endpoints."""
        return self.plan.instance_type

    @property
    def gpu_count(self) -> int:
        """GPUs per instance; GPU metrics on ``/aws/sagemaker/Endpoints`` run 0..100 x this."""
        return self.plan.gpu_count

    @property
    def capacity(self) -> Capacity:
        """The instance count range to scale within (unused by serverless endpoints: see ``plan.serverless``)."""
        return self.plan.capacity

    @property
    def scalable_resource_id(self) -> str:
        """Application Auto Scaling resource id: ``endpoint/<name>/variant/<variant>``."""
        return f"endpoint/{self.endpoint_name}/variant/{self.variant_name}"

    # ------------------------------------------------------------------------------------------ scaling

    def auto_scale(self, *, min_capacity: int | None = None, max_capacity: int | None = None) -> EndpointAutoScaling:
        """Scale this endpoint's instance count; add policies with ``scale_on_*`` on the returned object.

        ::

            endpoint.auto_scale(min_capacity=1, max_capacity=8).scale_on_concurrency(per_instance=8)

        Creates an :class:`~inference_constructs.scaling.EndpointAutoScaling` (id ``Scaling``) on
        ``endpoint/<name>/variant/<variant>``, created after the endpoint. GPU-memory targets are
        multiplied by this host's GPU count; burstable (``ml.t*``) hosts are refused.

        Parameters
        ----------
        min_capacity:
            Fewest instances (0 only for async endpoints). Default: the endpoint's ``capacity.min``.
        max_capacity:
            Most instances, 1..1000. Default: the endpoint's ``capacity.max``.

        Raises
        ------
        InferenceConfigError
            A serverless endpoint (use ``auto_scale_provisioned_concurrency``), an endpoint hosted
            through an inference component (use :meth:`auto_scale_from_plan`), scaling added twice, or
            bounds the scaling rules refuse.
        """
        problems = ProblemCollector()
        if self.kind is EndpointKind.SERVERLESS:
            problems.add(
                self._key("type"),
                "a serverless endpoint has no instances to scale",
                "use auto_scale_provisioned_concurrency(...) on the serverless endpoint",
            )
        elif self.plan.uses_inference_component:
            problems.add(
                self._key("capacity.min"),
                "0 hosts the model through an inference component, whose copies scale, not the variant's instances",
                "use auto_scale_from_plan(plan_scaling(...)), or inference_component.auto_scale_copies(...)",
            )
        self._check_not_scaled(problems)
        problems.raise_if_any()
        host = self.plan.host
        scaling = EndpointAutoScaling(
            self,
            "Scaling",
            endpoint_name=self.endpoint_name,
            variant_name=self.variant_name,
            kind=self.kind,
            min_capacity=self.capacity.min if min_capacity is None else min_capacity,
            max_capacity=self.capacity.max if max_capacity is None else max_capacity,
            gpu_count=self.gpu_count,
            burstable=bool(host and host.instance.burstable),
            instance_type=self.instance_type,
        )
        return self._attach(scaling)

    def auto_scale_from_plan(self, plan: ScalingPlan) -> Construct | None:
        """Create the auto scaling a :class:`~inference_constructs.scaling.ScalingPlan` describes (id ``Scaling``).

        The plan comes from ``plan_scaling(...)`` or ``plan_from_config(...)`` for this same endpoint.
        Whatever it scales is built: variant instances (``EndpointAutoScaling``), serverless provisioned
        concurrency (``ServerlessProvisionedConcurrencyScaling``), or the inference component's copies
        with the ``NoCapacityInvocationFailures`` wake-up (real-time ``capacity.min: 0``).

        Parameters
        ----------
        plan:
            The scaling decisions of this endpoint.

        Returns
        -------
        Construct | None
            The scaling construct, or ``None`` when the plan is not enabled (fixed capacity, no policies).

        Raises
        ------
        InferenceConfigError
            The plan was made for another kind, dimension or capacity than this endpoint's, or scaling
            was already added.
        """
        problems = ProblemCollector()
        self._check_plan(plan, problems)
        if plan.enabled:
            self._check_not_scaled(problems)
        problems.raise_if_any()
        if not plan.enabled:
            return None
        if plan.uses_inference_component and self.inference_component is not None:
            # ModelInferenceComponent makes the copy scaling depend on the component, which depends on the endpoint.
            self.scaling = self.inference_component.auto_scale_from_plan(plan)
            return self.scaling
        if plan.dimension is ScalableDimension.PROVISIONED_CONCURRENCY:
            return self._attach(
                ServerlessProvisionedConcurrencyScaling.from_plan(
                    self, "Scaling", endpoint_name=self.endpoint_name, plan=plan, variant_name=self.variant_name
                )
            )
        return self._attach(
            EndpointAutoScaling.from_plan(
                self, "Scaling", endpoint_name=self.endpoint_name, plan=plan, variant_name=self.variant_name
            )
        )

    def _key(self, name: str) -> str:
        """``<path>.<name>``; without a config path, the construct path names the endpoint."""
        return f"{self._path or self.node.path}.{name}"

    def _check_not_scaled(self, problems: ProblemCollector) -> None:
        if self.scaling is not None:
            problems.add(
                self._key("scaling"),
                f"auto scaling was already added to {self.node.path}",
                "add policies to the object the first call returned (endpoint.scaling)",
            )

    def _attach(self, scaling: _C) -> _C:
        # endpoint_name is a literal string, so the scalable target needs an explicit dependency.
        scaling.node.add_dependency(self.resource)
        self.scaling = scaling
        return scaling

    def _check_plan(self, plan: ScalingPlan, problems: ProblemCollector) -> None:
        """The plan must describe this endpoint: same kind, scaled dimension and capacity."""
        fix = "plan the scaling from this endpoint's own config (same type, capacity and serverless keys)"
        if plan.kind is not self.kind:
            problems.add(
                self._key("type"),
                f"the scaling plan is for a {plan.kind.value} endpoint, this one is {self.kind.value}",
                fix,
            )
            return
        if self.kind is EndpointKind.SERVERLESS:
            expected = ScalableDimension.PROVISIONED_CONCURRENCY
        elif self.plan.uses_inference_component:
            expected = ScalableDimension.INFERENCE_COMPONENT_COPIES
        else:
            expected = ScalableDimension.VARIANT_INSTANCES
        if plan.dimension is not expected:
            problems.add(
                self._key("capacity.min"),
                f"the scaling plan scales {plan.dimension.value}, but this endpoint scales {expected.value}",
                fix,
            )
            return
        if self.kind is EndpointKind.SERVERLESS:
            s = self.plan.serverless
            want = (s.provisioned_concurrency, s.max_concurrency) if s else (0, 0)
            key, what = "serverless", "provisioned_concurrency..max_concurrency"
        else:
            want = (self.capacity.min, self.capacity.max)
            key, what = "capacity", "capacity"
        got = (plan.min_capacity, plan.max_capacity)
        if got != want:
            problems.add(
                self._key(key),
                f"the scaling plan's range {got[0]}..{got[1]} differs from this endpoint's {what} {want[0]}..{want[1]}",
                fix,
            )

    def auto_scale_copies(
        self, *, min_copy_count: int | None = None, max_copy_count: int | None = None
    ) -> InferenceComponentScaling:
        """Scale the inference component's copies (real-time ``capacity.min: 0`` only); add a policy on the result.

        ::

            endpoint.auto_scale_copies().scale_on_concurrency(per_copy=8)

        With minimum 0 it also creates the wake-up: a +1 copy step policy driven by an alarm on
        ``NoCapacityInvocationFailures >= 1``. Add ``scale_on_concurrency`` or ``scale_on_invocations`` so
        copies return to zero when idle.

        Parameters
        ----------
        min_copy_count:
            Fewest copies. Default: the endpoint's ``capacity.min`` (0).
        max_copy_count:
            Most copies. Default: the endpoint's ``capacity.max`` (one copy fills one instance).

        Raises
        ------
        InferenceConfigError
            The endpoint is not hosted through an inference component, or scaling was already added.
        """
        problems = ProblemCollector()
        if self.inference_component is None:
            problems.add(
                self._key("capacity.min"),
                f"{self.capacity.min} keeps the model on the variant, which has no inference component copies",
                "use auto_scale(...), or capacity min 0 on a realtime endpoint",
            )
        self._check_not_scaled(problems)
        problems.raise_if_any()
        assert self.inference_component is not None
        scaling = self.inference_component.auto_scale_copies(
            min_copy_count=self.capacity.min if min_copy_count is None else min_copy_count,
            max_copy_count=self.capacity.max if max_copy_count is None else max_copy_count,
        )
        self.scaling = scaling
        return scaling

    def _component(self, component: InferenceComponentPlan) -> ModelInferenceComponent:
        created = ModelInferenceComponent(
            self,
            "InferenceComponent",
            endpoint_name=self.endpoint_name,
            model_name=self.model.attr_model_name,
            min_memory_required_in_mb=component.min_memory_required_mb,
            accelerator_devices=component.accelerator_devices,
            variant_name=self.variant_name,
            model_data_download_timeout_in_seconds=component.model_data_download_timeout_seconds,
            container_startup_health_check_timeout_in_seconds=component.container_startup_health_check_timeout_seconds,
        )
        # endpoint_name is a literal string: place the component once the endpoint exists.
        created.node.add_dependency(self.resource)
        return created

    # ------------------------------------------------------------------------------------------ grants

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke this endpoint.

        Real-time, serverless and multi-model endpoints: ``sagemaker:InvokeEndpoint`` and
        ``sagemaker:InvokeEndpointWithResponseStream``. Async endpoints: ``sagemaker:InvokeEndpointAsync``
        (the caller also needs to write its input object where the execution role can read it,
        :attr:`async_input_s3_prefix`).
        """
        if self.kind is EndpointKind.ASYNC:
            actions = ["sagemaker:InvokeEndpointAsync"]
        else:
            actions = ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"]
        return iam.Grant.add_to_principal(grantee=grantee, actions=actions, resource_arns=[self.endpoint_arn])

    # ------------------------------------------------------------------------------------------ metrics

    def metric(
        self,
        metric_name: str,
        *,
        namespace: str = _SAGEMAKER,
        statistic: str = "Average",
        period: Duration | None = None,
        unit: cloudwatch.Unit | None = None,
        variant_dimension: bool = True,
    ) -> cloudwatch.Metric:
        """Any SageMaker metric of this endpoint. Default: average over 1 minute, ``EndpointName`` +
        ``VariantName`` dimensions (``variant_dimension=False`` for the async backlog metrics).

        On an endpoint hosted through an inference component (real-time ``capacity.min: 0``), invocation
        metrics (``AWS/SageMaker``) are published per component: they get the ``InferenceComponentName``
        dimension instead.
        """
        return cloudwatch.Metric(
            namespace=namespace,
            metric_name=metric_name,
            dimensions_map=self._metric_dimensions(namespace, variant_dimension=variant_dimension),
            statistic=statistic,
            period=period or _tokens.minutes(1),
            unit=unit,
        )

    def _metric_dimensions(self, namespace: str = _SAGEMAKER, *, variant_dimension: bool = True) -> dict[str, str]:
        """Dimensions of this endpoint's metrics in ``namespace`` (see :meth:`metric`)."""
        if self.inference_component is not None and namespace == _SAGEMAKER and variant_dimension:
            return {"InferenceComponentName": self.inference_component.inference_component_name}
        if variant_dimension:
            return {"EndpointName": self.endpoint_name, "VariantName": self.variant_name}
        return {"EndpointName": self.endpoint_name}

    def metric_invocations(self) -> cloudwatch.Metric:
        """``Invocations`` (count), sum over 1 minute. Not published by async endpoints."""
        return self.metric("Invocations", statistic="Sum")

    def metric_invocations_per_instance(self) -> cloudwatch.Metric:
        """``InvocationsPerInstance`` (count), sum over 1 minute."""
        return self.metric("InvocationsPerInstance", statistic="Sum")

    def metric_model_latency(self, statistic: str = "p99") -> cloudwatch.Metric:
        """``ModelLatency`` in microseconds, p99 over 1 minute."""
        return self.metric("ModelLatency", statistic=statistic, unit=cloudwatch.Unit.MICROSECONDS)

    def metric_overhead_latency(self) -> cloudwatch.Metric:
        """``OverheadLatency`` in microseconds, average over 1 minute (percentiles are not published)."""
        return self.metric("OverheadLatency", unit=cloudwatch.Unit.MICROSECONDS)

    def metric_invocation_4xx_errors(self) -> cloudwatch.Metric:
        """``Invocation4XXErrors``, average over 1 minute (each request emits 1 or 0: the error rate)."""
        return self.metric("Invocation4XXErrors")

    def metric_invocation_5xx_errors(self) -> cloudwatch.Metric:
        """``Invocation5XXErrors``, average over 1 minute (the 5XX error rate, 0..1)."""
        return self.metric("Invocation5XXErrors")

    def metric_invocation_model_errors(self) -> cloudwatch.Metric:
        """``InvocationModelErrors``, sum over 1 minute."""
        return self.metric("InvocationModelErrors", statistic="Sum")

    def metric_concurrent_requests_per_model(self) -> cloudwatch.Metric:
        """``ConcurrentRequestsPerModel`` (high resolution, every 10 s), maximum over 1 minute."""
        return self.metric("ConcurrentRequestsPerModel", statistic="Maximum")

    def metric_model_setup_time(self) -> cloudwatch.Metric:
        """``ModelSetupTime`` (serverless cold start) in microseconds, average over 1 minute."""
        return self.metric("ModelSetupTime", unit=cloudwatch.Unit.MICROSECONDS)

    def metric_cpu_utilization(self) -> cloudwatch.Metric:
        """``CPUUtilization`` percent, average over 1 minute; sums cores, so 0..100 x vCPUs."""
        return self.metric("CPUUtilization", namespace=_ENDPOINT_METRICS, unit=cloudwatch.Unit.PERCENT)

    def metric_memory_utilization(self) -> cloudwatch.Metric:
        """``MemoryUtilization`` (host RAM, not GPU memory) percent, average over 1 minute."""
        return self.metric("MemoryUtilization", namespace=_ENDPOINT_METRICS, unit=cloudwatch.Unit.PERCENT)

    def metric_disk_utilization(self) -> cloudwatch.Metric:
        """``DiskUtilization`` percent, average over 1 minute."""
        return self.metric("DiskUtilization", namespace=_ENDPOINT_METRICS, unit=cloudwatch.Unit.PERCENT)

    def metric_gpu_utilization(self) -> cloudwatch.Metric:
        """``GPUUtilization`` percent, average over 1 minute; 0..100 x :attr:`gpu_count`."""
        return self.metric("GPUUtilization", namespace=_ENDPOINT_METRICS, unit=cloudwatch.Unit.PERCENT)

    def metric_gpu_memory_utilization(self) -> cloudwatch.Metric:
        """``GPUMemoryUtilization`` percent, average over 1 minute; 0..100 x :attr:`gpu_count`."""
        return self.metric("GPUMemoryUtilization", namespace=_ENDPOINT_METRICS, unit=cloudwatch.Unit.PERCENT)

    def metric_approximate_backlog_size(self) -> cloudwatch.Metric:
        """Async: ``ApproximateBacklogSize`` (count), average over 1 minute, ``EndpointName`` only."""
        return self.metric("ApproximateBacklogSize", variant_dimension=False, unit=cloudwatch.Unit.COUNT)

    def metric_approximate_backlog_size_per_instance(self) -> cloudwatch.Metric:
        """Async: ``ApproximateBacklogSizePerInstance`` (count), average over 1 minute, ``EndpointName`` only."""
        return self.metric("ApproximateBacklogSizePerInstance", variant_dimension=False, unit=cloudwatch.Unit.COUNT)

    def metric_approximate_age_of_oldest_request(self) -> cloudwatch.Metric:
        """Async: ``ApproximateAgeOfOldestRequest`` in seconds, maximum over 1 minute, ``EndpointName`` only."""
        return self.metric(
            "ApproximateAgeOfOldestRequest", statistic="Maximum", variant_dimension=False, unit=cloudwatch.Unit.SECONDS
        )

    def metric_has_backlog_without_capacity(self) -> cloudwatch.Metric:
        """Async: ``HasBacklogWithoutCapacity`` (1 when requests wait and no instance runs), average over
        1 minute, ``EndpointName`` only. Drives scale-out from zero."""
        return self.metric("HasBacklogWithoutCapacity", variant_dimension=False, unit=cloudwatch.Unit.COUNT)

    def metric_invocations_per_copy(self) -> cloudwatch.Metric:
        """Inference component: ``InvocationsPerCopy`` (count), sum over 1 minute, ``InferenceComponentName``."""
        return self._component_metric("InvocationsPerCopy", "Sum", cloudwatch.Unit.COUNT)

    def metric_concurrent_requests_per_copy(self) -> cloudwatch.Metric:
        """Inference component: ``ConcurrentRequestsPerCopy`` (high resolution), maximum over 1 minute."""
        return self._component_metric("ConcurrentRequestsPerCopy", "Maximum", None)

    def metric_no_capacity_invocation_failures(self) -> cloudwatch.Metric:
        """Inference component: ``NoCapacityInvocationFailures`` (requests that found no copy), sum over 1 minute.

        Non-zero after idle at zero copies, until the first instance is in service; it drives the wake-up alarm.
        """
        return self._component_metric("NoCapacityInvocationFailures", "Sum", cloudwatch.Unit.COUNT)

    def metric_gpu_utilization_normalized(self) -> cloudwatch.Metric:
        """Inference component: ``GPUUtilizationNormalized`` per copy (0..100 of its reserved GPUs), average over
        1 minute, namespace ``/aws/sagemaker/InferenceComponents``."""
        return self._component_metric(
            "GPUUtilizationNormalized", "Average", cloudwatch.Unit.PERCENT, _COMPONENT_METRICS
        )

    def metric_gpu_memory_utilization_normalized(self) -> cloudwatch.Metric:
        """Inference component: ``GPUMemoryUtilizationNormalized`` per copy (0..100), average over 1 minute,
        namespace ``/aws/sagemaker/InferenceComponents``."""
        return self._component_metric(
            "GPUMemoryUtilizationNormalized", "Average", cloudwatch.Unit.PERCENT, _COMPONENT_METRICS
        )

    def _component_metric(
        self, metric_name: str, statistic: str, unit: cloudwatch.Unit | None, namespace: str = _SAGEMAKER
    ) -> cloudwatch.Metric:
        if self.inference_component is None:
            raise InferenceConfigError(
                f"{self._key('capacity.min')}: {self.capacity.min} hosts the model without an inference component, "
                f"so {metric_name} is never published; use the per-instance metrics, or capacity min 0 on a "
                "realtime endpoint"
            )
        return cloudwatch.Metric(
            namespace=namespace,
            metric_name=metric_name,
            dimensions_map={"InferenceComponentName": self.inference_component.inference_component_name},
            statistic=statistic,
            period=_tokens.minutes(1),
            unit=unit,
        )

    # ------------------------------------------------------------------------------------------ building

    def _image(self, stack: Stack) -> tuple[str, str]:
        """(image uri, ECR repository ARN) for the plan's image."""
        plan = self.plan
        if plan.image is not None:
            uri, account = image_uri(
                self, plan.image, path=f"{self._path}.serving" if self._path else "serving", stack=stack
            )
            arn = stack.format_arn(
                service="ecr", resource="repository", resource_name=plan.image.repository, account=account
            )
            return uri, arn
        custom = plan.custom_image or ""
        match = None if Token.is_unresolved(custom) else _ECR_URI.match(custom)
        if match is not None:
            arn = stack.format_arn(
                service="ecr",
                resource="repository",
                resource_name=match["repo"],
                account=match["account"],
                region=match["region"],
            )
            return custom, arn
        arn = stack.format_arn(service="ecr", resource="repository", resource_name="*")
        self._acknowledge_wildcard(
            f"Resource::{_nag_arn(stack, 'ecr')}:repository/*",
            "the custom image uri is only known at deploy time (e.g. a cdk docker image asset), so image pull is "
            "allowed on this account's repositories in this region only",
        )
        return custom, arn

    def _grant_image_pull(self, repository_arn: str) -> None:
        self._statements.append(
            iam.PolicyStatement(
                actions=["ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"],
                resources=[repository_arn],
            )
        )
        self._statements.append(iam.PolicyStatement(actions=["ecr:GetAuthorizationToken"], resources=["*"]))
        self._acknowledge_wildcard(
            "Resource::*",
            "ecr:GetAuthorizationToken, the ec2 network interface calls of a vpc endpoint, and "
            "cloudwatch:PutMetricData (limited to the sagemaker namespaces by condition) support no resource-level "
            "permissions; every other statement names its resource",
        )

    def _grant_model_data(self) -> None:
        data = self.plan.model_data
        if data.kind is ModelDataKind.NONE or data.bucket is None:
            return
        bucket_arn = f"arn:{_tokens.aws_partition()}:s3:::{data.bucket}"
        prefix = data.key_prefix
        if data.kind is ModelDataKind.ARCHIVE:
            self._statements.append(iam.PolicyStatement(actions=["s3:GetObject"], resources=[f"{bucket_arn}/{prefix}"]))
            return
        self._statements.append(iam.PolicyStatement(actions=["s3:GetObject"], resources=[f"{bucket_arn}/{prefix}*"]))
        self._statements.append(
            iam.PolicyStatement(
                actions=["s3:ListBucket"],
                resources=[bucket_arn],
                conditions={"StringLike": {"s3:prefix": [f"{prefix}*"]}},
            )
        )
        self._acknowledge_wildcard(
            f"Resource::arn:<AWS::Partition>:s3:::{data.bucket}/{prefix}*",
            "the model is an s3 prefix (uncompressed weights or multi-model archives): read is limited to that prefix",
        )

    def _grant_logs_and_metrics(self, stack: Stack) -> None:
        group = f"/aws/sagemaker/Endpoints/{self.endpoint_name}"
        group_arn = stack.format_arn(
            service="logs", resource="log-group", resource_name=group, arn_format=ArnFormat.COLON_RESOURCE_NAME
        )
        self._statements.append(
            iam.PolicyStatement(
                actions=["logs:CreateLogGroup", "logs:CreateLogStream", "logs:DescribeLogStreams", "logs:PutLogEvents"],
                resources=[group_arn, f"{group_arn}:log-stream:*"],
            )
        )
        self._acknowledge_wildcard(
            f"Resource::{_nag_arn(stack, 'logs')}:log-group:{group}:log-stream:*",
            "sagemaker names one log stream per instance at run time; access is limited to this endpoint's log group",
        )
        self._statements.append(
            iam.PolicyStatement(
                actions=["cloudwatch:PutMetricData"],
                resources=["*"],
                conditions={"StringLike": {"cloudwatch:namespace": [_SAGEMAKER, "/aws/sagemaker/*"]}},
            )
        )

    def _grant_vpc(self) -> None:
        self._statements.append(
            iam.PolicyStatement(
                actions=[
                    "ec2:CreateNetworkInterface",
                    "ec2:CreateNetworkInterfacePermission",
                    "ec2:DeleteNetworkInterface",
                    "ec2:DeleteNetworkInterfacePermission",
                    "ec2:DescribeDhcpOptions",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeSecurityGroups",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeVpcs",
                ],
                resources=["*"],
            )
        )

    def _acknowledge_wildcard(self, finding: str, reason: str) -> None:
        rule = f"AwsSolutions-IAM5[{finding}]"
        if self._wildcards is None:
            acknowledge(self, rule, reason)
        else:
            self._wildcards.append((rule, reason))

    def _acknowledge_objects(self, base: str, key_prefix: str, subpaths: list[str], reason: str) -> None:
        """Acknowledge the object wildcards under this endpoint's own prefix (``<base>/<subpath>*``)."""
        given_bucket = f"arn:{_tokens.aws_partition()}:s3:::"
        if base.startswith(given_bucket):  # a bucket the user named: only the partition is a token
            shown = "arn:<AWS::Partition>:s3:::" + base[len(given_bucket) :]
        elif Token.is_unresolved(base):
            bucket = InferenceStorage.of(self).data
            logical_id = Stack.of(self).get_logical_id(bucket.node.default_child)  # type: ignore[arg-type]
            shown = f"<{logical_id}.Arn>/{key_prefix}"
        else:
            shown = base
        for sub in subpaths:
            self._acknowledge_wildcard(f"Resource::{shown}/{sub}*", f"{reason}, under this endpoint's prefix only")

    def _data_uri(self, purpose: str) -> tuple[s3.IBucket, str]:
        """(shared data bucket, key prefix) for this endpoint's ``purpose`` (``async`` or ``capture``)."""
        bucket = InferenceStorage.of(self).data
        return bucket, f"{purpose}/{self.endpoint_name}"

    def _async_config(self, stack: Stack) -> sagemaker.CfnEndpointConfig.AsyncInferenceConfigProperty:
        plan = self.plan
        options = plan.async_inference or AsyncOptions()
        if options.output_s3_uri:
            output = options.output_s3_uri.rstrip("/")
            bucket_name, _, key = output[len("s3://") :].partition("/")
            bucket_arn = f"arn:{_tokens.aws_partition()}:s3:::{bucket_name}"
            key_prefix = key
        else:
            bucket, key_prefix = self._data_uri("async")
            bucket_name, bucket_arn = bucket.bucket_name, bucket.bucket_arn
            output = f"s3://{bucket_name}/{key_prefix}"
        base = f"{bucket_arn}/{key_prefix}" if key_prefix else bucket_arn
        self.async_output_s3_uri = output
        self.async_input_s3_prefix = f"{output}/inputs/"
        self._statements.append(iam.PolicyStatement(actions=["s3:PutObject"], resources=[f"{base}/*"]))
        self._statements.append(iam.PolicyStatement(actions=["s3:GetObject"], resources=[f"{base}/inputs/*"]))
        self._acknowledge_objects(
            base, key_prefix, ["", "inputs/"], "async requests and results are objects sagemaker names per request"
        )
        notification = None
        if options.notifications:
            master_key: kms.IKey = self._kms_key or kms.Alias.from_alias_name(self, "SnsKey", "alias/aws/sns")
            self.success_topic = sns.Topic(self, "SuccessTopic", master_key=master_key)
            self.error_topic = sns.Topic(self, "ErrorTopic", master_key=master_key)
            topics = [self.success_topic.topic_arn, self.error_topic.topic_arn]
            sns.CfnTopicPolicy(
                self,
                "TopicPolicy",
                topics=topics,
                policy_document=iam.PolicyDocument(
                    statements=[
                        iam.PolicyStatement(
                            sid="AllowPublishThroughSSLOnly",
                            effect=iam.Effect.DENY,
                            principals=[iam.AnyPrincipal()],
                            actions=["sns:Publish"],
                            resources=topics,
                            conditions={"Bool": {"aws:SecureTransport": "false"}},
                        )
                    ]
                ),
            )
            self._statements.append(iam.PolicyStatement(actions=["sns:Publish"], resources=topics))
            if self._kms_key is not None:
                self._statements.append(
                    iam.PolicyStatement(actions=["kms:GenerateDataKey"], resources=[self._kms_key.key_arn])
                )
            notification = sagemaker.CfnEndpointConfig.AsyncInferenceNotificationConfigProperty(
                success_topic=self.success_topic.topic_arn, error_topic=self.error_topic.topic_arn
            )
        elif self._kms_key is not None:
            self._statements.append(
                iam.PolicyStatement(actions=["kms:GenerateDataKey"], resources=[self._kms_key.key_arn])
            )
        del stack
        return sagemaker.CfnEndpointConfig.AsyncInferenceConfigProperty(
            output_config=sagemaker.CfnEndpointConfig.AsyncInferenceOutputConfigProperty(
                s3_output_path=output,
                s3_failure_path=f"{output}/failures",
                kms_key_id=self._kms_key.key_arn if self._kms_key else None,
                notification_config=notification,
            ),
            client_config=(
                sagemaker.CfnEndpointConfig.AsyncInferenceClientConfigProperty(
                    max_concurrent_invocations_per_instance=plan.max_concurrent_invocations_per_instance
                )
                if plan.max_concurrent_invocations_per_instance
                else None
            ),
        )

    def _data_capture(self) -> sagemaker.CfnEndpointConfig.DataCaptureConfigProperty:
        capture = self.plan.data_capture or DataCaptureOptions()
        if capture.s3_uri:
            destination = capture.s3_uri.rstrip("/")
            bucket_name, _, key = destination[len("s3://") :].partition("/")
            base = f"arn:{_tokens.aws_partition()}:s3:::{bucket_name}" + (f"/{key}" if key else "")
        else:
            bucket, key = self._data_uri("capture")
            destination = f"s3://{bucket.bucket_name}/{key}"
            base = f"{bucket.bucket_arn}/{key}"
        self._statements.append(iam.PolicyStatement(actions=["s3:PutObject"], resources=[f"{base}/*"]))
        if self._kms_key is not None:
            self._statements.append(
                iam.PolicyStatement(actions=["kms:GenerateDataKey"], resources=[self._kms_key.key_arn])
            )
        self._acknowledge_objects(
            base, key, [""], "captured requests and responses are objects sagemaker names per hour"
        )
        self.data_capture_s3_uri = destination
        return sagemaker.CfnEndpointConfig.DataCaptureConfigProperty(
            capture_options=[
                sagemaker.CfnEndpointConfig.CaptureOptionProperty(capture_mode="Input"),
                sagemaker.CfnEndpointConfig.CaptureOptionProperty(capture_mode="Output"),
            ],
            destination_s3_uri=destination,
            initial_sampling_percentage=capture.sampling_percent,
            enable_capture=True,
            kms_key_id=self._kms_key.key_arn if self._kms_key else None,
        )

    def _container(self, image: str) -> sagemaker.CfnModel.ContainerDefinitionProperty:
        plan = self.plan
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

    def _variant(self) -> sagemaker.CfnEndpointConfig.ProductionVariantProperty:
        plan = self.plan
        if plan.serverless is not None:
            s = plan.serverless
            return sagemaker.CfnEndpointConfig.ProductionVariantProperty(
                variant_name=plan.variant_name,
                model_name=self.model.attr_model_name,
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
            model_name=self.model.attr_model_name,
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

    def _rollback_alarms(self) -> list[cloudwatch.CfnAlarm]:
        plan = self.plan
        d = plan.deployment
        dimensions = tuple(self._metric_dimensions().items())
        errors = add_alarm(
            self,
            "Rollback5xxAlarm",
            # Average of a 1-or-0-per-request metric: the 5XX error rate (0..1), as metric_invocation_5xx_errors().
            AlarmMetric(_SAGEMAKER, "Invocation5XXErrors", dimensions, "Average", 60),
            threshold=d.max_error_rate_percent / 100.0,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=3,
            datapoints_to_alarm=2,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            description=(
                f"5XX error rate above {d.max_error_rate_percent:g}% in 2 of 3 minutes: "
                "rolls back an endpoint update in progress"
            ),
        )
        latency = add_alarm(
            self,
            "RollbackLatencyAlarm",
            AlarmMetric(_SAGEMAKER, "ModelLatency", dimensions, "p99", 60, unit="Microseconds"),
            threshold=plan.rollback_p99_model_latency_ms * 1000.0,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=3,
            datapoints_to_alarm=2,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            description=(
                f"p99 ModelLatency above {plan.rollback_p99_model_latency_ms:g} ms in 2 of 3 minutes: "
                "rolls back an endpoint update in progress"
            ),
        )
        reason = (
            "this alarm exists for sagemaker's deployment auto-rollback, which reads its state during an endpoint "
            "update; notification actions are added by the observability layer when an alarm topic is configured"
        )
        for alarm in (errors, latency):
            acknowledge_all(
                alarm,
                [
                    ("NIST.800.53.R5-CloudWatchAlarmAction", reason),
                    ("HIPAA.Security-CloudWatchAlarmAction", reason),
                    ("cdk-validator-cfnguard::cloudwatch_alarm_action_check", reason),  # CT.CLOUDWATCH.PR.1
                ],
            )
        return [errors, latency]

    def _deployment_config(self) -> sagemaker.CfnEndpoint.DeploymentConfigProperty:
        plan = self.plan
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
                cfn.AutoRollbackConfigProperty(
                    alarms=[cfn.AlarmProperty(alarm_name=a.ref) for a in self.rollback_alarms]
                )
                if self.rollback_alarms
                else None
            ),
        )

    def _component_deployment_config(
        self,
    ) -> sagemaker.CfnInferenceComponent.InferenceComponentDeploymentConfigProperty:
        """Rolling update of the component's copies with alarm rollback (the endpoint's blue/green does not apply)."""
        plan = self.plan
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
                cfn.AutoRollbackConfigurationProperty(
                    alarms=[cfn.AlarmProperty(alarm_name=a.ref) for a in self.rollback_alarms]
                )
                if self.rollback_alarms
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


def _nag_arn(stack: Stack, service: str) -> str:
    """``arn:<partition>:<service>:<region>:<account>`` as cdk-nag shows it in a finding id: literals where
    ``@aws-cdk/core:enablePartitionLiterals`` and an environment-bound stack make them literals, else the
    ``<AWS::...>`` pseudo parameters."""
    env = stack_env(stack)
    return f"arn:{env.nag_partition}:{service}:{env.nag_region}:{env.nag_account}"


def _replace_kms(request: EndpointRequest, arn: str) -> EndpointRequest:
    from dataclasses import replace

    return replace(request, kms_key_arn=arn)


def _model_spec(model: ModelSpec | None) -> ModelSpec:
    return model if model is not None else ModelSpec()


class RealtimeEndpoint(InferenceEndpoint):
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
        Subnets and security groups. Default: no VPC (SageMaker's managed network).
    network_isolation:
        Block the container's network. Default: off (the container may need to download the model).
    data_capture:
        Capture requests/responses to S3 with a sampling percent. Default: off.
    deployment:
        Blue/green update policy and rollback alarms. Default: blue/green all at once with a 10-minute
        baking period and rollback on 5XX rate or p99 latency.
    quantization:
        Runtime quantization method. Default: ``fp8`` when ``model.dtype`` is fp8 on GPU, else none.
    environment:
        Extra container variables, applied last. Default: only the ones derived from the decisions.
    endpoint_name, host, catalog, path:
        See :class:`InferenceEndpoint`.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model: ModelSpec,
        serving: Serving = Serving.LMI,
        image: str | None = None,
        accelerator: AcceleratorChoice = AcceleratorChoice.AUTO,
        instance_type: str | None = None,
        capacity: Capacity | None = None,
        async_inference: AsyncOptions | None = None,
        kms_key: kms.IKey | None = None,
        vpc: VpcOptions | None = None,
        network_isolation: bool = False,
        data_capture: DataCaptureOptions | None = None,
        deployment: DeploymentOptions | None = None,
        quantization: str | None = None,
        environment: Mapping[str, str] | None = None,
        endpoint_name: str | None = None,
        host: HostDecision | None = None,
        catalog: Catalog | None = None,
        path: str = "",
    ) -> None:
        request = EndpointRequest(
            kind=EndpointKind.ASYNC if async_inference is not None else EndpointKind.REALTIME,
            model=model,
            serving=serving,
            image=image,
            accelerator=accelerator,
            instance_type=instance_type,
            capacity=capacity or Capacity(),
            async_inference=async_inference,
            vpc=vpc,
            network_isolation=network_isolation,
            data_capture=data_capture,
            deployment=deployment or DeploymentOptions(),
            quantization=quantization,
            environment=dict(environment or {}),
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
        )


class ServerlessEndpoint(InferenceEndpoint):
    """A serverless SageMaker endpoint (CPU only; no VPC, network isolation or data capture).

    Parameters
    ----------
    model:
        What is served; ``s3_uri`` must be a ``.tar.gz`` archive.
    serving:
        A CPU serving stack: ``sklearn``, ``xgboost``, ``pytorch``, ``triton`` or ``custom``.
        Default: ``sklearn``.
    memory_size_in_mb:
        1024..6144 in steps of 1024. Default: the smallest size that holds the model (2048 when its
        size is unknown).
    max_concurrency:
        1..200 concurrent invocations. Default: 20.
    provisioned_concurrency:
        0..``max_concurrency`` pre-warmed instances. Default: 0 (none).
    image, kms_key, deployment, environment, endpoint_name, catalog, path:
        As for :class:`RealtimeEndpoint` (``kms_key`` encrypts nothing on the endpoint config: serverless
        has no ML storage volume).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model: ModelSpec,
        serving: Serving = Serving.SKLEARN,
        image: str | None = None,
        memory_size_in_mb: int | None = None,
        max_concurrency: int = 20,
        provisioned_concurrency: int = 0,
        kms_key: kms.IKey | None = None,
        deployment: DeploymentOptions | None = None,
        environment: Mapping[str, str] | None = None,
        endpoint_name: str | None = None,
        catalog: Catalog | None = None,
        path: str = "",
    ) -> None:
        request = EndpointRequest(
            kind=EndpointKind.SERVERLESS,
            model=model,
            serving=serving,
            image=image,
            serverless=ServerlessOptions(memory_size_in_mb, max_concurrency, provisioned_concurrency),
            deployment=deployment or DeploymentOptions(),
            environment=dict(environment or {}),
        )
        super().__init__(
            scope,
            construct_id,
            request=request,
            catalog=catalog,
            kms_key=kms_key,
            endpoint_name=endpoint_name,
            path=path,
        )

    def auto_scale_provisioned_concurrency(
        self,
        *,
        min_provisioned_concurrency: int | None = None,
        max_provisioned_concurrency: int | None = None,
        target_utilization: float = DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
        scale_out_cooldown: Duration | None = None,
        scale_in_cooldown: Duration | None = None,
    ) -> ServerlessProvisionedConcurrencyScaling:
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
        scaling = ServerlessProvisionedConcurrencyScaling(
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


class MultiModelEndpoint(InferenceEndpoint):
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
    image, accelerator, instance_type, capacity, kms_key, vpc, network_isolation, data_capture,
    deployment, environment, endpoint_name, host, catalog, path:
        As for :class:`RealtimeEndpoint`.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        model_data_prefix: str,
        serving: Serving = Serving.XGBOOST,
        model: ModelSpec | None = None,
        cache: bool = True,
        image: str | None = None,
        accelerator: AcceleratorChoice = AcceleratorChoice.AUTO,
        instance_type: str | None = None,
        capacity: Capacity | None = None,
        kms_key: kms.IKey | None = None,
        vpc: VpcOptions | None = None,
        network_isolation: bool = False,
        data_capture: DataCaptureOptions | None = None,
        deployment: DeploymentOptions | None = None,
        environment: Mapping[str, str] | None = None,
        endpoint_name: str | None = None,
        host: HostDecision | None = None,
        catalog: Catalog | None = None,
        path: str = "",
    ) -> None:
        request = EndpointRequest(
            kind=EndpointKind.MULTI_MODEL,
            model=_model_spec(model),
            serving=serving,
            image=image,
            accelerator=accelerator,
            instance_type=instance_type,
            capacity=capacity or Capacity(),
            multi_model=MultiModelOptions(model_data_prefix, cache),
            vpc=vpc,
            network_isolation=network_isolation,
            data_capture=data_capture,
            deployment=deployment or DeploymentOptions(),
            environment=dict(environment or {}),
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
        )


def endpoint_from_request(
    scope: Construct,
    construct_id: str,
    request: EndpointRequest,
    *,
    host: HostDecision | None = None,
    catalog: Catalog | None = None,
    kms_key: kms.IKey | None = None,
    endpoint_name: str | None = None,
    path: str = "",
    plan: EndpointPlan | None = None,
) -> InferenceEndpoint:
    """Build an endpoint of any kind from a request (the config layer's entry point).

    ``request.kms_key_arn`` (a literal ARN from the config) is imported as a key when ``kms_key`` is not given.
    ``plan``: the decisions already made for ``request`` (see :class:`InferenceEndpoint`); default: made here.
    """
    if kms_key is None and request.kms_key_arn is not None:
        kms_key = kms.Key.from_key_arn(scope, f"{construct_id}Key", request.kms_key_arn)
    return InferenceEndpoint(
        scope,
        construct_id,
        request=request,
        host=host,
        catalog=catalog,
        kms_key=kms_key,
        endpoint_name=endpoint_name,
        path=path,
        plan=plan,
    )
