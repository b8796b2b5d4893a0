"""The dashboard's inference-component section: every component in the account (SEARCH per
``InferenceComponentName``), then one row per known component on that component's own dimension (its invocation
metrics in ``AWS/SageMaker``, its per-copy utilization in ``/aws/sagemaker/InferenceComponents``); an endpoint
construct with several components is watched component by component, by the dashboard and by the alarms."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Stack

from inference_constructs.config import load_config
from inference_constructs.hosting import ComponentRequest, InferenceComponentsEndpoint
from inference_constructs.observability import InferenceAlarms, metric_table
from inference_constructs.observability.dashboard import InferenceDashboard
from inference_constructs.observability.decisions import COMPONENT_WIDGETS_REASON, component_widgets
from inference_constructs.observability.metric_definitions import endpoint_dimensions, longest_dashboard_search
from inference_constructs.observability.targets import MonitoredEndpoint, monitored_endpoints
from inference_constructs.plan import plan_platform
from inference_constructs.spec import ModelSpec, Serving
from tests.unit.observability.conftest import Synth, cfn_lint, dashboard_body

CHAT = MonitoredEndpoint("assist", gpu_count=1, instance_type="ml.g5.2xlarge", inference_component_name="assist-ic")
SUMMARIZE = replace(CHAT, inference_component_name="assist-summarize-ic", component="summarize")
PLAIN = MonitoredEndpoint("tabular", instance_type="ml.c7i.xlarge")
HEADER = "## Inference components"
EXAMPLES = Path(__file__).resolve().parents[3] / "config" / "examples"


def _metric_widgets(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["properties"]["title"]: w for w in body["widgets"] if w["type"] == "metric"}


def _metric_rows(widget: dict[str, Any]) -> list[list[Any]]:
    """The plain metric rows of a widget (``[namespace, name, dim, value, ..., options]``), expressions left out."""
    rows = widget["properties"]["metrics"]
    return [r for r in rows if not (isinstance(r[-1], dict) and "expression" in r[-1])]


def _dimensions(row: list[Any]) -> dict[str, str]:
    """``{name: value}`` of a metric row, following CloudWatch's ``"..."`` (same as the row above) shorthand off."""
    body = row[2:-1] if isinstance(row[-1], dict) else row[2:]
    return dict(zip(body[::2], body[1::2], strict=True))


def _body(synth: Synth, endpoints: list[MonitoredEndpoint]) -> dict[str, Any]:
    app = App()
    stack = Stack(app, "Observability")
    InferenceDashboard(stack, "Dashboard", endpoints=endpoints)
    template = synth(app, stack)
    assert cfn_lint(template) == []
    return dashboard_body(template)


@pytest.fixture
def body(synth: Synth) -> dict[str, Any]:
    return _body(synth, [CHAT, SUMMARIZE, PLAIN])


def test_a_known_component_gets_a_row_on_its_own_inference_component_name(body: dict[str, Any]) -> None:
    # GIVEN a dashboard over two components of one endpoint and a plain endpoint
    widgets = _metric_widgets(body)
    # THEN each component has its four graphs, titled with the endpoint and (after the first) the component
    for prefix in ("assist", "assist summarize"):
        titles = [t for t in widgets if t.startswith(f"{prefix}: ")]
        assert len(titles) == 4, titles
    # AND every metric of the second component's graphs is on its InferenceComponentName only
    summarize = [w for t, w in widgets.items() if t.startswith("assist summarize: ")]
    rows = [r for w in summarize for r in _metric_rows(w)]
    assert rows
    assert {tuple(_dimensions(r).items()) for r in rows} == {(("InferenceComponentName", "assist-summarize-ic"),)}
    namespaces = {(r[0], r[1]) for r in rows}
    assert ("AWS/SageMaker", "Invocations") in namespaces
    assert ("AWS/SageMaker", "NoCapacityInvocationFailures") in namespaces
    assert ("AWS/SageMaker", "ModelLatency") in namespaces
    assert ("/aws/sagemaker/InferenceComponents", "GPUMemoryUtilizationNormalized") in namespaces
    assert ("/aws/sagemaker/InferenceComponents", "GPUUtilizationNormalized") in namespaces


