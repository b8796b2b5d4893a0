"""Scaling checks: capacity bounds per endpoint kind, target ranges, serverless provisioned-concurrency
bounds, cron expressions and scheduled floors. Each adds to a :class:`~inference_constructs.errors.ProblemCollector`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from inference_constructs.errors import ProblemCollector
from inference_constructs.scaling.defaults import MAX_CAPACITY, MAX_SERVERLESS_CONCURRENCY
from inference_constructs.scaling.types import ScheduledFloor
from inference_constructs.spec import EndpointKind

__all__ = [
    "check_capacity",
    "check_provisioned_concurrency_bounds",
    "cron_problem",
    "schedule_floors",
]


def _key(path: str, sub: str) -> str:
    return f"{path}.{sub}" if path else sub


def _a(kind: EndpointKind) -> str:
    return f"an {kind.value}" if kind is EndpointKind.ASYNC else f"a {kind.value}"


def _fmt(value: float) -> str:
    return f"{value:g}"


_CRON = re.compile(r"^cron\((.*)\)$")


def cron_problem(cron: str) -> str | None:
    """Return why ``cron`` is not an Application Auto Scaling cron expression, or None when it is.

    The form is ``cron(minutes hours day-of-month month day-of-week year)`` (6 fields), with
    exactly one of day-of-month and day-of-week set to ``?``.
    """
    match = _CRON.match(cron.strip())
    if not match:
        return f"{cron!r} is not a cron expression; use cron(minutes hours day-of-month month day-of-week year)"
    fields = match.group(1).split()
    if len(fields) != 6:
        return (
            f"{cron!r} has {len(fields)} fields; use 6: cron(minutes hours day-of-month month day-of-week year), "
            "e.g. cron(0 7 ? * MON-FRI *)"
        )
    day_of_month, day_of_week = fields[2], fields[4]
    if (day_of_month == "?") == (day_of_week == "?"):
        return f"{cron!r} must set exactly one of day-of-month and day-of-week to '?', e.g. cron(0 7 ? * MON-FRI *)"
    return None


def check_capacity(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    min_capacity: int,
    max_capacity: int,
    burstable: bool = False,
    instance_type: str | None = None,
    scales: bool = True,
    inference_component_allowed: bool = True,
) -> None:
    """Check instance-count bounds for ``kind`` (rules: min <= max, min 0 only where possible, no burstable).

    The one home of these rules: the hosting checks and the constructs' ``auto_scale_*`` methods call it.

    ``scales`` is False when the endpoint has fixed capacity and no policies (then a burstable host
    is fine). ``inference_component_allowed`` is False when the caller scales variant instances
    directly (``EndpointScaling``), where real-time min 0 is impossible.
    """
    min_key, max_key = _key(path, "capacity.min"), _key(path, "capacity.max")
    if min_capacity < 0:
        problems.add(min_key, f"{min_capacity} is negative", "use 0 or more")
    if max_capacity < 1 or max_capacity > MAX_CAPACITY:
        problems.add(max_key, f"{max_capacity} is out of range", f"use 1..{MAX_CAPACITY}")
    if min_capacity > max_capacity:
        problems.add(
            min_key, f"{min_capacity} is greater than capacity.max {max_capacity}", "set min <= max", code="conflict"
        )
    if min_capacity == 0:
        if kind is EndpointKind.MULTI_MODEL:
            problems.add(
                min_key,
                "0 is not allowed on a multi-model endpoint (only inference components and async endpoints scale "
                "to zero, and an inference component hosts one model)",
                "use 1 or more, or one realtime endpoint per model with min 0",
            )
        elif kind is EndpointKind.REALTIME and not inference_component_allowed:
            problems.add(
                min_key,
                "0 is not allowed when scaling real-time variant instances (real-time scale to zero needs an "
                "inference component)",
                "use 1 or more, or host the model through an inference component (InferenceComponentScaling)",
            )
    if burstable and scales:
        problems.add(
            _key(path, "instance_type"),
            f"{instance_type or 'the host'} is a burstable instance type and cannot be auto scaled",
            "choose a non-burstable instance type (e.g. ml.m5 or ml.c5), or set capacity.min equal to capacity.max "
            "and remove the scaling keys",
        )


def _check_range(
    problems: ProblemCollector, key: str, value: float, low: float, high: float, *, low_inclusive: bool = False
) -> bool:
    too_low = value < low if low_inclusive else value <= low
    if too_low or value > high:
        bound = f"{_fmt(low)} <= value" if low_inclusive else f"{_fmt(low)} < value"
        problems.add(key, f"{_fmt(value)} is out of range", f"use {bound} <= {_fmt(high)}")
        return False
    return True


def check_provisioned_concurrency_bounds(
    problems: ProblemCollector, path: str, *, min_capacity: int, max_capacity: int
) -> None:
    """Serverless provisioned concurrency: 0 <= min <= max, 1 <= max <= :data:`MAX_SERVERLESS_CONCURRENCY` (the one
    home of these rules: the hosting checks and ``ServerlessScaling`` call it)."""
    most = MAX_SERVERLESS_CONCURRENCY
    if min_capacity < 0:
        problems.add(_key(path, "serverless.provisioned_concurrency"), f"{min_capacity} is negative", f"use 0..{most}")
    if max_capacity < 1 or max_capacity > most:
        problems.add(_key(path, "serverless.max_concurrency"), f"{max_capacity} is out of range", f"use 1..{most}")
    if min_capacity > max_capacity:
        problems.add(
            _key(path, "serverless.provisioned_concurrency"),
            f"{min_capacity} is greater than serverless.max_concurrency {max_capacity}",
            f"use at most {max_capacity} (serverless.max_concurrency)",
            code="conflict",
        )


def schedule_floors(
    problems: ProblemCollector,
    path: str,
    *,
    kind: EndpointKind,
    schedule: Sequence[ScheduledFloor],
    max_capacity: int,
    zero_allowed: bool,
    start_index: int = 0,
) -> tuple[ScheduledFloor, ...]:
    """Validate scheduled floors: cron syntax, 0 <= min <= max, and min 0 only where capacity can be 0."""
    valid: list[ScheduledFloor] = []
    for offset, floor in enumerate(schedule):
        base = _key(path, f"scaling.schedule[{start_index + offset}]")
        before = len(problems.problems)
        if kind is EndpointKind.SERVERLESS:
            problems.add(base, "scheduled floors are not available on a serverless endpoint", "remove it")
            continue
        problem = cron_problem(floor.cron)
        if problem:
            problems.add(f"{base}.cron", problem)
        effective_max = floor.max_capacity if floor.max_capacity is not None else max_capacity
        if floor.min_capacity < 0:
            problems.add(f"{base}.min", f"{floor.min_capacity} is negative", "use 0 or more")
        elif floor.min_capacity == 0 and not zero_allowed:
            problems.add(
                f"{base}.min",
                f"0 is not allowed on this {kind.value} endpoint (it cannot scale to zero)",
                "use 1 or more",
            )
        if floor.max_capacity is not None and (floor.max_capacity < 1 or floor.max_capacity > MAX_CAPACITY):
            problems.add(f"{base}.max", f"{floor.max_capacity} is out of range", f"use 1..{MAX_CAPACITY}")
        if floor.min_capacity > effective_max:
            problems.add(
                f"{base}.min",
                f"{floor.min_capacity} is greater than the maximum {effective_max}",
                f"use at most {effective_max} (capacity.max, or this entry's max)",
                code="conflict",
            )
        if len(problems.problems) == before:
            valid.append(floor)
    return tuple(valid)
