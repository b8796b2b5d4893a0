"""The dated Bedrock price and default-quota table: its rows, and which row applies to a model source.

Pure data and its loader (no ``aws_cdk`` import). The table is ``bedrock_prices.json`` beside the catalog's
instance-price snapshot (``inference_constructs/catalog/``): ``as_of`` dates it, ``sources`` describes each source
a row names, and every row carries its own ``source`` and ``date`` (``estimates`` says how a derived price was
derived). The economics that use it are in :mod:`inference_constructs.bedrock.pricing`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from inference_constructs import catalog
from inference_constructs.bedrock.model_source import ModelSource, ProfileSourceKind

PRICES_FILE = Path(catalog.__file__).with_name("bedrock_prices.json")
"""The packaged price table, beside the catalog's instance prices."""

PRICE_KEYS = (
    "input",
    "output",
    "cache_write",
    "cache_read",
    "batch_input",
    "batch_output",
    "flex_input",
    "flex_output",
    "priority_input",
    "priority_output",
    "pt_no_commit",
    "pt_1_month",
    "pt_6_month",
)
"""Every price a row may carry (USD per 1M tokens; ``pt_*``: USD per model unit per hour)."""

PT_TERMS = {"pt_no_commit": "no commitment", "pt_1_month": "1-month commitment", "pt_6_month": "6-month commitment"}


class Deployment(StrEnum):
    """Which price table of the pricing page applies to a model source."""

    GLOBAL = "global"
    """Global cross-Region profile (``global.`` prefix)."""
    GEO = "geo"
    """Geographic cross-Region profile, or the foundation model in one Region (priced together)."""
    ANY = "any"
    """A row with one price for every deployment (models older than the regional premium)."""


@dataclass(frozen=True)
class PriceRow:
    """One row of ``bedrock_prices.json``."""

    model: str
    name: str
    deployment: Deployment
    region: str
    prices: Mapping[str, float]
    source: tuple[str, ...]
    date: str
    estimates: Mapping[str, str] = field(default_factory=dict)

    def price(self, key: str) -> float | None:
        """USD per 1M tokens (``pt_*``: per model unit-hour) for ``key``; None when not listed."""
        return self.prices.get(key)

    def to_dict(self) -> dict[str, Any]:
        """The row as shown in the plan."""
        return {
            "model": self.model,
            "name": self.name,
            "deployment": self.deployment.value,
            "region": self.region,
            "prices_per_million_tokens": dict(self.prices),
            "source": list(self.source),
            "date": self.date,
            "estimated": sorted(self.estimates),
        }


@dataclass(frozen=True)
class QuotaRow:
    """One default tokens-per-minute quota of ``bedrock_prices.json``."""

    model: str
    kind: str
    name: str
    tokens_per_minute: Mapping[str, int]
    other_regions: int
    source: str
    date: str

    def default_for(self, region: str | None) -> tuple[int, str]:
        """The default quota in ``region`` and what it is based on. For a region-agnostic stack
        (``region`` None) the lowest default of any Region: the stack may be deployed anywhere."""
        if region is not None:
            if region in self.tokens_per_minute:
                return self.tokens_per_minute[region], region
            return self.other_regions, f"{region} (listed as 'each of the other supported Regions')"
        lowest = min([self.other_regions, *self.tokens_per_minute.values()])
        return lowest, "lowest default of any Region (the stack is region-agnostic)"


@dataclass(frozen=True)
class PriceTable:
    """The parsed ``bedrock_prices.json``."""

    as_of: str
    sources: Mapping[str, str]
    rows: tuple[PriceRow, ...]
    quota_sources: Mapping[str, str]
    quotas: tuple[QuotaRow, ...]

    def find(self, model_id: str | None, deployment: Deployment | None) -> PriceRow | None:
        """The row for ``model_id`` (longest matching ``model`` prefix) and ``deployment`` (or ``any``)."""
        if not model_id or deployment is None:
            return None
        matches = [
            r for r in self.rows if model_id.startswith(r.model) and r.deployment in (deployment, Deployment.ANY)
        ]
        return max(matches, key=lambda r: (len(r.model), r.deployment is not Deployment.ANY), default=None)

    def quota(self, model_id: str | None, kind: str | None) -> QuotaRow | None:
        """The default-quota row for ``model_id`` and ``kind`` (``on-demand`` / ``cross-region``)."""
        if not model_id or kind is None:
            return None
        matches = [q for q in self.quotas if model_id.startswith(q.model) and q.kind == kind]
        return max(matches, key=lambda q: len(q.model), default=None)


@cache
def load_prices(path: str | None = None) -> PriceTable:
    """Read the dated price table (``bedrock_prices.json`` beside this module by default)."""
    raw = json.loads(Path(path or PRICES_FILE).read_text(encoding="utf-8"))
    rows = tuple(
        PriceRow(
            model=r["model"],
            name=r["name"],
            deployment=Deployment(r["deployment"]),
            region=r["region"],
            prices=MappingProxyType({k: float(v) for k, v in r["prices"].items()}),
            source=tuple(r["source"]),
            date=r["date"],
            estimates=MappingProxyType(dict(r.get("estimates", {}))),
        )
        for r in raw["rows"]
    )
    quotas = tuple(
        QuotaRow(
            model=q["model"],
            kind=q["kind"],
            name=q["name"],
            tokens_per_minute=MappingProxyType(dict(q["tokens_per_minute"])),
            other_regions=int(q["other_regions"]),
            source=q["source"],
            date=q["date"],
        )
        for q in raw.get("quotas", [])
    )
    return PriceTable(
        as_of=raw["as_of"],
        sources=MappingProxyType(dict(raw["sources"])),
        rows=rows,
        quota_sources=MappingProxyType(dict(raw.get("quota_sources", {}))),
        quotas=quotas,
    )


def deployment_of(source: ModelSource) -> Deployment | None:
    """The price table that applies to ``source``; None for an unresolved token."""
    if source.kind is ProfileSourceKind.UNRESOLVED:
        return None
    return Deployment.GLOBAL if source.is_global else Deployment.GEO


def quota_kind_of(source: ModelSource) -> str | None:
    """``on-demand`` (foundation model in one Region), ``cross-region`` (geographic profile), or None
    (global profiles have their own 'Global cross-Region' quotas; tokens are unknown)."""
    if source.kind is ProfileSourceKind.FOUNDATION_MODEL:
        return "on-demand"
    if source.kind is ProfileSourceKind.CROSS_REGION_PROFILE and not source.is_global:
        return "cross-region"
    return None


__all__ = [
    "PRICES_FILE",
    "PRICE_KEYS",
    "PT_TERMS",
    "Deployment",
    "PriceRow",
    "PriceTable",
    "QuotaRow",
    "deployment_of",
    "load_prices",
    "quota_kind_of",
]
