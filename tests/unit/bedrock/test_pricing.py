"""Token economics: every price row is sourced and dated, and every option's monthly figure matches
the arithmetic done by hand from the table rows quoted in each test."""

from __future__ import annotations

import re
from datetime import date

import pytest

from inference_constructs.bedrock.model_source import ModelSource
from inference_constructs.bedrock.pricing import (
    PRICE_KEYS,
    Deployment,
    Latency,
    Workload,
    caching_economics,
    load_prices,
    price_options,
    provisioned_throughput,
    quota_check,
    recommend,
    token_economics,
    workload_from_counts,
)

TABLE = load_prices()
M = 1_000_000

# The rows the arithmetic below uses, as they stand in prices.json (per 1M tokens).
SONNET_45_GLOBAL = {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.3, "batch_input": 1.5}
HAIKU_45_GEO = {"input": 1.1, "output": 5.5, "batch_input": 0.55, "batch_output": 2.75}
NOVA_PRO_GEO = {"input": 0.8, "output": 3.2, "flex_input": 0.4, "flex_output": 1.6, "priority_input": 1.4}
LLAMA_70B = {"input": 0.72, "output": 0.72, "batch_input": 0.36, "pt_6_month": 13.08}


def _row(model_id: str, deployment: Deployment, expected: dict[str, float]):  # type: ignore[no-untyped-def]
    row = TABLE.find(model_id, deployment)
    assert row is not None
    for key, value in expected.items():
        assert row.prices[key] == value, f"prices.json {row.model} {key} changed; update the hand arithmetic"
    return row


# ------------------------------------------------------------------------------------------ the table


@pytest.mark.parametrize("row", TABLE.rows, ids=lambda r: f"{r.model}-{r.deployment.value}")
def test_every_price_row_names_known_sources_and_a_date(row) -> None:  # type: ignore[no-untyped-def]
    # GIVEN a row of the shipped price table
    # THEN it names at least one source, each described in `sources`, and an ISO date not after the table's
    assert row.source
    assert all(key in TABLE.sources for key in row.source)
    assert date.fromisoformat(row.date) <= date.fromisoformat(TABLE.as_of)
    # AND every price is a known key, and every estimate explains a price the row has
    assert set(row.prices) <= set(PRICE_KEYS)
    assert set(row.estimates) <= set(row.prices)
    assert all(len(derivation) > 20 for derivation in row.estimates.values())
    assert {"input", "output"} <= set(row.prices)


@pytest.mark.parametrize("quota", TABLE.quotas, ids=lambda q: f"{q.model}-{q.kind}")
def test_every_quota_row_names_a_known_source_and_a_date(quota) -> None:  # type: ignore[no-untyped-def]
    assert quota.source in TABLE.quota_sources
    assert date.fromisoformat(quota.date)
    assert quota.kind in ("on-demand", "cross-region")
    assert quota.other_regions > 0


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", ("anthropic.claude-sonnet-4-5", Deployment.GLOBAL)),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", ("anthropic.claude-sonnet-4-5", Deployment.GEO)),
        ("eu.anthropic.claude-3-7-sonnet-20250219-v1:0", ("anthropic.claude-3-7-sonnet", Deployment.ANY)),
        ("anthropic.claude-3-haiku-20240307-v1:0", ("anthropic.claude-3-haiku-20240307", Deployment.ANY)),
        ("amazon.nova-2-lite-v1:0", ("amazon.nova-2-lite", Deployment.GEO)),
        ("amazon.nova-lite-v1:0", ("amazon.nova-lite", Deployment.GEO)),
    ],
)
def test_the_row_follows_the_profile_deployment(model: str, expected: tuple[str, Deployment]) -> None:
    # GIVEN a model source WHEN its price row is looked up
    econ = token_economics(ModelSource.parse(model), Workload(input_tokens=M, output_tokens=M))
    # THEN global profiles get the global row, geographic profiles and Regional models the geo row
    assert (econ["price_row"]["model"], Deployment(econ["price_row"]["deployment"])) == expected


