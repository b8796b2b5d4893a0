"""The dashboard body rendered from data is the body aws-cdk's own L2 ``cloudwatch.Dashboard`` renders for the same
widgets, byte for byte in the template: every section of ``InferenceDashboard``, the layout, the metric options and
the widgets a user adds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import jsii
import pytest
from aws_cdk import App, Duration, IStableStringProducer, Lazy, RemovalPolicy, Stack, assertions
from aws_cdk import aws_cloudwatch as cloudwatch

from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability import graph_data, metric_factory, metrics
from inference_constructs.observability.dashboard import InferenceDashboard, cdk_widget
from inference_constructs.observability.graph_data import GraphData, MathData, MetricData, TextData, YAxis
from inference_constructs.observability.targets import MonitoredEndpoint, MonitoredProfile
from inference_constructs.spec import EndpointKind

GPU = MonitoredEndpoint("chat", "AllTraffic", EndpointKind.REALTIME, gpu_count=4, instance_type="ml.g5.12xlarge")
ONE_GPU = MonitoredEndpoint("small", "AllTraffic", EndpointKind.REALTIME, gpu_count=1, instance_type="ml.g5.xlarge")
ENHANCED = MonitoredEndpoint(
    "tuned", "AllTraffic", EndpointKind.REALTIME, gpu_count=2, instance_type="ml.g5.12xlarge", enhanced_metrics=True
)
CPU_ENHANCED = MonitoredEndpoint("tabular", "AllTraffic", EndpointKind.REALTIME, enhanced_metrics=True)
COMPONENT = MonitoredEndpoint("packed", "AllTraffic", gpu_count=1, inference_component_name="packed-ic")
CPU_COMPONENT = MonitoredEndpoint("packed-cpu", "AllTraffic", inference_component_name="cpu-ic", component="small")
REMOTE = MonitoredEndpoint(
    "remote",
    "AllTraffic",
    EndpointKind.REALTIME,
    gpu_count=8,
    instance_type="ml.p4d.24xlarge",
    account_id="777788889999",
)
SERVERLESS = MonitoredEndpoint("embed", "AllTraffic", EndpointKind.SERVERLESS)
ASYNC = MonitoredEndpoint("batch", "AllTraffic", EndpointKind.ASYNC, gpu_count=1, instance_type="ml.g5.2xlarge")
TEAM = MonitoredProfile("team-a", "a1b2c3d4e5f6", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
REMOTE_TEAM = MonitoredProfile("team-b", "b1b2c3d4e5f6", account_id="777788889999")


def _body(stack: Stack) -> Any:
    (resource,) = assertions.Template.from_stack(stack).find_resources("AWS::CloudWatch::Dashboard").values()
    return resource["Properties"]["DashboardBody"]


def _cdk_body(rows: Sequence[Sequence[graph_data.WidgetData]], **stack_props: Any) -> Any:
    """What aws-cdk's L2 dashboard renders for the same widgets, row by row."""
    stack = Stack(App(), "Cdk", **stack_props)
    cloudwatch.Dashboard(stack, "Dashboard", widgets=[[cdk_widget(w) for w in row] for row in rows])
    return _body(stack)


CASES: dict[str, dict[str, Any]] = {
    "fleet only": {},
    "endpoints and profiles": {"endpoints": [GPU, ONE_GPU, SERVERLESS, ASYNC], "profiles": [TEAM]},
    "enhanced metrics": {"endpoints": [ENHANCED, CPU_ENHANCED]},
    "inference components": {"endpoints": [COMPONENT, CPU_COMPONENT, GPU]},
    "monitoring account": {
        "endpoints": [REMOTE, GPU],
        "profiles": [REMOTE_TEAM, TEAM],
        "source_account_ids": ["111122223333", "444455556666"],
    },
    "own region and period": {"endpoints": [GPU], "region": "eu-west-1", "period": Duration.minutes(1)},
    "a period of hours": {"endpoints": [ENHANCED, COMPONENT], "profiles": [TEAM], "period": Duration.hours(1)},
    "named": {"endpoints": [GPU], "dashboard_name": "inference-overview"},
}


