"""The plan side of ``diff``: what a config change does to each endpoint and profile, to the monthly cost, to the
Savings Plan commitment the plan recommends, and to the plan's warnings. Pure Python (no ``aws_cdk`` import).

Per source account's cross-account link and per agent (by account and name): added, removed or changed; per
inference component and adapter of an endpoint (``<endpoint>/<name>``): added, removed, or a change of its place
(first or not), model, image, copies or reservation per copy, or of an adapter's base and artifacts. Per
endpoint (by name): added, removed or changed, with the host, instance type, capacity bounds and hosting stack
before and after (an instance type change with the new plan's reason for its host), and the on-demand monthly cost
at the capacity minimum and maximum; per Bedrock profile (by
name): added, removed, or a model change. Totals are the differences of the summed monthly costs at minimum and at
maximum; the commitment is the plan's ``savings_plan.commitment_usd_per_hour`` (0 without a recommendation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inference_constructs.diff.warnings import PlanWarning, plan_warnings
from inference_constructs.errors import InferenceConfigError
from inference_constructs.updates import UpdateWarning, update_warnings

__all__ = ["Change", "ItemDiff", "PlanDiff", "diff_plans", "load_plan"]

Doc = Mapping[str, Any]


@dataclass(frozen=True)
class Change:
    """One field before and after, and why the new plan chose the new value (an ``instance_type`` change: the new
    plan's reason for its host; empty otherwise)."""

    field: str
    old: Any
    new: Any
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form: ``field``, ``old``, ``new``, and ``reason`` when there is one."""
        out = {"field": self.field, "old": self.old, "new": self.new}
        if self.reason:
            out["reason"] = self.reason
        return out


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
    commitment_usd_per_hour: tuple[float, float] = (0.0, 0.0)
    """The Savings Plan commitment each plan recommends ($/h, 0 without one)."""
    warnings: tuple[tuple[PlanWarning, ...], tuple[PlanWarning, ...]] = ((), ())
    """Each plan's coded warnings."""
    updates: tuple[UpdateWarning, ...] = ()
    """What deploying the new plan over the old one needs care for
    (:func:`inference_constructs.updates.update_warnings`: a scaled variant's instance type, a replaced profile,
    an endpoint moving stack)."""

    @property
    def new_warnings(self) -> tuple[PlanWarning, ...]:
        """Warnings of the new plan whose code and subject the old plan does not have."""
        seen = {w.key for w in self.warnings[0]}
        return tuple(w for w in self.warnings[1] if w.key not in seen)

    @property
    def resolved_warnings(self) -> tuple[PlanWarning, ...]:
        """Warnings of the old plan the new plan no longer has."""
        kept = {w.key for w in self.warnings[1]}
        return tuple(w for w in self.warnings[0] if w.key not in kept)

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
            "commitment_usd_per_hour": _delta_dict(self.commitment_usd_per_hour, 5),
            "warnings": {
                "new": [w.to_dict() for w in self.new_warnings],
                "resolved": [w.to_dict() for w in self.resolved_warnings],
                "all": [w.to_dict() for w in self.warnings[1]],
            },
            "update_warnings": [u.to_dict() for u in self.updates],
            "notes": list(self.notes),
        }


def _delta_dict(pair: tuple[float, float], digits: int = 2) -> dict[str, float]:
    return {"old": round(pair[0], digits), "new": round(pair[1], digits), "delta": round(pair[1] - pair[0], digits)}


def _commitment(doc: Doc) -> float:
    plan = doc.get("savings_plan")
    value = plan.get("commitment_usd_per_hour") if isinstance(plan, Mapping) else None
    return float(value) if isinstance(value, int | float) else 0.0


def _entries(doc: Doc, key: str) -> Any:
    """The named entries at ``key`` (a dotted path); the cross-account links are named by their account, and the
    inference components and adapters of every endpoint (``components``, ``adapters``) by
    ``<endpoint>/<component>``, each component with whether it is its endpoint's first (``first``)."""
    if key in ("components", "adapters"):
        return _component_entries(doc, key)
    if key != "observability.cross_account.links":
        return doc.get(key, [])
    observability = doc.get("observability")
    cross = observability.get("cross_account") if isinstance(observability, Mapping) else None
    links = cross.get("links", []) if isinstance(cross, Mapping) else []
    return [{"name": link.get("account"), **link} for link in links if isinstance(link, Mapping)]


