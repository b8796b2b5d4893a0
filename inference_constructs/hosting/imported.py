"""An endpoint deployed elsewhere, behind :class:`~inference_constructs.hosting.interface.IInferenceEndpoint`.

``InferenceEndpoint.from_endpoint_name`` / ``from_endpoint_arn`` return one, so code written against the interface
(grants, alarms, dashboards) works the same on an endpoint another team or stack deployed.
"""

from __future__ import annotations

from typing import Unpack

from aws_cdk import Resource, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs._coerce import enum_prop
from inference_constructs._grants import grant_managed
from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.decisions import DEFAULT_VARIANT_NAME
from inference_constructs.hosting.interface import MetricOptions
from inference_constructs.hosting.metrics import EndpointMetrics, with_defaults
from inference_constructs.observability.metric_definitions import SAGEMAKER_NAMESPACE
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.spec import EndpointKind

__all__ = ["ImportedEndpoint", "invoke_actions"]


def invoke_actions(kind: EndpointKind) -> list[str]:
    """The IAM actions that invoke an endpoint of ``kind``: ``InvokeEndpointAsync`` for async endpoints,
    ``InvokeEndpoint`` and ``InvokeEndpointWithResponseStream`` for the others."""
    if kind is EndpointKind.ASYNC:
        return ["sagemaker:InvokeEndpointAsync"]
    return ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"]


class ImportedEndpoint(EndpointMetrics, Resource):
    """An existing SageMaker endpoint: its names and ARN, invoke grants and ``metric_*`` (no resource is created).

    Build one with ``InferenceEndpoint.from_endpoint_name`` or ``InferenceEndpoint.from_endpoint_arn``.
    The per-copy (inference component) metrics are not offered: use :meth:`metric` with
    ``dimensions_map={"InferenceComponentName": ...}``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        endpoint_arn: str,
        variant_name: str = DEFAULT_VARIANT_NAME,
        kind: EndpointKind | str = EndpointKind.REALTIME,
    ) -> None:
        super().__init__(scope, construct_id, environment_from_arn=endpoint_arn)
        self.endpoint_name: str = endpoint_name
        self.endpoint_arn: str = endpoint_arn
        self.variant_name: str = variant_name
        self.kind: EndpointKind = enum_prop("kind", kind, EndpointKind)
        self.inference_component = None

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke the endpoint (``InvokeEndpointAsync`` when imported with kind ``async``), in a
        managed policy on an identity this app creates, as :meth:`InferenceEndpoint.grant_invoke` does."""
        return grant_managed(self, grantee, actions=invoke_actions(self.kind), resource_arns=[self.endpoint_arn])

    def metric(
        self,
        metric_name: str,
        *,
        namespace: str = SAGEMAKER_NAMESPACE,
        variant_dimension: bool = True,
        **options: Unpack[MetricOptions],
    ) -> cloudwatch.Metric:
        """Any SageMaker metric of the endpoint, as :meth:`InferenceEndpoint.metric`.

        An endpoint imported by ARN from another account or Region than its stack's is read there: the ARN's
        account and Region are the metric's ``account`` and ``region`` (for a cross-account or cross-Region graph
        or alarm) unless ``options`` say otherwise. Default: the stack's own account and Region.
        """
        return super().metric(
            metric_name,
            namespace=namespace,
            variant_dimension=variant_dimension,
            **with_defaults(options, **self._arn_environment()),
        )

    def _arn_environment(self) -> MetricOptions:
        """The ARN's account and Region where they are literals that differ from the stack's literal ones."""
        stack, found = Stack.of(self), MetricOptions()
        if _differs(self.env.account, stack.account):
            found["account"] = self.env.account
        if _differs(self.env.region, stack.region):
            found["region"] = self.env.region
        return found

    def _component_metric(self, definition: MetricDefinition, options: MetricOptions) -> cloudwatch.Metric:
        raise InferenceConfigError(
            f"{self.node.path}: an imported endpoint does not know its inference component, so {definition.name} "
            "cannot be dimensioned; use metric(name, dimensions_map={'InferenceComponentName': ...})"
        )


def _differs(own: str, stacks: str) -> bool:
    return not is_unresolved(own) and not is_unresolved(stacks) and own != stacks
