"""The whole ``diff`` result (plan side and template side), its gates, and its three renderings: a plain-text
table, JSON and Markdown (for a pull-request comment)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inference_constructs.diff.plans import Change, ItemDiff, PlanDiff
from inference_constructs.diff.templates import ResourceChange, TemplateDiff

__all__ = ["DiffReport", "Gates"]


@dataclass(frozen=True)
class Gates:
    """The gates a caller asked for: ``fail_over_usd`` (the monthly cost at maximum capacity may rise by at most
    this many USD; None: no cost gate) and ``fail_on_replacement`` (any user-facing replacement, move or
    CloudFormation refusal crosses it; routine replacements such as an endpoint config do not)."""

    fail_over_usd: float | None = None
    fail_on_replacement: bool = False


@dataclass(frozen=True)
class DiffReport:
    """What ``diff`` found: the plan diff, the template diff (None when templates were unavailable, with why)."""

    plans: PlanDiff
    templates: TemplateDiff | None
    why_no_templates: str = ""

    def crossed(self, gates: Gates) -> list[str]:
        """One sentence per crossed gate (empty when none is)."""
        out = []
        rise = self.plans.max_cost_increase_usd
        if gates.fail_over_usd is not None and rise > gates.fail_over_usd:
            out.append(
                f"--fail-over-usd {gates.fail_over_usd:g}: the monthly cost at maximum capacity rises by {rise:.2f} USD"
            )
        if gates.fail_on_replacement:
            updates = self.plans.updates
            if updates:
                out.append(
                    f"--fail-on-replacement: {len(updates)} plan update warning(s): "
                    + ", ".join(sorted({u.code for u in updates}))
                )
            if self.templates is None:
                out.append(f"--fail-on-replacement: replacements unknown ({self.why_no_templates})")
            else:
                visible = self.templates.user_facing_replacements
                moves = [c for c in self.templates.replacements if c.status == "moved" and c not in visible]
                blockers = self.templates.blockers
                if visible or moves or blockers:
                    out.append(
                        f"--fail-on-replacement: {len(visible)} user-facing replacement(s), {len(moves)} other "
                        f"move(s) between stacks, {len(blockers)} change(s) that would fail"
                    )
        return out

    def to_dict(self, gates: Gates = Gates()) -> dict[str, Any]:
        """Plain JSON-able form (the ``--json`` output)."""
        out = self.plans.to_dict()
        out["templates"] = self.templates.to_dict() if self.templates is not None else None
        if self.templates is None:
            out["templates_unavailable"] = self.why_no_templates
        out["gates_crossed"] = self.crossed(gates)
        return out

    # ------------------------------------------------------------------------------------------ text

    def table(self, gates: Gates = Gates()) -> str:
        """Plain text: the plan changes, costs, replacements, updates, new warnings and crossed gates."""
        lines = ["Endpoints and profiles"]
        lines += [f"  {line}" for line in _item_lines(self.plans)] or ["  no endpoint or profile changes"]
        lines += ["", "Cost                              old         new       delta"]
        lines += [f"  {label:<28}{o:>10}  {n:>10}  {d:>10}" for label, o, n, d in _cost_rows(self.plans)]
        lines += ["", *self._resource_text()]
        lines += ["", "Plan update warnings"]
        lines += [f"  {u}" for u in self.plans.updates] or ["  none"]
        lines += ["", "New warnings"]
        lines += [f"  [{w.code}] {w.text}" for w in self.plans.new_warnings] or ["  none"]
        if self.plans.resolved_warnings:
            lines += ["Resolved warnings", *(f"  [{w.code}] {w.text}" for w in self.plans.resolved_warnings)]
        lines += [f"note: {n}" for n in self.plans.notes]
        lines += ["", *_gate_lines(self.crossed(gates), gates)]
        return "\n".join(lines) + "\n"

    def _resource_text(self) -> list[str]:
        if self.templates is None:
            return [f"Templates: not compared ({self.why_no_templates})"]
        t = self.templates
        lines = ["The update would fail (CloudFormation or SageMaker refuses)"]
        lines += [f"  {b}" for b in t.blockers] or ["  nothing"]
        lines += ["User-facing replacements"]
        lines += [f"  {_describe(c)}" for c in t.user_facing_replacements] or ["  none"]
        routine = [c for c in t.replacements if c.user_facing is None]
        lines += ["Routine replacements (nothing a client calls changes)"]
        lines += [f"  {_describe(c)}" for c in routine] or ["  none"]
        for status, title in (("updated", "Updated in place"), ("added", "Added"), ("removed", "Removed")):
            found = [c for c in t.changes if c.status == status]
            if found:
                lines.append(f"{title} ({len(found)})")
                lines += [f"  {_short(c)}" for c in found]
        if t.stacks_added or t.stacks_removed:
            lines.append(
                f"Stacks added: {', '.join(t.stacks_added) or '-'}; removed: {', '.join(t.stacks_removed) or '-'}"
            )
        lines.append(f"Replacement rules: {t.source}")
        return lines

    # ------------------------------------------------------------------------------------------ markdown

    def markdown(self, gates: Gates = Gates()) -> str:
        """Markdown for a pull-request comment: the same sections as :meth:`table`, as tables and lists."""
        crossed = self.crossed(gates)
        lines = ["### Inference platform diff", ""]
        lines += [f"- **Gate crossed:** {c}" for c in crossed] or ["No gate crossed."]
        lines += ["", "| Cost | old | new | delta |", "|---|---:|---:|---:|"]
        lines += [f"| {label} | {o} | {n} | {d} |" for label, o, n, d in _cost_rows(self.plans)]
        changed = [i for i in self.plans.items if i.status != "unchanged"]
        lines += ["", "#### Endpoints and profiles", ""]
        if changed:
            lines += ["| | kind | name | changes | monthly at min | monthly at max |", "|---|---|---|---|---:|---:|"]
            lines += [_item_row(i) for i in changed]
        else:
            lines.append("No endpoint or profile changes.")
        if self.plans.updates:
            lines += ["", "#### Plan update warnings", ""]
            lines += [f"- `{u.code}` {u.message}" for u in self.plans.updates]
        lines += ["", *self._resource_markdown()]
        lines += ["", "#### New warnings", ""]
        lines += [f"- `{w.code}` {w.text}" for w in self.plans.new_warnings] or ["None."]
        lines += [f"- note: {n}" for n in self.plans.notes]
        return "\n".join(lines) + "\n"

    def _resource_markdown(self) -> list[str]:
        if self.templates is None:
            return [f"Templates not compared: {self.why_no_templates}."]
        t = self.templates
        lines = ["#### The update would fail", ""]
        lines += [f"- :x: {b}" for b in t.blockers] or ["Nothing."]
        lines += ["", "#### Replacements", ""]
        if t.replacements:
            lines += ["| what | resource | forced by |", "|---|---|---|"]
            lines += [
                f"| {f'{c.user_facing}: {c.replacement_effect}' if c.user_facing else 'routine'} | "
                f"`{c.stack}/{c.logical_id}` ({c.resource_type}) | "
                f"{'; '.join(c.forced_by)} |"
                for c in sorted(t.replacements, key=lambda c: c.user_facing is None)
            ]
        else:
            lines.append("None.")
        visible = [c for c in t.changes if c.status == "updated" and c.user_facing is not None]
        if visible:
            lines += ["", "User-facing resources updated in place:", ""]
            lines += [f"- {c.user_facing} `{c.label}`: {', '.join(c.changed)}" for c in visible]
        counts = {s: sum(1 for c in t.changes if c.status == s) for s in ("updated", "added", "removed")}
        lines += ["", f"{counts['updated']} updated in place, {counts['added']} added, {counts['removed']} removed."]
        return lines


def _signed(value: float, digits: int = 2) -> str:
    return f"{value:+.{digits}f}"


def _cost_rows(plans: PlanDiff) -> list[tuple[str, str, str, str]]:
    rows = []
    for label, (o, n), digits in (
        ("monthly USD at min capacity", plans.monthly_usd_at_min, 2),
        ("monthly USD at max capacity", plans.monthly_usd_at_max, 2),
        ("Savings Plan commitment $/h", plans.commitment_usd_per_hour, 3),
    ):
        rows.append((label, f"{o:.{digits}f}", f"{n:.{digits}f}", _signed(n - o, digits)))
    return rows


def _item_lines(plans: PlanDiff) -> list[str]:
    lines: list[str] = []
    for item in plans.items:
        if item.status == "unchanged":
            continue
        cost = ""
        if item.kind == "endpoint":
            lo, hi = item.monthly_usd_at_min, item.monthly_usd_at_max
            cost = f"  monthly min {_signed(lo[1] - lo[0])}, max {_signed(hi[1] - hi[0])}"
        lines.append(f"{item.status:<9} {item.kind} {item.name}{cost}")
        for c in item.changes:
            lines.append(f"          {c.field}: {c.old} -> {c.new}")
            if c.reason:
                lines.append(f"            why: {c.reason}")
    return lines


def _item_row(item: ItemDiff) -> str:
    changes = "<br>".join(_change_cell(c) for c in item.changes) or "-"
    lo, hi = item.monthly_usd_at_min, item.monthly_usd_at_max
    costs = f"{_signed(lo[1] - lo[0])} | {_signed(hi[1] - hi[0])}" if item.kind == "endpoint" else "- | -"
    return f"| {item.status} | {item.kind} | {item.name} | {changes} | {costs} |"


def _change_cell(change: Change) -> str:
    why = f"<br>why: {change.reason}" if change.reason else ""
    return f"{change.field}: {change.old} → {change.new}{why}".replace("|", "\\|")


def _describe(change: ResourceChange) -> str:
    what = change.user_facing or change.resource_type
    where = f"{change.stack}/{change.logical_id}"
    effect = f" ({change.replacement_effect})" if change.replacement_effect else ""
    return f"{what} {change.label} ({where}): {change.status}{effect}, forced by {'; '.join(change.forced_by)}"


def _short(change: ResourceChange) -> str:
    detail = f": {', '.join(change.changed)}" if change.changed else ""
    maybe = f" (may replace: {'; '.join(change.may_replace)})" if change.may_replace else ""
    return f"{change.resource_type} {change.stack}/{change.logical_id}{detail}{maybe}"


def _gate_lines(crossed: list[str], gates: Gates) -> list[str]:
    if crossed:
        return [f"GATE CROSSED {c}" for c in crossed]
    asked = [
        *([f"--fail-over-usd {gates.fail_over_usd:g}"] if gates.fail_over_usd is not None else []),
        *(["--fail-on-replacement"] if gates.fail_on_replacement else []),
    ]
    return [f"gates passed: {', '.join(asked)}" if asked else "no gates requested"]