def test_the_fleet_row_searches_every_component_of_the_account(body: dict[str, Any]) -> None:
    # GIVEN the same dashboard THEN its component section opens with SEARCHes per InferenceComponentName
    texts = [w["properties"]["markdown"] for w in body["widgets"] if w["type"] == "text"]
    assert any(t.startswith(HEADER) for t in texts)
    widgets = _metric_widgets(body)
    expressions = {
        title: row[-1]["expression"]
        for title, w in widgets.items()
        if title.endswith("per component (sum)") or "per component" in title
        for row in w["properties"]["metrics"]
        if "expression" in row[-1]
    }
    assert expressions["Invocations per component (sum)"] == (
        "SEARCH('{AWS/SageMaker,InferenceComponentName} MetricName=\"Invocations\"', 'Sum')"
    )
    assert (
        "{/aws/sagemaker/InferenceComponents,InferenceComponentName}"
        in (expressions["GPUMemoryUtilizationNormalized per component (% of its copies' GPUs)"])
    )


def test_a_component_gets_no_second_per_gpu_graph_of_its_host(body: dict[str, Any]) -> None:
    # GIVEN two components on one endpoint THEN the host's per-GPU graph is drawn once, for the endpoint
    per_gpu = [t for t in _metric_widgets(body) if "GPU per device" in t]
    assert per_gpu == ["assist/AllTraffic: GPU per device (%, ÷ 1 GPUs on ml.g5.2xlarge)"]


def test_no_component_section_without_a_component(synth: Synth) -> None:
    # GIVEN endpoints none of which is served through an inference component
    body = _body(synth, [PLAIN])
    # THEN the dashboard has no component section (dashboards of such apps are unchanged)
    texts = [w["properties"]["markdown"] for w in body["widgets"] if w["type"] == "text"]
    assert not any(t.startswith(HEADER) for t in texts)
    assert not any("per component" in t for t in _metric_widgets(body))


def test_a_cpu_component_graphs_its_normalized_cpu_per_copy(synth: Synth) -> None:
    # GIVEN a component on a host without GPUs
    cpu = MonitoredEndpoint("ranker", instance_type="ml.c7i.4xlarge", inference_component_name="ranker-ic")
    widgets = _metric_widgets(_body(synth, [cpu]))
    # THEN its utilization graph is CPUUtilizationNormalized of that component
    usage = widgets["ranker: CPUUtilizationNormalized per copy"]
    assert [(r[0], r[1], _dimensions(r)) for r in _metric_rows(usage)] == [
        ("/aws/sagemaker/InferenceComponents", "CPUUtilizationNormalized", {"InferenceComponentName": "ranker-ic"})
    ]


def test_per_copy_metrics_of_a_component_are_on_its_inference_component_name() -> None:
    # The one rule for an endpoint's dimensions: a per-copy metric of a component carries InferenceComponentName
    assert endpoint_dimensions(
        "assist", "AllTraffic", namespace=metric_table.INFERENCE_COMPONENT_NAMESPACE, inference_component_name="ic"
    ) == {"InferenceComponentName": "ic"}
    # while its host's instance metrics stay on the variant
    assert endpoint_dimensions(
        "assist", "AllTraffic", namespace=metric_table.ENDPOINT_INSTANCE_NAMESPACE, inference_component_name="ic"
    ) == {"EndpointName": "assist", "VariantName": "AllTraffic"}


def _components_endpoint(stack: Stack) -> InferenceComponentsEndpoint:
    qwen7 = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6)
    qwen1 = ModelSpec(id="Qwen/Qwen2.5-1.5B-Instruct", parameters_billion=1.5)
    return InferenceComponentsEndpoint(
        stack,
        "Assistants",
        accelerator="gpu",
        instance_type="ml.g5.12xlarge",
        capacity=(1, 2),
        components=[ComponentRequest("chat", qwen7, Serving.LMI), ComponentRequest("summarize", qwen1, Serving.LMI)],
    )


