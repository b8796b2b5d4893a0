"""Dashboard graphs as plain data, rendered to the ``DashboardBody`` JSON in Python (no ``aws_cdk`` import).

A dashboard built from aws-cdk's L2 classes costs one jsii round trip per ``Metric``, ``MathExpression`` and widget
(about five per endpoint), and its body is laid out and rendered inside Node at synth; the platform's dashboard was
the largest single cost a plain-resource app does not pay (``docs/benchmarks.md``). These classes hold what the L2
objects hold, and :func:`dashboard_body` writes the body exactly as aws-cdk-lib 2.275.0 does for the same widgets
(``aws-cloudwatch/lib/private/rendering.ts`` ``allMetricsGraphJson`` / ``MetricSet``, ``graph.ts``
``GraphWidget.toJson``, ``text.ts``, ``layout.ts`` ``Row`` / ``Column``, ``dashboard.ts``):

* metrics are listed left axis first, each followed by the metrics its math uses (hidden, with their ids); a metric
  already listed is not listed again;
* a metric's options: its label, the account and Region it was given, its period when not 300 s, its statistic
  (normalized as aws-cdk does) when not ``Average``, ``visible: false`` for a metric only used by math, ``yAxis`` on
  the right axis, its id; an expression without a label is labelled with its text (an empty label shows none);
* two metrics are one line when aws-cdk's ``metricKey`` says so (labels and units aside);
* the metrics a math expression uses take the expression's period (``changeAllPeriods``);
* a dashboard is a column of rows; a row places its widgets left to right and wraps past 24 columns.

What it renders is a plain object (:func:`dashboard_object`): the construct writes it as JSON in Python when its
only token is the Region, and hands it to ``Stack.to_json_string`` (which escapes a token's value as aws-cdk does)
when it holds other tokens. Colors, annotations, other views and widget kinds are
not modelled: a dashboard that needs them adds aws-cdk widgets (``InferenceDashboard.add_widgets``).
``tests/unit/observability/test_dashboard_rendering.py`` holds every dashboard this library builds, and the shapes
above, against aws-cdk's own rendering, byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "DEFAULT_PERIOD_SECONDS",
    "GRID_WIDTH",
    "GraphData",
    "GraphMetric",
    "MathData",
    "MetricData",
    "TextData",
    "WidgetData",
    "YAxis",
    "body_json",
    "dashboard_body",
    "dashboard_object",
    "graph_metrics_json",
    "metric_key",
    "normalize_statistic",
    "prints_as_javascript",
    "rows_height",
]

DEFAULT_PERIOD_SECONDS = 300
"""The period a dashboard metric gets when none is given, and the one its JSON leaves out (aws-cdk)."""
GRID_WIDTH = 24
"""Columns of the dashboard grid."""


@dataclass(frozen=True)
class MetricData:
    """One metric, as ``cloudwatch.Metric(...)`` takes it; ``dimensions`` in any order (rendered sorted by name)."""

    namespace: str
    metric_name: str
    dimensions: tuple[tuple[str, str], ...] = ()
    statistic: str = "Average"
    period_seconds: int = DEFAULT_PERIOD_SECONDS
    label: str | None = None
    account: str | None = None
    region: str | None = None
    unit: str | None = None
    """CloudWatch unit name (``Count``, ``Percent`` ...): filters datapoints; not part of a graph's JSON."""


@dataclass(frozen=True)
class MathData:
    """Metric math (a SEARCH too), as ``cloudwatch.MathExpression(...)`` takes it: ``using`` maps ids to metrics."""

    expression: str
    using: tuple[tuple[str, GraphMetric], ...] = ()
    label: str | None = None
    period_seconds: int = DEFAULT_PERIOD_SECONDS


GraphMetric = MetricData | MathData
"""A metric or metric math on a graph."""


@dataclass(frozen=True)
class YAxis:
    """A graph's y-axis, as ``cloudwatch.YAxisProps`` (what this library sets of it)."""

    label: str
    min: float = 0
    max: float | None = None
    show_units: bool = False


@dataclass(frozen=True)
class GraphData:
    """A time-series graph, as ``cloudwatch.GraphWidget(...)`` takes it; ``region`` None: the stack's Region."""

    title: str
    left: tuple[GraphMetric, ...]
    left_y_axis: YAxis
    width: int = 6
    height: int = 6
    right: tuple[GraphMetric, ...] = ()
    right_y_axis: YAxis | None = None
    region: str | None = None
    period_seconds: int | None = None
    start: str | None = None


@dataclass(frozen=True)
class TextData:
    """A markdown text widget, as ``cloudwatch.TextWidget(...)`` takes it."""

    markdown: str
    width: int = 6
    height: int = 2


WidgetData = GraphData | TextData
"""A widget of a dashboard row."""


