"""Repeated runs (``--runs K``): the median of every figure over the runs and a confidence interval of its mean.

The interval is Student's t interval at 95% (mean +- t(0.975, K-1) x s / sqrt(K), s the sample standard
deviation of the K runs' values): it assumes the runs' values are independent and roughly normal, which a handful
of runs of the same workload are closer to than to anything a bootstrap could resample from 3 to 10 values. The
median is reported as the figure; the interval says how far the run-to-run spread leaves it uncertain.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

INTERVAL = "95% Student t interval of the mean over the runs"

T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""The 0.975 quantile of Student's t for 1..30 degrees of freedom (beyond: 1.96, the normal's; the test checks
every value against the distribution's CDF integrated numerically)."""


def t_quantile_975(df: int) -> float:
    """t(0.975, ``df``): the two-sided 95% critical value."""
    return T_975[df - 1] if df <= len(T_975) else 1.96


def interval(values: Sequence[float]) -> dict[str, Any]:
    """Median, mean, the 95% t interval of the mean (None below 2 values), min, max and the values."""
    mean = statistics.fmean(values)
    out: dict[str, Any] = {
        "median": round(statistics.median(values), 4),
        "mean": round(mean, 4),
        "ci95": None,
        "min": min(values),
        "max": max(values),
        "values": list(values),
    }
    if len(values) >= 2:
        half = t_quantile_975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
        out["ci95"] = [round(mean - half, 4), round(mean + half, 4)]
    return out


def _numbers(node: Any, prefix: str = "") -> dict[str, float]:
    """Every number of a level summary by its dotted path (``ttft_ms.p90``, ``groups.turn 2.ttft_ms.p50``)."""
    out: dict[str, float] = {}
    if isinstance(node, dict):
        for key, value in node.items():
            out.update(_numbers(value, f"{prefix}{key}."))
    elif isinstance(node, int | float) and not isinstance(node, bool):
        out[prefix[:-1]] = float(node)
    return out


def _with_medians(node: Any, medians: dict[str, float], prefix: str = "") -> Any:
    if isinstance(node, dict):
        return {k: _with_medians(v, medians, f"{prefix}{k}.") for k, v in node.items()}
    path = prefix[:-1]
    if isinstance(node, int | float) and not isinstance(node, bool) and path in medians:
        value = medians[path]
        return round(value, 4) if isinstance(node, float) or value != int(value) else int(value)
    return node


_KEYS = ("concurrency", "rate_rps")
"""What identifies a level across runs (not aggregated)."""


def combine(runs: Sequence[Sequence[dict[str, Any]]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The levels with each figure the median over the runs, and per level every figure's :func:`interval`.

    Levels are matched by position (every run has the same levels in the same order; a rate search can differ
    between runs, so only the levels every run has are combined). A figure missing from some runs is combined
    over the runs that have it.
    """
    count = min(len(levels) for levels in runs)
    medians_out: list[dict[str, Any]] = []
    figures_out: list[dict[str, Any]] = []
    for i in range(count):
        per_run = [_numbers(levels[i]) for levels in runs]
        paths = sorted({p for numbers in per_run for p in numbers if p not in _KEYS})
        figures = {p: interval([numbers[p] for numbers in per_run if p in numbers]) for p in paths}
        medians = {p: f["median"] for p, f in figures.items()}
        medians_out.append(_with_medians(runs[0][i], medians))
        figures_out.append({**{k: runs[0][i].get(k) for k in _KEYS}, "figures": figures})
    return medians_out, figures_out


def knee_spread(knees: Sequence[dict[str, Any] | None]) -> dict[str, Any] | None:
    """The knee of each run, and the spread of its per-instance value and of the suggested setting."""
    present = [k for k in knees if k]
    if not present:
        return None
    out: dict[str, Any] = {"per_run": [k.get("per_instance") for k in present]}
    values = [k["per_instance"] for k in present if k.get("per_instance") is not None]
    out["per_instance"] = interval(values) if values else None
    suggested = [next(iter(k["suggested"].values())) for k in present if k.get("suggested")]
    out["suggested"] = interval(suggested) if suggested else None
    return out
