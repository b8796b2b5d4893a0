"""Gates for pipelines: thresholds on any figure of a load-test report (``--gate``), crossed -> exit 1.

A gate is ``[LEVEL:]FIGURE OP NUMBER``: ``FIGURE`` a dotted path into a level of the JSON report
(``ttft_ms.p90``, ``goodput_fraction``, ``error_rate``, ``cost_per_million_output_tokens_usd``,
``quality.success_rate``, ``quality.cost_per_successful_task_usd``,
``groups.turn 2.ttft_ms.p90``, ...) or into the report itself (``knee.per_instance``,
``rate_search.highest_rate_holding_rps``); ``OP`` one of ``<=``, ``<``, ``>=``, ``>``; ``LEVEL`` a level's label
as the table prints it (``4``, ``2/s``, ``trace``) or, by default, every level. A figure without a value (no
price, no request succeeded) crosses the gate: a pipeline must not pass on a figure it did not get. With
``--runs`` the gates read the medians.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inference_constructs.errors import InferenceConfigError

OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
}
REPORT_FIGURES = ("knee", "rate_search")
"""Top-level parts of the report a gate can name (every other figure is a level's)."""
LEVEL_PARTS = (
    "requests", "errors", "error_rate", "throttled", "retries", "warmup_excluded", "ttft_ms", "itl_ms", "e2e_ms",
    "input_tokens", "output_tokens_per_request", "output_tokens", "output_tokens_per_s",
    "output_tokens_per_s_per_request", "requests_per_s", "goodput_requests_per_s", "goodput_fraction", "duration_s",
    "cost_per_million_output_tokens_usd", "ttft_from_send_ms", "e2e_from_send_ms", "schedule_lag_ms", "arrivals",
    "groups", "quality",
)  # fmt: skip
"""The first part of a level figure's path (``level_summary``'s keys)."""

_GATE = re.compile(r"^(?:(?P<level>[^:<>=]+):)?(?P<figure>[^<>=]+?)\s*(?P<op><=|>=|<|>)\s*(?P<bound>[-+0-9.eE]+)$")


@dataclass(frozen=True)
class Gate:
    """One threshold: ``figure op bound`` at ``level`` (None: every level)."""

    text: str
    figure: str
    op: str
    bound: float
    level: str | None = None

    @classmethod
    def parse(cls, text: str) -> Gate:
        m = _GATE.match(text.strip())
        bound = None
        if m:
            try:
                bound = float(m["bound"])
            except ValueError:
                bound = None
        figure = m["figure"].strip() if m else ""
        if m is None or bound is None or figure.split(".")[0] not in (*LEVEL_PARTS, *REPORT_FIGURES):
            raise InferenceConfigError(
                f"--gate: {text!r} is not allowed; use [LEVEL:]FIGURE OP NUMBER with OP one of <=, <, >=, >, e.g. "
                f"'ttft_ms.p90<=500', '8:goodput_fraction>=0.9', 'knee.per_instance>=4'; figures: "
                f"{', '.join((*LEVEL_PARTS, *REPORT_FIGURES))} (dotted into their parts)"
            )
        if figure.split(".")[0] in REPORT_FIGURES and m["level"]:
            raise InferenceConfigError(f"--gate: {text!r} is not allowed; {figure} is the run's, not a level's")
        return cls(text.strip(), figure, m["op"], bound, m["level"].strip() if m["level"] else None)


def _get(node: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _label(level: dict[str, Any]) -> str:
    if level.get("concurrency"):
        return str(level["concurrency"])
    return "trace" if level.get("rate_rps") is None else f"{level['rate_rps']:g}/s"


def evaluate(gates: Sequence[Gate], report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every gate at every level it applies to: the value found and whether it passed.

    A gate naming a level the run does not have is one crossed row (``value`` None): a renamed sweep must not
    pass silently.
    """
    rows: list[dict[str, Any]] = []
    for gate in gates:
        if gate.figure.split(".")[0] in REPORT_FIGURES:
            places: list[tuple[str | None, Any]] = [(None, report)]
        else:
            places = [(_label(lv), lv) for lv in report["levels"] if gate.level in (None, _label(lv))]
            if not places:
                places = [(gate.level, {})]
        for label, node in places:
            value = _get(node, gate.figure)
            number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
            passed = number is not None and OPS[gate.op](float(number), gate.bound)
            rows.append({"gate": gate.text, "level": label, "value": number, "passed": passed})
    return rows


def crossed(rows: Sequence[dict[str, Any]]) -> list[str]:
    """One line per crossed gate: what, where, and the value."""
    out = []
    for r in rows:
        where = "" if r["level"] is None else f" at level {r['level']}"
        value = "no value" if r["value"] is None else f"{r['value']:g}"
        out.append(f"{r['gate']}{where}: {value}")
    return [line for line, r in zip(out, rows, strict=True) if not r["passed"]]


def markdown(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The gates as the Markdown report's first section, as ``diff``'s: crossed ones listed, then a table."""
    if not rows:
        return []
    lines = ["### Load test gates", ""]
    lines += [f"- **Gate crossed:** {c}" for c in crossed(rows)] or ["No gate crossed."]
    lines += ["", "| gate | level | value | result |", "|---|---|---:|---|"]
    for r in rows:
        value = "-" if r["value"] is None else f"{r['value']:g}"
        lines.append(f"| `{r['gate']}` | {r['level'] or 'run'} | {value} | {'pass' if r['passed'] else 'crossed'} |")
    return [*lines, ""]
