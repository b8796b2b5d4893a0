"""The plan: decisions for a whole config, the document docs/config.md specifies, and one error for all problems."""

from __future__ import annotations

from typing import Any

import pytest

from inference_constructs.config import parse_config
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import HOURS_PER_MONTH, plan_platform

PLATFORM = """
name: acme
endpoints:
  - name: chat
    model: {id: org/chat-8b, parameters_billion: 8, max_context_tokens: 8192, max_concurrent_sequences: 16}
    serving: lmi
    accelerator: gpu
    capacity: {min: 2, max: 5}
  - name: churn
    type: serverless
    serving: sklearn
    model: {source: s3, s3_uri: "s3://acme-models/churn.tar.gz"}
    serverless: {memory_mb: 3072}
"""


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return plan_platform(parse_config(PLATFORM)).to_json()


def test_monthly_costs_are_price_times_capacity_times_730_hours(doc: dict[str, Any]) -> None:
    chat = doc["endpoints"][0]
    assert chat["monthly_usd_at_min"] == round(chat["price_per_hour_usd"] * 2 * HOURS_PER_MONTH, 2)
    assert chat["monthly_usd_at_max"] == round(chat["price_per_hour_usd"] * 5 * HOURS_PER_MONTH, 2)
    assert doc["baseline_usd_per_hour"] == round(chat["price_per_hour_usd"] * 2, 4)


def test_accelerated_entry_fits_and_names_its_reason(doc: dict[str, Any]) -> None:
    chat = doc["endpoints"][0]
    assert chat["accelerator"] == "gpu"
    assert chat["memory_available_gb"] >= chat["memory_required_gb"]
    assert chat["instance_type"] in chat["reason"]
    assert chat["tensor_parallel_degree"] >= 1


def test_serverless_entry_has_no_host_and_its_memory(doc: dict[str, Any]) -> None:
    churn = doc["endpoints"][1]
    assert (churn["instance_type"], churn["price_per_hour_usd"], churn["devices"]) == (None, None, 0)
    assert churn["memory_available_gb"] == 3.0


def test_commitment_is_reported_beside_average_and_peak(doc: dict[str, Any]) -> None:
    options = doc["savings_plan"]["options"]
    assert set(options) == {"recommended", "average", "peak", "on_demand"}
    assert options["recommended"]["monthly_cost_usd"] <= options["on_demand"]["monthly_cost_usd"]


def test_table_shows_every_endpoint_with_its_reason() -> None:
    table = plan_platform(parse_config(PLATFORM)).table()
    assert "why chat: ml." in table
    assert "why churn: serverless" in table


def test_fails_with_every_endpoints_problem_in_one_error() -> None:
    # GIVEN two endpoints that each break a decision rule (an explicit host too small; a Neuron stack on a GPU)
    text = """
name: acme
endpoints:
  - {name: big, model: {id: org/m-70b, parameters_billion: 70}, serving: lmi, instance_type: ml.g5.xlarge}
  - {name: neuron, model: {id: org/m-8b, parameters_billion: 8}, serving: neuron, accelerator: gpu}
"""
    # WHEN planned THEN one error names both endpoints' key paths
    with pytest.raises(InferenceConfigError) as info:
        plan_platform(parse_config(text))
    paths = {p.split(":")[0].split(".")[0] for p in info.value.problems}
    assert paths == {"endpoints[0]", "endpoints[1]"}
    assert any("needs" in p and "GiB" in p for p in info.value.problems)


