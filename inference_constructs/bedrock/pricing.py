"""Token economics for Bedrock profiles: what an expected monthly workload costs each way of buying tokens.

Pure Python (no ``aws_cdk`` import). Prices and default quotas come from the dated table
(:mod:`inference_constructs.bedrock.price_table`, ``catalog/bedrock_prices.json``); every row names its source
and date, and every derived price says how it was derived (``estimates``). The options priced per profile:

- **on-demand** (Standard tier), with the workload's prompt-cache reads and writes at their prices;
- **flex** and **priority** service tiers where the table has the model's tier prices (Amazon
  Bedrock User Guide, *Service tiers for optimizing performance and cost*: Flex is "a pricing
  discount", Priority "a price premium over standard on-demand pricing"; the on-demand quota is
  shared across tiers);
- **batch** (asynchronous jobs; results within 24 hours);
- **provisioned throughput** per model unit and commitment where the table has it, with the monthly
  on-demand bill above which it is cheaper.

The recommendation is the cheapest option the workload's ``latency`` allows: ``interactive`` (on-demand
only), ``flexible`` (adds Flex) or ``offline`` (adds batch). Provisioned throughput is never
recommended automatically: AWS does not publish the tokens per minute one model unit serves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inference_constructs._plan_dict import plan_dict
from inference_constructs.bedrock.guidance import output_burndown_rate
from inference_constructs.bedrock.model_source import ModelSource
from inference_constructs.bedrock.price_table import (
    PRICE_KEYS,
    PRICES_FILE,
    PT_TERMS,
    Deployment,
    PriceRow,
    PriceTable,
    QuotaRow,
    deployment_of,
    load_prices,
    quota_kind_of,
)
from inference_constructs.units import HOURS_PER_MONTH

MINUTES_PER_MONTH = HOURS_PER_MONTH * 60
"""43,800: minutes in a billing month, to turn monthly tokens into an average tokens-per-minute."""
_MILLION = 1_000_000


class Latency(StrEnum):
    """How long the workload's callers can wait: decides which options may be recommended."""

    INTERACTIVE = "interactive"
    """Someone waits for each answer: Standard on-demand (Priority is shown, it costs more)."""
    FLEXIBLE = "flexible"
    """Synchronous calls that tolerate longer latency: adds the Flex tier."""
    OFFLINE = "offline"
    """Work that can wait up to 24 hours: adds batch inference."""


# --------------------------------------------------------------------------------------- workload


@dataclass(frozen=True)
class Workload:
    """Expected tokens per month, as CloudWatch counts them: ``input_tokens`` excludes the prompt-cache
    reads and writes, which are counted separately (``CacheReadInputTokens`` / ``CacheWriteInputTokens``)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    latency: Latency = Latency.INTERACTIVE

    @property
    def prompt_tokens(self) -> int:
        """Every prompt token: uncached input plus cache reads plus cache writes."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def cached_prefix_tokens(self) -> int:
        """Prompt tokens that go through the cache (reads + writes)."""
        return self.cache_read_tokens + self.cache_write_tokens

    @property
    def hit_rate(self) -> float | None:
        """Share of cached-prefix tokens read from the cache; None without cache traffic."""
        total = self.cached_prefix_tokens
        return None if total == 0 else self.cache_read_tokens / total

    def to_dict(self) -> dict[str, Any]:
        """Tokens per month as shown in the plan."""
        return plan_dict(
            self,
            ("input_tokens_per_month", "input_tokens"),
            ("output_tokens_per_month", "output_tokens"),
            ("cache_read_tokens_per_month", "cache_read_tokens"),
            ("cache_write_tokens_per_month", "cache_write_tokens"),
            "latency",
        )


