"""Percentiles, goodput, cost per token and the knee."""

from __future__ import annotations

from typing import Any

import pytest

from inference_loadtest.stats import Pricing, RequestResult, Slo, knee, level_summary, percentile


@pytest.mark.parametrize(("p", "value"), [(0, 1.0), (50, 2.5), (90, 3.7), (100, 4.0)])
def test_percentile_interpolates_between_ranks(p: float, value: float) -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], p) == pytest.approx(value)


def test_percentile_of_nothing_is_none() -> None:
    assert percentile([], 50) is None


def _ok(ttft: float, itl: float, tokens: int = 10, start: float = 0.0, end: float = 1.0) -> RequestResult:
    return RequestResult(
        ok=True,
        e2e_s=end - start,
        ttft_s=ttft,
        itls_s=[itl] * (tokens - 1),
        output_tokens=tokens,
        started=start,
        ended=end,
    )


def test_cost_per_million_output_tokens_from_price_and_instances() -> None:
    # GIVEN 2 instances at $3.60/h and 1000 output tokens in 1 s (1000 tokens/s)
    results = [_ok(0.1, 0.01, tokens=500, start=0.0, end=1.0), _ok(0.1, 0.01, tokens=500, start=0.0, end=1.0)]
    level = level_summary(results, concurrency=2, rate_rps=None, slo=Slo(), pricing=Pricing(3.6, 2, "test"))
    # THEN $7.20/h over 3.6M tokens/h is $2 per million
    assert level["output_tokens_per_s"] == 1000
    assert level["cost_per_million_output_tokens_usd"] == pytest.approx(2.0)


def test_goodput_counts_requests_within_the_slo() -> None:
    # GIVEN one fast request, one slow first token, one slow decode and one failure
    results = [
        _ok(0.1, 0.01),
        _ok(0.5, 0.01),
        _ok(0.1, 0.09),
        RequestResult(ok=False, e2e_s=0.2, error="ModelError", started=0, ended=0.2),
    ]
    level = level_summary(
        results, concurrency=4, rate_rps=None, slo=Slo(ttft_ms=200, itl_ms=50), pricing=Pricing(None, None, "")
    )
    # THEN only the first meets TTFT <= 200 ms and mean ITL <= 50 ms
    assert (level["goodput_fraction"], level["errors"], level["error_kinds"]) == (0.25, 1, {"ModelError": 1})


def _level(concurrency: int, ttft_p90: float, itl_p90: float = 10.0) -> dict[str, Any]:
    return {
        "concurrency": concurrency,
        "requests": 10,
        "errors": 0,
        "ttft_ms": {"p90": ttft_p90},
        "itl_ms": {"p90": itl_p90},
    }


SWEEP = [_level(1, 50), _level(2, 60), _level(4, 90), _level(8, 180), _level(16, 400)]


def test_knee_is_the_last_level_before_the_slo_breaks_and_suggests_the_config_value() -> None:
    # GIVEN p90 TTFT crossing 150 ms between 8 and 16 in flight on 2 instances, and a scaling target of 6
    result = knee(SWEEP, slo=Slo(ttft_ms=150), instances=2, scaling_target=6.0, target_key="endpoints[0].x")
    # THEN the knee is 4 in flight (2 per instance): the target of 6 is above it, suggest 2
    assert result is not None
    assert (result["holds_at_concurrency"], result["breaks_at_concurrency"], result["per_instance"]) == (4, 8, 2.0)
    assert result["suggested"] == {"endpoints[0].x": 2}
    assert "set endpoints[0].x: 2" in result["message"]


def test_knee_keeps_a_target_at_or_below_it() -> None:
    result = knee(SWEEP, slo=Slo(ttft_ms=200), instances=1, scaling_target=6.0, target_key="k")
    assert result is not None
    assert result["holds_at_concurrency"] == 8
    assert "keep it" in result["message"]


@pytest.mark.parametrize(
    ("slo", "holds", "phrase"),
    [(Slo(ttft_ms=10), None, "already at concurrency 1"), (Slo(itl_ms=1000), 16, "extend --concurrency")],
)
def test_knee_not_bracketed(slo: Slo, holds: int | None, phrase: str) -> None:
    result = knee(SWEEP, slo=slo, instances=1, scaling_target=8.0, target_key="k")
    assert result is not None
    assert result["holds_at_concurrency"] == holds
    assert phrase in result["message"]
    assert result["suggested"] is None


def test_no_knee_without_an_slo() -> None:
    assert knee(SWEEP, slo=Slo(), instances=1, scaling_target=8.0, target_key="k") is None