def test_warns_when_minimum_capacity_alone_exceeds_the_budget() -> None:
    # GIVEN a $500/month budget beside an endpoint whose minimum capacity costs more than that a month
    text = PLATFORM + "cost:\n  budget: {monthly_limit_usd: 500}\n"
    plan = plan_platform(parse_config(text))
    chat = plan.endpoints[0]
    assert chat.monthly_usd_at_min is not None and chat.monthly_usd_at_min > 500
    # WHEN planned THEN one warning names the budget key and figure, the cost at minimum and the endpoint
    found = [w for w in plan.to_json()["warnings"] if w.startswith("cost.budget.monthly_limit_usd")]
    assert len(found) == 1
    assert "$500 budget" in found[0]
    assert f"${chat.monthly_usd_at_min:,.0f}/month" in found[0]
    assert f"chat ${chat.monthly_usd_at_min:,.0f} (2 x {chat.host.instance.name if chat.host else ''})" in found[0]
    assert "capacity.min" in found[0]
    # AND a budget above the minimum cost says nothing
    roomy = PLATFORM + "cost:\n  budget: {monthly_limit_usd: 100000}\n"
    assert not any("monthly_limit_usd" in w for w in plan_platform(parse_config(roomy)).to_json()["warnings"])


def test_gpu_memory_scaling_on_an_auto_chosen_neuron_host_suggests_concurrency_not_a_gpu_host() -> None:
    # GIVEN an LMI endpoint with accelerator auto (the planner picks a Trainium host) and GPU-memory scaling
    text = """
name: acme
endpoints:
  - name: chat
    model: {id: mistralai/Mistral-7B-Instruct-v0.3, parameters_billion: 7.2}
    accelerator: auto
    capacity: {min: 1, max: 2}
    scaling: {gpu_memory_percent: 70}
"""
    # WHEN planned
    (problem,) = _refusal(text)
    # THEN the fix fits the cause: LMI reserves GPU memory at start, so a GPU host would not help
    assert problem.startswith("endpoints[0].scaling.gpu_memory_percent: ml.trn1")
    assert "choose a gpu instance type" not in problem
    assert "use scaling.concurrency_per_instance" in problem
    assert "serving lmi reserves gpu memory at start, so the metric does not move" in problem


GATED_ON_A_SMALL_HOST = (
    PLATFORM.partition("  - name: churn")[0]
    .replace("model: {id: org/chat-8b", "model: {source: huggingface, id: meta-llama/Llama-3.1-70B-Instruct")
    .replace("parameters_billion: 8,", "parameters_billion: 70,")
    .replace("accelerator: gpu", "instance_type: ml.g5.xlarge")
)
"""A gated hub model without a token on an explicit host too small for it."""


def test_a_gated_model_and_a_host_too_small_are_refused_in_one_pass() -> None:
    # GIVEN a gated model without a token on a host too small for it WHEN planned
    problems = _refusal(GATED_ON_A_SMALL_HOST)
    # THEN both independent problems come at once, so fixing the token does not uncover the size
    assert sorted(p.split(":")[0] for p in problems) == ["endpoints[0].instance_type", "endpoints[0].model.id"]
    assert any("is gated on the hugging face hub" in p for p in problems)
    assert any("cannot hold the model" in p for p in problems)


def test_endpoint_warnings_name_the_endpoint_and_suggest_a_fix() -> None:
    # GIVEN an async endpoint that scales to zero, the third in its file
    text = """
name: acme
endpoints:
  - {name: a, serving: sklearn, model: {source: s3, s3_uri: "s3://acme-models/a.tar.gz"}}
  - {name: b, serving: sklearn, model: {source: s3, s3_uri: "s3://acme-models/b.tar.gz"}}
  - name: batch-extract
    type: async
    model: {id: org/m-8b, parameters_billion: 8}
    serving: lmi
    capacity: {min: 0, max: 2}
    scaling: {backlog_per_instance: 5}
"""
    # WHEN planned
    warnings = plan_platform(parse_config(text)).to_json()["warnings"]
    # THEN its warning names it beside its key path and says what to change
    [zero] = [w for w in warnings if "scales to zero" in w]
    assert zero.startswith("endpoints[2] (batch-extract): scales to zero instances")
    assert "set capacity.min 1" in zero


def _refusal(text: str) -> list[str]:
    """The problems planning the config ``text`` raises (it must raise)."""
    with pytest.raises(InferenceConfigError) as info:
        plan_platform(parse_config(text))
    return [str(p) for p in info.value.problems]