@pytest.mark.parametrize("case", CASES)
def test_the_body_is_the_one_the_cdk_dashboard_renders_for_the_same_widgets(case: str) -> None:
    # GIVEN a dashboard of every section this library builds
    stack = Stack(App(), "Data")
    dashboard = InferenceDashboard(stack, "Dashboard", **CASES[case])
    # THEN its template body is aws-cdk's for the same widgets, to the byte
    ours, theirs = _body(stack), _cdk_body(dashboard.rows)
    assert json.dumps(ours) == json.dumps(theirs)
    # AND the dashboard is the one resource under the path the L2 dashboard had (so the logical id is kept)
    assert dashboard.resource.node.path == "Data/Dashboard/Resource/Resource"
    assert len(dashboard.widgets) == sum(len(row) for row in dashboard.rows)


def test_an_env_bound_stack_renders_like_the_cdk_dashboard() -> None:
    stack = Stack(App(), "Data", env={"account": "111122223333", "region": "us-west-2"})
    dashboard = InferenceDashboard(stack, "Dashboard", endpoints=[GPU, REMOTE], profiles=[TEAM])
    theirs = _cdk_body(dashboard.rows, env={"account": "111122223333", "region": "us-west-2"})
    assert json.dumps(_body(stack)) == json.dumps(theirs)


_M = MetricData("NS", "Lat", (("Z", "z"), ("A", "a")), "p99")
_N = MetricData("NS", "Count", (("A", "a"),), "Sum", 60, label="count")
_RIGHT = MetricData("NS", "Busy", (), "Average", 300, account="123456789012", region="eu-west-1")


def _graph(
    left: Sequence[graph_data.GraphMetric], right: Sequence[graph_data.GraphMetric] = (), **kw: Any
) -> GraphData:
    return GraphData(
        kw.pop("title", "g"), tuple(left), YAxis("u", max=kw.pop("maximum", None)), right=tuple(right), **kw
    )


GRAPH_CASES: dict[str, list[list[graph_data.WidgetData]]] = {
    # a metric used by two expressions and shown itself: listed once, with the first id it got
    "shared metric": [[_graph([MathData("a*2", (("a", _M),)), MathData("a+b", (("a", _M), ("b", _N))), _M])]],
    # labels: none (the expression is shown), empty (none shown), given; and on a hidden expression
    "labels": [
        [
            _graph(
                [
                    MathData("SEARCH('{NS} x', 'Sum')"),
                    MathData("SEARCH('{NS} y', 'Sum')", label=""),
                    MathData("e/2", (("e", MathData("m*1", (("m", _N),), label="")),), label="half"),
                ]
            )
        ]
    ],
    # the right axis, another account and Region, a period and statistic that are not the defaults
    "options": [[_graph([_N], [_RIGHT], right_y_axis=YAxis("r", min=1, show_units=True), period_seconds=3600)]],
    # an expression whose metrics have another period takes its own for them
    "periods": [[_graph([MathData("x/60", (("x", _N),), period_seconds=900)])]],
    # rows wrap past 24 columns, and the widgets after a wrap stay on the new line
    "wrapping": [
        [TextData("# t", 24, 2)],
        [_graph([_M], width=16), _graph([_N], width=12, height=3), _graph([_N], width=6), TextData("x", 4, 9)],
        [_graph([_M], width=8, height=4, start="-P7D", maximum=50.5)],
    ],
}


@pytest.mark.parametrize("case", GRAPH_CASES)
def test_metric_options_and_layout_match_the_cdk_rendering(case: str) -> None:
    rows = GRAPH_CASES[case]
    ours = graph_data.dashboard_body(rows, region="${Token[AWS.Region.9]}")
    stack = Stack(App(), "Data")
    cloudwatch.CfnDashboard(stack, "D", dashboard_body=ours.replace("${Token[AWS.Region.9]}", stack.region))
    assert json.dumps(_body(stack)) == json.dumps(_cdk_body(rows))


