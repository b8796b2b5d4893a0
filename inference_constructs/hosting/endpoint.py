"""SageMaker endpoint constructs: real-time (with an async mode), serverless and multi-model.

Each endpoint is one execution role + one customer-managed policy, one Model, one EndpointConfig,
one Endpoint, and (by default) two rollback alarms; async endpoints add two SNS topics and one topic
policy; real-time endpoints with ``capacity.min`` 0 add one inference component. Scaling is added with
``auto_scale``, ``auto_scale_provisioned_concurrency``, ``auto_scale_copies`` or ``auto_scale_from_plan``.
The decisions come from :func:`inference_constructs.hosting.decisions.plan_endpoint`; this module only
translates them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from aws_cdk import Names, Resource, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sns as sns
from constructs import Construct

from inference_constructs._arns import format_arn, keep_stack, kept_on_stack
from inference_constructs._grants import grant_managed
from inference_constructs._policy import allow
from inference_constructs.catalog import Catalog
from inference_constructs.compliance import acknowledge_all
from inference_constructs.hosting import properties
from inference_constructs.hosting.components import ComponentHost, ComponentResources, add_components, model_component
from inference_constructs.hosting.components_plan import plan_hosting
from inference_constructs.hosting.decisions import EndpointPlan, InferenceComponentPlan
from inference_constructs.hosting.imported import EndpointImports, invoke_actions
from inference_constructs.hosting.metrics import EndpointMetrics
from inference_constructs.hosting.network import VpcLike, owned_role, resolve_vpc
from inference_constructs.hosting.outputs import async_output, data_capture
from inference_constructs.hosting.request import Capacity, EndpointRequest
from inference_constructs.hosting.role import ExecutionStatements, execution_image
from inference_constructs.hosting.rollback import rollback_alarms
from inference_constructs.hosting.scaling_hooks import EndpointScalingHooks
from inference_constructs.hosting.staging import HubModelStaging
from inference_constructs.region_rules import RegionRules
from inference_constructs.regions import HOSTING_TYPES, staging_requirement, type_requirement
from inference_constructs.scaling.inference_component import ModelInferenceComponent
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import EndpointKind

__all__ = ["InferenceEndpoint"]

_SAGEMAKER_PRINCIPAL = "_inference_sagemaker_principal"

_C = TypeVar("_C", bound=Construct)


class InferenceEndpoint(EndpointImports, EndpointScalingHooks, EndpointMetrics, Resource):
    """A SageMaker endpoint built from an :class:`EndpointRequest` (the common base of every kind).

    A CDK ``Resource`` whose default child is the ``AWS::SageMaker::Endpoint`` (id ``Resource``), so
    ``apply_removal_policy`` and ``node.default_child`` act on the endpoint; it implements
    :class:`~inference_constructs.hosting.interface.IInferenceEndpoint`. ``from_endpoint_name``,
    ``from_endpoint_arn`` and ``from_endpoint_attributes`` import an endpoint deployed elsewhere
    (:class:`~inference_constructs.hosting.imported.EndpointImports`).

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
    vpc, vpc_subnets, security_groups:
        An ``ec2.IVpc`` for the model's network interfaces, the subnets to use in it, and their security groups
        (``request.vpc`` is replaced by their ids). Default: ``request.vpc``; with a VPC, its private subnets and
        one new security group ``SecurityGroup`` (no inbound rule, all outbound); see :attr:`connections`.
    role:
        Execution role to use instead of creating one. A role created in this app gets the execution policy
        ``ExecutionPolicy`` attached; an imported role is left as it is (the library does not change a role it
        does not own): attach :attr:`policy` (its statements are ``policy.document``) where the role is managed.
        Default: a new role ``ExecutionRole`` that SageMaker assumes, with ``ExecutionPolicy`` attached.
    hf_token_secret:
        The construct of the secret ``request.hf_token`` names, when the caller has one (its ARN is what the
        staging job's role may read). Default: imported by the name or ARN in ``request.hf_token``.
    """

    components: dict[str, ComponentResources]
    """The inference components after the first (``components[1:]``) of an endpoint with ``components``, by name:
    model, component and rollback alarms (ids under ``<Name>``); empty without ``components``."""
    adapters: dict[str, sagemaker.CfnInferenceComponent]
    """The LoRA adapter inference components by name (ids ``<Name>Adapter``); empty without adapters."""
    pool_models: dict[int, sagemaker.CfnModel]
    """The models of the instance pools whose engine settings differ from the variant's (id ``PoolModel<n>``, by
    priority ``n``): the variant's model with that pool's environment (``ModelNameOverride``); empty without pools."""

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
        vpc: VpcLike | None = None,
        vpc_subnets: ec2.SubnetSelection | None = None,
        security_groups: Sequence[ec2.ISecurityGroup] | None = None,
        role: iam.IRole | None = None,
        hf_token_secret: secretsmanager.ISecret | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        vpc_options, self._security_groups = resolve_vpc(self, vpc, vpc_subnets, security_groups, path=path)
        request = replace(
            request,
            kms_key_arn=request.kms_key_arn or (kms_key.key_arn if kms_key is not None else None),
            vpc=vpc_options if vpc is not None else request.vpc,
        )
        self.plan: EndpointPlan = plan or plan_hosting(request, host=host, catalog=catalog, path=path)
        """The decisions this endpoint was built from (host, image, environment, timeouts, reasons)."""
        self.kind: EndpointKind = self.plan.kind
        self.variant_name: str = self.plan.variant_name
        self.endpoint_name: str = endpoint_name or Names.unique_resource_name(self, max_length=63, separator="-")
        self._path = path
        plan = self.plan
        stack = keep_stack(self, scope)
        _require_regions(stack, plan, path or self.node.path)

        self.role: iam.IRole = role or _execution_role(self, stack)
        """The execution role SageMaker assumes (the ``role`` prop, or ``ExecutionRole``)."""
        self.async_output_s3_uri: str | None = None
        """Where async results are written (``s3://...``); None unless the endpoint is async."""
        self.async_input_s3_prefix: str | None = None
        """Where async callers put their input objects (the execution role reads them); None unless async."""
        self.success_topic: sns.ITopic | None = None
        self.error_topic: sns.ITopic | None = None
        self.data_capture_s3_uri: str | None = None
        """Where captured requests and responses are written; None unless data capture is on."""
        image, async_config, capture_config = self._execution_policy(stack, kms_key)

        self.weights_staging: HubModelStaging | None = self._weights_staging(hf_token_secret)
        """The deploy-time staging of a gated or private hub model into S3 (id ``WeightsStaging``), when the plan
        stages one (``model.hf_token`` without ``in_environment``)."""

        self.model = sagemaker.CfnModel(
            self,
            "Model",
            execution_role_arn=self.role.role_arn,
            primary_container=properties.container(
                plan, image, staged_s3_uri=self.weights_staging.s3_uri if self.weights_staging else None
            ),
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
            production_variants=[
                properties.production_variant(
                    plan,
                    self.model.attr_model_name,
                    {n: m.attr_model_name for n, m in self._pool_models(image).items()},
                )
            ],
            metrics_config=properties.metrics_config(plan),
            kms_key_id=plan.kms_key_arn,
            async_inference_config=async_config,
            data_capture_config=capture_config,
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
        ``Rollback5xxAlarm``, ``RollbackLatencyAlarm``); empty when rollback on alarms is off.
        ``inference_constructs.observability.alarm_of(alarm)`` is one as a ``cloudwatch.IAlarm``
        (``add_alarm_action(SnsAction(topic))``, composite alarm rules)."""
        if component_plan is None:
            self.rollback_alarms = rollback_alarms(self, plan, tuple(self._metric_dimensions().items()))

        self.resource = sagemaker.CfnEndpoint(
            self,
            "Resource",
            endpoint_config_name=self.endpoint_config.attr_endpoint_config_name,
            endpoint_name=self.endpoint_name,
            # Inference-component endpoints roll model updates out per component (its own DeploymentConfig).
            deployment_config=(
                properties.deployment_config(plan.update_policy, self.rollback_alarms)
                if component_plan is None
                else None
            ),
            retain_all_variant_properties=True if plan.update_policy.retain_all_variant_properties else None,
        )
        self.endpoint_arn: str = format_arn(
            stack, service="sagemaker", resource="endpoint", resource_name=self.endpoint_name.lower()
        )
        """ARN of the endpoint (SageMaker lower-cases endpoint names in ARNs)."""
        self.scaling: Construct | None = None
        """The auto scaling added by :meth:`auto_scale` or :meth:`auto_scale_from_plan` (id ``Scaling``), if any."""
        if component_plan is not None:
            self.inference_component = self._component(component_plan)
            self.rollback_alarms = rollback_alarms(self, plan, tuple(self._metric_dimensions().items()))
            self.inference_component.resource.deployment_config = properties.component_deployment_config(
                plan.update_policy, self.rollback_alarms
            )
            self._finish_components()

    def _finish_components(self) -> None:
        """Require copy scaling of the first component, and create the components after it and the adapters of a
        multi-component plan (:attr:`components`)."""
        self._require_copy_scaling()
        plan = self.plan.components
        if plan is None or self.inference_component is None:
            return
        host = ComponentHost(
            self.role.role_arn,
            self.policy,
            self.resource,
            self.endpoint_name,
            self.variant_name,
            self.inference_component,
            self.model,
        )
        self.components, self.adapters = add_components(self, plan, host, self._component_images)
        for resources in self.components.values():
            self.rollback_alarms.extend(resources.rollback_alarms)

    def _pool_models(self, image: str) -> dict[int, sagemaker.CfnModel]:
        """Create the models of the instance pools that need their own (:attr:`pool_models`)."""
        self.pool_models = {}
        plan = self.plan
        if plan.instance_pools is None:
            return {}
        staged = self.weights_staging.s3_uri if self.weights_staging else None
        for pool in plan.instance_pools.pools:
            if not pool.own_model:
                continue
            pool_plan = replace(plan, environment=pool.environment)
            model = sagemaker.CfnModel(
                self,
                f"PoolModel{pool.priority}",
                execution_role_arn=self.role.role_arn,
                primary_container=properties.container(pool_plan, image, staged_s3_uri=staged),
                enable_network_isolation=self.model.enable_network_isolation,
                vpc_config=self.model.vpc_config,
            )
            model.node.add_dependency(self.policy)
            self.pool_models[pool.priority] = model
        return self.pool_models

    def _weights_staging(self, secret: secretsmanager.ISecret | None) -> HubModelStaging | None:
        staging = self.plan.model_data.staging
        return None if staging is None else HubModelStaging(self, "WeightsStaging", staging=staging, secret=secret)

    def _execution_policy(
        self, stack: Stack, kms_key: kms.IKey | None
    ) -> tuple[
        str,
        sagemaker.CfnEndpointConfig.AsyncInferenceConfigProperty | None,
        sagemaker.CfnEndpointConfig.DataCaptureConfigProperty | None,
    ]:
        """Create the execution policy (id ``ExecutionPolicy``) with everything the plan needs, and the async and
        data capture configs whose grants it holds; returns (image uri, async config, data capture config)."""
        plan, path = self.plan, self._path
        statements = ExecutionStatements(self)
        image, repository_arn = execution_image(self, plan, path, stack, statements)
        statements.grant_image_pull(repository_arn)
        statements.grant_model_data(plan.model_data)
        self._component_images: dict[str, str] = {}
        self.components, self.adapters = {}, {}  # filled once the endpoint exists (_finish_components)
        if plan.components is not None:
            pulled = {repository_arn}
            for c in plan.components.components[1:]:
                uri, arn = execution_image(self, c.plan, f"{path}.components" if path else "", stack, statements)
                self._component_images[c.name] = uri
                if arn not in pulled:
                    statements.grant_image_pull(arn)
                    pulled.add(arn)
                statements.grant_model_data(c.plan.model_data)
            for a in plan.components.adapters:
                statements.grant_model_data(a.model_data)
        statements.grant_logs_and_metrics(stack, self.endpoint_name)
        if plan.vpc is not None:
            statements.grant_vpc()
        if kms_key is not None:
            statements.append(allow(["kms:Decrypt"], [kms_key.key_arn]))

        async_config = None
        if plan.async_inference is not None:
            written = async_output(self, plan, self.endpoint_name, kms_key, statements)
            async_config = written.config
            self.async_output_s3_uri, self.async_input_s3_prefix = written.output_s3_uri, written.input_s3_prefix
            self.success_topic, self.error_topic = written.success_topic, written.error_topic
        capture_config = None
        if plan.data_capture_enabled:
            captured = data_capture(self, plan, self.endpoint_name, kms_key, statements)
            capture_config, self.data_capture_s3_uri = captured.config, captured.s3_uri
        statements.acknowledge_collected()

        self.policy = iam.ManagedPolicy(
            self,
            "ExecutionPolicy",
            description="What the endpoint's container and SageMaker need: image pull, model data read, logs, metrics",
            document=statements.document(),
            roles=[owned] if (owned := owned_role(self.role)) is not None else None,
        )
        return image, async_config, capture_config

    # ------------------------------------------------------------------------------------------ facts

    @property
    def connections(self) -> ec2.Connections:
        """The security groups of the endpoint's network interfaces (``vpc``), for
        ``endpoint.connections.allow_to(database, ec2.Port.tcp(5432))``; empty without an ``ec2.IVpc``."""
        return ec2.Connections(security_groups=self._security_groups)

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

    def _key(self, name: str) -> str:
        """``<path>.<name>``; without a config path, the construct path names the endpoint."""
        return f"{self._path or self.node.path}.{name}"

    def _component(self, component: InferenceComponentPlan) -> ModelInferenceComponent:
        return model_component(
            self,
            self.resource,
            endpoint_name=self.endpoint_name,
            variant_name=self.variant_name,
            model_name=self.model.attr_model_name,
            accelerator_devices=component.accelerator_devices,
            min_memory_required_mb=component.min_memory_required_mb,
            copy_count=component.initial_instance_count,
            timeouts=component,
            shared=self.plan.components,
        )

    # ------------------------------------------------------------------------------------------ grants

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke this endpoint.

        Real-time, serverless and multi-model endpoints: ``sagemaker:InvokeEndpoint`` and
        ``sagemaker:InvokeEndpointWithResponseStream``. Async endpoints: ``sagemaker:InvokeEndpointAsync``
        (the caller also needs to write its input object where the execution role can read it,
        :attr:`async_input_s3_prefix`).

        A role, user or group this app creates (a Lambda function's role too) gets the statement in a
        customer-managed policy attached to it (one per endpoint, id ``Grants<endpoint id>`` under the identity), not
        in its inline default policy, which NIST 800-53 and HIPAA flag (``IAMNoInlinePolicy``). Any other principal
        gets what ``iam.Grant.add_to_principal`` gives it (an imported role: import it with ``mutable=False`` and
        grant in its own stack).
        """
        return grant_managed(self, grantee, actions=invoke_actions(self.kind), resource_arns=[self.endpoint_arn])


def _execution_role(owner: Construct, stack: Stack) -> iam.Role:
    return iam.Role(
        owner,
        "ExecutionRole",
        # one principal for the stack's roles, not one per endpoint
        assumed_by=kept_on_stack(stack, _SAGEMAKER_PRINCIPAL, lambda: iam.ServicePrincipal("sagemaker.amazonaws.com")),
        description="SageMaker execution role of one inference endpoint (least privilege)",
    )


def _require_regions(stack: Stack, plan: EndpointPlan, needed_by: str) -> None:
    """Register what this endpoint needs of its Region: SageMaker hosting, and the staging job when it has one."""
    rules = RegionRules.of(stack)
    rules.require(type_requirement(HOSTING_TYPES, "sagemaker hosting", [needed_by]))
    if plan.model_data.staging is not None:
        rules.require(staging_requirement([needed_by]))
