"""Capacity tags: the baseline/burst split a FinOps reader filters by."""

from __future__ import annotations

import pytest

from inference_constructs.cost.capacity_tags import capacity_tags, validate_cost_tags
from inference_constructs.errors import InferenceConfigError, ProblemCollector


@pytest.mark.parametrize(
    ("baseline", "maximum", "kind"),
    [(2, 2, "baseline"), (0, 4, "burst"), (1, 4, "mixed")],
)
def test_capacity_kind_follows_the_always_on_minimum(baseline: int, maximum: int, kind: str) -> None:
    # GIVEN an endpoint's always-on minimum and maximum WHEN tagged THEN the kind says what a commitment covers
    tags = capacity_tags(baseline, maximum)
    assert tags == {
        "inference:capacity": kind,
        "inference:baseline-instances": str(baseline),
        "inference:max-instances": str(maximum),
    }


def test_baseline_dollars_are_tagged_when_the_price_is_known() -> None:
    # GIVEN 1 always-on instance at 1.515 $/h WHEN tagged THEN the coverable spend is on the resource
    assert capacity_tags(1, 4, price_per_hour_usd=1.515)["inference:baseline-usd-per-hour"] == "1.5150"


def test_fails_on_reserved_prefix_bad_characters_and_long_values() -> None:
    # GIVEN three bad tags WHEN validated THEN each is reported under its key path
    problems = ProblemCollector()
    validate_cost_tags({"aws:team": "a", "team#": "b", "team": "x" * 300}, "tags", problems)
    with pytest.raises(InferenceConfigError, match="3 problems") as err:
        problems.raise_if_any()
    text = str(err.value)
    assert "tags.aws:team: tag keys starting with aws: are reserved" in text
    assert "tags.team#: tag key is not allowed" in text
    assert "tags.team: tag value" in text