def test_widgets_a_user_adds_go_below_as_in_a_cdk_dashboard() -> None:
    # GIVEN a dashboard, and two widgets of the user's added as one row, then a third alone
    stack = Stack(App(), "Data")
    dashboard = InferenceDashboard(stack, "Dashboard", endpoints=[GPU])
    mine = [cloudwatch.TextWidget(markdown="## mine", width=20), cloudwatch.SingleValueWidget(metrics=[_cdk(_N)])]
    dashboard.add_widgets(*mine)
    dashboard.add_widgets(cloudwatch.TextWidget(markdown="last"))
    # THEN the body is the CDK dashboard's with the same rows added
    cdk = Stack(App(), "Cdk")
    board = cloudwatch.Dashboard(cdk, "D", widgets=[[cdk_widget(w) for w in row] for row in dashboard.rows])
    board.add_widgets(
        cloudwatch.TextWidget(markdown="## mine", width=20), cloudwatch.SingleValueWidget(metrics=[_cdk(_N)])
    )
    board.add_widgets(cloudwatch.TextWidget(markdown="last"))
    assert json.dumps(_body(stack)) == json.dumps(_body(cdk))


def _cdk(metric: MetricData) -> cloudwatch.IMetric:
    return metric_factory.to_l2(metric)


def test_each_metric_factory_gives_the_same_metric_as_data_and_as_cdk_object() -> None:
    # The public factories return aws-cdk objects made from the data the dashboard renders: one definition.
    data = metrics.endpoint_error_rate_percent.data(GPU, "4XX")
    cdk = metrics.endpoint_error_rate_percent(GPU, "4XX")
    assert isinstance(cdk, cloudwatch.MathExpression)
    assert cdk.expression == data.expression and cdk.label == data.label
    assert sorted(cdk.using_metrics) == sorted(i for i, _ in data.using)
    latency = metrics.endpoint_model_latency(GPU, period=Duration.minutes(1))
    assert isinstance(latency, cloudwatch.Metric)
    assert (latency.metric_name, latency.statistic, latency.period.to_seconds()) == ("ModelLatency", "p99", 60)
    assert metrics.fleet_invocations.__doc__ == metrics.fleet_invocations.data.__doc__


def test_the_deprecated_dashboard_attribute_holds_the_resource_and_the_l2_members() -> None:
    stack = Stack(App(), "Data")
    dashboard = InferenceDashboard(stack, "Dashboard", dashboard_name="named")
    with pytest.deprecated_call():
        old = dashboard.dashboard
    # the escape hatch of the L2 dashboard still reaches the CfnDashboard
    assert old.node.default_child is dashboard.resource
    old.apply_removal_policy(RemovalPolicy.RETAIN)  # type: ignore[attr-defined]
    assert _resource(stack)["DeletionPolicy"] == "Retain"
    # the name is the resource's Ref, as the L2 dashboard's (it resolves to the given name)
    assert stack.resolve(dashboard.dashboard_name) == {"Ref": stack.get_logical_id(dashboard.resource)}
    assert stack.resolve(dashboard.dashboard_arn) == {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":cloudwatch::",
                {"Ref": "AWS::AccountId"},
                ":dashboard/",
                {"Ref": stack.get_logical_id(dashboard.resource)},
            ],
        ]
    }


def _resource(stack: Stack) -> Any:
    (resource,) = assertions.Template.from_stack(stack).find_resources("AWS::CloudWatch::Dashboard").values()
    return resource


@pytest.mark.parametrize(
    ("props", "key", "message"),
    [
        ({"dashboard_name": "my dash!"}, "dashboard_name", "'my dash!' is not a dashboard name"),
        ({"dashboard_name": "x" * 256}, "dashboard_name", "is not a dashboard name"),
        ({"period": Duration.seconds(90)}, "period", "90 seconds is not a graph period"),
        ({"period": Duration.seconds(45)}, "period", "45 seconds is not a graph period"),
    ],
)
def test_fails_a_name_or_period_cloudwatch_refuses(props: dict[str, Any], key: str, message: str) -> None:
    with pytest.raises(InferenceConfigError, match=rf"{key}: .*{message}"):
        InferenceDashboard(Stack(App(), "Data"), "Dashboard", **props)