def workload_from_counts(
    *,
    path: str,
    latency: str = Workload.latency.value,
    input_tokens_per_month: int | None = None,
    output_tokens_per_month: int | None = None,
    cache_read_tokens_per_month: int | None = None,
    cache_write_tokens_per_month: int | None = None,
    requests_per_month: int | None = None,
    input_tokens_per_request: int | None = None,
    output_tokens_per_request: int | None = None,
    cache_read_tokens_per_request: int | None = None,
    cache_write_tokens_per_request: int | None = None,
) -> tuple[Workload | None, list[str]]:
    """A :class:`Workload` from monthly totals or from requests x tokens per request, and the problems.

    Exactly one form: ``input_tokens_per_month`` + ``output_tokens_per_month`` (+ cache reads/writes),
    or ``requests_per_month`` + ``input_tokens_per_request`` + ``output_tokens_per_request`` (+ cache).
    """
    monthly = {
        "input_tokens_per_month": input_tokens_per_month,
        "output_tokens_per_month": output_tokens_per_month,
        "cache_read_tokens_per_month": cache_read_tokens_per_month,
        "cache_write_tokens_per_month": cache_write_tokens_per_month,
    }
    per_request = {
        "requests_per_month": requests_per_month,
        "input_tokens_per_request": input_tokens_per_request,
        "output_tokens_per_request": output_tokens_per_request,
        "cache_read_tokens_per_request": cache_read_tokens_per_request,
        "cache_write_tokens_per_request": cache_write_tokens_per_request,
    }
    used_monthly = sorted(k for k, v in monthly.items() if v is not None)
    used_request = sorted(k for k, v in per_request.items() if v is not None)
    fix = (
        "give input_tokens_per_month and output_tokens_per_month, or requests_per_month with "
        "input_tokens_per_request and output_tokens_per_request"
    )
    if latency not in {m.value for m in Latency}:
        return None, [f"{path}.latency: {latency!r} is not allowed; use one of {', '.join(m.value for m in Latency)}"]
    if used_monthly and used_request:
        return None, [
            f"{path}.{used_request[0]}: cannot be combined with {used_monthly[0]} (monthly totals); {fix}, not both"
        ]
    if used_request:
        missing = [
            k
            for k in ("requests_per_month", "input_tokens_per_request", "output_tokens_per_request")
            if per_request[k] is None
        ]
        if missing:
            return None, [f"{path}.{k}: required with {used_request[0]}; {fix}" for k in missing]
        n = requests_per_month or 0
        return (
            Workload(
                input_tokens=n * (input_tokens_per_request or 0),
                output_tokens=n * (output_tokens_per_request or 0),
                cache_read_tokens=n * (cache_read_tokens_per_request or 0),
                cache_write_tokens=n * (cache_write_tokens_per_request or 0),
                latency=Latency(latency),
            ),
            [],
        )
    missing = [k for k in ("input_tokens_per_month", "output_tokens_per_month") if monthly[k] is None]
    if missing:
        return None, [f"{path}.{k}: required for a workload; {fix}" for k in missing]
    return (
        Workload(
            input_tokens=input_tokens_per_month or 0,
            output_tokens=output_tokens_per_month or 0,
            cache_read_tokens=cache_read_tokens_per_month or 0,
            cache_write_tokens=cache_write_tokens_per_month or 0,
            latency=Latency(latency),
        ),
        [],
    )