def test_an_endpoint_construct_with_components_is_watched_component_by_component() -> None:
    # GIVEN an InferenceComponentsEndpoint with two components, passed as the construct
    stack = Stack(App(), "Hosting")
    endpoint = _components_endpoint(stack)
    watched = monitored_endpoints([endpoint])
    # THEN the dashboard and alarms see the endpoint (its first component) and the second component by name
    summarize = endpoint.components["summarize"].component.inference_component_name
    assert endpoint.inference_component is not None
    assert [(m.component, m.inference_component_name) for m in watched] == [
        (None, endpoint.inference_component.inference_component_name),
        ("summarize", summarize),
    ]
    # AND the alarms built from the construct watch the second component on its own dimension
    alarms = InferenceAlarms(stack, "Alarms", endpoints=[endpoint])
    template = App.of(stack).synth().get_stack_artifact(stack.artifact_id).template  # type: ignore[union-attr]
    watched_names = {
        _component_of(template["Resources"][stack.get_logical_id(a)]["Properties"]) for a in alarms.alarms.values()
    }
    assert summarize in watched_names


def _component_of(alarm: dict[str, Any]) -> str | None:
    """The InferenceComponentName an alarm's metric (or its expression's metrics) is on, if any."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("Name") == "InferenceComponentName" and isinstance(node.get("Value"), str):
                found.append(node["Value"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(alarm)
    return found[0] if found else None


def test_the_plans_component_widget_count_is_what_the_dashboard_builds() -> None:
    # GIVEN a dashboard over two components of one endpoint, and one over that endpoint without components
    with_them = InferenceDashboard(Stack(App(), "A"), "D", endpoints=[CHAT, SUMMARIZE])
    without = InferenceDashboard(Stack(App(), "B"), "D", endpoints=[replace(CHAT, inference_component_name=None)])
    # THEN the difference is the count the plan's widget limit check adds for two components
    assert len(with_them.widgets) - len(without.widgets) == component_widgets(2) == 13


def test_the_plan_lists_the_components_the_dashboard_graphs() -> None:
    # GIVEN the shipped inference-components example WHEN planned
    plan = plan_platform(load_config(EXAMPLES / "inference-components.yaml"))
    assert plan.observability.dashboard is not None
    entry = plan.observability.dashboard.to_dict()
    # THEN the dashboard entry names the endpoint's first component and its second one, with the reason
    assert entry["components"] == ["shared-llm-assistants", "shared-llm-assistants/summarize"]
    assert entry["components_reason"] == COMPONENT_WIDGETS_REASON


def test_the_plan_lists_no_component_without_one() -> None:
    # GIVEN a config whose endpoints are not served through inference components
    plan = plan_platform(load_config(EXAMPLES / "awq-small-host.yaml"))
    assert plan.observability.dashboard is not None
    # THEN the plan's dashboard entry has no components key (plans of such configs are unchanged)
    assert "components" not in plan.observability.dashboard.to_dict()


def test_no_search_of_a_monitoring_account_dashboard_is_longer_than_the_checked_longest() -> None:
    # GIVEN a dashboard for 40 source accounts with a GPU endpoint, its two components and a plain endpoint
    accounts = [f"{100000000000 + i}" for i in range(40)]
    dashboard = InferenceDashboard(
        Stack(App(), "M"), "D", endpoints=[CHAT, SUMMARIZE, PLAIN], source_account_ids=accounts
    )
    template = App.of(dashboard).synth().get_stack_artifact("M").template  # type: ignore[union-attr]
    body = dashboard_body(template)
    searches = [
        row[-1]["expression"]
        for w in body["widgets"]
        if w["type"] == "metric"
        for row in w["properties"]["metrics"]
        if isinstance(row[-1], dict) and "SEARCH(" in row[-1].get("expression", "")
    ]
    # THEN the longest SEARCH inside any expression is within what the plan and the dashboard check
    longest = max(len(q) for e in searches for q in re.findall(r"SEARCH\('[^']*', '[^']*'\)", e))
    assert longest <= longest_dashboard_search(accounts)
