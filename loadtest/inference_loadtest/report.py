"""Load-test reports: the JSON document, a terminal table, Markdown, and a PNG chart (matplotlib)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError

TOKEN_COUNT_NOTE = (
    "output tokens are the server's own counts where it sends them (TGI/LMI details.generated_tokens, "
    "OpenAI usage.completion_tokens, Bedrock metadata usage.outputTokens); otherwise content events are counted"
)
TIMING_NOTE = (
    "times start when the first attempt's signed request goes to the HTTP layer (the socket write for the "
    "asyncio engine, botocore's before-send for threads); TTFT is the first output event, ITL the gaps "
    "between output events, e2e the last byte"
)


def _level_label(level: dict[str, Any]) -> str:
    return str(level["concurrency"]) if level["concurrency"] else f"{level['rate_rps']:g}/s"


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


def _footer(report: dict[str, Any]) -> list[str]:
    lines = []
    knee = report.get("knee")
    if knee:
        lines.append(f"knee: {knee['message']}")
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


def markdown(report: dict[str, Any], *, chart: str | None = None) -> str:
    """The report as Markdown: target, SLO, one table row per level, the knee, notes, and the chart."""
    target = report["target"]
    slo = report["slo"]
    out = [
        f"# Load test: {target['identifier']}",
        "",
        f"- API: `{target['api']}`, stream format: `{target['format']}`",
        f"- instances: {target['instances'] or '-'} at ${target['price_per_hour_usd'] or '-'}/h "
        f"({target['pricing_source']})",
        f"- SLO: TTFT p90 <= {slo['ttft_ms'] or '-'} ms, ITL p90 <= {slo['itl_ms'] or '-'} ms",
        "",
        "| " + " | ".join(_COLUMNS) + " |",
        "|" + "|".join("---" for _ in _COLUMNS) + "|",
    ]
    out.extend("| " + " | ".join(row) + " |" for row in _rows(report["levels"]))
    out.append("")
    out.extend(f"- {line}" for line in _footer(report))
    if chart:
        out.extend(["", f"![latency against throughput]({chart})"])
    return "\n".join(out) + "\n"


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=False) + "\n"


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
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=80)
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
    fig.suptitle(f"{report['target']['identifier']}: latency against throughput (labels: concurrency)")
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out