# --------------------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Option:
    """One way of buying the workload's tokens and its monthly cost."""

    name: str
    monthly_usd: float
    arithmetic: str
    eligible: bool
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The option as shown in the plan."""
        out = plan_dict(self, ("option", "name"), "monthly_usd", "eligible", "arithmetic")
        if self.note:
            out["note"] = self.note
        return out


def _term(tokens: int, price: float, label: str) -> tuple[float, str]:
    return tokens * price / _MILLION, f"{tokens:,} {label} x ${price:g}"


def _sum(name: str, terms: Sequence[tuple[float, str]], *, eligible: bool, note: str = "") -> Option:
    usd = round(sum(t[0] for t in terms), 2)
    arithmetic = " + ".join(t[1] for t in terms) + f" per 1M = ${usd:,.2f}"
    return Option(name=name, monthly_usd=usd, arithmetic=arithmetic, eligible=eligible, note=note)


def on_demand_option(row: PriceRow, w: Workload) -> Option:
    """Standard on-demand with the workload's cache reads and writes at their prices (or at the input
    price when the row lists no prompt caching for the model)."""
    p_in, p_out = row.prices["input"], row.prices["output"]
    p_cr, p_cw = row.price("cache_read"), row.price("cache_write")
    terms = [_term(w.input_tokens, p_in, "in"), _term(w.output_tokens, p_out, "out")]
    notes = []
    for kind, tokens, price in (("read", w.cache_read_tokens, p_cr), ("write", w.cache_write_tokens, p_cw)):
        if not tokens:
            continue
        if price is None:
            terms.append(_term(tokens, p_in, f"cache-{kind} priced as in"))
            notes.append(f"no cache-{kind} price listed for this model: cache {kind}s priced as input")
        else:
            terms.append(_term(tokens, price, f"cache-{kind}"))
    return _sum("on-demand", terms, eligible=True, note="; ".join(notes))


def _uncached(name: str, row: PriceRow, w: Workload, in_key: str, out_key: str, *, eligible: bool, note: str) -> Option:
    terms = [_term(w.prompt_tokens, row.prices[in_key], "in"), _term(w.output_tokens, row.prices[out_key], "out")]
    if w.cached_prefix_tokens:
        note = (
            note + "; " if note else ""
        ) + "cache reads and writes priced as input (no cache prices for this option)"
    return _sum(name, terms, eligible=eligible, note=note)


def price_options(row: PriceRow, w: Workload) -> list[Option]:
    """Every option the row prices for ``w``, in a fixed order: on-demand, flex, priority, batch."""
    options = [on_demand_option(row, w)]
    if row.price("flex_input") is not None and row.price("flex_output") is not None:
        ok = w.latency in (Latency.FLEXIBLE, Latency.OFFLINE)
        options.append(
            _uncached(
                "flex",
                row,
                w,
                "flex_input",
                "flex_output",
                eligible=ok,
                note="" if ok else "needs latency: flexible (Flex requests get lower priority at peak demand)",
            )
        )
    if row.price("priority_input") is not None and row.price("priority_output") is not None:
        options.append(
            _uncached(
                "priority", row, w, "priority_input", "priority_output", eligible=True, note="premium for faster output"
            )
        )
    if row.price("batch_input") is not None and row.price("batch_output") is not None:
        ok = w.latency is Latency.OFFLINE
        options.append(
            _uncached(
                "batch",
                row,
                w,
                "batch_input",
                "batch_output",
                eligible=ok,
                note="" if ok else "needs latency: offline (batch jobs complete within 24 hours)",
            )
        )
    return options


def caching_economics(row: PriceRow, w: Workload) -> dict[str, Any] | None:
    """Prompt caching: the break-even hit rate and, when the workload caches, the saving.

    Per cached-prefix token, caching costs ``h x cache_read + (1 - h) x cache_write`` against ``input``
    without it, so it pays when the hit rate ``h`` exceeds ``(cache_write - input) / (cache_write -
    cache_read)``. None when the row lists no cache-read price (no prompt caching on Bedrock).
    """
    p_in, p_cr, p_cw = row.prices["input"], row.price("cache_read"), row.price("cache_write")
    if p_cr is None:
        return None
    if p_cw is None:
        return {
            "break_even_hit_rate": None,
            "note": "no cache-write price listed for this model; check the pricing page before relying on caching",
        }
    break_even = 0.0 if p_cw <= p_in else (p_cw - p_in) / (p_cw - p_cr)
    out: dict[str, Any] = {
        "break_even_hit_rate": round(break_even, 4),
        "arithmetic": f"(cache_write ${p_cw:g} - input ${p_in:g}) / (cache_write ${p_cw:g} - cache_read ${p_cr:g})",
    }
    if w.cached_prefix_tokens:
        with_cache = on_demand_option(row, w).monthly_usd
        without = round((w.prompt_tokens * p_in + w.output_tokens * row.prices["output"]) / _MILLION, 2)
        out.update(
            {
                "hit_rate": round(w.hit_rate or 0.0, 4),
                "monthly_usd_without_cache": without,
                "monthly_saving_usd": round(without - with_cache, 2),
            }
        )
    return out


def provisioned_throughput(row: PriceRow, on_demand: Option, w: Workload) -> list[dict[str, Any]]:
    """Per commitment: the monthly price of one model unit and the monthly on-demand bill (and token
    volume at this workload's mix) above which it is cheaper than on-demand."""
    out = []
    tokens = w.prompt_tokens + w.output_tokens
    usd_per_token = on_demand.monthly_usd / tokens if tokens and on_demand.monthly_usd else None
    for key, term in PT_TERMS.items():
        hourly = row.price(key)
        if hourly is None:
            continue
        monthly = round(hourly * HOURS_PER_MONTH, 2)
        out.append(
            {
                "commitment": term,
                "usd_per_model_unit_hour": hourly,
                "monthly_usd_per_model_unit": monthly,
                "arithmetic": f"${hourly:g} x 730 h = ${monthly:,.2f}",
                "beats_on_demand_above_monthly_usd": monthly,
                "beats_on_demand_above_tokens_per_month": (
                    None if usd_per_token is None else int(monthly / usd_per_token)
                ),
                "cheaper_than_on_demand_now": on_demand.monthly_usd > monthly,
                "note": "AWS does not publish the tokens per minute one model unit serves: confirm with AWS how many "
                "units this workload needs before committing",
            }
        )
    return out


def recommend(options: Sequence[Option], w: Workload) -> tuple[Option, str]:
    """The cheapest eligible option and why."""
    eligible = [o for o in options if o.eligible and o.name != "priority"]
    best = min(eligible, key=lambda o: (o.monthly_usd, o.name != "on-demand"))
    base = next(o for o in options if o.name == "on-demand")
    cheaper_blocked = [o for o in options if not o.eligible and o.monthly_usd < best.monthly_usd]
    if best.name == "on-demand":
        reason = f"on-demand (Standard tier) is the cheapest option allowed for latency: {w.latency.value}"
        if cheaper_blocked:
            alt = min(cheaper_blocked, key=lambda o: o.monthly_usd)
            reason += f"; {alt.name} would cost ${alt.monthly_usd:,.2f} but {alt.note}"
    else:
        saving = base.monthly_usd - best.monthly_usd
        pct = 100 * saving / base.monthly_usd if base.monthly_usd else 0.0
        why = "can wait up to 24 hours" if best.name == "batch" else "tolerates longer latency"
        reason = (
            f"{best.name}: the workload {why} (latency: {w.latency.value}) and {best.name} costs "
            f"${best.monthly_usd:,.2f} against ${base.monthly_usd:,.2f} on-demand ({pct:.0f}% less)"
        )
    return best, reason


def quota_check(
    table: PriceTable, source: ModelSource, w: Workload, deploy_region: str | None
) -> tuple[dict[str, Any], list[str]]:
    """Average quota tokens per minute the workload burns against the default tokens-per-minute quota.

    Burn = (input + cache writes + output x burndown rate) / 43,800 minutes; cache reads do not count
    (Bedrock *How tokens are counted*). A model without a sourced default quota gets no warning.
    """
    rate = output_burndown_rate(source.model_id)
    burn = rate if rate is not None else 1
    needed = (w.input_tokens + w.cache_write_tokens + w.output_tokens * burn) / MINUTES_PER_MONTH
    info: dict[str, Any] = {
        "expected_quota_tokens_per_minute": round(needed),
        "arithmetic": (
            f"({w.input_tokens:,} in + {w.cache_write_tokens:,} cache-write + {w.output_tokens:,} out x {burn}) "
            f"/ {MINUTES_PER_MONTH:,.0f} min (monthly average; peaks are higher)"
        ),
        "output_burndown_rate": burn,
    }
    if rate is None:
        info["burndown_note"] = "burndown rate not in the library table; output counted once"
    kind = quota_kind_of(source)
    row = table.quota(source.model_id, kind)
    if row is None:
        info["default_tokens_per_minute"] = None
        info["note"] = (
            "no sourced default quota for this model and inference type in the library table: no quota warning; "
            "check Service Quotas (Amazon Bedrock) for the account's value"
        )
        return info, []
    default, basis = row.default_for(deploy_region)
    info.update(
        {
            "quota_name": row.name,
            "default_tokens_per_minute": default,
            "basis": basis,
            "source": row.source,
            "date": row.date,
        }
    )
    warnings = []
    if needed > default:
        warnings.append(
            f"expected {needed:,.0f} quota tokens per minute (monthly average) exceed the default "
            f"'{row.name}' of {default:,} ({basis}); request a quota increase before launch"
        )
    return info, warnings


def token_economics(
    source: ModelSource,
    w: Workload,
    *,
    deploy_region: str | None = None,
    global_allowed: bool = True,
    table: PriceTable | None = None,
) -> dict[str, Any]:
    """The plan's ``token_economics`` for one profile: options, caching, provisioned throughput,
    recommendation, quota check. ``monthly_usd`` is the recommended option's cost (None when the
    table has no row for the model). A geographic or single-Region source whose model has a cheaper
    global row gets ``global_profile`` (the on-demand month through the global profile) when
    ``global_allowed`` (the profile's residency is ``any``)."""
    t = table or load_prices()
    deployment = deployment_of(source)
    row = t.find(source.model_id, deployment)
    quota, warnings = quota_check(t, source, w, deploy_region)
    doc: dict[str, Any] = {"workload": w.to_dict(), "prices_as_of": t.as_of}
    if row is None:
        reason = (
            f"no price row for {source.model_id or source.value} "
            f"({deployment.value if deployment else 'unknown'} deployment) in the library table "
            f"as of {t.as_of}; add one with its source"
        )
        doc.update(
            {
                "price_row": None,
                "options": [],
                "recommended": None,
                "monthly_usd": None,
                "reason": reason,
                "quota": quota,
                "warnings": [*warnings, f"workload not priced: {reason}"],
            }
        )
        return doc
    options = price_options(row, w)
    best, reason = recommend(options, w)
    on_demand = options[0]
    pt = provisioned_throughput(row, on_demand, w)
    cheaper_pt = [p for p in pt if p["monthly_usd_per_model_unit"] < best.monthly_usd]
    if cheaper_pt:
        p = min(cheaper_pt, key=lambda p: float(p["monthly_usd_per_model_unit"]))
        reason += (
            f"; provisioned throughput ({p['commitment']}) at ${p['monthly_usd_per_model_unit']:,.2f} per model unit "
            "would cost less if one model unit serves this load (not recommended automatically: per-unit "
            "throughput is not published)"
        )
    global_row = t.find(source.model_id, Deployment.GLOBAL) if deployment is Deployment.GEO else None
    global_profile = None
    if global_allowed and global_row is not None and global_row.deployment is Deployment.GLOBAL:
        option = on_demand_option(global_row, w)
        global_profile = {
            "monthly_usd": option.monthly_usd,
            "monthly_saving_usd": round(on_demand.monthly_usd - option.monthly_usd, 2),
            "arithmetic": option.arithmetic,
            "note": "on-demand through the global. profile: requests may then be served in any commercial Region",
        }
    doc.update(
        {
            "price_row": row.to_dict(),
            "options": [o.to_dict() for o in options],
            "global_profile": global_profile,
            "prompt_caching": caching_economics(row, w),
            "provisioned_throughput": pt,
            "recommended": best.name,
            "monthly_usd": best.monthly_usd,
            "reason": reason,
            "quota": quota,
            "warnings": warnings,
        }
    )
    if deploy_region is not None and deploy_region != row.region:
        doc["warnings"] = [
            *warnings,
            f"prices are {row.region} list prices; {deploy_region} may differ (see the pricing page)",
        ]
    return doc


__all__ = [
    "HOURS_PER_MONTH",
    "MINUTES_PER_MONTH",
    "PRICES_FILE",
    "PRICE_KEYS",
    "PT_TERMS",
    "Deployment",
    "Latency",
    "Option",
    "PriceRow",
    "PriceTable",
    "QuotaRow",
    "Workload",
    "caching_economics",
    "deployment_of",
    "load_prices",
    "on_demand_option",
    "price_options",
    "provisioned_throughput",
    "quota_check",
    "quota_kind_of",
    "recommend",
    "token_economics",
    "workload_from_counts",
]
