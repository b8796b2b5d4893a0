"""Savings Plan commitment sizing: exact optimum, weekly profiles, naive alternatives, validation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inference_constructs.cost.commitment import (
    HOURS_PER_WEEK,
    BurstAssumption,
    CapacitySchedule,
    SavingsPlanPayment,
    api_commitment,
    commitment_cost,
    optimal_commitment,
    recommend_commitment,
    savings_plan_rate,
    weekly_profile,
)
from inference_constructs.errors import InferenceConfigError

WEEKDAY_FLOORS = (("cron(0 7 ? * MON-FRI *)", 2), ("cron(0 19 ? * MON-FRI *)", 1))


def _brute_force(profile: list[float] | tuple[float, ...], discount: float, steps: int = 4_000) -> float:
    """Lowest cost over a fine grid of commitments from 0 to the peak."""
    top = max(profile) * (1 - discount)
    return min(commitment_cost(profile, top * k / steps, discount) for k in range(steps + 1))


def _flat() -> list[float]:
    return [2.0] * HOURS_PER_WEEK


def _diurnal() -> list[float]:
    return [1.0 + 3.0 * max(0.0, math.sin(math.pi * ((h % 24) - 6) / 12)) for h in range(HOURS_PER_WEEK)]


def _weekday_only() -> list[float]:
    return [4.0 if h < 120 and 8 <= h % 24 < 18 else 0.0 for h in range(HOURS_PER_WEEK)]


def _spiky() -> list[float]:
    return [10.0 if h % 37 == 0 else 1.0 for h in range(HOURS_PER_WEEK)]


PROFILES = {"flat": _flat, "diurnal": _diurnal, "weekday-only": _weekday_only, "spiky": _spiky}


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("discount", [0.25, 0.43, 0.64])
def test_optimum_matches_brute_force_over_commitment_levels(name: str, discount: float) -> None:
    # GIVEN an hourly on-demand profile and a discount
    profile = PROFILES[name]()
    # WHEN the optimum is computed from the breakpoints
    best = optimal_commitment(profile, discount)
    # THEN no commitment on a fine grid is cheaper
    assert commitment_cost(profile, best, discount) <= _brute_force(profile, discount) + 1e-9


@settings(max_examples=60, deadline=None)
@given(
    profile=st.lists(st.floats(min_value=0, max_value=50, allow_nan=False), min_size=1, max_size=60),
    discount=st.floats(min_value=0.05, max_value=0.9),
)
def test_optimum_is_never_beaten_by_any_grid_commitment(profile: list[float], discount: float) -> None:
    # GIVEN any profile WHEN the optimum is computed THEN a brute-force grid search finds nothing cheaper
    best = optimal_commitment(profile, discount)
    assert commitment_cost(profile, best, discount) <= _brute_force(profile, discount, 1_000) + 1e-7


@pytest.mark.parametrize("discount", [0.25, 0.5])
def test_optimum_covers_the_level_used_in_at_least_one_minus_discount_of_hours(discount: float) -> None:
    # GIVEN a week at 1 $/h with 3 $/h for 60 of 168 hours (36 %)
    profile = [3.0 if h < 60 else 1.0 for h in range(HOURS_PER_WEEK)]
    # WHEN sized THEN only the always-on 1 $/h is covered: 60 h is below the break-even share 1 - d
    assert optimal_commitment(profile, discount) == pytest.approx(1.0 * (1 - discount))


def test_optimum_covers_a_level_used_more_often_than_the_break_even_share() -> None:
    # GIVEN 3 $/h for 140 of 168 hours (83 %) and a 25 % discount (break-even share 75 %)
    profile = [3.0 if h < 140 else 1.0 for h in range(HOURS_PER_WEEK)]
    # WHEN sized THEN the 3 $/h level is covered
    assert optimal_commitment(profile, 0.25) == pytest.approx(3.0 * 0.75)


def test_flat_profile_commits_to_everything_and_all_strategies_agree() -> None:
    # GIVEN one endpoint always at 2 instances of 1.5 $/h
    rec = recommend_commitment([CapacitySchedule(1.5, 2, 2)], term_years=1, payment="no-upfront")
    # WHEN compared THEN recommended, average and peak coincide and save the full discount
    costs = {name: option.monthly_cost_usd for name, option in rec.options.items()}
    assert costs["recommended"] == pytest.approx(costs["average"]) == pytest.approx(costs["peak"])
    assert rec.options["recommended"].savings_percent == pytest.approx(100 * rec.rate.discount)


@pytest.mark.parametrize(
    "schedule",
    [
        CapacitySchedule(1.515, 1, 4, WEEKDAY_FLOORS),
        CapacitySchedule(2.0, 1, 6),
        CapacitySchedule(5.672, 2, 8, (("cron(30 6 ? * MON-FRI *)", 4), ("cron(0 20 ? * MON-FRI *)", 2))),
    ],
)
def test_recommended_beats_commit_to_average_and_commit_to_peak(schedule: CapacitySchedule) -> None:
    # GIVEN an endpoint with a baseline, scheduled floors and bursts
    rec = recommend_commitment([schedule])
    # WHEN the options are compared
    options = rec.options
    # THEN the exact optimum is strictly cheaper than the rules of thumb and than on-demand
    assert options["recommended"].monthly_cost_usd < options["average"].monthly_cost_usd
    assert options["recommended"].monthly_cost_usd < options["peak"].monthly_cost_usd
    assert options["recommended"].monthly_cost_usd < options["on_demand"].monthly_cost_usd


def test_default_platform_commits_to_the_always_on_baseline() -> None:
    # GIVEN min 1, max 4, floors 2 on weekdays 07:00-19:00 UTC, 1.515 $/h, 1 year no upfront (25 %)
    rec = recommend_commitment([CapacitySchedule(1.515, 1, 4, WEEKDAY_FLOORS, name="chat")])
    # WHEN sized THEN the commitment covers the one always-on instance; the weekday floor (60 h, 36 %) stays on demand
    assert rec.commitment_usd_per_hour == pytest.approx(1.13625)
    assert rec.baseline_usd_per_hour == pytest.approx(1.515)
    assert rec.options["recommended"].utilization_percent == pytest.approx(100.0)


def test_burst_only_endpoint_recommends_no_commitment() -> None:
    # GIVEN an endpoint that is at zero outside weekday business hours
    schedule = CapacitySchedule(1.0, 0, 4, (("cron(0 8 ? * MON-FRI *)", 2), ("cron(0 18 ? * MON-FRI *)", 0)))
    # WHEN sized
    rec = recommend_commitment([schedule])
    # THEN nothing is committed and the plan says why
    assert rec.commitment_usd_per_hour is None
    assert rec.options["recommended"].monthly_cost_usd == pytest.approx(rec.options["on_demand"].monthly_cost_usd)
    assert "no commitment pays off" in rec.reason


def test_weekly_profile_switches_floors_at_the_cron_time_and_wraps_the_week() -> None:
    # GIVEN floors 2 from 07:00 and 1 from 19:00 on weekdays, no bursts
    profile = weekly_profile([CapacitySchedule(1.0, 1, 4, WEEKDAY_FLOORS)], burst=BurstAssumption(0))
    # WHEN read THEN Monday 06:00 (wrapped from Friday 19:00) is 1, Monday 07:00-18:00 is 2, Saturday is 1
    assert profile[6] == 1.0
    assert profile[7:19] == (2.0,) * 12
    assert profile[19] == 1.0
    assert set(profile[120:168]) == {1.0}


def test_weekly_profile_prorates_a_floor_that_starts_mid_hour() -> None:
    # GIVEN a floor of 3 from Tuesday 06:30 and back to 1 at 20:00
    floors = (("cron(30 6 ? * TUE *)", 3), ("cron(0 20 ? * TUE *)", 1))
    # WHEN profiled
    profile = weekly_profile([CapacitySchedule(1.0, 1, 3, floors)], burst=BurstAssumption(0))
    # THEN hour 06 of Tuesday averages half an hour at 1 and half at 3
    assert profile[24 + 6] == pytest.approx(2.0)


def test_weekly_profile_runs_bursts_at_max_on_weekdays_only() -> None:
    # GIVEN min 1 max 4 and the default burst (4 weekday hours from 13:00 UTC)
    profile = weekly_profile([CapacitySchedule(1.0, 1, 4)])
    # WHEN read THEN 20 hours run at 4 instances, the rest at 1
    assert sum(1 for u in profile if u == 4.0) == 20
    assert profile[13] == 4.0
    assert profile[5 * 24 + 13] == 1.0


def test_weekly_profile_sums_endpoints() -> None:
    # GIVEN two endpoints WHEN profiled THEN every hour is the sum of both
    profile = weekly_profile([CapacitySchedule(1.0, 1, 1), CapacitySchedule(0.5, 2, 2)])
    assert set(profile) == {2.0}


def test_recommendation_is_insensitive_to_the_burst_assumption_while_bursts_are_short() -> None:
    # GIVEN the same endpoint under short and longer burst assumptions
    schedule = CapacitySchedule(1.0, 1, 4)
    short = recommend_commitment([schedule], burst=BurstAssumption(hours_per_weekday=2))
    longer = recommend_commitment([schedule], burst=BurstAssumption(hours_per_weekday=10))
    # WHEN compared THEN the commitment is the same while the expected cost differs
    assert short.commitment_usd_per_hour == longer.commitment_usd_per_hour
    assert short.options["on_demand"].monthly_cost_usd < longer.options["on_demand"].monthly_cost_usd


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1.136254, 1.13625), (1.136259, 1.13625), (0.0009, None), (0.001, 0.001), (2_000_000.0, 1_000_000.0)],
)
def test_api_commitment_rounds_down_to_five_decimals_within_api_limits(value: float, expected: float | None) -> None:
    # GIVEN an exact commitment WHEN made API-ready THEN it is rounded down and bounded
    assert api_commitment(value) == expected


def test_monthly_figures_scale_the_week_to_730_hours() -> None:
    # GIVEN 1 $/h flat WHEN priced THEN on-demand is 730 $ a month
    rec = recommend_commitment([CapacitySchedule(1.0, 1, 1)])
    assert rec.options["on_demand"].monthly_cost_usd == pytest.approx(730.0)


@pytest.mark.parametrize(
    ("term", "payment"), [(1, p) for p in SavingsPlanPayment] + [(3, p) for p in SavingsPlanPayment]
)
def test_rate_table_has_a_dated_sourced_discount_for_every_term_and_payment(
    term: int, payment: SavingsPlanPayment
) -> None:
    # GIVEN a term and payment WHEN looked up THEN the rate is a fraction with a basis and a date
    rate = savings_plan_rate(term, payment)
    assert 0 < rate.discount < 0.64
    assert rate.basis and rate.as_of


def test_longer_term_and_more_upfront_never_discount_less() -> None:
    # GIVEN the table WHEN ordered by term and payment THEN discounts do not decrease
    order = [SavingsPlanPayment.NO_UPFRONT, SavingsPlanPayment.PARTIAL_UPFRONT, SavingsPlanPayment.ALL_UPFRONT]
    discounts = [savings_plan_rate(t, p).discount for t in (1, 3) for p in order]
    assert discounts == sorted(discounts)


def test_caller_discount_overrides_the_table() -> None:
    # GIVEN an account's own rate WHEN recommended THEN it is used and labelled
    rec = recommend_commitment([CapacitySchedule(1.0, 1, 1)], discount=0.4)
    assert rec.rate.discount == 0.4
    assert rec.rate.basis == "given by the caller"


def test_to_dict_reports_commitment_saving_and_alternatives() -> None:
    # GIVEN a recommendation WHEN serialised for the plan THEN it carries the keys the plan needs
    data = recommend_commitment([CapacitySchedule(1.515, 1, 4, WEEKDAY_FLOORS)]).to_dict()
    assert data["commitment_usd_per_hour"] == pytest.approx(1.13625)
    assert set(data["options"]) == {"recommended", "average", "peak", "on_demand"}
    assert data["monthly_saving_usd"] > 0


def test_fails_on_unknown_term_and_payment_together() -> None:
    # GIVEN a bad term and a bad payment WHEN looked up THEN one error names both
    with pytest.raises(
        InferenceConfigError, match=r"cost.savings_plan.term_years: 2 is not allowed; use 1 or 3"
    ) as err:
        savings_plan_rate(2, "monthly")
    assert "cost.savings_plan.payment: 'monthly' is not allowed" in str(err.value)


@pytest.mark.parametrize(
    ("cron", "message"),
    [
        ("cron(0 7 1 * ? *)", r"endpoints\[0\].scaling.schedule\[0\].cron: .* does not recur every week"),
        ("rate(1 hour)", r"endpoints\[0\].scaling.schedule\[0\].cron: .* is not a six-field cron"),
        ("cron(0 25 ? * MON *)", r"endpoints\[0\].scaling.schedule\[0\].cron: .* cannot be read"),
    ],
)
def test_fails_on_a_schedule_that_is_not_weekly(cron: str, message: str) -> None:
    # GIVEN a floor with a non-weekly schedule WHEN profiled THEN the error names the cron's key path
    with pytest.raises(InferenceConfigError, match=message):
        weekly_profile([CapacitySchedule(1.0, 1, 4, ((cron, 2),))])


def test_fails_listing_every_capacity_problem() -> None:
    # GIVEN a negative price, max below min and a floor above max
    schedule = CapacitySchedule(-1.0, 3, 2, (("cron(0 7 ? * MON-FRI *)", 9),))
    # WHEN profiled THEN all three problems are reported at once
    with pytest.raises(InferenceConfigError, match="3 problems") as err:
        weekly_profile([schedule], paths=["endpoints[2]"])
    text = str(err.value)
    assert "endpoints[2].price_per_hour_usd" in text
    assert "endpoints[2].capacity.max" in text
    assert "endpoints[2].scaling.schedule[0].min: 9 is outside 0..2" in text


def test_fails_on_a_discount_outside_zero_and_one() -> None:
    # GIVEN a discount of 1.2 WHEN recommended THEN the error says what to use
    with pytest.raises(InferenceConfigError, match=r"cost.savings_plan.discount: 1.2 is not allowed"):
        recommend_commitment([CapacitySchedule(1.0, 1, 1)], discount=1.2)


@pytest.mark.parametrize(
    ("schedule", "expected"),
    [
        (CapacitySchedule(1.0, 1, 4), 1),
        (CapacitySchedule(1.0, 1, 4, WEEKDAY_FLOORS), 1),
        (CapacitySchedule(1.0, 3, 4, (("cron(0 8 ? * MON-FRI *)", 2), ("cron(0 18 ? * MON-FRI *)", 0))), 0),
    ],
)
def test_baseline_instances_is_the_lowest_minimum_of_the_week(schedule: CapacitySchedule, expected: int) -> None:
    # GIVEN a schedule WHEN asked for its always-on minimum THEN scheduled floors replace capacity.min
    assert schedule.baseline_instances == expected
