"""SageMaker Savings Plan commitment sizing (pure Python, no ``aws_cdk``).

The recommendation is the hourly commitment that minimises the expected cost of one typical week
of on-demand spend built from each endpoint's capacity schedule.

The billing model
-----------------
A Savings Plan with discount ``d`` and commitment ``c`` $/h is charged ``c`` every hour, used or
not, and covers ``x = c / (1 - d)`` dollars of on-demand usage in that hour; usage above ``x`` is
charged on demand. For an hourly on-demand profile ``u_1..u_n``::

    cost(x) = sum_h [ (1 - d) * x + max(0, u_h - x) ]

``cost`` is convex and piecewise linear in ``x``; its slope is ``n (1 - d) - #{h : u_h > x}``, so
the minimum lies at a breakpoint ``x = u_h`` (or at 0). :func:`optimal_commitment` evaluates every
breakpoint exactly with one sort and suffix sums, O(n log n). The optimum covers the spend level
that is exceeded in at least a ``(1 - d)`` share of the hours: with a 25 % discount, a level used
in 75 % of the week or more is worth committing to, a burst that runs 12 % of the week never is.
That is the seed rule "commit to the baseline, not to the average or the peak", derived.

The burst assumption
--------------------
A schedule says only the floor and the ceiling of an endpoint. How long it runs above the floor
depends on traffic, which synth cannot know; :class:`BurstAssumption` states it: by default
capacity above the floor runs at ``max`` for 4 hours every weekday (13:00-17:00 UTC) and never
at weekends, i.e. 20 of 168 hours. The assumption moves the expected monthly cost, and it moves
the recommended commitment only if the burst covered more than ``(1 - d)`` of the week (over
118 hours at a 30 % discount), so the recommendation is robust to it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from inference_constructs.cost._cron import weekly_minutes
from inference_constructs.errors import ProblemCollector
from inference_constructs.units import HOURS_PER_MONTH, HOURS_PER_WEEK, MINUTES_PER_WEEK

MIN_COMMITMENT_USD_PER_HOUR = 0.001
MAX_COMMITMENT_USD_PER_HOUR = 1_000_000.0
COMMITMENT_DECIMALS = 5
_RATES_FILE = Path(__file__).with_name("savings_plan_rates.json")


class SavingsPlanPayment(StrEnum):
    """Payment option of a Savings Plan (config key ``cost.savings_plan.payment``)."""

    NO_UPFRONT = "no-upfront"
    PARTIAL_UPFRONT = "partial-upfront"
    ALL_UPFRONT = "all-upfront"


@dataclass(frozen=True)
class CapacitySchedule:
    """Capacity of one instance-backed endpoint over a week.

    Parameters
    ----------
    price_per_hour_usd:
        On-demand price of one instance (all of an endpoint's variants' instances if they are
        priced together), in USD per hour.
    min_capacity:
        Instance count in effect when no scheduled floor applies.
    max_capacity:
        Instance count auto scaling may reach.
    floors:
        Scheduled floors ``(cron_expression, min_capacity)``; each switches the minimum at the
        time it fires and holds until the next scheduled action fires (the week wraps around).
    name:
        Endpoint name, used in the plan only. Default: empty.
    """

    price_per_hour_usd: float
    min_capacity: int
    max_capacity: int
    floors: tuple[tuple[str, int], ...] = ()
    name: str = ""

    @property
    def baseline_instances(self) -> int:
        """The always-on minimum: with scheduled floors, the lowest floor (each floor replaces the
        minimum until the next one fires); without, ``min_capacity``. Feed it to ``capacity_tags``."""
        return min(f for _, f in self.floors) if self.floors else self.min_capacity


@dataclass(frozen=True)
class BurstAssumption:
    """When capacity above the floor runs at the maximum.

    Parameters
    ----------
    hours_per_weekday:
        Busy hours per weekday (Monday-Friday) at ``max_capacity``. Default: 4, a busy afternoon;
        the recommended commitment does not depend on it unless bursts fill most of the week.
    start_hour_utc:
        First busy hour of the day, UTC. Default: 13 (13:00-17:00 UTC spans European afternoon
        and US morning).
    weekend_hours:
        Busy hours per Saturday and Sunday. Default: 0, no weekend burst.
    """

    hours_per_weekday: int = 4
    start_hour_utc: int = 13
    weekend_hours: int = 0

    def busy_minute(self, minute_of_week: int) -> bool:
        """True when the given minute of the week (0 = Monday 00:00 UTC) is a burst minute."""
        day, minute_of_day = divmod(minute_of_week, 1440)
        hours = self.hours_per_weekday if day < 5 else self.weekend_hours
        start = self.start_hour_utc * 60
        return start <= minute_of_day < start + hours * 60


@dataclass(frozen=True)
class SavingsPlanRate:
    """Planning discount of one term and payment option, with where it comes from."""

    term_years: int
    payment: SavingsPlanPayment
    discount: float
    basis: str
    as_of: str


@dataclass(frozen=True)
class CommitmentOption:
    """Expected cost of one commitment level over an average month (730 h)."""

    commitment_usd_per_hour: float
    monthly_cost_usd: float
    monthly_savings_usd: float
    savings_percent: float
    utilization_percent: float
    """Share of the committed dollars that usage consumes; 100 means nothing is wasted."""


@dataclass(frozen=True)
class CommitmentRecommendation:
    """The recommended SageMaker Savings Plan commitment beside the naive alternatives.

    ``options`` holds ``recommended`` (the exact optimum), ``average`` (covering the average
    on-demand spend), ``peak`` (covering the peak) and ``on_demand`` (no plan).
    """

    rate: SavingsPlanRate
    burst: BurstAssumption
    hourly_on_demand_usd: tuple[float, ...]
    baseline_usd_per_hour: float
    average_usd_per_hour: float
    peak_usd_per_hour: float
    recommended_usd_per_hour: float
    commitment_usd_per_hour: float | None
    """The recommendation as the Savings Plans API takes it (5 decimals, >= 0.001); None when no
    commitment pays off."""
    options: dict[str, CommitmentOption] = field(default_factory=dict)
    reason: str = ""

    @property
    def monthly_savings_usd(self) -> float:
        """Expected saving per month of the recommended commitment against on-demand."""
        return self.options["recommended"].monthly_savings_usd

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary for ``inference-plan.json`` (``savings_plan``)."""
        return {
            "term_years": self.rate.term_years,
            "payment": self.rate.payment.value,
            "discount": self.rate.discount,
            "discount_basis": self.rate.basis,
            "rates_as_of": self.rate.as_of,
            "commitment_usd_per_hour": self.commitment_usd_per_hour,
            "monthly_saving_usd": round(self.monthly_savings_usd, 2),
            "baseline_usd_per_hour": round(self.baseline_usd_per_hour, 5),
            "average_usd_per_hour": round(self.average_usd_per_hour, 5),
            "peak_usd_per_hour": round(self.peak_usd_per_hour, 5),
            "burst_assumption": {
                "hours_per_weekday": self.burst.hours_per_weekday,
                "start_hour_utc": self.burst.start_hour_utc,
                "weekend_hours": self.burst.weekend_hours,
            },
            "options": {
                name: {
                    "commitment_usd_per_hour": round(o.commitment_usd_per_hour, COMMITMENT_DECIMALS),
                    "monthly_cost_usd": round(o.monthly_cost_usd, 2),
                    "monthly_savings_usd": round(o.monthly_savings_usd, 2),
                    "savings_percent": round(o.savings_percent, 2),
                    "utilization_percent": round(o.utilization_percent, 2),
                }
                for name, o in self.options.items()
            },
            "reason": self.reason,
        }


