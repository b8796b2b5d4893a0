"""InferenceDashboard: widgets, expressions, statistics and units of the synthesized dashboard body."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from aws_cdk import App, Stack

from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability.dashboard import InferenceDashboard, check_dashboard_inputs
from inference_constructs.observability.targets import MonitoredEndpoint, MonitoredProfile
from inference_constructs.observability.validate import validate_template
from inference_constructs.spec import EndpointKind
from tests.unit.observability.conftest import Synth, cfn_lint, dashboard_body

CHAT = MonitoredEndpoint("chat", "AllTraffic", EndpointKind.REALTIME, gpu_count=4, instance_type="ml.g5.12xlarge")
EMBED = MonitoredEndpoint("embed", "AllTraffic", EndpointKind.SERVERLESS)
TEAM_A = MonitoredProfile("team-a", "a1b2c3d4e5f6", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
ACCOUNTS = ("111122223333", "444455556666")


def _metric_widgets(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["properties"]["title"]: w for w in body["widgets"] if w["type"] == "metric"}


def _expressions(widget: dict[str, Any]) -> list[str]:
    return [row[-1]["expression"] for row in widget["properties"]["metrics"] if "expression" in row[-1]]


def _visible_expressions(widget: dict[str, Any]) -> list[str]:
    return [
        row[-1]["expression"]
        for row in widget["properties"]["metrics"]
        if "expression" in row[-1] and row[-1].get("visible", True)
    ]


@pytest.fixture
def body(app: App, stack: Stack, synth: Synth) -> dict[str, Any]:
    # GIVEN a dashboard for one GPU endpoint, one serverless endpoint and one Bedrock profile
    InferenceDashboard(stack, "Dashboard", endpoints=[CHAT, EMBED], profiles=[TEAM_A])
    # WHEN the app synthesizes with the nag packs on
    return dashboard_body(synth(app, stack))


@pytest.mark.parametrize(
    ("title", "expression"),
    [
        ("Invocations (sum)", "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"Invocations\"', 'Sum')"),
        (
            "OverheadLatency (ms, average)",
            "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"OverheadLatency\"', 'Average')/1000",
        ),
        (
            "ModelLatency p50 (ms)",
            "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"ModelLatency\"', 'p50')/1000",
        ),
        (
            "ModelLatency p90 (ms)",
            "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"ModelLatency\"', 'p90')/1000",
        ),
        (
            "ModelLatency p99 (ms)",
            "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"ModelLatency\"', 'p99')/1000",
        ),
        (
            "GPUUtilization (%, summed over GPUs: 0–100 × GPU count)",
            "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName} MetricName=\"GPUUtilization\"', 'Average')",
        ),
        (
            "GPUMemoryUtilization (%, summed over GPUs: 0–100 × GPU count)",
            "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName} MetricName=\"GPUMemoryUtilization\"', "
            "'Average')",
        ),
        (
            "CPUUtilization (%, summed over vCPUs: 0–100 × vCPU count)",
            "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName} MetricName=\"CPUUtilization\"', 'Average')",
        ),
        (
            "MemoryUtilization (host RAM, %)",
            "SEARCH('{/aws/sagemaker/Endpoints,EndpointName,VariantName} MetricName=\"MemoryUtilization\"', 'Average')",
        ),
        (
            "Async: ApproximateBacklogSize (requests, average)",
            "SEARCH('{AWS/SageMaker,EndpointName} MetricName=\"ApproximateBacklogSize\"', 'Average')",
        ),
        (
            "Async: ApproximateAgeOfOldestRequest (s, maximum)",
            "SEARCH('{AWS/SageMaker,EndpointName} MetricName=\"ApproximateAgeOfOldestRequest\"', 'Maximum')",
        ),
        (
            "Serverless: ModelSetupTime (cold start, ms, maximum)",
            "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"ModelSetupTime\"', 'Maximum')/1000",
        ),
        ("Invocations (sum)", "SEARCH('{AWS/Bedrock,ModelId} MetricName=\"Invocations\"', 'Sum')"),
        (
            "InvocationLatency p99 (ms, to the last token)",
            "SEARCH('{AWS/Bedrock,ModelId} MetricName=\"InvocationLatency\"', 'p99')",
        ),
        ("Throttles and errors (sum)", "SEARCH('{AWS/Bedrock,ModelId} MetricName=\"InvocationThrottles\"', 'Sum')"),
        ("InputTokenCount (sum)", "SEARCH('{AWS/Bedrock,ModelId} MetricName=\"InputTokenCount\"', 'Sum')"),
        ("OutputTokenCount (sum)", "SEARCH('{AWS/Bedrock,ModelId} MetricName=\"OutputTokenCount\"', 'Sum')"),
        (
            "Prompt cache read tokens (sum)",
            'SEARCH(\'{AWS/Bedrock,ModelId} (MetricName="CacheReadInputTokens" OR '
            "MetricName=\"CacheReadInputTokenCount\")', 'Sum')",
        ),
        (
            "Prompt cache write tokens (sum)",
            'SEARCH(\'{AWS/Bedrock,ModelId} (MetricName="CacheWriteInputTokens" OR '
            "MetricName=\"CacheWriteInputTokenCount\")', 'Sum')",
        ),
    ],
)
def test_fleet_widget_graphs_search_expression(body: dict[str, Any], title: str, expression: str) -> None:
    # THEN a widget with that title graphs the SEARCH expression (statistic and ms conversion included)
    matching = [w for w in body["widgets"] if w["type"] == "metric" and w["properties"]["title"] == title]
    assert any(expression in _expressions(w) for w in matching), [_expressions(w) for w in matching]


def test_error_rate_widget_is_100_times_average_of_4xx_and_5xx(body: dict[str, Any]) -> None:
    # THEN the error-rate graph scales the per-request 1/0 metrics' Average to percent
    widget = _metric_widgets(body)["Invocation error rate (%): 100 × Average of 4XX / 5XX errors"]
    assert _expressions(widget) == [
        f"100*SEARCH('{{AWS/SageMaker,EndpointName,VariantName}} MetricName=\"Invocation{c}Errors\"', 'Average')"
        for c in ("4XX", "5XX")
    ]
    assert widget["properties"]["yAxis"]["left"] == {"label": "%", "min": 0, "showUnits": False}


def test_per_endpoint_gpu_widget_divides_by_gpu_count(body: dict[str, Any]) -> None:
    # THEN the known 4-GPU endpoint gets a widget dividing both GPU metrics by 4, on a 0-100 axis
    widget = _metric_widgets(body)["chat/AllTraffic: GPU per device (%, ÷ 4 GPUs on ml.g5.12xlarge)"]
    assert _visible_expressions(widget) == ["gpuutilization/4", "gpumemoryutilization/4"]
    plain = [row for row in widget["properties"]["metrics"] if "expression" not in row[-1]]
    assert [row[:6] for row in plain] == [
        ["/aws/sagemaker/Endpoints", name, "EndpointName", "chat", "VariantName", "AllTraffic"]
        for name in ("GPUUtilization", "GPUMemoryUtilization")
    ]
    assert all(row[-1].get("stat", "Average") == "Average" and row[-1]["visible"] is False for row in plain)
    assert widget["properties"]["yAxis"]["left"]["max"] == 100


def test_serverless_endpoint_gets_no_gpu_widget(body: dict[str, Any]) -> None:
    # THEN only the GPU endpoint has a per-endpoint widget
    assert not [t for t in _metric_widgets(body) if t.startswith("embed/")]


def test_cold_start_widget_counts_setup_samples_on_right_axis(body: dict[str, Any]) -> None:
    # THEN cold starts are the SampleCount of ModelSetupTime, on the right axis
    widget = _metric_widgets(body)["Serverless: ModelSetupTime (cold start, ms, maximum)"]
    right = [row[-1] for row in widget["properties"]["metrics"] if row[-1].get("yAxis") == "right"]
    assert [r["expression"] for r in right] == [
        "SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName=\"ModelSetupTime\"', 'SampleCount')"
    ]


def test_fleet_tokens_per_invocation_divides_sums(body: dict[str, Any]) -> None:
    # THEN tokens per invocation is the fleet ratio of summed SEARCH results
    widget = _metric_widgets(body)["Tokens per invocation (all models)"]
    assert _visible_expressions(widget) == ["SUM(inputtokens)/SUM(invocations)", "SUM(outputtokens)/SUM(invocations)"]


def test_cache_hit_ratio_is_read_over_all_prompt_tokens(body: dict[str, Any]) -> None:
    # THEN the ratio is 100 * read / (read + write + uncached input), with hidden SEARCH inputs over both spellings
    widget = _metric_widgets(body)["Prompt cache-hit ratio (%, all models)"]
    rows = {row[-1].get("id"): row[-1] for row in widget["properties"]["metrics"]}
    assert rows[None]["expression"] == "100*SUM(cacheread)/(SUM(cacheread)+SUM(cachewrite)+SUM(uncached))"
    assert rows[None]["label"] == "cache hit ratio (%)"
    assert "CacheReadInputTokenCount" in rows["cacheread"]["expression"]
    assert "CacheWriteInputTokens" in rows["cachewrite"]["expression"]
    assert "InputTokenCount" in rows["uncached"]["expression"]
    assert all(rows[i]["visible"] is False for i in ("cacheread", "cachewrite", "uncached"))


def test_profile_widget_reads_the_profile_id_dimension(body: dict[str, Any]) -> None:
    # THEN the known profile's widget divides its tokens by its invocations and searches its exact ModelId
    widget = _metric_widgets(body)[
        "team-a (us.anthropic.claude-sonnet-4-5-20250929-v1:0): tokens per invocation and cache-hit ratio"
    ]
    assert "inputtokens/invocations" in _visible_expressions(widget)
    assert any('ModelId="a1b2c3d4e5f6"' in e for e in _expressions(widget))
    plain = [row for row in widget["properties"]["metrics"] if "expression" not in row[-1]]
    assert ["AWS/Bedrock", "Invocations", "ModelId", "a1b2c3d4e5f6"] in [row[:4] for row in plain]


def test_cost_widget_reads_usd_estimated_charges_daily_in_us_east_1(body: dict[str, Any]) -> None:
    # THEN the cost graph is pinned to us-east-1, one day per point, 30 days, with the billing-alerts note beside it
    widget = _metric_widgets(body)["Estimated charges (USD, month to date, us-east-1, daily)"]
    assert widget["properties"]["region"] == "us-east-1"
    assert widget["properties"]["period"] == 86400
    assert widget["properties"]["start"] == "-P30D"
    (row,) = widget["properties"]["metrics"]
    assert row[:4] == ["AWS/Billing", "EstimatedCharges", "Currency", "USD"]
    assert row[-1]["stat"] == "Maximum"
    notes = [w["properties"]["markdown"] for w in body["widgets"] if w["type"] == "text"]
    assert any("Receive Billing Alerts" in n for n in notes)


def test_graphs_read_the_deployment_region_and_start_at_zero(body: dict[str, Any]) -> None:
    # THEN every graph but the cost graph reads AWS::Region, and every left axis starts at 0
    graphs = list(_metric_widgets(body).values())
    regions = {w["properties"]["region"] for w in graphs}
    assert regions == {"TOKEN_AWS_Region", "us-east-1"}
    assert all(w["properties"]["yAxis"]["left"]["min"] == 0 for w in graphs)


def test_template_passes_expression_validator_and_cfn_lint(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a dashboard with every section, cross-account
    InferenceDashboard(stack, "Dashboard", endpoints=[CHAT, EMBED], profiles=[TEAM_A], source_account_ids=ACCOUNTS)
    # WHEN synthesized with the nag packs
    template = synth(app, stack)
    # THEN the validator and cfn-lint find nothing
    assert validate_template(template) == []
    assert cfn_lint(template) == []


def test_cross_account_filters_every_search(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a monitoring-account dashboard for two source accounts
    InferenceDashboard(stack, "Dashboard", source_account_ids=ACCOUNTS)
    # WHEN synthesized
    body = dashboard_body(synth(app, stack))
    # THEN every SEARCH carries the account filter, with the monitoring account's own metrics ("LOCAL"), and the
    # cost graph has one line per account
    searches = re.findall(r"SEARCH\('[^']*'", json.dumps(body))
    assert searches
    assert all(':aws.AccountId = (\\"111122223333\\" OR \\"444455556666\\" OR \\"LOCAL\\")' in s for s in searches)
    cost = _metric_widgets(body)["Estimated charges (USD, month to date, us-east-1, daily)"]
    assert [row[-1]["accountId"] for row in cost["properties"]["metrics"]] == list(ACCOUNTS)


def test_without_known_resources_only_fleet_widgets_exist(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a dashboard with no endpoints or profiles
    dashboard = InferenceDashboard(stack, "Dashboard")
    # WHEN synthesized
    body = dashboard_body(synth(app, stack))
    # THEN it holds the fleet, Bedrock and cost sections only
    assert len(body["widgets"]) == len(dashboard.widgets) == 27
    titles = list(_metric_widgets(body))
    assert not [t for t in titles if "GPU per device" in t or t.endswith("tokens per invocation and cache-hit ratio")]


def test_dashboard_name_is_passed_through(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN an explicit dashboard name
    InferenceDashboard(stack, "Dashboard", dashboard_name="acme-inference")
    # WHEN synthesized
    template = synth(app, stack)
    # THEN the dashboard resource carries it
    (dashboard,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Dashboard"]
    assert dashboard["Properties"]["DashboardName"] == "acme-inference"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"source_account_ids": ["1234"]}, r"source_account_ids\[0\]: '1234' is not an aws account id"),
        ({"source_account_ids": ["111122223333"] * 2}, r"source_account_ids\[1\]: 111122223333 is listed twice"),
        (
            {"source_account_ids": [f"{n:012d}" for n in range(60)]},
            r"source_account_ids: 60 accounts make a SEARCH expression \d+ characters long; the limit is 1024",
        ),
        (
            {"endpoints": [MonitoredEndpoint("x", kind=EndpointKind.SERVERLESS, gpu_count=1)]},
            r"endpoints\[0\].gpu_count: 1 gpus on a serverless endpoint",
        ),
        ({"endpoints": [MonitoredEndpoint("x", gpu_count=-1)]}, r"endpoints\[0\].gpu_count: -1 is negative"),
        ({"profiles": [MonitoredProfile("p", "")]}, r"profiles\[0\].profile_id: is empty"),
    ],
)
def test_fails_on_invalid_inputs(stack: Stack, kwargs: dict[str, Any], message: str) -> None:
    # GIVEN invalid dashboard inputs / WHEN the dashboard is created / THEN one error names the key and the fix
    with pytest.raises(InferenceConfigError, match=message):
        InferenceDashboard(stack, "Dashboard", **kwargs)


def test_fails_when_widgets_exceed_500(stack: Stack) -> None:
    # GIVEN more GPU endpoints than a dashboard can show
    endpoints = [MonitoredEndpoint(f"e{i}", gpu_count=1) for i in range(480)]
    # WHEN / THEN the dashboard refuses with the widget count
    with pytest.raises(InferenceConfigError, match=r"endpoints: 480 endpoints and 0 profiles need 508 widgets"):
        InferenceDashboard(stack, "Dashboard", endpoints=endpoints)


def test_config_path_prefixes_problem_keys() -> None:
    # GIVEN the config layer's path / WHEN inputs are checked / THEN keys are prefixed with it
    problems = check_dashboard_inputs(source_account_ids=["x"], path="observability").problems
    assert problems == [
        "observability.source_account_ids[0]: 'x' is not an aws account id; use 12 digits as a quoted string"
    ]


def test_token_profile_id_and_endpoint_name_synthesize_valid_expressions(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a profile id and an endpoint name that are tokens (Ref of resources created in the same app)
    from aws_cdk import CfnParameter

    profile_id = CfnParameter(stack, "ProfileId").value_as_string
    endpoint_name = CfnParameter(stack, "EndpointName").value_as_string
    InferenceDashboard(
        stack,
        "Dashboard",
        endpoints=[MonitoredEndpoint(endpoint_name, gpu_count=8)],
        profiles=[MonitoredProfile("team-b", profile_id)],
    )
    # WHEN synthesized
    template = synth(app, stack)
    # THEN the tokens land inside the SEARCH quotes and the validator accepts every expression
    assert validate_template(template) == []
    assert 'ModelId=\\"TOKEN_ProfileId\\"' in json.dumps(dashboard_body(template))


@pytest.mark.parametrize(("count", "refused"), [(48, False), (49, True)])
def test_search_length_limit_counts_the_monitoring_account(count: int, refused: bool) -> None:
    # GIVEN source accounts; every SEARCH also names the monitoring account itself ("LOCAL")
    accounts = [str(100_000_000_000 + i) for i in range(count)]
    # WHEN the inputs are checked THEN 48 accounts fit in 1024 characters and 49 do not
    problems = check_dashboard_inputs(source_account_ids=accounts, path="observability").problems
    assert any("the limit is 1024" in p for p in problems) is refused