def _component_entries(doc: Doc, key: str) -> list[dict[str, Any]]:
    """The components (or adapters) of every endpoint of ``doc`` hosted through several inference components."""
    found: list[dict[str, Any]] = []
    endpoints = doc.get("endpoints")
    for endpoint in endpoints if isinstance(endpoints, list) else ():
        block = endpoint.get("components") if isinstance(endpoint, Mapping) else None
        entries = block.get(key) if isinstance(block, Mapping) else None
        for index, entry in enumerate(entries if isinstance(entries, list) else ()):
            if isinstance(entry, Mapping):
                named = {**entry, "name": f"{endpoint.get('name')}/{entry.get('name')}"}
                found.append({**named, "first": index == 0} if key == "components" else named)
    return found


#: What a diff compares of each kind of entry: a field's name in the diff, and its path in the plan entry (dotted
#: below a block). Endpoints: hosting, host, capacity and stack; an inference component: its place, model, image,
#: copies and reservation; an adapter: its base and artifacts; profiles: the model; a source account's link: where it
#: deploys, what it shares, whether it exists; agents: deployed or not, the artifact and the session lifecycle.
_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "endpoint": (
        ("type", "type"),
        ("instance_type", "instance_type"),
        ("capacity.min", "scaling.min_capacity"),
        ("capacity.max", "scaling.max_capacity"),
        ("stack", "stack"),
    ),
    "component": (
        ("first", "first"),
        ("model", "model"),
        ("image", "image"),
        ("copies.min", "copies.min"),
        ("copies.max", "copies.max"),
        ("accelerators_per_copy", "accelerators_per_copy"),
        ("memory_mb_per_copy", "memory_mb_per_copy"),
        ("max_lora_rank", "lora_adapters.max_lora_rank"),
    ),
    "adapter": (("base", "base"), ("artifact_url", "artifact_url")),
    "profile": (("model", "model"),),
    "source account": tuple((k, k) for k in ("stack", "region", "resource_types", "deployed")),
    "agent": (
        ("deployed", "deployed"),
        ("artifact", "artifact"),
        ("idle_timeout_seconds", "lifecycle.idle_timeout_seconds"),
        ("max_lifetime_seconds", "lifecycle.max_lifetime_seconds"),
    ),
}


def _fields(kind: str, entry: Doc | None) -> dict[str, Any]:
    """The fields of ``entry`` a diff compares for ``kind`` (none for a missing entry; None for a missing value)."""
    if entry is None:
        return {}
    found: dict[str, Any] = {}
    for name, path in _FIELDS[kind]:
        value: Any = entry
        for part in path.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        found[name] = value
    return found


def _cost(entry: Doc | None, key: str) -> float:
    value = entry.get(key) if entry is not None else None
    return float(value) if isinstance(value, int | float) else 0.0


def _by_name(entries: Any, path: str) -> dict[str, Doc]:
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) and "name" in e for e in entries):
        raise InferenceConfigError([f"{path}: not a list of named entries; give a plan document or a config"])
    return {str(e["name"]): e for e in entries}


def _item(kind: str, name: str, old: Doc | None, new: Doc | None) -> ItemDiff:
    before = _fields(kind, old)
    after = _fields(kind, new)
    keys = {**before, **after}
    reasons = {"instance_type": str(new.get("reason") or "")} if new is not None else {}
    changes = tuple(
        Change(k, before.get(k), after.get(k), reasons.get(k, "")) for k in keys if before.get(k) != after.get(k)
    )
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
    """Compare two plan documents (``PlatformPlan.to_json()``): endpoints, their inference components and adapters
    (``<endpoint>/<name>``) and Bedrock profiles by name, the cross-account links by source account, and the agents
    by name.

    Raises
    ------
    InferenceConfigError
        A document without a list of named ``endpoints`` or ``bedrock`` entries.
    """
    items: list[ItemDiff] = []
    for kind, key in (
        ("endpoint", "endpoints"),
        ("component", "components"),
        ("adapter", "adapters"),
        ("profile", "bedrock"),
        ("source account", "observability.cross_account.links"),
        ("agent", "agents"),
    ):
        before = _by_name(_entries(old, key), f"old.{key}")
        after = _by_name(_entries(new, key), f"new.{key}")
        names = [*before, *(n for n in after if n not in before)]
        items.extend(_item(kind, n, before.get(n), after.get(n)) for n in names)
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
        commitment_usd_per_hour=(_commitment(old), _commitment(new)),
        warnings=(plan_warnings(old), plan_warnings(new)),
        updates=tuple(update_warnings(old, new)),
    )


def load_plan(path: str | Path) -> dict[str, Any]:
    """A plan document: the file itself when it is a JSON object with ``endpoints``, otherwise the plan of the
    platform config it holds (planned, not synthesized).

    Raises
    ------
    InferenceConfigError
        An unreadable file or an invalid config (with the tried path).
    """
    from inference_constructs.diff.sources import load_side

    return load_side(path, synthesize=False).plan
