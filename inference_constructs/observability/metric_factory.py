"""The metric factories' machinery (:mod:`.metrics`): a factory called returns the aws-cdk ``Metric`` or
``MathExpression``; its ``.data`` returns the same metric as plain data (:mod:`.graph_data`), which a dashboard renders
without a round trip to the jsii kernel per metric. The aws-cdk objects are made from that data, so each metric is
defined once."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Generic, ParamSpec, TypeVar

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch

from inference_constructs.observability.graph_data import GraphMetric, MathData, MetricData
from inference_constructs.observability.metric_table import MetricDefinition

__all__ = [
    "MetricFactory",
    "cloudwatch_unit",
    "math_factory",
    "metric_factory",
    "period_seconds",
    "to_l2",
    "to_math_expression",
    "to_metric",
]

_UNITS = {
    "Count": cloudwatch.Unit.COUNT,
    "Microseconds": cloudwatch.Unit.MICROSECONDS,
    "Percent": cloudwatch.Unit.PERCENT,
    "Seconds": cloudwatch.Unit.SECONDS,
}
"""CloudWatch unit name (a metric table row's ``unit``) -> aws-cdk-lib enum member (jsii enum values are member
names, not CloudWatch's spelling)."""


def cloudwatch_unit(definition: MetricDefinition) -> cloudwatch.Unit | None:
    """The aws-cdk ``Unit`` of a metric table row, or None when the row sets none."""
    return None if definition.unit is None else _UNITS[definition.unit]


_P = ParamSpec("_P")
_D = TypeVar("_D", MetricData, MathData)
_R = TypeVar("_R", cloudwatch.Metric, cloudwatch.MathExpression)

# Duration -> seconds, each Duration read once (``to_seconds`` is a round trip to the jsii kernel); the Duration is
# kept with its seconds, so its id is never reused while it is in the table.
_SECONDS: dict[int, tuple[Duration, int]] = {}
_DURATIONS: dict[int, Duration] = {}


def period_seconds(period: Duration) -> int:
    """``period`` in whole seconds (each ``Duration`` read once)."""
    known = _SECONDS.get(id(period))
    if known is None:
        known = _SECONDS[id(period)] = (period, int(period.to_seconds()))
    return known[1]


def _duration(seconds: int) -> Duration:
    """A ``Duration`` of ``seconds``, one per value."""
    if seconds not in _DURATIONS:
        _DURATIONS[seconds] = Duration.seconds(seconds)
    return _DURATIONS[seconds]


def to_metric(data: MetricData) -> cloudwatch.Metric:
    """The aws-cdk ``Metric`` of a metric given as data."""
    return cloudwatch.Metric(
        namespace=data.namespace,
        metric_name=data.metric_name,
        dimensions_map=dict(data.dimensions) or None,
        statistic=data.statistic,
        period=_duration(data.period_seconds),
        label=data.label,
        account=data.account,
        region=data.region,
        unit=None if data.unit is None else _UNITS[data.unit],
    )


def to_math_expression(data: MathData) -> cloudwatch.MathExpression:
    """The aws-cdk ``MathExpression`` of metric math given as data (the metrics it uses too)."""
    return cloudwatch.MathExpression(
        expression=data.expression,
        using_metrics={i: to_l2(m) for i, m in data.using},
        label=data.label,
        period=_duration(data.period_seconds),
    )


def to_l2(data: GraphMetric) -> cloudwatch.IMetric:
    """The aws-cdk ``Metric`` or ``MathExpression`` of ``data``."""
    return to_metric(data) if isinstance(data, MetricData) else to_math_expression(data)


class MetricFactory(Generic[_P, _D, _R]):
    """A metric factory of this module: called, it returns the aws-cdk ``Metric`` or ``MathExpression``;
    :attr:`data` takes the same arguments and returns the same metric as plain data
    (:mod:`~inference_constructs.observability.graph_data`), which a dashboard renders without a round trip to the
    jsii kernel per metric."""

    def __init__(self, data: Callable[_P, _D], to_cdk: Callable[[_D], _R]) -> None:
        self.data: Callable[_P, _D] = data
        """The factory returning plain data."""
        self._to_cdk: Callable[[_D], _R] = to_cdk
        functools.update_wrapper(self, data)
        returns = cloudwatch.MathExpression if to_cdk is to_math_expression else cloudwatch.Metric
        self.__signature__ = inspect.signature(data).replace(return_annotation=returns)

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return self._to_cdk(self.data(*args, **kwargs))


def math_factory(factory: Callable[_P, MathData]) -> MetricFactory[_P, MathData, cloudwatch.MathExpression]:
    """Decorate a factory returning metric math as data: called, it returns the ``cloudwatch.MathExpression``."""
    return MetricFactory(factory, to_math_expression)


def metric_factory(factory: Callable[_P, MetricData]) -> MetricFactory[_P, MetricData, cloudwatch.Metric]:
    """Decorate a factory returning a metric as data: called, it returns the ``cloudwatch.Metric``."""
    return MetricFactory(factory, to_metric)
