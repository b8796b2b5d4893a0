"""The plan's Bedrock token economics and prompt routers, from a config file to the plan JSON, the
printed table and the synthesized router."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App
from aws_cdk.assertions import Template

from inference_constructs.config import load_config, parse_config
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform, router_specs
from inference_constructs.stacks.bedrock import BedrockStack

EXAMPLE = Path(__file__).parents[3] / "config" / "examples" / "bedrock-priced.yaml"


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return plan_platform(load_config(EXAMPLE)).to_json()


def _profile(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in doc["bedrock"] if p["name"] == name)


@pytest.mark.parametrize(
    ("profile", "recommended", "monthly_usd"),
    [
        # 20M x $3 + 5M x $15 + 90M cache reads x $0.30 + 10M cache writes x $3.75 = 199.50
        ("support-chat", "on-demand", 199.50),
        # 2M requests x 1,500 in / 200 out, batch: 3,000M x $0.55 + 400M x $2.75 = 2,750.00
        ("tagging-batch", "batch", 2750.00),
        # Flex: 300M x $0.40 + 30M x $1.60 = 168.00
        ("summaries-flex", "flex", 168.00),
        # 30,000M x $0.72 = 21,600.00 (interactive: batch is not allowed)
        ("extraction-llama", "on-demand", 21600.00),
    ],
)
def test_each_profile_has_its_recommended_option_and_monthly_figure(
    doc: dict[str, Any], profile: str, recommended: str, monthly_usd: float
) -> None:
    econ = _profile(doc, profile)["token_economics"]
    assert econ["recommended"] == recommended
    assert econ["monthly_usd"] == monthly_usd
    assert econ["reason"]


def test_a_profile_without_workload_has_no_economics() -> None:
    text = "name: p1\nbedrock:\n  profiles:\n    - {name: a, model: anthropic.claude-3-haiku-20240307-v1:0}\n"
    assert plan_platform(parse_config(text)).to_json()["bedrock"][0]["token_economics"] is None


def test_quota_warning_reaches_the_plan_warnings(doc: dict[str, Any]) -> None:
    assert any(
        w.startswith("bedrock profile extraction-llama: expected 684,932 quota tokens per minute")
        for w in doc["warnings"]
    )


def test_the_router_entry_and_its_cost_range(doc: dict[str, Any]) -> None:
    (router,) = doc["bedrock_routers"]
    assert router["name"] == "helpdesk-router"
    assert router["router_name"].startswith("helpdesk-router-")
    # 100M x $0.06 + 20M x $0.24 = 10.80 (all Nova Lite); 100M x $0.80 + 20M x $3.20 = 144.00 (all Nova Pro)
    assert (router["cost_range"]["all_cheapest_monthly_usd"], router["cost_range"]["all_fallback_monthly_usd"]) == (
        10.80,
        144.00,
    )


def test_the_table_prints_each_option_and_the_router_range() -> None:
    table = plan_platform(load_config(EXAMPLE)).table()
    assert "bedrock tagging-batch: batch $2,750.00/month (on-demand $5,500.00, batch $2,750.00)" in table
    assert "$10.80 (all cheapest) to $144.00 (all fallback)/month" in table


def test_the_synthesized_router_carries_the_planned_name(doc: dict[str, Any]) -> None:
    # GIVEN the plan WHEN the Bedrock stack is built from the same config THEN the router's name is the plan's
    config = load_config(EXAMPLE)
    stack = BedrockStack(App(), "Bedrock", profiles=[], routers=router_specs(config)[0])
    names = [
        r["Properties"]["PromptRouterName"]
        for r in Template.from_stack(stack).find_resources("AWS::Bedrock::IntelligentPromptRouter").values()
    ]
    assert names == [doc["bedrock_routers"][0]["router_name"]]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            "profiles:\n    - name: a\n      model: anthropic.claude-3-haiku-20240307-v1:0\n"
            "      workload: {input_tokens_per_month: 1, output_tokens_per_month: 1, requests_per_month: 2}\n",
            "bedrock.profiles[0].workload.requests_per_month: cannot be combined with input_tokens_per_month",
        ),
        (
            "profiles:\n    - name: a\n      model: anthropic.claude-3-haiku-20240307-v1:0\n"
            "      workload: {input_tokens_per_month: 1, output_tokens_per_month: 1, latency: later}\n",
            "bedrock.profiles[0].workload.latency: 'later' is not allowed; use one of 'interactive', 'flexible', "
            "'offline'",
        ),
        (
            "routers:\n    - {name: r, models: [amazon.nova-lite-v1:0, amazon.nova-pro-v1:0], "
            "fallback_model: amazon.nova-micro-v1:0, response_quality_difference: 5}\n",
            "bedrock.routers[0].fallback_model: 'amazon.nova-micro-v1:0' is not one of models",
        ),
        (
            "routers:\n    - {name: r, models: [amazon.nova-lite-v1:0, amazon.nova-pro-v1:0], "
            "fallback_model: amazon.nova-pro-v1:0, response_quality_difference: 150}\n",
            "bedrock.routers[0].response_quality_difference: 150 is not allowed; use 0..100",
        ),
        (
            "routers:\n    - {name: r, models: [amazon.nova-lite-v1:0, amazon.nova-pro-v1:0], "
            "fallback_model: amazon.nova-pro-v1:0, response_quality_difference: 5, "
            "workload: {input_tokens_per_month: 5}}\n",
            "bedrock.routers[0].workload.output_tokens_per_month: required for a workload",
        ),
    ],
)
def test_fails_before_synth_with_the_key_path(block: str, message: str) -> None:
    text = "name: p1\nbedrock:\n  " + block
    with pytest.raises(InferenceConfigError) as err:
        plan_platform(parse_config(text))
    assert any(p.startswith(message) for p in err.value.problems), err.value.problems