@cache
def _rates_document() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_RATES_FILE.read_text(encoding="utf-8"))
    return data


def savings_plan_rate(
    term_years: int, payment: SavingsPlanPayment | str, *, path: str = "cost.savings_plan"
) -> SavingsPlanRate:
    """The dated planning discount for a term and payment option.

    Raises
    ------
    InferenceConfigError
        When the term is not 1 or 3 or the payment option is unknown.
    """
    problems = ProblemCollector()
    doc = _rates_document()
    if str(term_years) not in doc["rates"] or isinstance(term_years, bool):
        problems.add(f"{path}.term_years", f"{term_years!r} is not allowed", "use 1 or 3")
    allowed = [p.value for p in SavingsPlanPayment]
    payment_value = payment.value if isinstance(payment, SavingsPlanPayment) else payment
    if payment_value not in allowed:
        problems.add(f"{path}.payment", f"{payment!r} is not allowed", f"use one of {', '.join(allowed)}")
    problems.raise_if_any()
    entry = doc["rates"][str(term_years)][payment_value]
    return SavingsPlanRate(
        term_years=term_years,
        payment=SavingsPlanPayment(payment_value),
        discount=float(entry["discount"]),
        basis=str(entry["basis"]),
        as_of=str(doc["as_of"]),
    )


