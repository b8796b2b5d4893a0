"""Enhanced metrics (``MetricsConfig.EnableEnhancedMetrics``): the dimension sets the metric table holds for them,
the dashboard's per-GPU and per-instance SEARCH graphs of an endpoint that turns them on (and none without), the
validator's check of a schema's dimension set, and the plan's dashboard entry."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from aws_cdk import App, Stack

from inference_constructs.config import parse_config
from inference_constructs.observability import metric_table
from inference_constructs.observability.dashboard import InferenceDashboard, check_dashboard_inputs
from inference_constructs.observability.decisions import ENHANCED_WIDGETS_REASON, enhanced_widgets
from inference_constructs.observability.metric_definitions import enhanced_search
from inference_constructs.observability.targets import MonitoredEndpoint, enhanced_metrics_on
from inference_constructs.observability.validate import check_expression, validate_template
from inference_constructs.plan import plan_platform
from inference_constructs.spec import EndpointKind
from tests.unit.observability.conftest import Synth, dashboard_body

ENHANCED_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch-enhanced-metrics.html"
MAPPING_DOC = "https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-detailed-observability-metric-mapping.html"
PER_INSTANCE = ("EndpointName", "VariantName", "InstanceId")
PER_GPU = (*PER_INSTANCE, "AcceleratorId")
PER_CONTAINER = ("EndpointName", "VariantName", "InferenceComponentName", "InstanceId", "ContainerId")

CHAT = MonitoredEndpoint(
    "chat", "AllTraffic", EndpointKind.REALTIME, gpu_count=4, instance_type="ml.g5.12xlarge", enhanced_metrics=True
)
CPU = MonitoredEndpoint("tabular", "AllTraffic", EndpointKind.REALTIME, enhanced_metrics=True)
COMPONENT = MonitoredEndpoint(
    "packed", "AllTraffic", gpu_count=1, inference_component_name="packed-ic", enhanced_metrics=True
)


def _metric_widgets(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["properties"]["title"]: w for w in body["widgets"] if w["type"] == "metric"}


def _expressions(widget: dict[str, Any]) -> list[str]:
    return [row[-1]["expression"] for row in widget["properties"]["metrics"] if "expression" in row[-1]]


# ------------------------------------------------------------------------------------------------- the table


@pytest.mark.parametrize(
    ("row", "per_instance", "source"),
    [
        (metric_table.GPU_UTILIZATION, PER_GPU, ENHANCED_DOC),
        (metric_table.GPU_MEMORY_UTILIZATION, PER_GPU, ENHANCED_DOC),
        (metric_table.CPU_UTILIZATION, PER_INSTANCE, ENHANCED_DOC),
        (metric_table.MEMORY_UTILIZATION, PER_INSTANCE, ENHANCED_DOC),
        (metric_table.DISK_UTILIZATION, PER_INSTANCE, ENHANCED_DOC),
        (metric_table.INVOCATIONS, PER_INSTANCE, MAPPING_DOC),
        (metric_table.INVOCATIONS_PER_INSTANCE, PER_INSTANCE, MAPPING_DOC),
        (metric_table.INVOCATION_4XX_ERRORS, PER_INSTANCE, MAPPING_DOC),
        (metric_table.INVOCATION_5XX_ERRORS, PER_INSTANCE, MAPPING_DOC),
        (metric_table.INVOCATION_MODEL_ERRORS, PER_INSTANCE, MAPPING_DOC),
        (metric_table.MODEL_LATENCY, PER_INSTANCE, MAPPING_DOC),
        (metric_table.OVERHEAD_LATENCY, PER_INSTANCE, MAPPING_DOC),
    ],
)
def test_a_row_holds_its_enhanced_dimension_set_and_the_page_that_states_it(
    row: metric_table.MetricDefinition, per_instance: tuple[str, ...], source: str
) -> None:
    # GIVEN a metric enhanced metrics publish per instance (GPU metrics: per GPU)
    # THEN its row holds that exact dimension set, after the variant's own, with the AWS page as source
    assert row.dimensions == ("EndpointName", "VariantName")
    assert (row.enhanced_dimensions, row.enhanced_source) == (per_instance, source)


@pytest.mark.parametrize(
    "row",
    [
        metric_table.INVOCATIONS,
        metric_table.INVOCATION_4XX_ERRORS,
        metric_table.INVOCATION_5XX_ERRORS,
        metric_table.INVOCATION_MODEL_ERRORS,
        metric_table.MODEL_LATENCY,
        metric_table.OVERHEAD_LATENCY,
    ],
)
def test_an_inference_components_invocation_metric_is_published_per_container(
    row: metric_table.MetricDefinition,
) -> None:
    # THEN the mapping page's per-container set is the row's component set
    assert row.enhanced_component_dimensions == PER_CONTAINER


@pytest.mark.parametrize(
    "row",
    [
        metric_table.INVOCATIONS_PER_INSTANCE,
        metric_table.MODEL_SETUP_TIME,
        metric_table.CONCURRENT_REQUESTS_PER_MODEL,
        metric_table.APPROXIMATE_BACKLOG_SIZE,
        metric_table.GPU_UTILIZATION_NORMALIZED,
    ],
)
def test_no_enhanced_set_is_claimed_where_no_page_lists_one(row: metric_table.MetricDefinition) -> None:
    # THEN the row holds no per-container set (and, but for InvocationsPerInstance, no per-instance set)
    assert row.enhanced_component_dimensions == ()
    if row is not metric_table.INVOCATIONS_PER_INSTANCE:
        assert (row.enhanced_dimensions, row.enhanced_source) == ((), None)


# ------------------------------------------------------------------------------------------------ the SEARCH


def test_the_per_gpu_search_names_the_whole_dimension_set_and_the_variant() -> None:
    # WHEN the per-GPU SEARCH of an endpoint variant is rendered
    query = enhanced_search(metric_table.GPU_UTILIZATION, "Average", endpoint_name="chat", variant_name="AllTraffic")
    # THEN only metrics with exactly the variant's, the instance's and the GPU's dimensions match: one line per GPU
    assert query == (
        "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName,InstanceId,AcceleratorId} "
        'MetricName="GPUUtilization" EndpointName="chat" VariantName="AllTraffic"\', \'Average\')'
    )
    assert check_expression(query, defined_ids=set()) == []


def test_fails_a_search_for_a_row_without_an_enhanced_set() -> None:
    with pytest.raises(ValueError, match="ModelSetupTime has no documented enhanced dimension set"):
        enhanced_search(metric_table.MODEL_SETUP_TIME, "Maximum", endpoint_name="e", variant_name="v")


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        (
            "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName,InstanceId,AcceleratorId} "
            "MetricName=\"CPUUtilization\"', 'Average')",
            "metric 'CPUUtilization' is not published with dimensions",
        ),
        (
            "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName,InstanceId,GpuId} "
            "MetricName=\"GPUUtilization\"', 'Average')",
            "dimension names ['GpuId'] do not exist in /aws/sagemaker/Endpoints",
        ),
        (
            "SEARCH('{AWS/SageMaker,EndpointName,InstanceId} MetricName=\"Invocations\"', 'Sum')",
            "metric 'Invocations' is not published with dimensions ['EndpointName', 'InstanceId']",
        ),
    ],
)
def test_the_validator_refuses_a_schema_the_metric_is_not_published_with(query: str, problem: str) -> None:
    # WHEN the validator reads a SEARCH whose schema is not a set the metric table holds for that metric
    problems = check_expression(query, defined_ids=set())
    # THEN it says so (such a SEARCH would graph nothing)
    assert any(problem in p for p in problems), problems


# ------------------------------------------------------------------------------------------------- dashboard


@pytest.fixture
def body(app: App, stack: Stack, synth: Synth) -> dict[str, Any]:
    # GIVEN a dashboard of a 4-GPU, a CPU and an inference-component endpoint, each with enhanced metrics on
    InferenceDashboard(stack, "Dashboard", endpoints=[CHAT, CPU, COMPONENT])
    # WHEN the app synthesizes with the nag packs on
    return dashboard_body(synth(app, stack))


@pytest.mark.parametrize(
    ("title", "expressions"),
    [
        (
            "chat/AllTraffic: GPUUtilization per GPU (%, one line per GPU of each instance)",
            [
                "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName,InstanceId,AcceleratorId} "
                'MetricName="GPUUtilization" EndpointName="chat" VariantName="AllTraffic"\', \'Average\')'
            ],
        ),
        (
            "chat/AllTraffic: GPUMemoryUtilization per GPU (%, one line per GPU of each instance)",
            [
                "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName,InstanceId,AcceleratorId} "
                'MetricName="GPUMemoryUtilization" EndpointName="chat" VariantName="AllTraffic"\', \'Average\')'
            ],
        ),
        (
            "chat/AllTraffic: CPUUtilization (left, summed over vCPUs) and host memory (right, %) per instance",
            [
                "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName,InstanceId} "
                'MetricName="CPUUtilization" EndpointName="chat" VariantName="AllTraffic"\', \'Average\')',
                "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName,InstanceId} "
                'MetricName="MemoryUtilization" EndpointName="chat" VariantName="AllTraffic"\', \'Average\')',
            ],
        ),
        (
            "chat/AllTraffic: invocations (left, sum) and ModelLatency p99 (right, ms) per instance",
            [
                "SEARCH('{AWS/SageMaker,EndpointName,VariantName,InstanceId} "
                'MetricName="Invocations" EndpointName="chat" VariantName="AllTraffic"\', \'Sum\')',
                "SEARCH('{AWS/SageMaker,EndpointName,VariantName,InstanceId} "
                'MetricName="ModelLatency" EndpointName="chat" VariantName="AllTraffic"\', \'p99\')/1000',
            ],
        ),
        (
            "packed/AllTraffic: invocations (left, sum) and ModelLatency p99 (right, ms) per container",
            [
                "SEARCH('{AWS/SageMaker,EndpointName,VariantName,InferenceComponentName,InstanceId,ContainerId} "
                'MetricName="Invocations" EndpointName="packed" VariantName="AllTraffic" '
                "InferenceComponentName=\"packed-ic\"', 'Sum')",
                "SEARCH('{AWS/SageMaker,EndpointName,VariantName,InferenceComponentName,InstanceId,ContainerId} "
                'MetricName="ModelLatency" EndpointName="packed" VariantName="AllTraffic" '
                "InferenceComponentName=\"packed-ic\"', 'p99')/1000",
            ],
        ),
    ],
)
def test_an_enhanced_endpoint_gets_one_line_per_gpu_and_per_instance(
    body: dict[str, Any], title: str, expressions: list[str]
) -> None:
    # THEN the widget graphs SEARCH over the enhanced dimension set of that endpoint variant
    assert _expressions(_metric_widgets(body)[title]) == expressions


def test_a_host_without_gpus_gets_no_per_gpu_graph(body: dict[str, Any]) -> None:
    # THEN the CPU endpoint has its per-instance graphs only
    titles = [t for t in _metric_widgets(body) if t.startswith("tabular/")]
    assert len(titles) == 2
    assert not [t for t in titles if "per GPU" in t]


def test_the_enhanced_widgets_pass_the_expression_validator(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN the three enhanced endpoints WHEN synthesized THEN every SEARCH and schema passes the validator
    InferenceDashboard(stack, "Dashboard", endpoints=[CHAT, CPU, COMPONENT])
    assert validate_template(synth(app, stack)) == []


@pytest.mark.parametrize(
    "endpoint",
    [
        MonitoredEndpoint("chat", gpu_count=4, instance_type="ml.g5.12xlarge"),
        MonitoredEndpoint("chat", gpu_count=4, enhanced_metrics=False),
    ],
)
def test_without_enhanced_metrics_no_enhanced_widget_exists(
    app: App, stack: Stack, synth: Synth, endpoint: MonitoredEndpoint
) -> None:
    # GIVEN a GPU endpoint whose endpoint config leaves enhanced metrics off
    InferenceDashboard(stack, "Dashboard", endpoints=[endpoint])
    body = dashboard_body(synth(app, stack))
    # THEN no widget names InstanceId, AcceleratorId or ContainerId, and the per-GPU widget divides as before
    text = str(body)
    assert not [d for d in ("InstanceId", "AcceleratorId", "ContainerId") if d in text]
    assert any(t.startswith("chat/AllTraffic: GPU per device") for t in _metric_widgets(body))


@pytest.mark.parametrize(("endpoint", "widgets"), [(CHAT, 5), (CPU, 3), (COMPONENT, 5)])
def test_the_plans_widget_count_is_what_the_dashboard_builds(
    stack: Stack, endpoint: MonitoredEndpoint, widgets: int
) -> None:
    # GIVEN a dashboard with and one without the enhanced endpoint
    with_it = InferenceDashboard(stack, "With", endpoints=[endpoint])
    without = InferenceDashboard(stack, "Without", endpoints=[replace(endpoint, enhanced_metrics=False)])
    # THEN the difference is the count the plan's widget limit check adds
    assert len(with_it.widgets) - len(without.widgets) == widgets == enhanced_widgets(endpoint.gpu_count)


def test_fails_enhanced_metrics_on_an_endpoint_kind_sagemaker_does_not_document_them_for() -> None:
    problems = check_dashboard_inputs(
        endpoints=[MonitoredEndpoint("batch", kind=EndpointKind.ASYNC, enhanced_metrics=True)]
    ).problems
    assert problems == [
        "endpoints[0].enhanced_metrics: is true for a async endpoint; sagemaker documents enhanced metrics for "
        "realtime endpoints only; set it false"
    ]


@pytest.mark.parametrize(
    ("plan", "on"),
    [
        (SimpleNamespace(metrics_config=SimpleNamespace(enable_enhanced_metrics=True)), True),
        (SimpleNamespace(metrics_config=SimpleNamespace(enable_enhanced_metrics=False)), False),
        (SimpleNamespace(metrics_config=SimpleNamespace(enable_enhanced_metrics=None)), False),
        (SimpleNamespace(metrics_config=None), False),
        (None, False),
    ],
)
def test_enhanced_metrics_are_on_only_when_the_plan_writes_true(plan: object, on: bool) -> None:
    assert enhanced_metrics_on(plan) is on


# ------------------------------------------------------------------------------------------------------ plan

CONFIG = """
name: acme
account: "111122223333"
region: us-east-1
endpoints:
  - name: chat
    model: {{id: org/chat-8b, parameters_billion: 8, max_context_tokens: 8192, max_concurrent_sequences: 16}}
    serving: lmi
    accelerator: gpu
    capacity: {{min: 1, max: 2}}
    {metrics}
"""


def test_the_plan_lists_the_endpoints_with_enhanced_widgets_and_why() -> None:
    # GIVEN an endpoint whose metrics block turns enhanced metrics on
    plan = plan_platform(parse_config(CONFIG.format(metrics="metrics: {enhanced_metrics: true}")))
    # THEN the dashboard's plan entry names it, with the reason (graphs only)
    dashboard = plan.to_json()["observability"]["dashboard"]
    assert dashboard["enhanced_endpoints"] == ["acme-chat"]
    assert dashboard["enhanced_endpoints_reason"] == ENHANCED_WIDGETS_REASON
    assert "alarms and scaling keep the variant's aggregate metrics" in ENHANCED_WIDGETS_REASON


@pytest.mark.parametrize(
    "metrics", ["", "metrics: {enhanced_metrics: false}", "metrics: {detailed_observability: true}"]
)
def test_the_plan_has_no_enhanced_entry_without_enhanced_metrics(metrics: str) -> None:
    plan = plan_platform(parse_config(CONFIG.format(metrics=metrics)))
    dashboard = plan.to_json()["observability"]["dashboard"]
    assert "enhanced_endpoints" not in dashboard
    assert "enhanced_endpoints_reason" not in dashboard
