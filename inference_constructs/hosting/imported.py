"""An endpoint deployed elsewhere, behind :class:`~inference_constructs.hosting.interface.IInferenceEndpoint`.

``InferenceEndpoint.from_endpoint_name`` / ``from_endpoint_arn`` return one, so code written against the interface
(grants, alarms, dashboards) works the same on an endpoint another team or stack deployed.
"""

from __future__ import annotations

from aws_cdk import Resource
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs._coerce import enum_prop
from inference_constructs._grants import grant_managed
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.decisions import DEFAULT_VARIANT_NAME
from inference_constructs.hosting.interface import MetricOptions
from inference_constructs.hosting.metrics import EndpointMetrics
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

    def _component_metric(
        self,
        metric_name: str,
        statistic: str,
        unit: cloudwatch.Unit | None,
        options: MetricOptions,
        namespace: str = "",
    ) -> cloudwatch.Metric:
        raise InferenceConfigError(
            f"{self.node.path}: an imported endpoint does not know its inference component, so {metric_name} "
            "cannot be dimensioned; use metric(name, dimensions_map={'InferenceComponentName': ...})"
        )