def _validate(schedule: CapacitySchedule, path: str, problems: ProblemCollector) -> list[tuple[int, int]]:
    """Problems of one schedule; returns its floor events ``(minute_of_week, min)``."""
    if not (isinstance(schedule.price_per_hour_usd, int | float) and schedule.price_per_hour_usd >= 0):
        problems.add(f"{path}.price_per_hour_usd", f"{schedule.price_per_hour_usd!r} is not allowed", "use >= 0")
    if schedule.min_capacity < 0:
        problems.add(f"{path}.capacity.min", f"{schedule.min_capacity} is negative", "use 0 or more")
    if schedule.max_capacity < max(schedule.min_capacity, 1):
        problems.add(
            f"{path}.capacity.max",
            f"{schedule.max_capacity} is below the minimum {schedule.min_capacity} or below 1",
            "use a maximum of at least 1 and at least capacity.min",
        )
    events: list[tuple[int, int]] = []
    for j, (expression, floor) in enumerate(schedule.floors):
        floor_path = f"{path}.scaling.schedule[{j}]"
        if not 0 <= floor <= schedule.max_capacity:
            problems.add(f"{floor_path}.min", f"{floor} is outside 0..{schedule.max_capacity}", "use 0..capacity.max")
        events.extend((minute, floor) for minute in weekly_minutes(expression, f"{floor_path}.cron", problems))
    return events


def _floor_by_minute(schedule: CapacitySchedule, events: list[tuple[int, int]]) -> list[int]:
    """The minimum in effect at every minute of the week (steady state: the week wraps around)."""
    if not events:
        return [schedule.min_capacity] * MINUTES_PER_WEEK
    # Stable sort: two actions at the same minute resolve to the later one in config order.
    ordered = sorted(events, key=lambda e: e[0])
    # The last action of the previous week is still in effect at Monday 00:00; each action holds until the next
    # one (filled a segment at a time: a Python loop over 10,080 minutes per endpoint dominated large plans).
    floors: list[int] = []
    current = ordered[-1][1]
    for minute, floor in ordered:
        floors.extend([current] * (minute - len(floors)))
        current = floor
    floors.extend([current] * (MINUTES_PER_WEEK - len(floors)))
    return floors