def test_the_geographic_sonnet_row_is_the_global_row_plus_the_documented_ten_percent() -> None:
    glob = _row("anthropic.claude-sonnet-4-5-20250929-v1:0", Deployment.GLOBAL, SONNET_45_GLOBAL)
    geo = TABLE.find("anthropic.claude-sonnet-4-5-20250929-v1:0", Deployment.GEO)
    assert geo is not None
    # 3.00 x 1.10 = 3.30; 15.00 x 1.10 = 16.50; every derived price is marked as an estimate
    for key in ("input", "output", "cache_write", "cache_read"):
        assert geo.prices[key] == pytest.approx(glob.prices[key] * 1.10)
        assert key in geo.estimates


# ------------------------------------------------------------------------------------------ options


def test_on_demand_with_prompt_caching_and_its_break_even() -> None:
    # GIVEN Claude Sonnet 4.5 (global): in $3, out $15, cache write $3.75, cache read $0.30 per 1M
    row = _row("anthropic.claude-sonnet-4-5-20250929-v1:0", Deployment.GLOBAL, SONNET_45_GLOBAL)
    w = Workload(input_tokens=20 * M, output_tokens=5 * M, cache_read_tokens=90 * M, cache_write_tokens=10 * M)
    # WHEN priced
    options = {o.name: o for o in price_options(row, w)}
    caching = caching_economics(row, w)
    # THEN on-demand = 20 x 3 + 5 x 15 + 90 x 0.30 + 10 x 3.75 = 60 + 75 + 27 + 37.5 = 199.50
    assert options["on-demand"].monthly_usd == 199.50
    # AND without the cache every prompt token is input: (20 + 90 + 10) x 3 + 75 = 435.00, saving 235.50
    assert caching is not None
    assert caching["monthly_usd_without_cache"] == 435.00
    assert caching["monthly_saving_usd"] == 235.50
    # AND caching pays above a hit rate of (3.75 - 3) / (3.75 - 0.30) = 0.75 / 3.45 = 0.2174; this one hits 0.9
    assert caching["break_even_hit_rate"] == 0.2174
    assert caching["hit_rate"] == 0.9
    # AND batch has no cache prices: 120 x 1.50 + 5 x 7.50 = 180 + 37.5 = 217.50
    assert options["batch"].monthly_usd == 217.50


def test_batch_for_requests_that_can_wait() -> None:
    # GIVEN Claude Haiku 4.5 (us. profile): in $1.10, out $5.50, batch $0.55 / $2.75 per 1M
    row = _row("anthropic.claude-haiku-4-5-20251001-v1:0", Deployment.GEO, HAIKU_45_GEO)
    # AND 2,000,000 requests x (1,500 in, 200 out) = 3,000M in, 400M out, work that can wait 24 h
    w, problems = workload_from_counts(
        path="w", requests_per_month=2 * M, input_tokens_per_request=1500, output_tokens_per_request=200,
        latency="offline",
    )  # fmt: skip
    assert problems == [] and w is not None
    options = price_options(row, w)
    best, reason = recommend(options, w)
    # THEN on-demand = 3000 x 1.10 + 400 x 5.50 = 3300 + 2200 = 5500; batch = 3000 x 0.55 + 400 x 2.75 = 2750
    assert {o.name: o.monthly_usd for o in options} == {"on-demand": 5500.00, "batch": 2750.00}
    # AND batch is recommended, saving 50%
    assert best.name == "batch"
    assert "50% less" in reason


