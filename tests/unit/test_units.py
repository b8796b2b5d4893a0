"""The shared numbers of time are what their docstrings say they are."""

from __future__ import annotations

from inference_constructs import units


def test_a_month_is_a_twelfth_of_a_365_day_year_in_hours() -> None:
    # GIVEN the month the cost arithmetic uses WHEN compared with the calendar THEN it is 8,760 h / 12
    assert units.HOURS_PER_MONTH == 365 * 24 / 12


def test_a_week_is_168_hours_and_10080_minutes() -> None:
    # GIVEN the week of a capacity profile WHEN counted THEN it is 7 days of 24 hours of 60 minutes
    assert (units.HOURS_PER_WEEK, units.MINUTES_PER_WEEK) == (168, 10_080)