def weekly_profile(
    schedules: Sequence[CapacitySchedule],
    *,
    burst: BurstAssumption | None = None,
    paths: Sequence[str] | None = None,
) -> tuple[float, ...]:
    """Hourly on-demand spend (USD) of one week, Monday 00:00 UTC first, 168 values.

    Each hour's spend is the price times the instance count averaged over its 60 minutes: the
    scheduled floor, or ``max_capacity`` during burst minutes (see :class:`BurstAssumption`).

    Parameters
    ----------
    schedules:
        One entry per instance-backed endpoint. Serverless endpoints have no instance-hours and
        are left out by the caller.
    burst:
        When capacity above the floor runs at the maximum. Default: ``BurstAssumption()``,
        4 weekday hours at 13:00 UTC.
    paths:
        Key path of each schedule for problem messages. Default: ``endpoints[<i>]``.

    Raises
    ------
    InferenceConfigError
        Listing every invalid price, capacity, floor or cron expression.
    """
    burst = burst or BurstAssumption()
    problems = ProblemCollector()
    if not 0 <= burst.hours_per_weekday <= 24 or not 0 <= burst.weekend_hours <= 24:
        problems.add("burst", "busy hours per day must be within 0..24", "use 0..24")
    if not 0 <= burst.start_hour_utc <= 23:
        problems.add("burst.start_hour_utc", f"{burst.start_hour_utc} is not an hour", "use 0..23")
    labelled = [(s, paths[i] if paths else f"endpoints[{i}]") for i, s in enumerate(schedules)]
    all_events = [_validate(s, p, problems) for s, p in labelled]
    problems.raise_if_any()

    busy = [burst.busy_minute(m) for m in range(MINUTES_PER_WEEK)]
    busy_per_hour = [sum(busy[h * 60 : h * 60 + 60]) for h in range(HOURS_PER_WEEK)]
    totals = [0.0] * HOURS_PER_WEEK
    for schedule, events in zip(schedules, all_events, strict=True):
        if schedule.price_per_hour_usd == 0:
            continue
        floors = _floor_by_minute(schedule, events)
        for hour in range(HOURS_PER_WEEK):
            start = hour * 60
            if busy_per_hour[hour] == 0:  # the same sum as below, at C speed (hours are all or nothing busy)
                instance_minutes = sum(floors[start : start + 60])
            elif busy_per_hour[hour] == 60:
                instance_minutes = 60 * schedule.max_capacity
            else:
                instance_minutes = sum(
                    schedule.max_capacity if busy[m] else floors[m] for m in range(start, start + 60)
                )
            totals[hour] += schedule.price_per_hour_usd * instance_minutes / 60.0
    return tuple(totals)


def commitment_cost(profile: Sequence[float], commitment_usd_per_hour: float, discount: float) -> float:
    """Total cost of ``profile`` under a commitment: the commitment every hour plus uncovered usage.

    ``sum_h [ c + max(0, u_h - c / (1 - d)) ]``.
    """
    covered = commitment_usd_per_hour / (1.0 - discount)
    return sum(commitment_usd_per_hour + max(0.0, u - covered) for u in profile)


