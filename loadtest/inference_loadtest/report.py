"""Load-test reports: the JSON document, a terminal table, Markdown, and a PNG chart (matplotlib)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.stats import RequestResult

TOKEN_COUNT_NOTE = (
    "output tokens are the server's own counts where it sends them (TGI/LMI details.generated_tokens, "
    "OpenAI usage.completion_tokens, Bedrock metadata usage.outputTokens); otherwise content events are counted"
)
INPUT_TOKEN_NOTE = (
    "input tokens are the workload's own counts (synthetic prompts: one word per token; a prompts file's "
    "input_tokens; a trace's input_tokens), not the server's tokenizer"
)
SCHEDULE_NOTE = (
    "open-loop levels count TTFT and e2e from each request's scheduled send time, so a request the generator or "
    "a full --max-in-flight held back is measured from when it was due (no coordinated omission); "
    "ttft_from_send_ms is the same from the actual send, schedule_lag_ms the difference"
)
TIMING_NOTE = (
    "times start when the first attempt's signed request goes to the HTTP layer (the socket write for the "
    "asyncio engine, botocore's before-send for threads); TTFT is the first output event, ITL the gaps "
    "between output events, e2e the last byte"
)


def _level_label(level: dict[str, Any]) -> str:
    if level["concurrency"]:
        return str(level["concurrency"])
    return "trace" if level["rate_rps"] is None else f"{level['rate_rps']:g}/s"


def _pct(summary: dict[str, float | None], key: str) -> str:
    value = summary.get(key)
    return "-" if value is None else f"{value:.1f}"


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


_COLUMNS = (
    "level",
    "requests",
    "errors",
    "TTFT p50/p90/p99 ms",
    "ITL p50/p90/p99 ms",
    "e2e p50/p90 ms",
    "out tok/s",
    "tok/s/req p50",
    "req/s",
    "goodput",
    "$/1M out",
)


def _rows(levels: Sequence[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for lv in levels:
        rows.append(
            [
                _level_label(lv) + (" (partial)" if lv.get("interrupted") else ""),
                str(lv["requests"]),
                f"{lv['errors']} ({lv['throttled']} thr, {lv['retries']} retries)",
                "/".join(_pct(lv["ttft_ms"], k) for k in ("p50", "p90", "p99")),
                "/".join(_pct(lv["itl_ms"], k) for k in ("p50", "p90", "p99")),
                "/".join(_pct(lv["e2e_ms"], k) for k in ("p50", "p90")),
                f"{lv['output_tokens_per_s']:.0f}",
                _pct(lv["output_tokens_per_s_per_request"], "p50"),
                f"{lv['requests_per_s']:.2f}",
                f"{lv['goodput_fraction'] * 100:.0f}%",
                _money(lv["cost_per_million_output_tokens_usd"]),
            ]
        )
    return rows


def _group_lines(levels: Sequence[dict[str, Any]]) -> list[str]:
    """One line per group of each level that has groups: requests, TTFT p50/p90/p99, mean input tokens."""
    lines = []
    for lv in levels:
        for name, g in (lv.get("groups") or {}).items():
            ttft = "/".join(_pct(g["ttft_ms"], k) for k in ("p50", "p90", "p99"))
            mean_in = g["input_tokens"]["mean"]
            lines.append(
                f"level {_level_label(lv)} {name}: {g['requests']} requests, {g['errors']} errors, "
                f"TTFT p50/p90/p99 {ttft} ms, input tokens mean {'-' if mean_in is None else f'{mean_in:g}'}"
            )
    return lines


RUN_FIGURES = (
    ("ttft_ms.p90", "TTFT p90 ms"),
    ("itl_ms.p90", "ITL p90 ms"),
    ("output_tokens_per_s", "out tok/s"),
    ("goodput_fraction", "goodput"),
)
"""The figures the table and the Markdown report show with their interval over repeated runs (the JSON has all)."""


def _repeat_lines(report: dict[str, Any]) -> list[str]:
    runs = report.get("runs")
    if not runs:
        return []
    lines = []
    for level in runs["figures"]:
        parts = []
        for path, name in RUN_FIGURES:
            f = level["figures"].get(path)
            if f is None:
                continue
            ci = "" if f["ci95"] is None else f" [{f['ci95'][0]:.4g}, {f['ci95'][1]:.4g}]"
            parts.append(f"{name} {f['median']:.4g}{ci}")
        lines.append(f"runs: level {_level_label(level)}: " + ", ".join(parts))
    return [f"runs: {runs['count']} runs, medians [{runs['interval']}]", *lines]


def _quality_lines(levels: Sequence[dict[str, Any]]) -> list[str]:
    lines = []
    for lv in levels:
        q = lv.get("quality")
        if not q:
            continue
        cost = q["cost_per_successful_task_usd"]
        lines.append(
            f"quality: level {_level_label(lv)}: success {q['success_rate'] * 100:.0f}% "
            f"({q['successes']}/{q['requests']}), failed checks {q['check_failure_rate'] * 100:.0f}%, "
            f"retries per request {q['retry_rate']:g}, $ per successful task {'-' if cost is None else f'{cost:.6f}'}"
        )
    return lines


def _footer(report: dict[str, Any]) -> list[str]:
    lines = _group_lines(report["levels"]) + _quality_lines(report["levels"]) + _repeat_lines(report)
    knee = report.get("knee")
    if knee:
        lines.append(f"knee: {knee['message']}")
    search = report.get("rate_search")
    if search:
        lines.append(f"rate search: {search['message']}")
    for g in report.get("gates") or []:
        where = "" if g["level"] is None else f" at level {g['level']}"
        value = "no value" if g["value"] is None else f"{g['value']:g}"
        lines.append(f"gate {g['gate']}{where}: {value}, {'pass' if g['passed'] else 'CROSSED'}")
    lines.extend(f"note: {n}" for n in report.get("notes", []))
    if report.get("interrupted"):
        lines.append("interrupted: the last level is partial (requests in flight at Ctrl-C are not counted)")
    return lines


def table(report: dict[str, Any]) -> str:
    """A fixed-width terminal table of every level plus the knee and notes."""
    target = report["target"]
    rows = [list(_COLUMNS), *_rows(report["levels"])]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS))]
    out = [f"load test of {target['identifier']} ({target['api']}, format {target['format']})"]
    for n, row in enumerate(rows):
        cells = zip(row, widths, strict=True)
        out.append("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(cells)))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    out.extend(_footer(report))
    return "\n".join(out) + "\n"


def _run_lines(run: dict[str, Any] | None) -> list[str]:
    """The workload, the seed and the arrival process, as the Markdown report states them."""
    if not run:
        return []
    workload = ", ".join(f"{k} {v}" for k, v in run["workload"].items() if k != "kind" and v is not None)
    load = run.get("load") or {}
    lines = [f"- workload: {run['workload']['kind']}" + (f" ({workload})" if workload else "")]
    lines.append(f"- seed: {run['seed']} (prompts and arrival process)")
    lines.append(f"- tool: inference-loadtest {run.get('tool_version') or '-'}")
    if load.get("rates_rps") or load.get("find_rate") or load.get("trace_requests"):
        burst = f", burstiness {load['burstiness']:g}" if load.get("arrivals") == "gamma" else ""
        lines.append(f"- arrivals: {load['arrivals']}{burst}; latencies from the scheduled send time")
    return lines


def markdown(report: dict[str, Any], *, chart: str | None = None) -> str:
    """The report as Markdown: target, SLO, one table row per level, the knee, notes, and the chart."""
    target = report["target"]
    slo = report["slo"]
    from inference_loadtest import gates

    out = [
        f"# Load test: {target['identifier']}",
        "",
        *gates.markdown(report.get("gates") or []),
        f"- API: `{target['api']}`, stream format: `{target['format']}`",
        f"- instances: {target['instances'] or '-'} at ${target['price_per_hour_usd'] or '-'}/h "
        f"({target['pricing_source']})",
        f"- SLO: TTFT p90 <= {slo['ttft_ms'] or '-'} ms, ITL p90 <= {slo['itl_ms'] or '-'} ms",
        *_run_lines(report.get("run")),
        "",
        "| " + " | ".join(_COLUMNS) + " |",
        "|" + "|".join("---" for _ in _COLUMNS) + "|",
    ]
    out.extend("| " + " | ".join(row) + " |" for row in _rows(report["levels"]))
    out.append("")
    lags = [(lv, lv["schedule_lag_ms"]) for lv in report["levels"] if lv.get("schedule_lag_ms")]
    if lags:
        out.append(
            "- the generator's own overhead in the open loop (send - scheduled time, measured this run): "
            + "; ".join(f"{_level_label(lv)} p50 {g['p50']} ms, p99 {g['p99']} ms, max {g['max']} ms" for lv, g in lags)
        )
    out.extend(f"- {line}" for line in _footer(report))
    if chart:
        out.extend(["", f"![latency against throughput]({chart})"])
    return "\n".join(out) + "\n"


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=False) + "\n"


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 3)


def requests_jsonl(labels: Sequence[str], results: Sequence[Sequence[RequestResult]], *, run: int | None = None) -> str:
    """One JSON object a line per request of every level (warm-up included and marked), in finishing order.

    ``run``: the run's number with ``--runs`` (a ``run`` key first). Times are seconds from the level's first
    scheduled or sent request; ``ttft_ms`` and ``e2e_ms`` count from
    the scheduled send time in an open loop (as the level's percentiles do), ``*_from_send_ms`` from the send.
    """
    lines = []
    for label, level in zip(labels, results, strict=True):
        if not level:
            continue
        origin = min([r.started for r in level] + [r.scheduled for r in level if r.scheduled is not None])
        for r in level:
            record = {
                **({} if run is None else {"run": run}),
                "level": label,
                "index": r.index,
                "warmup": r.warmup,
                "group": r.group,
                "ok": r.ok,
                "error": r.error,
                "throttled": r.throttled,
                "retries": r.retries,
                "request_id": r.request_id,
                "scheduled_s": None if r.scheduled is None else round(r.scheduled - origin, 6),
                "sent_s": round(r.started - origin, 6),
                "lag_ms": _ms(r.lag_s),
                "ttft_ms": _ms(r.ttft_from_schedule_s),
                "ttft_from_send_ms": _ms(r.ttft_s),
                "e2e_ms": _ms(r.e2e_from_schedule_s),
                "e2e_from_send_ms": _ms(r.e2e_s),
                "itl_mean_ms": _ms(r.mean_itl_s),
                "input_tokens": r.input_tokens,
                "output_tokens": r.output_tokens,
                "output_tokens_from_server": r.output_tokens_from_server,
            }
            if r.check_passed is not None or r.check_detail:
                record["check_passed"] = r.check_passed
                record["check_detail"] = r.check_detail
            lines.append(json.dumps(record))
    return "".join(line + "\n" for line in lines)


def chart(report: dict[str, Any], path: str | Path) -> Path:
    """A PNG of p50/p90 TTFT and ITL against total output tokens/s, one point per level, SLO lines dashed.

    Raises
    ------
    InferenceConfigError
        When matplotlib is not installed (``pip install 'inference-loadtest[chart]'``, or the library's
        ``loadtest`` extra).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InferenceConfigError(
            "--chart: needs matplotlib; install it with pip install 'inference-loadtest[chart]'"
        ) from None
    levels = [lv for lv in report["levels"] if lv["requests"]]
    quality = [lv for lv in levels if lv.get("quality")]
    fig, axes = plt.subplots(1, 3 if quality else 2, figsize=(15 if quality else 10, 4), dpi=80)
    x = [lv["output_tokens_per_s"] for lv in levels]
    for ax, key, title, bound in (
        (axes[0], "ttft_ms", "time to first token", report["slo"]["ttft_ms"]),
        (axes[1], "itl_ms", "inter-token latency", report["slo"]["itl_ms"]),
    ):
        for pct, style in (("p50", "o-"), ("p90", "s--")):
            ax.plot(x, [lv[key][pct] for lv in levels], style, label=pct)
        for lv, xv in zip(levels, x, strict=True):
            ax.annotate(_level_label(lv), (xv, lv[key]["p90"] or 0), textcoords="offset points", xytext=(4, 4))
        if bound:
            ax.axhline(bound, color="red", linestyle=":", label=f"SLO {bound:g} ms")
        ax.set_title(title)
        ax.set_xlabel("output tokens/s (all requests)")
        ax.set_ylabel("ms")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend()
    if quality:
        ax = axes[2]
        names = [_level_label(lv) for lv in quality]
        ax.bar(names, [lv["quality"]["success_rate"] * 100 for lv in quality], label="success")
        ax.set_title("success rate (dataset checks)")
        ax.set_xlabel("level")
        ax.set_ylabel("%")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(
        f"{report['target']['identifier']}: latency against throughput (labels: concurrency, or rate per second)"
    )
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out