def test_flex_and_priority_tiers() -> None:
    # GIVEN Amazon Nova Pro: standard $0.80 / $3.20, Flex $0.40 / $1.60, Priority $1.40 / $5.60 per 1M
    row = _row("amazon.nova-pro-v1:0", Deployment.GEO, NOVA_PRO_GEO)
    w = Workload(input_tokens=300 * M, output_tokens=30 * M, latency=Latency.FLEXIBLE)
    options = price_options(row, w)
    best, _ = recommend(options, w)
    # THEN on-demand 300 x 0.8 + 30 x 3.2 = 240 + 96 = 336; flex 120 + 48 = 168; priority 420 + 168 = 588
    assert {o.name: o.monthly_usd for o in options} == {
        "on-demand": 336.00,
        "flex": 168.00,
        "priority": 588.00,
        "batch": 168.00,
    }
    # AND a flexible workload may use Flex but not batch
    assert best.name == "flex"
    assert [o.name for o in options if not o.eligible] == ["batch"]


def test_an_interactive_workload_is_never_sent_to_batch() -> None:
    row = _row("amazon.nova-pro-v1:0", Deployment.GEO, NOVA_PRO_GEO)
    w = Workload(input_tokens=300 * M, output_tokens=30 * M)
    best, reason = recommend(price_options(row, w), w)
    # THEN on-demand wins although flex and batch cost half, and the reason names the cheaper option
    assert best.name == "on-demand"
    assert re.search(r"flex would cost \$168\.00 but needs latency: flexible", reason)


def test_provisioned_throughput_and_the_volume_at_which_it_beats_on_demand() -> None:
    # GIVEN Llama 3.1 70B: $0.72 per 1M in and out; provisioned throughput 6-month $13.08 per model unit-hour
    row = _row("meta.llama3-1-70b-instruct-v1:0", Deployment.GEO, LLAMA_70B)
    w = Workload(input_tokens=25_000 * M, output_tokens=5_000 * M)
    on_demand = price_options(row, w)[0]
    pt = {p["commitment"]: p for p in provisioned_throughput(row, on_demand, w)}
    # THEN on-demand = 30,000 x 0.72 = 21,600
    assert on_demand.monthly_usd == 21_600.00
    # AND one unit for 6 months = 13.08 x 730 = 9,548.40 a month: cheaper above 9,548.40 / (21,600 / 30e9) tokens
    six = pt["6-month commitment"]
    assert six["monthly_usd_per_model_unit"] == 9548.40
    assert six["beats_on_demand_above_tokens_per_month"] == 13_261_666_666
    assert six["cheaper_than_on_demand_now"] is True
    # AND it is mentioned, never recommended: per-unit throughput is unpublished
    econ = token_economics(ModelSource.parse("us.meta.llama3-1-70b-instruct-v1:0"), w, deploy_region="us-east-1")
    assert econ["recommended"] == "on-demand"
    assert "6-month commitment" in econ["reason"]


@pytest.mark.parametrize(("global_allowed", "expected"), [(True, (5000.00, 500.00)), (False, None)])
def test_a_geographic_profile_is_shown_the_global_profile_price(
    global_allowed: bool, expected: tuple[float, float] | None
) -> None:
    # GIVEN Claude Haiku 4.5 through the us. profile ($1.10 / $5.50) and 3,000M in, 400M out
    w = Workload(input_tokens=3_000 * M, output_tokens=400 * M)
    source = ModelSource.parse("us.anthropic.claude-haiku-4-5-20251001-v1:0")
    econ = token_economics(source, w, global_allowed=global_allowed)
    # THEN through global. ($1 / $5): 3000 x 1 + 400 x 5 = 5,000 against 3300 + 2200 = 5,500, saving 500;
    # a single-Region residency gets no such hint
    glob = econ["global_profile"]
    assert (None if glob is None else (glob["monthly_usd"], glob["monthly_saving_usd"])) == expected


def test_a_model_without_a_price_row_is_reported_not_guessed() -> None:
    econ = token_economics(ModelSource.parse("cohere.command-r-v1:0"), Workload(input_tokens=M, output_tokens=M))
    assert econ["monthly_usd"] is None
    assert econ["recommended"] is None
    assert "no price row for cohere.command-r-v1:0" in econ["reason"]
    assert econ["warnings"] == [f"workload not priced: {econ['reason']}"]