_SIMPLE_STATISTICS = {
    "average": "Average",
    "avg": "Average",
    "minimum": "Minimum",
    "min": "Minimum",
    "maximum": "Maximum",
    "max": "Maximum",
    "samplecount": "SampleCount",
    "n": "SampleCount",
    "sum": "Sum",
}
_SINGLE = re.compile(r"^(p|tm|wm|tc|ts)(\d+(?:\.\d+)?)$", re.IGNORECASE)
_RANGE = re.compile(r"^(PR|TM|WM|TC|TS)\([^)]*:[^)]*\)$", re.IGNORECASE)


def normalize_statistic(statistic: str) -> str:
    """``statistic`` as aws-cdk's ``Metric`` stores it (``private/statistic.ts`` ``normalizeStatistic``): the five
    simple statistics and their short names (``avg``, ``n``, ...) in their canonical spelling, ``iqm`` as ``IQM``, a
    percentile-like one (``P99``, ``TM90``) in lower case, a range (``tm(10%:90%)``) in upper case, anything else as
    given."""
    lower = statistic.lower()
    if lower in _SIMPLE_STATISTICS:
        return _SIMPLE_STATISTICS[lower]
    if lower == "iqm":
        return "IQM"
    single = _SINGLE.match(statistic)
    if single is not None and 0 <= float(single.group(2)) <= 100:
        return lower
    if _RANGE.match(statistic) is not None:
        return statistic.upper()
    return statistic


def metric_key(metric: GraphMetric) -> tuple[object, ...]:
    """What makes two metrics the same line of a graph (aws-cdk's ``metricKey``): a metric's namespace, name,
    dimensions, statistic, period, account and Region (not its label or unit); an expression's text and the keys of
    the metrics it uses (not its label or period)."""
    if isinstance(metric, MetricData):
        return (
            metric.namespace,
            metric.metric_name,
            tuple(sorted(metric.dimensions)),
            normalize_statistic(metric.statistic),
            metric.period_seconds,
            metric.account,
            metric.region,
        )
    return (metric.expression, tuple((i, metric_key(m)) for i, m in sorted(metric.using, key=lambda u: u[0])))


@dataclass
class _Entry:
    metric: GraphMetric
    tag: str | None = None
    id: str | None = None


@dataclass
class _MetricSet:
    """The metrics of one graph in rendering order, each once (``MetricSet`` of aws-cdk)."""

    entries: list[_Entry] = field(default_factory=list)
    _by_key: dict[tuple[object, ...], _Entry] = field(default_factory=dict)
    _by_id: dict[str, _Entry] = field(default_factory=dict)

    def add(self, metric: GraphMetric, tag: str | None = None, metric_id: str | None = None) -> None:
        key = metric_key(metric)
        existing = self._by_id.get(metric_id) if metric_id else None
        if existing is not None and metric_key(existing.metric) != key:
            raise ValueError(f"two different metrics share the id {metric_id!r} in one graph")
        if existing is None:
            existing = self._by_key.get(key)
            if existing is not None and existing.id and metric_id:
                existing = None
        if existing is None:
            existing = _Entry(metric)
            self.entries.append(existing)
            self._by_key[key] = existing
        if not existing.id and metric_id:
            existing.id = metric_id
            self._by_id[metric_id] = existing
        if not existing.tag and tag:
            existing.tag = tag
        if isinstance(metric, MathData):
            for sub_id, sub in metric.using:
                self.add(_with_period(sub, metric.period_seconds), None, sub_id)


def _with_period(metric: GraphMetric, seconds: int) -> GraphMetric:
    """``metric`` over ``seconds`` (a math expression's metrics take its period), and the metrics its math uses."""
    if isinstance(metric, MetricData):
        return replace(metric, period_seconds=seconds)
    using = tuple((i, _with_period(m, seconds)) for i, m in metric.using)
    return replace(metric, period_seconds=seconds, using=using)


def _metric_json(metric: GraphMetric, y_axis: str | None, metric_id: str | None) -> list[Any]:
    """One entry of a graph's ``metrics`` list (``metricGraphJson`` of aws-cdk). The options keep aws-cdk's key
    order: its rendering properties first (a metric's color, label, id and visible; an expression's label and
    color), then what is set after them."""
    ret: list[Any] = []
    options: dict[str, Any]
    if isinstance(metric, MetricData):
        options = {"color": None, "label": metric.label, "id": None, "visible": None}
        ret += [metric.namespace, metric.metric_name]
        for name, value in sorted(metric.dimensions):
            ret += [name, value]
        options["accountId"] = metric.account
        options["region"] = metric.region
    else:
        options = {"label": metric.label, "color": None, "expression": metric.expression}
    if metric.period_seconds != DEFAULT_PERIOD_SECONDS:
        options["period"] = metric.period_seconds
    if isinstance(metric, MetricData) and normalize_statistic(metric.statistic) != "Average":
        options["stat"] = normalize_statistic(metric.statistic)
    if not y_axis:
        options["visible"] = False
    options["yAxis"] = None if y_axis == "left" else y_axis
    if metric_id:
        options["id"] = metric_id
    if options.get("visible") is not False and options.get("expression") and not options.get("label"):
        options["label"] = None if options.get("label") == "" else _text(metric)
    rendered = {k: v for k, v in options.items() if v is not None}
    if rendered:
        ret.append(rendered)
    return ret


