"""Statistics of a load test: percentiles, per-level summaries, goodput, cost per token, the knee."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inference_loadtest.arrivals import dispersion

PERCENTILES = (50, 90, 99)


def percentile(values: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile by linear interpolation between closest ranks (numpy's default); None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary_ms(values_s: Sequence[float]) -> dict[str, float | None]:
    """p50/p90/p99 of ``values_s`` (seconds) in milliseconds, rounded to 0.01 ms."""
    out: dict[str, float | None] = {}
    for p in PERCENTILES:
        v = percentile(values_s, p)
        out[f"p{p}"] = None if v is None else round(v * 1000, 2)
    return out


@dataclass
class RequestResult:
    """One measured request. Times are seconds from the first attempt's send (``time.perf_counter``)."""

    ok: bool
    e2e_s: float
    ttft_s: float | None = None
    itls_s: list[float] = field(default_factory=list)
    output_tokens: int = 0
    output_tokens_from_server: bool = False
    error: str | None = None
    throttled: bool = False
    retries: int = 0
    warmup: bool = False
    started: float = 0.0
    ended: float = 0.0
    request_id: str | None = None
    """The service's ``x-amzn-RequestId`` of a response that streamed (None otherwise)."""
    index: int = -1
    """The request's position in its level (the prompt it sent is ``prompts[index % len(prompts)]``)."""
    scheduled: float | None = None
    """Open loop: when the arrival process scheduled the request (same clock as ``started``); None: closed loop."""
    input_tokens: int | None = None
    """The prompt's input length in tokens as the workload built it (None: unknown)."""
    group: str | None = None
    """The workload's group of the request (``shared prefix``, ``turn 2``, ...), None without groups."""
    text: str | None = None
    """The generated text (streams: the content events' text; ``InvokeEndpoint``: the body's), for scoring."""
    check_passed: bool | None = None
    """The quality check's verdict on ``text`` (None: no check, or the request failed)."""
    check_detail: str | None = None
    """Why the check failed (or the judge's answer)."""

    @property
    def mean_itl_s(self) -> float | None:
        return sum(self.itls_s) / len(self.itls_s) if self.itls_s else None

    @property
    def lag_s(self) -> float:
        """How much later than scheduled the request was sent: 0 in a closed loop (no schedule)."""
        return 0.0 if self.scheduled is None else max(0.0, self.started - self.scheduled)

    @property
    def ttft_from_schedule_s(self) -> float | None:
        """TTFT counted from the scheduled send time (open loop), else from the send: what a user waited."""
        return None if self.ttft_s is None else self.ttft_s + self.lag_s

    @property
    def e2e_from_schedule_s(self) -> float:
        return self.e2e_s + self.lag_s


@dataclass(frozen=True)
class Slo:
    """Service-level objective: p90 time to first token and inter-token latency, each optional."""

    ttft_ms: float | None = None
    itl_ms: float | None = None

    def met_by(self, r: RequestResult) -> bool:
        """Goodput rule: the request succeeded, its TTFT (from the scheduled send time in an open loop) and its mean
        inter-token latency are within the SLO."""
        if not r.ok:
            return False
        ttft = r.ttft_from_schedule_s
        if self.ttft_ms is not None and (ttft is None or ttft * 1000 > self.ttft_ms):
            return False
        itl = r.mean_itl_s
        return not (self.itl_ms is not None and itl is not None and itl * 1000 > self.itl_ms)

    def to_dict(self) -> dict[str, float | None]:
        return {"ttft_ms": self.ttft_ms, "itl_ms": self.itl_ms}


@dataclass(frozen=True)
class Pricing:
    """What the endpoint costs while the test runs: instance price x instances in service."""

    price_per_hour_usd: float | None
    instances: int | None
    source: str

    @property
    def usd_per_hour(self) -> float | None:
        if self.price_per_hour_usd is None or self.instances is None:
            return None
        return self.price_per_hour_usd * self.instances


