"""The plan as a short table for people (what ``python -m inference_constructs plan`` prints): one row per endpoint,
then a footer of reasons, cheaper-dtype hints, gated-model access, cost, Savings Plan, Bedrock and warnings.
A plan without SageMaker endpoints prints no endpoint table and no hourly baseline; estimated figures are marked
as estimates and rounded to the precision they have.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inference_constructs.bedrock.plan_sections import ProfilePlan, RouterPlan
from inference_constructs.catalog import Catalog
from inference_constructs.containers.model_access import ModelAccess
from inference_constructs.cost.commitment import CommitmentRecommendation
from inference_constructs.plan.endpoint import EndpointDecisions

__all__ = ["plan_table"]


def plan_table(
    endpoints: Sequence[EndpointDecisions],
    *,
    catalog: Catalog,
    baseline_usd_per_hour: float,
    savings_plan: CommitmentRecommendation | None,
    bedrock: Sequence[ProfilePlan],
    routers: Sequence[RouterPlan],
    warnings: Sequence[str],
    observability: Sequence[str] = (),
) -> str:
    """A short human-readable table of the endpoint decisions, then why each host, the cheaper dtype each could use,
    how each gated model is reached, the baseline cost, the Savings Plan, the Bedrock lines and every warning
    (``PlatformPlan.table``), and the ``observability`` lines (cross-account sink and links, Transaction Search).
    Without endpoints, only the Bedrock, observability lines and the warnings."""
    lines = _endpoint_lines(endpoints, catalog=catalog, baseline_usd_per_hour=baseline_usd_per_hour)
    sp = savings_plan.to_dict() if savings_plan is not None else None
    if sp is not None and sp["commitment_usd_per_hour"] is not None:
        lines.append(_savings_plan_line(sp, catalog))
    lines.extend(_guardrail_lines(bedrock))
    lines.extend(_bedrock_lines(bedrock, routers))
    lines.extend(observability)
    lines.extend(f"warning: {w}" for w in warnings)
    return "\n".join(lines) + "\n"


def _endpoint_lines(
    endpoints: Sequence[EndpointDecisions], *, catalog: Catalog, baseline_usd_per_hour: float
) -> list[str]:
    """The endpoint table and its footer: reasons, hints, host AMIs, model access and the baseline."""
    if not endpoints:
        return []
    head = (
        "endpoint",
        "type",
        "host",
        "accel",
        "dev",
        "TP",
        "need GiB",
        "have GiB",
        "$/h",
        "$/month min",
        "$/month max",
    )
    rows = [head]
    for e in endpoints:
        j = e.to_json()
        rows.append(
            (
                e.name,
                e.kind.value,
                j["instance_type"] or "serverless",
                j["accelerator"],
                str(j["devices"]),
                str(j["tensor_parallel_degree"]),
                _num(e.host.memory_required_gb if e.host else None),
                _num(j["memory_available_gb"]),
                _num(j["price_per_hour_usd"], 3),
                _num(j["monthly_usd_at_min"], 0),
                _num(j["monthly_usd_at_max"], 0),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    reasons = [f"why {e.name}: {e.to_json()['reason']}" for e in endpoints]
    reasons.extend(
        f"host AMI {e.name}: {e.hosting.host_ami.reason}" for e in endpoints if e.hosting.inference_ami_version
    )
    reasons.extend(_capacity_lines(endpoints))
    hints = [_hint_line(e) for e in endpoints if e.host is not None and e.host.quantization_hint is not None]
    access = [_access_line(e.name, e.hosting.model_access) for e in endpoints if e.hosting.model_access]
    prices = f"prices {catalog.region} as of {catalog.prices_as_of}"
    if any(e.host is not None for e in endpoints):
        baseline = f"baseline on-demand: ${baseline_usd_per_hour:.3f}/h; {prices}"
    else:
        baseline = "baseline on-demand: none, every endpoint is serverless (billed per request)"
    return [*lines, *reasons, *hints, *access, baseline]


def _capacity_lines(endpoints: Sequence[EndpointDecisions]) -> list[str]:
    """The footer's instance pools (with the worst case), reservations (prepaid) and metrics configs."""
    lines: list[str] = []
    for e in endpoints:
        h = e.hosting
        if h.components is not None:
            lines.append(f"components {e.name}: {h.components.reason}; packing {list(map(list, h.components.packing))}")
            lines.extend(
                f"  {c.name}: {c.accelerator_devices} device(s) + {c.min_memory_required_mb} MiB per copy, copies "
                f"{c.copies.min}..{c.copies.max}"
                + (f"; {c.plan.host.lora.summary()}" if c.plan.host is not None and c.plan.host.lora else "")
                for c in h.components.components
            )
            lines.extend(f"  adapter {a.name} on {a.base}: {a.artifact_url}" for a in h.components.adapters)
        if h.instance_pools is not None:
            lines.append(f"pools {e.name}: {h.instance_pools.summary(h.capacity.min, h.capacity.max)}")
        if h.capacity_reservation is not None:
            lines.append(f"reservation {e.name}: {h.capacity_reservation.to_dict()['billing']}")
        if h.metrics_config is not None:
            lines.append(f"metrics {e.name}: {h.metrics_config.reason}")
    return lines


