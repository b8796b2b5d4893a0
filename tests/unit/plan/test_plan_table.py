"""The plan table (``python -m inference_constructs plan``) says what the plan document says, in one unit, with
estimates marked and every endpoint named."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from inference_constructs.config import load_config
from inference_constructs.plan import PlatformPlan, plan_platform

CONFIGS = Path(__file__).parents[3] / "config"


@cache
def _plan(name: str) -> PlatformPlan:
    return plan_platform(load_config(CONFIGS / name))


def _lines(name: str) -> list[str]:
    return _plan(name).table().splitlines()


def test_table_shows_the_cheaper_dtype_hint() -> None:
    # GIVEN the default config, whose batch-extract endpoint has a quantization hint in the plan document
    (entry,) = [e for e in _plan("default.yaml").to_json()["endpoints"] if e.get("quantization_hint")]
    hint = entry["quantization_hint"]
    # WHEN the table is printed
    table = _plan("default.yaml").table()
    # THEN it shows the hint: dtype, host, price, saving and caveat
    assert (
        f"hint {entry['name']}: {hint['dtype']} would fit {hint['instance_type']} at "
        f"${hint['price_per_hour_usd']:.3f}/h, {hint['saving_percent']}% cheaper than {entry['instance_type']}; "
        f"{hint['caveat']}"
    ) in table.splitlines()


@pytest.mark.parametrize("name", ["examples/bedrock-only.yaml", "examples/bedrock-priced.yaml"])
def test_bedrock_only_table_has_no_endpoint_table_and_no_hourly_baseline(name: str) -> None:
    # GIVEN a config with Bedrock profiles and no SageMaker endpoint / WHEN the table is printed
    table = _plan(name).table()
    # THEN neither the endpoint table nor an on-demand hourly baseline is printed
    assert not table.startswith("endpoint")
    assert "baseline on-demand" not in table


def test_bedrock_only_table_lists_every_profile_with_its_cost() -> None:
    # GIVEN the Bedrock-only example, whose profiles have no workload to price
    plan = _plan("examples/bedrock-only.yaml")
    lines = plan.table().splitlines()
    # WHEN the table is printed THEN every profile has a line saying it is unpriced and why, with its model
    for p in plan.bedrock:
        assert f"bedrock {p.name}: unpriced, no workload given (billed per token); model {p.model} (" in "\n".join(
            lines
        )


def test_bedrock_priced_table_lists_every_profile_and_router() -> None:
    # GIVEN the priced Bedrock example / WHEN the table is printed
    plan = _plan("examples/bedrock-priced.yaml")
    lines = plan.table().splitlines()
    # THEN each profile and each router has its line with a dollar figure
    for name in [p.name for p in plan.bedrock]:
        assert any(line.startswith(f"bedrock {name}: ") and "$" in line for line in lines)
    for router in plan.bedrock_routers:
        assert any(line.startswith(f"bedrock router {router.name} ") and "$" in line for line in lines)


def test_serverless_only_table_prints_no_hourly_baseline_figure() -> None:
    # GIVEN a config whose only endpoint is serverless / WHEN the table is printed
    table = _plan("examples/monitoring-account.yaml").table()
    # THEN the baseline says there is no hourly capacity, instead of $0.000/h
    assert "baseline on-demand: none, every endpoint is serverless (billed per request)" in table
    assert "$0.000/h" not in table


def test_savings_plan_saving_is_marked_as_an_estimate_and_rounded() -> None:
    # GIVEN the default config, whose Savings Plan rate is an estimate and whose prices are unverified
    plan = _plan("default.yaml")
    sp = plan.to_json()["savings_plan"]
    assert sp["discount_basis"].startswith("estimate")
    # WHEN the table is printed
    (line,) = [line for line in plan.table().splitlines() if line.startswith("savings plan:")]
    # THEN the saving is approximate (two significant figures), says it is an estimate and why
    assert line.startswith("savings plan: commit $3.804/h, saves ~$930/month (estimate: 25% discount assumed")
    assert "no SageMaker-specific source found" in line
    assert "prices are third-party list prices, not verified" in line
    assert f"{sp['monthly_saving_usd']}" not in line


def test_need_column_and_reason_give_the_same_figure_in_gib() -> None:
    # GIVEN the default config's instance-backed endpoints
    lines = _lines("default.yaml")
    rows = {line.split()[0]: line.split() for line in lines[2:] if line and not line.startswith(("why", "host"))}
    for e in _plan("default.yaml").endpoints:
        if e.host is None:
            continue
        # WHEN the table row and the reason are read
        (why,) = [line for line in lines if line.startswith(f"why {e.name}: ")]
        need = re.search(r"(?:needs|assumed) (\d+\.\d) (\w+) ", why)
        # THEN the reason states the need in GiB, the figure of the table's "need GiB" column
        assert need is not None and need.group(2) == "GiB"
        assert rows[e.name][6] == need.group(1)
        assert not re.search(r"\d GB\b", why)


def test_reason_counts_every_cheaper_host_passed_over() -> None:
    # GIVEN the default config's batch-extract endpoint, which passes over more hosts per reason than it lists
    plan = _plan("default.yaml")
    (e,) = [e for e in plan.endpoints if e.name == "batch-extract"]
    assert e.host is not None
    entry = e.to_json()
    counts = entry["passed_over"]
    cheaper = [i for i in plan.catalog.by_price if i.price_per_hour_usd < e.host.price_per_hour_usd]
    # WHEN its reason is read THEN the total is every cheaper host, and each count is what it says it is
    assert sum(counts.values()) == len(cheaper)
    assert counts["engine"] > len([r for r in e.host.rejected if r.kind.value == "engine"])
    assert (
        f"{len(cheaper)} cheaper hosts passed over: {counts['device_memory']} too small, "
        f"{counts['engine']} whose engine cannot run it, {counts['accelerator']} another accelerator"
    ) in entry["reason"]
    (why,) = [line for line in _lines("default.yaml") if line.startswith("why batch-extract: ")]
    assert entry["reason"] in why


def test_endpoint_warnings_name_the_endpoint() -> None:
    # GIVEN the default config, whose scaling warnings name endpoints by key path / WHEN the table is printed
    lines = _lines("default.yaml")
    # THEN each such warning names the endpoint beside its key path
    assert any(line.startswith("warning: endpoints[2] (batch-extract): scales to zero") for line in lines)
    assert not [line for line in lines if re.match(r"warning: endpoints\[\d+\]:", line)]
