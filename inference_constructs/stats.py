"""CloudWatch statistics by name: :class:`Statistic`, the library's form of aws-cdk's ``cloudwatch.Stats``.

Every ``statistic`` the library takes (``metric_*`` options, alarms, dashboards, metric factories) is a
``Statistic`` or the string CloudWatch uses (``"Average"``, ``"p99"``): a ``Statistic`` *is* that string, so the
two give the same metric and the same template. Pure Python (ground): no ``aws_cdk`` import.
"""

from __future__ import annotations

from enum import StrEnum

from inference_constructs.errors import InferenceConfigError, Problem

__all__ = ["Statistic"]


class Statistic(StrEnum):
    """A CloudWatch statistic, as aws-cdk's ``cloudwatch.Stats``: the basic ones as members, the parameterized ones
    (percentile, trimmed mean, ...) from the class methods, which return CloudWatch's string.

    See https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Statistics-definitions.html.
    """

    AVERAGE = "Average"
    """The mean of the values in the period."""
    SUM = "Sum"
    """The values in the period added up."""
    MINIMUM = "Minimum"
    """The lowest value in the period."""
    MAXIMUM = "Maximum"
    """The highest value in the period."""
    SAMPLE_COUNT = "SampleCount"
    """The number of values in the period."""
    IQM = "IQM"
    """The interquartile mean: the trimmed mean of the middle 50% (``TM(25%:75%)``)."""

    @staticmethod
    def percentile(percentile: float) -> str:
        """``pNN``: the value ``percentile`` percent of the values are at or below (``percentile(99)`` is ``p99``,
        ``percentile(99.9)`` is ``p99.9``).

        Raises
        ------
        InferenceConfigError
            ``percentile`` outside 0..100.
        """
        return f"p{_percent('percentile', percentile)}"

    #: Short form of :meth:`percentile` (``Statistic.p(99)``), as ``Stats.p``.
    p = percentile

    @staticmethod
    def trimmed_mean(lower: float, upper: float | None = None) -> str:
        """The mean of the values between two percentiles: ``TM(10%:90%)``; with ``lower`` only, the values up to
        it (``tm99``)."""
        return _ranged("tm", lower, upper)

    @staticmethod
    def winsorized_mean(lower: float, upper: float | None = None) -> str:
        """The mean with the values beyond the percentiles clamped to them: ``WM(10%:90%)``; ``wm99`` with
        ``lower`` only."""
        return _ranged("wm", lower, upper)

    @staticmethod
    def trimmed_count(lower: float, upper: float | None = None) -> str:
        """The number of values between the percentiles: ``TC(10%:90%)``; ``tc99`` with ``lower`` only."""
        return _ranged("tc", lower, upper)

    @staticmethod
    def trimmed_sum(lower: float, upper: float | None = None) -> str:
        """The sum of the values between the percentiles: ``TS(10%:90%)``; ``ts99`` with ``lower`` only."""
        return _ranged("ts", lower, upper)

    @staticmethod
    def percentile_rank(lower: float, upper: float | None = None) -> str:
        """The percentage of values at or below ``lower`` (``PR(:100)``), or between ``lower`` and ``upper``
        (``PR(10:200)``); the bounds are values of the metric, not percentages."""
        return f"PR({_number(lower)}:{_number(upper)})" if upper is not None else f"PR(:{_number(lower)})"

    tm = trimmed_mean
    wm = winsorized_mean
    tc = trimmed_count
    ts = trimmed_sum
    pr = percentile_rank


def _ranged(name: str, lower: float, upper: float | None) -> str:
    low = _percent("lower", lower)
    if upper is None:
        return f"{name}{low}"
    return f"{name.upper()}({low}%:{_percent('upper', upper)}%)"


def _percent(argument: str, value: float) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise InferenceConfigError([Problem(argument, f"{value!r} is not a percentage", "use 0 to 100", "range")])
    return _number(value)


def _number(value: float) -> str:
    """``value`` as JavaScript writes it (aws-cdk's ``Stats`` do): ``99``, ``99.9``, never ``99.0``."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
