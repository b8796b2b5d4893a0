"""Shared numbers of time the cost arithmetic works in, each defined once with its meaning.

Pure Python that imports nothing (a ground helper): the plan's monthly costs, the Bedrock price estimates and the
Savings Plan sizing all turn hourly prices into months and weeks with these.
"""

from __future__ import annotations

__all__ = ["HOURS_PER_MONTH", "HOURS_PER_WEEK", "MINUTES_PER_WEEK"]

HOURS_PER_MONTH = 730.0
"""Hours in an average month: 365 days x 24 h / 12 months = 730, the month AWS pricing pages and the AWS Pricing
Calculator bill an always-on resource for (https://calculator.aws/#/)."""
HOURS_PER_WEEK = 7 * 24
"""Hours in a week (168): the period a weekly scaling schedule repeats over."""
MINUTES_PER_WEEK = HOURS_PER_WEEK * 60
"""Minutes in a week (10,080): the resolution of a weekly capacity profile."""