def _text(metric: GraphMetric) -> str:
    """What aws-cdk's ``toString`` of the metric gives: its label, else its expression or metric name."""
    return metric.label or (metric.expression if isinstance(metric, MathData) else metric.metric_name)


def graph_metrics_json(left: Sequence[GraphMetric], right: Sequence[GraphMetric] = ()) -> list[list[Any]]:
    """A graph's ``metrics`` list."""
    metrics = _MetricSet()
    for metric in left:
        metrics.add(metric, "left")
    for metric in right:
        metrics.add(metric, "right")
    return [_metric_json(e.metric, e.tag, e.id) for e in metrics.entries]


def _axis_json(axis: YAxis | None) -> dict[str, Any] | None:
    if axis is None:
        return None
    # jsii hands a struct over with its keys in alphabetical order.
    return {"label": axis.label, "max": axis.max, "min": axis.min, "showUnits": axis.show_units}


def _widget_json(widget: WidgetData, x: int, y: int, region: str) -> dict[str, Any]:
    if isinstance(widget, TextData):
        properties: dict[str, Any] = {"markdown": widget.markdown}
        return {
            "type": "text",
            "width": widget.width,
            "height": widget.height,
            "x": x,
            "y": y,
            "properties": properties,
        }
    metrics = graph_metrics_json(widget.left, widget.right)
    properties = {
        "view": "timeSeries",
        "title": widget.title,
        "region": widget.region or region,
        "metrics": metrics or None,
        "yAxis": {"left": _axis_json(widget.left_y_axis), "right": _axis_json(widget.right_y_axis)},
        "period": widget.period_seconds,
        "start": widget.start,
    }
    return {"type": "metric", "width": widget.width, "height": widget.height, "x": x, "y": y, "properties": properties}


def _positions(row: Sequence[WidgetData]) -> tuple[list[tuple[int, int]], int]:
    """Each widget's offset in a row and the row's height (``Row`` of aws-cdk): left to right; a widget that would
    pass the grid's width starts a new line below everything placed so far, and the widgets after it stay there."""
    offsets: list[tuple[int, int]] = []
    x = y = height = 0
    for widget in row:
        if x + widget.width > GRID_WIDTH:
            y, x = height, 0
        offsets.append((x, y))
        height = max(height, y + widget.height)
        x += widget.width
    return offsets, height


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # JavaScript prints 100.0 as 100
    return value


def prints_as_javascript(value: Any) -> bool:
    """True when Python's ``json`` writes every number in ``value`` as JavaScript's ``JSON.stringify`` does: whole
    numbers and floats without an exponent (``1e-05`` is ``0.00001`` in JavaScript)."""
    if isinstance(value, float):
        return "e" not in repr(value) and "inf" not in repr(value) and "nan" not in repr(value)
    if isinstance(value, dict):
        return all(prints_as_javascript(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(prints_as_javascript(v) for v in value)
    return True


def rows_height(rows: Sequence[Sequence[WidgetData]]) -> int:
    """How many grid rows ``rows`` take, top to bottom."""
    return sum(_positions(row)[1] for row in rows)


def dashboard_object(rows: Sequence[Sequence[WidgetData]], *, region: str, top: int = 0) -> list[dict[str, Any]]:
    """The widgets of ``rows`` (a column of rows, top to bottom, from grid row ``top``) as the JSON objects aws-cdk
    renders; ``region`` is what a graph without its own Region reads (in a CDK app, the ``AWS::Region`` token)."""
    widgets: list[dict[str, Any]] = []
    for row in rows:
        offsets, height = _positions(row)
        widgets += [_widget_json(w, x, top + y, region) for w, (x, y) in zip(row, offsets, strict=True)]
        top += height
    cleaned: list[dict[str, Any]] = _drop_none(widgets)
    return cleaned


def dashboard_body(rows: Sequence[Sequence[WidgetData]], *, region: str) -> str:
    """The ``DashboardBody`` of ``rows`` as aws-cdk writes it when no string in it holds a token (a CDK app renders
    :func:`dashboard_object` with ``Stack.to_json_string`` instead)."""
    return body_json(dashboard_object(rows, region=region))


def body_json(widgets: Sequence[dict[str, Any]]) -> str:
    """The ``DashboardBody`` of rendered ``widgets`` (:func:`dashboard_object`) as ``JSON.stringify`` writes it: the
    body aws-cdk writes when every number prints as in JavaScript (:func:`prints_as_javascript`) and no string holds
    a token whose value needs escaping."""
    return json.dumps({"widgets": list(widgets)}, ensure_ascii=False, separators=(",", ":"))
