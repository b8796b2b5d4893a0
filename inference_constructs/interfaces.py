"""The interfaces shared across packages (ground: they import nothing of the library): what every endpoint
construct offers, whatever its kind (:class:`IInferenceEndpoint`), and the metric options every ``metric*``
method takes (:class:`MetricOptions`).

Code that invokes, grants on or watches an endpoint (alarms, dashboards, an API in front of it, a Bedrock
profile's metrics) takes these rather than a concrete construct; :mod:`inference_constructs.hosting.interface`
re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, TypedDict, Unpack, runtime_checkable

from inference_constructs.stats import Statistic

if TYPE_CHECKING:
    from aws_cdk import Duration
    from aws_cdk import aws_cloudwatch as cloudwatch
    from aws_cdk import aws_iam as iam

__all__ = ["IInferenceEndpoint", "MetricOptions"]


class MetricOptions(TypedDict, total=False):
    """The aws-cdk ``cloudwatch.MetricOptions``, as keyword arguments of every ``metric*`` method.

    Each is passed to ``cloudwatch.Metric`` and overrides the method's default (a ``dimensions_map``
    replaces the endpoint's dimensions, as in aws-cdk). ``statistic`` is a
    :class:`~inference_constructs.stats.Statistic` (``Statistic.MAXIMUM``, ``Statistic.p(99)``) or CloudWatch's
    string for it (``"Maximum"``, ``"p99"``).
    """

    account: str | None
    color: str | None
    dimensions_map: Mapping[str, str] | None
    id: str | None
    label: str | None
    period: Duration | None
    region: str | None
    stack_account: str | None
    stack_region: str | None
    statistic: Statistic | str | None
    unit: cloudwatch.Unit | None
    visible: bool | None


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
        variant_dimension: bool = ...,
        **options: Unpack[MetricOptions],
    ) -> cloudwatch.Metric:
        """Any metric of the endpoint; ``options`` are the aws-cdk ``MetricOptions``."""
        ...

    def metric_invocations(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``Invocations``, sum over 1 minute (not published by async endpoints)."""
        ...

    def metric_model_latency(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``ModelLatency`` in microseconds, p99 over 1 minute."""
        ...

    def metric_overhead_latency(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``OverheadLatency`` in microseconds, average over 1 minute."""
        ...

    def metric_invocation_4xx_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``Invocation4XXErrors``, average over 1 minute (the 4XX error rate, 0..1)."""
        ...

    def metric_invocation_5xx_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``Invocation5XXErrors``, average over 1 minute (the 5XX error rate, 0..1)."""
        ...

    def metric_invocation_model_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``InvocationModelErrors``, sum over 1 minute."""
        ...
