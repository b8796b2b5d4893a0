"""``python -m inference_constructs diff OLD NEW``: what a config change does to each endpoint and profile, and to the
monthly cost. Pure Python (no ``aws_cdk`` import).

``OLD`` and ``NEW`` are platform configs (YAML, planned here) or plan documents (the JSON ``plan --json`` prints, or
``inference-plan.json`` from a synthesized assembly). Per endpoint (by name): added, removed or changed, with the
host, instance type, capacity bounds and hosting stack before and after, and the on-demand monthly cost at the
capacity minimum and maximum; per Bedrock profile (by name): added, removed, or a model change. Totals are the
differences of the summed monthly costs at minimum and at maximum.

Exit codes: 0, 1 when a gate is crossed (``--fail-over-usd N``: the monthly cost at maximum capacity rises by more
than N USD), 2 for an invalid config or plan document (the error on stderr).

Not yet stated: how CloudFormation applies each change (update or replacement, and the create-only property that
forces a replacement) and the commitment delta; a stack change is listed, and moving an endpoint between stacks
replaces it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError

__all__ = ["EXIT_GATE", "Change", "ItemDiff", "PlanDiff", "add_command", "diff_plans", "load_plan", "run"]

EXIT_GATE = 1
"""Exit code when a gate is crossed."""
EXIT_INVALID = 2
"""Exit code for an invalid config or plan document."""

Doc = Mapping[str, Any]


@dataclass(frozen=True)
class Change:
    """One field before and after."""

    field: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form."""
        return {"field": self.field, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class ItemDiff:
    """One endpoint or profile: ``added``, ``removed``, ``changed`` or ``unchanged``, its field changes, and (endpoints)
    the monthly cost at minimum and maximum capacity before and after (0 when absent or serverless)."""

    kind: str
    name: str
    status: str
    changes: tuple[Change, ...] = ()
    monthly_usd_at_min: tuple[float, float] = (0.0, 0.0)
    monthly_usd_at_max: tuple[float, float] = (0.0, 0.0)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "status": self.status,
            "changes": [c.to_dict() for c in self.changes],
        }
        if self.kind == "endpoint":
            out["monthly_usd_at_min"] = _delta_dict(self.monthly_usd_at_min)
            out["monthly_usd_at_max"] = _delta_dict(self.monthly_usd_at_max)
        return out


