"""Two load-test reports side by side (``inference-loadtest compare A.json B.json``): two endpoints, two models, a
Bedrock profile against a SageMaker endpoint, or one endpoint before and after a change.

Levels are matched by their label (concurrency ``4``, rate ``2/s``, ``trace``); each figure of :data:`FIGURES`
is shown for A and B with B - A. The chart (:func:`chart_data`, drawn by :func:`chart`) has p90 TTFT against
total output tokens/s (one line per report), goodput per level, and, when either report scored a dataset,
success rate per level.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError

FIGURES = (
    ("ttft_ms.p50", "TTFT p50 ms"),
    ("ttft_ms.p90", "TTFT p90 ms"),
    ("itl_ms.p90", "ITL p90 ms"),
    ("e2e_ms.p90", "e2e p90 ms"),
    ("output_tokens_per_s", "output tokens/s"),
    ("goodput_fraction", "goodput"),
    ("error_rate", "error rate"),
    ("cost_per_million_output_tokens_usd", "$ per 1M output tokens"),
    ("quality.success_rate", "success rate"),
    ("quality.retry_rate", "retries per request"),
    ("quality.cost_per_successful_task_usd", "$ per successful task"),
)
"""The compared figures: a level's dotted path and its label."""


def read_report(path: str | Path) -> dict[str, Any]:
    """A report written by ``--out`` (or ``--json``)."""
    try:
        report = json.loads(Path(path).read_text())
    except OSError as exc:
        raise InferenceConfigError(f"compare: cannot read {path}: {exc.strerror}") from None
    except ValueError:
        raise InferenceConfigError(f"compare: {path} is not JSON; use a report written by --out") from None
    if not isinstance(report, dict) or not isinstance(report.get("levels"), list):
        raise InferenceConfigError(f"compare: {path} is not a load-test report (no levels); use one written by --out")
    return report


def level_label(level: dict[str, Any]) -> str:
    if level.get("concurrency"):
        return str(level["concurrency"])
    return "trace" if level.get("rate_rps") is None else f"{level['rate_rps']:g}/s"


def _get(level: dict[str, Any] | None, path: str) -> float | None:
    node: Any = level
    for part in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return float(node) if isinstance(node, int | float) and not isinstance(node, bool) else None


def compare(a: dict[str, Any], b: dict[str, Any], *, label_a: str = "A", label_b: str = "B") -> dict[str, Any]:
    """The comparison document: both targets, and per level label every figure for A and B with B - A."""
    levels_a = {level_label(lv): lv for lv in a["levels"]}
    levels_b = {level_label(lv): lv for lv in b["levels"]}
    labels = list(levels_a) + [k for k in levels_b if k not in levels_a]
    rows = []
    for label in labels:
        figures = {}
        for path, _ in FIGURES:
            va, vb = _get(levels_a.get(label), path), _get(levels_b.get(label), path)
            if va is None and vb is None:
                continue
            delta = None if va is None or vb is None else round(vb - va, 6)
            figures[path] = {"a": va, "b": vb, "delta": delta}
        present = [x for x, d in ((label_a, levels_a), (label_b, levels_b)) if label in d]
        rows.append({"level": label, "in": present, "figures": figures})
    return {
        "a": {"label": label_a, "target": (a.get("target") or {}).get("identifier")},
        "b": {"label": label_b, "target": (b.get("target") or {}).get("identifier")},
        "levels": rows,
    }


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4g}"


def _delta(value: float | None) -> str:
    return "-" if value is None else f"{value:+.4g}"


def markdown(cmp: dict[str, Any], *, chart: str | None = None) -> str:
    """Markdown in ``diff``'s layout: the two targets, then per level one table of figures A, B and B - A."""
    a, b = cmp["a"], cmp["b"]
    names = dict(FIGURES)
    out = [f"### Load test comparison: {a['label']} vs {b['label']}", ""]
    out += [f"- **{a['label']}**: `{a['target']}`", f"- **{b['label']}**: `{b['target']}`"]
    for row in cmp["levels"]:
        out += ["", f"#### Level {row['level']}", ""]
        if len(row["in"]) < 2:
            out.append(f"Only in {row['in'][0]}.")
        out += [f"| figure | {a['label']} | {b['label']} | {b['label']} - {a['label']} |", "|---|---:|---:|---:|"]
        for path, f in row["figures"].items():
            out.append(f"| {names[path]} | {_fmt(f['a'])} | {_fmt(f['b'])} | {_delta(f['delta'])} |")
    if chart:
        out += ["", f"![{a['label']} vs {b['label']}]({chart})"]
    return "\n".join(out) + "\n"