def _hint_line(e: EndpointDecisions) -> str:
    """One line of the footer: the cheaper host another dtype would fit (a hint, never applied)."""
    assert e.host is not None and e.host.quantization_hint is not None
    hint = e.host.quantization_hint
    return (
        f"hint {e.name}: {hint.dtype.value} would fit {hint.instance_type} at ${hint.price_per_hour_usd:.3f}/h, "
        f"{hint.saving_percent}% cheaper than {e.host.instance_type}; {hint.caveat}"
    )


def _savings_plan_line(sp: dict[str, Any], catalog: Catalog) -> str:
    """The Savings Plan line: the commitment, and the saving marked as the estimate it is."""
    basis = str(sp["discount_basis"])
    why = []
    if basis.startswith("estimate"):
        why.append(f"{sp['discount']:.0%} discount assumed, {basis.removeprefix('estimate: ')}")
    if "not verified" in catalog.price_source.lower():
        why.append("prices are third-party list prices, not verified against the AWS Price List API")
    saving = (
        f"~${_about(sp['monthly_saving_usd'])}/month (estimate: {'; '.join(why)})"
        if why
        else f"${sp['monthly_saving_usd']:,.2f}/month"
    )
    return f"savings plan: commit ${sp['commitment_usd_per_hour']}/h, saves {saving}"


def _about(usd: float) -> str:
    """An estimated dollar figure to two significant figures, e.g. 925.64 -> ``930``, 4.56 -> ``4.6``."""
    if usd == 0:
        return "0"
    digits = 1 - math.floor(math.log10(abs(usd)))
    value = round(usd, digits)
    return f"{value:,.0f}" if digits <= 0 else f"{value:,.{digits}f}"


def _access_line(name: str, access: ModelAccess) -> str:
    """One line of the table's footer: how the endpoint's gated model is reached."""
    if access.staging is not None:
        return (
            f"model access {name}: staged to <data bucket>/{access.staging.key_prefix} by a codebuild job reading "
            f"secret {access.secret.secret}"
        )
    return f"model access {name}: token in the container environment (opt-in, secret {access.secret.secret})"


def _guardrail_lines(profiles: Sequence[ProfilePlan]) -> list[str]:
    """One line per Bedrock profile naming the guardrail its grants enforce."""
    lines = []
    for p in profiles:
        g = p.guardrail
        if g:
            which = f"{g['id']} version {g['version']}" if g["source"] == "existing" else f"{g['name']} (created)"
            lines.append(f"bedrock profile {p.name}: enforces guardrail {which}")
    return lines


def _bedrock_lines(bedrock: Sequence[ProfilePlan], routers: Sequence[RouterPlan]) -> list[str]:
    """One line per Bedrock profile (its cost, or why it has none) and per prompt router."""
    lines = []
    for entry in bedrock:
        econ = entry.token_economics
        if not econ:
            where = entry.source_kind + (f", {entry.geography} geography" if entry.geography else "")
            lines.append(
                f"bedrock {entry.name}: unpriced, no workload given (billed per token); model {entry.model} ({where})"
            )
            continue
        options = ", ".join(f"{o['option']} ${o['monthly_usd']:,.2f}" for o in econ["options"])
        usd = econ["monthly_usd"]
        head = f"bedrock {entry.name}: " + ("unpriced" if usd is None else f"{econ['recommended']} ${usd:,.2f}/month")
        line = f"{head} ({options}); {econ['reason']}" if options else f"{head}; {econ['reason']}"
        glob = econ.get("global_profile")
        if glob and glob["monthly_saving_usd"] > 0:
            line += f"; on-demand through the global profile: ${glob['monthly_usd']:,.2f} (any commercial Region)"
        lines.append(line)
    for router in routers:
        cost = router.cost_range or {}
        low, high = cost.get("all_cheapest_monthly_usd"), cost.get("all_fallback_monthly_usd")
        span = (
            f"${low:,.2f} (all cheapest) to ${high:,.2f} (all fallback)/month"
            if low is not None and high is not None
            else "no workload priced"
        )
        lines.append(f"bedrock router {router.name} ({router.router_name}): {span}")
    return lines


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"