# ------------------------------------------------------------------------------------------ quotas


def test_quota_warning_when_the_average_tokens_per_minute_exceed_the_default() -> None:
    # GIVEN Llama 3.1 70B through a US profile: default 'Cross-region ... tokens per minute' 600,000
    w = Workload(input_tokens=25_000 * M, output_tokens=5_000 * M)
    info, warnings = quota_check(TABLE, ModelSource.parse("us.meta.llama3-1-70b-instruct-v1:0"), w, "us-east-1")
    # THEN (25,000M + 5,000M x 1) / 43,800 minutes = 684,932 > 600,000
    assert info["expected_quota_tokens_per_minute"] == 684_932
    assert info["default_tokens_per_minute"] == 600_000
    assert len(warnings) == 1 and "exceed the default" in warnings[0]


def test_claude_output_burns_five_quota_tokens() -> None:
    # GIVEN Claude 3.7 Sonnet through an EU profile (default 100,000 TPM in eu-west-1; output burns 5x)
    w = Workload(
        input_tokens=1_000 * M, output_tokens=500 * M, cache_write_tokens=100 * M, cache_read_tokens=10_000 * M
    )
    info, warnings = quota_check(
        TABLE, ModelSource.parse("eu.anthropic.claude-3-7-sonnet-20250219-v1:0"), w, "eu-west-1"
    )
    # THEN (1,000M + 100M cache writes + 500M x 5) / 43,800 = 82,192; cache reads do not count
    assert info["expected_quota_tokens_per_minute"] == 82_192
    assert info["default_tokens_per_minute"] == 100_000
    assert warnings == []


@pytest.mark.parametrize(
    ("region", "expected"),
    [("us-east-1", 2_000_000), ("eu-west-1", 300_000), (None, 200_000)],
)
def test_default_quota_by_region(region: str | None, expected: int) -> None:
    # GIVEN Claude 3 Haiku in one Region: 2,000,000 in us-east-1, 200,000 in ap-northeast-1, 300,000 elsewhere
    w = Workload(input_tokens=M, output_tokens=M)
    info, _ = quota_check(TABLE, ModelSource.parse("anthropic.claude-3-haiku-20240307-v1:0"), w, region)
    # THEN a region-agnostic stack is checked against the lowest default of any Region
    assert info["default_tokens_per_minute"] == expected


def test_no_warning_for_a_model_without_a_sourced_quota() -> None:
    w = Workload(input_tokens=10**15, output_tokens=10**15)
    info, warnings = quota_check(TABLE, ModelSource.parse("global.anthropic.claude-sonnet-4-5-20250929-v1:0"), w, None)
    assert warnings == []
    assert info["default_tokens_per_minute"] is None
    assert "no sourced default quota" in info["note"]


# ------------------------------------------------------------------------------------------ workload


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (
            {"input_tokens_per_month": 1, "output_tokens_per_month": 1, "requests_per_month": 5},
            r"^w\.requests_per_month: cannot be combined with input_tokens_per_month",
        ),
        ({"input_tokens_per_month": 1}, r"^w\.output_tokens_per_month: required for a workload"),
        ({"requests_per_month": 5, "input_tokens_per_request": 10}, r"^w\.output_tokens_per_request: required"),
        (
            {"input_tokens_per_month": 1, "output_tokens_per_month": 1, "latency": "soon"},
            r"^w\.latency: 'soon' is not allowed; use one of interactive, flexible, offline",
        ),
    ],
)
def test_fails_on_an_incomplete_or_mixed_workload(counts: dict[str, int], message: str) -> None:
    workload, problems = workload_from_counts(path="w", **counts)  # type: ignore[arg-type]
    assert workload is None
    assert re.search(message, problems[0])