def optimal_commitment(profile: Sequence[float], discount: float) -> float:
    """The commitment ($/h) minimising :func:`commitment_cost`, by exact evaluation of every breakpoint.

    Ties resolve to the smallest commitment (least money at risk). O(n log n).
    """
    if not 0.0 < discount < 1.0:
        raise ValueError(f"discount must be within (0, 1), got {discount}")
    n = len(profile)
    values = sorted(profile)
    # suffix[i] = sum(values[i:])
    suffix = [0.0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + values[i]
    best_x, best_cost = 0.0, suffix[0]  # x = 0: everything on demand
    i = 0
    while i < n:
        x = values[i]
        while i < n and values[i] == x:  # first index with value > x
            i += 1
        # cost(x) = n (1-d) x + sum_{u > x} (u - x)
        cost = n * (1.0 - discount) * x + suffix[i] - (n - i) * x
        if cost < best_cost - 1e-12 * max(1.0, abs(best_cost)):
            best_x, best_cost = x, cost
    return best_x * (1.0 - discount)


def api_commitment(commitment_usd_per_hour: float) -> float | None:
    """A commitment as ``CreateSavingsPlan`` takes it: rounded down to 5 decimals, 0.001..1,000,000.

    Rounding down never commits more than the optimum; None when it is below the API minimum.
    """
    scale = 10.0**COMMITMENT_DECIMALS
    rounded = math.floor(commitment_usd_per_hour * scale + 1e-6) / scale
    if rounded < MIN_COMMITMENT_USD_PER_HOUR:
        return None
    return min(rounded, MAX_COMMITMENT_USD_PER_HOUR)


def _option(profile: Sequence[float], commitment: float, discount: float) -> CommitmentOption:
    scale = HOURS_PER_MONTH / len(profile)
    on_demand = sum(profile) * scale
    cost = commitment_cost(profile, commitment, discount) * scale
    covered = commitment / (1.0 - discount)
    used = sum(min(u, covered) for u in profile)
    utilization = 100.0 * used / (covered * len(profile)) if covered > 0 else 100.0
    return CommitmentOption(
        commitment_usd_per_hour=commitment,
        monthly_cost_usd=cost,
        monthly_savings_usd=on_demand - cost,
        savings_percent=100.0 * (on_demand - cost) / on_demand if on_demand > 0 else 0.0,
        utilization_percent=utilization,
    )


def recommend_commitment(
    schedules: Sequence[CapacitySchedule],
    *,
    term_years: int = 1,
    payment: SavingsPlanPayment | str = SavingsPlanPayment.NO_UPFRONT,
    burst: BurstAssumption | None = None,
    discount: float | None = None,
    paths: Sequence[str] | None = None,
    path: str = "cost.savings_plan",
) -> CommitmentRecommendation:
    """Recommend the SageMaker Savings Plan hourly commitment for a set of endpoints.

    Parameters
    ----------
    schedules:
        Capacity schedule of every instance-backed endpoint.
    term_years:
        1 or 3. Default: 1.
    payment:
        ``no-upfront``, ``partial-upfront`` or ``all-upfront``. Default: ``no-upfront``.
    burst:
        When capacity above the floor runs at the maximum. Default: ``BurstAssumption()``.
    discount:
        Your account's actual discount (0..1, exclusive) instead of the dated planning table.
        Default: the table entry for the term and payment (``savings_plan_rates.json``).
    paths:
        Key path of each schedule for problem messages. Default: ``endpoints[<i>]``.
    path:
        Key path of the Savings Plan options for problem messages. Default: ``cost.savings_plan``.

    Returns
    -------
    CommitmentRecommendation
        The exact optimum, the API-ready commitment and the monthly cost of the recommended,
        average, peak and no commitment.

    Raises
    ------
    InferenceConfigError
        Listing every invalid option, schedule, floor or cron expression.
    """
    rate = savings_plan_rate(term_years, payment, path=path)
    if discount is not None:
        if not 0.0 < discount < 1.0:
            problems = ProblemCollector()
            problems.add(f"{path}.discount", f"{discount} is not allowed", "use a fraction between 0 and 1, e.g. 0.3")
            problems.raise_if_any()
        rate = SavingsPlanRate(rate.term_years, rate.payment, discount, "given by the caller", rate.as_of)
    burst = burst or BurstAssumption()
    profile = weekly_profile(schedules, burst=burst, paths=paths)
    d = rate.discount
    best = optimal_commitment(profile, d)
    baseline, average, peak = (min(profile), sum(profile) / len(profile), max(profile)) if profile else (0, 0, 0)
    options = {
        "recommended": _option(profile, best, d),
        "average": _option(profile, average * (1 - d), d),
        "peak": _option(profile, peak * (1 - d), d),
        "on_demand": _option(profile, 0.0, d),
    }
    committed = api_commitment(best)
    if committed is None:
        reason = "no commitment pays off: no spend level is used in enough hours of the week"
    else:
        covered_hours = sum(1 for u in profile if u >= best / (1 - d) - 1e-9)
        reason = (
            f"commit {committed} $/h: it covers {best / (1 - d):.4f} $/h of on-demand spend, which runs in "
            f"{covered_hours} of {len(profile)} weekly hours, above the {100 * (1 - d):.0f}% break-even share "
            f"for a {100 * d:.0f}% discount"
        )
    return CommitmentRecommendation(
        rate=rate,
        burst=burst,
        hourly_on_demand_usd=profile,
        baseline_usd_per_hour=float(baseline),
        average_usd_per_hour=float(average),
        peak_usd_per_hour=float(peak),
        recommended_usd_per_hour=best,
        commitment_usd_per_hour=committed,
        options=options,
        reason=reason,
    )