def test_a_widget_changed_after_add_widgets_shows_as_it_is_at_synth() -> None:
    # GIVEN a graph added to the dashboard, then given one more metric (the L2 dashboard renders at synth too)
    stack = Stack(App(), "Data")
    dashboard = InferenceDashboard(stack, "Dashboard")
    graph = cloudwatch.GraphWidget(left=[_cdk(_N)])
    dashboard.add_widgets(graph)
    graph.add_left_metric(_cdk(_M))
    cdk = Stack(App(), "Cdk")
    board = cloudwatch.Dashboard(cdk, "D", widgets=[[cdk_widget(w) for w in row] for row in dashboard.rows])
    other = cloudwatch.GraphWidget(left=[_cdk(_N)])
    board.add_widgets(other)
    other.add_left_metric(_cdk(_M))
    assert json.dumps(_body(stack)) == json.dumps(_body(cdk))


def test_a_name_that_is_a_token_is_escaped_in_the_body_as_aws_cdk_does() -> None:
    # GIVEN an endpoint whose name is only known at synth and holds a quote
    name = Lazy.string(_Const('a"b'))
    endpoint = MonitoredEndpoint(name, "AllTraffic", EndpointKind.REALTIME, gpu_count=1, instance_type="ml.g5.xlarge")
    stack = Stack(App(), "Data")
    dashboard = InferenceDashboard(stack, "Dashboard", endpoints=[endpoint])
    # THEN the body is the one aws-cdk writes, and it parses
    assert json.dumps(_body(stack)) == json.dumps(_cdk_body(dashboard.rows))
    assert any('a\\"b/AllTraffic' in part for part in _body(stack)["Fn::Join"][1] if isinstance(part, str))


@jsii.implements(IStableStringProducer)
class _Const:
    def __init__(self, value: str) -> None:
        self._value = value

    def produce(self) -> str | None:
        return self._value


def test_statistics_are_normalized_and_lines_deduplicated_as_aws_cdk_does() -> None:
    same_line = [
        MetricData("NS", "Lat", (), "P99"),
        MetricData("NS", "Lat", (), "p99", label="again"),
        MetricData("NS", "Count", (), "avg"),
        MetricData("NS", "Count", (), "tm(10%:90%)"),
    ]
    rows: list[list[graph_data.WidgetData]] = [[_graph(same_line)]]
    stack = Stack(App(), "Data")
    cloudwatch.CfnDashboard(
        stack,
        "D",
        dashboard_body=Stack.of(stack).to_json_string(
            {"widgets": graph_data.dashboard_object(rows, region=stack.region)}
        ),
    )
    assert json.dumps(_body(stack)) == json.dumps(_cdk_body(rows))
    assert graph_data.normalize_statistic("N") == "SampleCount"
    assert graph_data.normalize_statistic("IQM") == "IQM"
    assert graph_data.normalize_statistic("p101") == "p101"  # not a percentile: kept as given


def test_a_body_whose_only_token_is_the_region_is_written_without_a_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN Stack.to_json_string made to fail WHEN a dashboard of the library's own widgets is built
    def refuse(*_args: Any, **_kwargs: Any) -> str:
        raise AssertionError("to_json_string called")

    stack = Stack(App(), "Data")
    monkeypatch.setattr(Stack, "to_json_string", refuse)
    InferenceDashboard(stack, "Dashboard", endpoints=[GPU, ENHANCED, COMPONENT], profiles=[TEAM])
    monkeypatch.undo()
    # THEN it was written in Python, and is still aws-cdk's body (the cases above compare every section)
    assert "Fn::Join" in _body(stack)


def test_numbers_javascript_prints_otherwise_send_the_body_through_cdk() -> None:
    assert graph_data.prints_as_javascript({"a": [1, 2.5, 100, "1e-05"], "b": {"c": 0.25}})
    assert not graph_data.prints_as_javascript({"a": [0.00001]})
    assert not graph_data.prints_as_javascript([1e21])