def level_summary(
    results: Sequence[RequestResult],
    *,
    concurrency: int | None,
    rate_rps: float | None,
    slo: Slo,
    pricing: Pricing,
    interrupted: bool = False,
) -> dict[str, Any]:
    """The report row of one level (warm-up requests excluded)."""
    measured = [r for r in results if not r.warmup]
    ok = [r for r in measured if r.ok]
    wall = max(r.ended for r in measured) - min(r.started for r in measured) if measured else 0.0
    tokens = sum(r.output_tokens for r in ok)
    tps = tokens / wall if wall > 0 else 0.0
    good = [r for r in measured if slo.met_by(r)]
    per_request_tps = [r.output_tokens / r.e2e_s for r in ok if r.e2e_s > 0]
    cost = None
    if pricing.usd_per_hour is not None and tps > 0:
        cost = round(pricing.usd_per_hour / (tps * 3600) * 1e6, 4)
    errors: dict[str, int] = {}
    for r in measured:
        if not r.ok:
            errors[r.error or "error"] = errors.get(r.error or "error", 0) + 1
    open_loop = any(r.scheduled is not None for r in measured)
    out: dict[str, Any] = {
        "concurrency": concurrency,
        "rate_rps": rate_rps,
        "requests": len(measured),
        "errors": len(measured) - len(ok),
        "error_rate": round((len(measured) - len(ok)) / len(measured), 4) if measured else 0.0,
        "error_kinds": errors,
        "throttled": sum(1 for r in measured if r.throttled),
        "retries": sum(r.retries for r in measured),
        "warmup_excluded": len(results) - len(measured),
        "latency_from": "scheduled send time" if open_loop else "send",
        "ttft_ms": summary_ms([t for r in ok if (t := r.ttft_from_schedule_s) is not None]),
        "itl_ms": summary_ms([gap for r in ok for gap in r.itls_s]),
        "e2e_ms": summary_ms([r.e2e_from_schedule_s for r in ok]),
        "input_tokens": token_stats([r.input_tokens for r in measured if r.input_tokens is not None]),
        "output_tokens_per_request": token_stats([r.output_tokens for r in ok]),
        "output_tokens": tokens,
        "output_tokens_from_server": bool(ok) and all(r.output_tokens_from_server for r in ok),
        "output_tokens_per_s": round(tps, 2),
        "output_tokens_per_s_per_request": {
            k: (None if v is None else round(v, 2))
            for k, v in ((f"p{p}", percentile(per_request_tps, p)) for p in PERCENTILES)
        },
        "requests_per_s": round(len(ok) / wall, 3) if wall > 0 else 0.0,
        "goodput_requests_per_s": round(len(good) / wall, 3) if wall > 0 else 0.0,
        "goodput_fraction": round(len(good) / len(measured), 4) if measured else 0.0,
        "duration_s": round(wall, 3),
        "cost_per_million_output_tokens_usd": cost,
        "interrupted": interrupted,
    }
    if open_loop:
        out["ttft_from_send_ms"] = summary_ms([r.ttft_s for r in ok if r.ttft_s is not None])
        out["e2e_from_send_ms"] = summary_ms([r.e2e_s for r in ok])
        lags = [r.lag_s for r in measured]
        out["schedule_lag_ms"] = {**summary_ms(lags), "max": round(max(lags) * 1000, 2)}
        out["arrivals"] = {
            "scheduled": dispersion([r.scheduled for r in measured if r.scheduled is not None]),
            "sent": dispersion([r.started for r in measured]),
        }
    groups = sorted({r.group for r in measured if r.group is not None}, key=_group_order)
    if groups:
        out["groups"] = {g: _group_summary([r for r in measured if r.group == g], slo) for g in groups}
    return out


