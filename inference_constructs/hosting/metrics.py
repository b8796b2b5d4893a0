"""The CloudWatch metrics of an endpoint: ``endpoint.metric_*()`` (mixed into every endpoint construct).

Invocation metrics live in ``AWS/SageMaker`` per ``EndpointName`` + ``VariantName``, or per
``InferenceComponentName`` on an endpoint hosted through an inference component; instance metrics in
``/aws/sagemaker/Endpoints`` (GPU metrics run 0..100 x the host's GPU count); per-copy GPU metrics in
``/aws/sagemaker/InferenceComponents``; the async backlog metrics have ``EndpointName`` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Unpack, cast

from aws_cdk import aws_cloudwatch as cloudwatch

from inference_constructs import _tokens
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.interface import MetricOptions
from inference_constructs.observability import metric_table
from inference_constructs.observability.metric_definitions import (
    COMPONENT_DIMENSIONS,
    SAGEMAKER_NAMESPACE,
    Dimension,
    endpoint_dimensions,
)
from inference_constructs.observability.metric_factory import cloudwatch_unit
from inference_constructs.observability.metric_table import MetricDefinition

if TYPE_CHECKING:
    from inference_constructs.hosting.request import Capacity
    from inference_constructs.scaling.inference_component import ModelInferenceComponent

__all__ = ["EndpointMetrics", "MetricOptions"]


def with_defaults(options: MetricOptions, **defaults: Unpack[MetricOptions]) -> MetricOptions:
    """``defaults`` overridden by every option the caller gave (an option given as ``None`` keeps the default)."""
    merged: dict[str, object] = dict(defaults)
    merged.update((k, v) for k, v in options.items() if v is not None)
    return cast("MetricOptions", merged)


class EndpointMetrics:
    """The ``metric_*`` methods of an endpoint construct (a mixin: the endpoint supplies the names below)."""

    endpoint_name: str
    variant_name: str
    inference_component: ModelInferenceComponent | None

    if TYPE_CHECKING:

        @property
        def capacity(self) -> Capacity: ...

        def _key(self, name: str) -> str: ...

    def metric(
        self,
        metric_name: str,
        *,
        namespace: str = SAGEMAKER_NAMESPACE,
        variant_dimension: bool = True,
        **options: Unpack[MetricOptions],
    ) -> cloudwatch.Metric:
        """Any SageMaker metric of this endpoint.

        On an endpoint hosted through an inference component (real-time ``capacity.min: 0``), invocation
        metrics (``AWS/SageMaker``) are published per component: they get the ``InferenceComponentName``
        dimension instead.

        Parameters
        ----------
        metric_name:
            The CloudWatch metric name.
        namespace:
            Default: ``AWS/SageMaker``.
        variant_dimension:
            Add ``VariantName`` to ``EndpointName`` (``False`` for the async backlog metrics). Default: yes.
        **options:
            The aws-cdk ``MetricOptions`` (``period``, ``statistic``, ``label``, ``unit``, ``color``,
            ``account``, ``region``, ``dimensions_map``, ...), passed to ``cloudwatch.Metric``; a
            ``dimensions_map`` replaces the endpoint's dimensions, as in aws-cdk. Default: average over
            1 minute on this endpoint's dimensions, in the stack's account and Region (an endpoint imported by
            ARN from another account or Region: the ARN's).
        """
        chosen = with_defaults(
            with_defaults(options, **self._metric_environment()),
            statistic="Average",
            period=_tokens.minutes(1),
            dimensions_map=self._metric_dimensions(namespace, variant_dimension=variant_dimension),
        )
        return cloudwatch.Metric(namespace=namespace, metric_name=metric_name, **chosen)

    def _metric_environment(self) -> MetricOptions:
        """The ``account`` and ``region`` this endpoint's metrics are read in. Default: none given, so the
        stack's own (an endpoint imported from another account or Region gives the ARN's)."""
        return MetricOptions()

    def _metric_dimensions(
        self, namespace: str = SAGEMAKER_NAMESPACE, *, variant_dimension: bool = True
    ) -> dict[str, str]:
        """Dimensions of this endpoint's metrics in ``namespace`` (see :meth:`metric`)."""
        component = self.inference_component
        return endpoint_dimensions(
            self.endpoint_name,
            self.variant_name,
            namespace=namespace,
            inference_component_name=component.inference_component_name if component is not None else None,
            variant_dimension=variant_dimension,
        )

    def metric_invocations(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``Invocations`` (count), sum over 1 minute. Not published by async endpoints."""
        return self._table_metric(metric_table.INVOCATIONS, options)

    def metric_invocations_per_instance(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``InvocationsPerInstance`` (count), sum over 1 minute."""
        return self._table_metric(metric_table.INVOCATIONS_PER_INSTANCE, options)

    def metric_model_latency(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``ModelLatency`` in microseconds, p99 over 1 minute."""
        return self._table_metric(metric_table.MODEL_LATENCY, options)

    def metric_overhead_latency(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``OverheadLatency`` in microseconds, average over 1 minute (percentiles are not published)."""
        return self._table_metric(metric_table.OVERHEAD_LATENCY, options)

    def metric_invocation_4xx_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``Invocation4XXErrors``, average over 1 minute (each request emits 1 or 0: the error rate)."""
        return self._table_metric(metric_table.INVOCATION_4XX_ERRORS, options)

    def metric_invocation_5xx_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``Invocation5XXErrors``, average over 1 minute (the 5XX error rate, 0..1)."""
        return self._table_metric(metric_table.INVOCATION_5XX_ERRORS, options)

    def metric_invocation_model_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``InvocationModelErrors``, sum over 1 minute."""
        return self._table_metric(metric_table.INVOCATION_MODEL_ERRORS, options)

    def metric_concurrent_requests_per_model(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``ConcurrentRequestsPerModel`` (high resolution, every 10 s), maximum over 1 minute."""
        return self._table_metric(metric_table.CONCURRENT_REQUESTS_PER_MODEL, options)

    def metric_model_setup_time(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``ModelSetupTime`` (serverless cold start) in microseconds, average over 1 minute."""
        return self._table_metric(metric_table.MODEL_SETUP_TIME, options)

    def metric_cpu_utilization(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``CPUUtilization`` percent, average over 1 minute; sums cores, so 0..100 x vCPUs."""
        return self._table_metric(metric_table.CPU_UTILIZATION, options)

    def metric_memory_utilization(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``MemoryUtilization`` (host RAM, not GPU memory) percent, average over 1 minute."""
        return self._table_metric(metric_table.MEMORY_UTILIZATION, options)

    def metric_disk_utilization(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``DiskUtilization`` percent, average over 1 minute."""
        return self._table_metric(metric_table.DISK_UTILIZATION, options)

    def metric_gpu_utilization(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``GPUUtilization`` percent, average over 1 minute; 0..100 x :attr:`gpu_count`."""
        return self._table_metric(metric_table.GPU_UTILIZATION, options)

    def metric_gpu_memory_utilization(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``GPUMemoryUtilization`` percent, average over 1 minute; 0..100 x :attr:`gpu_count`."""
        return self._table_metric(metric_table.GPU_MEMORY_UTILIZATION, options)

    def metric_approximate_backlog_size(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Async: ``ApproximateBacklogSize`` (count), average over 1 minute, ``EndpointName`` only."""
        return self._table_metric(metric_table.APPROXIMATE_BACKLOG_SIZE, options)

    def metric_approximate_backlog_size_per_instance(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Async: ``ApproximateBacklogSizePerInstance`` (count), average over 1 minute, ``EndpointName`` only."""
        return self._table_metric(metric_table.APPROXIMATE_BACKLOG_SIZE_PER_INSTANCE, options)

    def metric_approximate_age_of_oldest_request(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Async: ``ApproximateAgeOfOldestRequest`` in seconds, maximum over 1 minute, ``EndpointName`` only."""
        return self._table_metric(metric_table.APPROXIMATE_AGE_OF_OLDEST_REQUEST, options)

    def metric_has_backlog_without_capacity(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Async: ``HasBacklogWithoutCapacity`` (1 when requests wait and no instance runs), average over
        1 minute, ``EndpointName`` only. Drives scale-out from zero."""
        return self._table_metric(metric_table.HAS_BACKLOG_WITHOUT_CAPACITY, options)

    def metric_invocations_per_copy(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Inference component: ``InvocationsPerCopy`` (count), sum over 1 minute, ``InferenceComponentName``."""
        return self._component_metric(metric_table.INVOCATIONS_PER_COPY, options)

    def metric_concurrent_requests_per_copy(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Inference component: ``ConcurrentRequestsPerCopy`` (high resolution), maximum over 1 minute."""
        return self._component_metric(metric_table.CONCURRENT_REQUESTS_PER_COPY, options)

    def metric_no_capacity_invocation_failures(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Inference component: ``NoCapacityInvocationFailures`` (requests that found no copy), sum over 1 minute.

        Non-zero after idle at zero copies, until the first instance is in service; it drives the wake-up alarm.
        """
        return self._component_metric(metric_table.NO_CAPACITY_INVOCATION_FAILURES, options)

    def metric_gpu_utilization_normalized(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Inference component: ``GPUUtilizationNormalized`` per copy (0..100 of its reserved GPUs), average over
        1 minute, namespace ``/aws/sagemaker/InferenceComponents``."""
        return self._component_metric(metric_table.GPU_UTILIZATION_NORMALIZED, options)

    def metric_gpu_memory_utilization_normalized(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Inference component: ``GPUMemoryUtilizationNormalized`` per copy (0..100), average over 1 minute,
        namespace ``/aws/sagemaker/InferenceComponents``."""
        return self._component_metric(metric_table.GPU_MEMORY_UTILIZATION_NORMALIZED, options)

    def _table_metric(self, definition: MetricDefinition, options: MetricOptions) -> cloudwatch.Metric:
        """``definition``'s metric of this endpoint: its namespace and dimensions, its statistic and unit unless
        ``options`` say otherwise."""
        return self.metric(
            definition.name,
            namespace=definition.namespace,
            variant_dimension=Dimension.VARIANT_NAME.value in definition.dimensions,
            **with_defaults(options, statistic=definition.statistic, unit=cloudwatch_unit(definition)),
        )

    def _component_metric(self, definition: MetricDefinition, options: MetricOptions) -> cloudwatch.Metric:
        """``definition``'s metric of this endpoint's inference component (``InferenceComponentName``)."""
        if self.inference_component is None:
            raise InferenceConfigError(
                f"{self._key('capacity.min')}: {self.capacity.min} hosts the model without an inference component, "
                f"so {definition.name} is never published; use the per-instance metrics, or capacity min 0 on a "
                "realtime endpoint"
            )
        chosen = with_defaults(
            options,
            dimensions_map={COMPONENT_DIMENSIONS[0].value: self.inference_component.inference_component_name},
            statistic=definition.statistic,
            period=_tokens.minutes(1),
            unit=cloudwatch_unit(definition),
        )
        return cloudwatch.Metric(namespace=definition.namespace, metric_name=definition.name, **chosen)