@dataclass(frozen=True)
class PlanDiff:
    """Every endpoint and profile of two plans, and the monthly cost totals before and after."""

    items: tuple[ItemDiff, ...]
    monthly_usd_at_min: tuple[float, float]
    monthly_usd_at_max: tuple[float, float]
    notes: tuple[str, ...] = field(default=())

    @property
    def max_cost_increase_usd(self) -> float:
        """How much the monthly cost at maximum capacity rises (negative when it falls)."""
        return round(self.monthly_usd_at_max[1] - self.monthly_usd_at_max[0], 2)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (the ``--json`` output)."""
        return {
            "items": [i.to_dict() for i in self.items if i.status != "unchanged"],
            "unchanged": [f"{i.kind} {i.name}" for i in self.items if i.status == "unchanged"],
            "totals": {
                "monthly_usd_at_min": _delta_dict(self.monthly_usd_at_min),
                "monthly_usd_at_max": _delta_dict(self.monthly_usd_at_max),
            },
            "notes": list(self.notes),
        }

    def table(self) -> str:
        """Human-readable summary: one line per changed item, its field changes, and the totals."""
        lines: list[str] = []
        for item in self.items:
            if item.status == "unchanged":
                continue
            cost = ""
            if item.kind == "endpoint":
                lo, hi = item.monthly_usd_at_min, item.monthly_usd_at_max
                cost = f"  monthly min {_signed(lo[1] - lo[0])}, max {_signed(hi[1] - hi[0])}"
            lines.append(f"{item.status:<9} {item.kind} {item.name}{cost}")
            lines.extend(f"          {c.field}: {c.old} -> {c.new}" for c in item.changes)
        if not lines:
            lines.append("no endpoint or profile changes")
        lo, hi = self.monthly_usd_at_min, self.monthly_usd_at_max
        lines.append(
            f"monthly at min: {lo[0]:.2f} -> {lo[1]:.2f} ({_signed(lo[1] - lo[0])}); "
            f"at max: {hi[0]:.2f} -> {hi[1]:.2f} ({_signed(hi[1] - hi[0])}) USD"
        )
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines) + "\n"


def _signed(value: float) -> str:
    return f"{value:+.2f}"


def _delta_dict(pair: tuple[float, float]) -> dict[str, float]:
    return {"old": round(pair[0], 2), "new": round(pair[1], 2), "delta": round(pair[1] - pair[0], 2)}


def _endpoint_fields(entry: Doc) -> dict[str, Any]:
    """The fields of an endpoint entry a diff compares."""
    scaling = entry.get("scaling") or {}
    return {
        "type": entry.get("type"),
        "instance_type": entry.get("instance_type"),
        "capacity.min": scaling.get("min_capacity"),
        "capacity.max": scaling.get("max_capacity"),
        "stack": entry.get("stack"),
    }


def _cost(entry: Doc | None, key: str) -> float:
    value = entry.get(key) if entry is not None else None
    return float(value) if isinstance(value, int | float) else 0.0


def _by_name(entries: Any, path: str) -> dict[str, Doc]:
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) and "name" in e for e in entries):
        raise InferenceConfigError([f"{path}: not a list of named entries; give a plan document or a config"])
    return {str(e["name"]): e for e in entries}


def _item(kind: str, name: str, old: Doc | None, new: Doc | None, fields: Any) -> ItemDiff:
    before = fields(old) if old is not None else {}
    after = fields(new) if new is not None else {}
    keys = {**before, **after}
    changes = tuple(Change(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k))
    status = "added" if old is None else "removed" if new is None else "changed" if changes else "unchanged"
    return ItemDiff(
        kind=kind,
        name=name,
        status=status,
        changes=changes if status == "changed" else (),
        monthly_usd_at_min=(_cost(old, "monthly_usd_at_min"), _cost(new, "monthly_usd_at_min")),
        monthly_usd_at_max=(_cost(old, "monthly_usd_at_max"), _cost(new, "monthly_usd_at_max")),
    )


def diff_plans(old: Doc, new: Doc) -> PlanDiff:
    """Compare two plan documents (``PlatformPlan.to_json()``): endpoints and Bedrock profiles by name.

    Raises
    ------
    InferenceConfigError
        A document without a list of named ``endpoints`` or ``bedrock`` entries.
    """
    items: list[ItemDiff] = []
    for kind, key, fields in (
        ("endpoint", "endpoints", _endpoint_fields),
        ("profile", "bedrock", lambda e: {"model": e.get("model")}),
    ):
        before = _by_name(old.get(key, []), f"old.{key}")
        after = _by_name(new.get(key, []), f"new.{key}")
        names = [*before, *(n for n in after if n not in before)]
        items.extend(_item(kind, n, before.get(n), after.get(n), fields) for n in names)
    endpoints = [i for i in items if i.kind == "endpoint"]
    notes: tuple[str, ...] = ()
    if any(c.field == "stack" for i in endpoints for c in i.changes):
        notes = ("an endpoint that changes stack is deleted from one stack and created in the other (a replacement)",)
    return PlanDiff(
        items=tuple(items),
        monthly_usd_at_min=(
            sum(i.monthly_usd_at_min[0] for i in endpoints),
            sum(i.monthly_usd_at_min[1] for i in endpoints),
        ),
        monthly_usd_at_max=(
            sum(i.monthly_usd_at_max[0] for i in endpoints),
            sum(i.monthly_usd_at_max[1] for i in endpoints),
        ),
        notes=notes,
    )


def load_plan(path: str | Path) -> dict[str, Any]:
    """A plan document: the file itself when it is a JSON object with ``endpoints``, otherwise the plan of the
    platform config it holds.

    Raises
    ------
    InferenceConfigError
        An unreadable file or an invalid config (with the tried path).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InferenceConfigError([f"{path}: cannot read ({exc.strerror}); give a config or plan JSON file"]) from exc
    if p.suffix == ".json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InferenceConfigError([f"{path}: not JSON ({exc.msg} at line {exc.lineno})"]) from exc
        if isinstance(doc, dict) and "endpoints" in doc:
            return doc
    from inference_constructs.config import load_config
    from inference_constructs.plan import plan_platform

    planned: dict[str, Any] = plan_platform(load_config(p)).to_json()
    return planned


def add_command(sub: Any) -> None:
    """Add the ``diff`` subcommand to an ``argparse`` subparsers object."""
    cmd = sub.add_parser("diff", help="compare two configs or plan JSON files: changes per endpoint and cost deltas")
    cmd.add_argument("old", help="the current config (YAML) or plan document (JSON)")
    cmd.add_argument("new", help="the proposed config (YAML) or plan document (JSON)")
    cmd.add_argument("--json", action="store_true", help="print the diff as JSON")
    cmd.add_argument(
        "--fail-over-usd",
        type=float,
        default=None,
        metavar="N",
        help="exit 1 when the monthly cost at maximum capacity rises by more than N USD",
    )


def run(args: argparse.Namespace, out: Any, err: Any) -> int:
    """Run ``diff`` with parsed ``args``; returns the exit code."""
    try:
        result = diff_plans(load_plan(args.old), load_plan(args.new))
    except InferenceConfigError as exc:
        print(exc, file=err)
        return EXIT_INVALID
    out.write(json.dumps(result.to_dict(), indent=2) + "\n" if args.json else result.table())
    limit: float | None = args.fail_over_usd
    if limit is not None and result.max_cost_increase_usd > limit:
        print(
            f"monthly cost at maximum capacity rises by {result.max_cost_increase_usd:.2f} USD, "
            f"over --fail-over-usd {limit:g}",
            file=err,
        )
        return EXIT_GATE
    return 0