def token_stats(values: Sequence[int]) -> dict[str, float | int | None]:
    """Count, total, mean and p50/p90/p99 of token counts (None when there are none)."""
    out: dict[str, float | int | None] = {
        "count": len(values),
        "total": sum(values),
        "mean": round(sum(values) / len(values), 2) if values else None,
    }
    for p in PERCENTILES:
        v = percentile(values, p)
        out[f"p{p}"] = None if v is None else round(v, 2)
    return out


def _group_order(name: str) -> tuple[int, str]:
    """``turn 2`` before ``turn 10``; other names alphabetically."""
    head, _, number = name.rpartition(" ")
    return (int(number), head) if number.isdigit() else (0, name)


def _group_summary(results: Sequence[RequestResult], slo: Slo) -> dict[str, Any]:
    ok = [r for r in results if r.ok]
    return {
        "requests": len(results),
        "errors": len(results) - len(ok),
        "ttft_ms": summary_ms([t for r in ok if (t := r.ttft_from_schedule_s) is not None]),
        "e2e_ms": summary_ms([r.e2e_from_schedule_s for r in ok]),
        "input_tokens": token_stats([r.input_tokens for r in results if r.input_tokens is not None]),
        "output_tokens_per_request": token_stats([r.output_tokens for r in ok]),
        "goodput_fraction": round(sum(1 for r in results if slo.met_by(r)) / len(results), 4) if results else 0.0,
    }


def holds_slo(level: dict[str, Any], slo: Slo) -> bool:
    """A level holds the SLO: some request succeeded and its p90 TTFT and p90 ITL are within the bounds."""
    if level["requests"] == 0 or level["errors"] == level["requests"]:
        return False
    for key, bound in (("ttft_ms", slo.ttft_ms), ("itl_ms", slo.itl_ms)):
        p90 = level[key]["p90"]
        if bound is not None and p90 is not None and p90 > bound:
            return False
    return True


def knee(
    levels: Sequence[dict[str, Any]],
    *,
    slo: Slo,
    instances: int | None,
    scaling_target: float | None,
    target_key: str | None,
) -> dict[str, Any] | None:
    """The concurrency per instance beyond which p90 TTFT or ITL breaks the SLO, against the scaling target.

    Only fixed-concurrency levels count, in increasing order; the knee is the last level whose p90 holds the
    SLO before the first that breaks it. Returns None without an SLO or without concurrency levels.
    """
    sweep = sorted((lv for lv in levels if lv["concurrency"]), key=lambda lv: lv["concurrency"])
    if not sweep or (slo.ttft_ms is None and slo.itl_ms is None):
        return None
    per = max(instances or 1, 1)
    holds: int | None = None
    breaks: int | None = None
    for lv in sweep:
        if holds_slo(lv, slo):
            holds = lv["concurrency"]
        else:
            breaks = lv["concurrency"]
            break
    out: dict[str, Any] = {
        "instances": per,
        "holds_at_concurrency": holds,
        "breaks_at_concurrency": breaks,
        "per_instance": None if holds is None else round(holds / per, 2),
        "scaling_target": scaling_target,
        "suggested": None,
    }
    if holds is None:
        out["message"] = f"p90 breaks the SLO already at concurrency {sweep[0]['concurrency']}"
    elif breaks is None:
        out["message"] = (
            f"p90 holds the SLO at every level tested (up to {holds} in flight, {holds / per:g} per instance): "
            "the knee is higher; extend --concurrency"
        )
    else:
        out["message"] = (
            f"p90 holds the SLO up to {holds / per:g} in-flight requests per instance and breaks at {breaks / per:g}"
        )
    if holds is not None and breaks is not None and scaling_target is not None and target_key:
        suggested = max(1, math.floor(holds / per))
        out["suggested"] = {target_key: suggested}
        if scaling_target > holds / per:
            out["message"] += (
                f"; the endpoint scales at {scaling_target:g}, above the knee: set {target_key}: {suggested}"
            )
        else:
            out["message"] += f"; the endpoint scales at {scaling_target:g}, at or below the knee: keep it"
    return out
