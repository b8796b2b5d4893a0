"""What every endpoint construct offers, whatever its kind: :class:`IInferenceEndpoint`.

Code that invokes, grants on or watches an endpoint (alarms, dashboards, an API in front of it) takes an
``IInferenceEndpoint`` rather than a concrete kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from aws_cdk import Duration
    from aws_cdk import aws_cloudwatch as cloudwatch
    from aws_cdk import aws_iam as iam

__all__ = ["IInferenceEndpoint"]


@runtime_checkable
class IInferenceEndpoint(Protocol):
    """A SageMaker endpoint: its names and ARN, invoke grants and metrics.

    :class:`~inference_constructs.hosting.InferenceEndpoint` and its kinds implement it (they are CDK
    ``Resource`` s whose default child is the ``AWS::SageMaker::Endpoint``).
    """

    @property
    def endpoint_name(self) -> str:
        """The endpoint's name."""
        ...

    @property
    def endpoint_arn(self) -> str:
        """The endpoint's ARN."""
        ...

    @property
    def variant_name(self) -> str:
        """The production variant's name."""
        ...

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke the endpoint."""
        ...

    def metric(
        self,
        metric_name: str,
        *,
        namespace: str = ...,
        statistic: str = ...,
        period: Duration | None = ...,
        unit: cloudwatch.Unit | None = ...,
        variant_dimension: bool = ...,
    ) -> cloudwatch.Metric:
        """Any metric of the endpoint."""
        ...