def table(cmp: dict[str, Any]) -> str:
    """A terminal table: one line per level and figure."""
    a, b = cmp["a"], cmp["b"]
    names = dict(FIGURES)
    rows = [["level", "figure", a["label"], b["label"], "delta"]]
    for row in cmp["levels"]:
        for path, f in row["figures"].items():
            rows.append([row["level"], names[path], _fmt(f["a"]), _fmt(f["b"]), _delta(f["delta"])])
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [f"{a['label']}: {a['target']}  vs  {b['label']}: {b['target']}"]
    for n, r in enumerate(rows):
        lines.append(
            "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def chart_data(cmp: dict[str, Any]) -> list[dict[str, Any]]:
    """The chart's panels: title, axis labels, kind (``line``: x against y; ``bars``: one bar per level and
    report) and one series per report (its label, x, y, and the point labels)."""
    a, b = cmp["a"]["label"], cmp["b"]["label"]
    rows = cmp["levels"]

    def series(path_x: str | None, path_y: str, scale: float = 1.0) -> list[dict[str, Any]]:
        out = []
        for side, name in (("a", a), ("b", b)):
            points = [
                (row["level"], row["figures"].get(path_x or "", {}).get(side), row["figures"].get(path_y, {}).get(side))
                for row in rows
            ]
            if path_x is None:
                kept = [(lbl, y) for lbl, _, y in points if y is not None]
                out.append({"label": name, "x": [lbl for lbl, _ in kept], "y": [y * scale for _, y in kept]})
            else:
                kept3 = [(lbl, x, y) for lbl, x, y in points if x is not None and y is not None]
                out.append(
                    {
                        "label": name,
                        "x": [x for _, x, _ in kept3],
                        "y": [y * scale for _, _, y in kept3],
                        "points": [lbl for lbl, _, _ in kept3],
                    }
                )
        return out

    panels = [
        {
            "title": "p90 TTFT against throughput",
            "kind": "line",
            "xlabel": "output tokens/s (all requests)",
            "ylabel": "TTFT p90 ms",
            "series": series("output_tokens_per_s", "ttft_ms.p90"),
        },
        {
            "title": "goodput per level",
            "kind": "bars",
            "xlabel": "level",
            "ylabel": "goodput %",
            "series": series(None, "goodput_fraction", 100.0),
        },
    ]
    if any("quality.success_rate" in row["figures"] for row in rows):
        panels.append(
            {
                "title": "success rate per level",
                "kind": "bars",
                "xlabel": "level",
                "ylabel": "success %",
                "series": series(None, "quality.success_rate", 100.0),
            }
        )
    return panels


def chart(panels: Sequence[dict[str, Any]], path: str | Path, *, title: str) -> list[dict[str, Any]]:
    """Draw the panels side by side into ``path``; returns what the drawn figure holds, read back from its axes
    (title, axis labels, legend entries, each line's or bar group's data), so a test checks the picture's
    content, not only that a file was written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), dpi=80, squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        if panel["kind"] == "line":
            for s in panel["series"]:
                ax.plot(s["x"], s["y"], "o-", label=s["label"])
                for lbl, x, y in zip(s["points"], s["x"], s["y"], strict=True):
                    ax.annotate(lbl, (x, y), textcoords="offset points", xytext=(4, 4))
        else:
            levels = list(dict.fromkeys(lbl for s in panel["series"] for lbl in s["x"]))
            width = 0.8 / max(1, len(panel["series"]))
            for k, s in enumerate(panel["series"]):
                xs = [levels.index(lbl) + k * width for lbl in s["x"]]
                ax.bar(xs, s["y"], width=width, label=s["label"])
            ax.set_xticks([i + width * (len(panel["series"]) - 1) / 2 for i in range(len(levels))], levels)
        ax.set_title(panel["title"])
        ax.set_xlabel(panel["xlabel"])
        ax.set_ylabel(panel["ylabel"])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    drawn = []
    for ax in axes[0]:
        lines = [
            {"label": ln.get_label(), "x": [float(v) for v in ln.get_xdata()], "y": [float(v) for v in ln.get_ydata()]}
            for ln in ax.lines
        ]
        bars = [{"label": c.get_label(), "y": [float(p.get_height()) for p in c.patches]} for c in ax.containers]
        drawn.append(
            {
                "title": ax.get_title(),
                "xlabel": ax.get_xlabel(),
                "ylabel": ax.get_ylabel(),
                "legend": [t.get_text() for t in ax.get_legend().get_texts()],
                "lines": lines,
                "bars": bars,
                "xticks": [t.get_text() for t in ax.get_xticklabels()],
            }
        )
    fig.savefig(Path(path))
    plt.close(fig)
    return drawn
