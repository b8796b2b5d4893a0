"""Weekly-recurring Application Auto Scaling ``cron(...)`` expressions (private, pure Python).

Application Auto Scaling scheduled actions use six fields,
``cron(Minutes Hours Day-of-month Month Day-of-week Year)``, evaluated in UTC unless the action
names a time zone; day-of-week runs ``1-7`` with ``1 = SUN``, or ``SUN-SAT``
(https://docs.aws.amazon.com/autoscaling/application/userguide/scheduled-scaling-using-cron-expressions.html).
A capacity floor that recurs every week (day-of-month ``?``/``*``, month ``*``, year ``*``) maps
onto fixed minutes of a week, which is all the commitment sizing needs.
"""

from __future__ import annotations

import re

from inference_constructs.errors import ProblemCollector

_DAY_NAMES = {"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}
_CRON = re.compile(r"^cron\((?P<body>[^()]*)\)$")
_FIX = "use a weekly cron such as cron(0 7 ? * MON-FRI *)"


def _expand(field: str, low: int, high: int, names: dict[str, int] | None = None) -> list[int] | None:
    """Values a cron field selects within ``low..high``; None when the field is not understood."""

    def value(token: str) -> int | None:
        token = token.upper()
        if names and token in names:
            return names[token]
        return int(token) if token.isdigit() else None

    selected: set[int] = set()
    for raw in field.split(","):
        part, step = raw, 1
        stepped = "/" in raw
        if stepped:
            part, step_text = raw.split("/", 1)
            if not step_text.isdigit() or int(step_text) < 1:
                return None
            step = int(step_text)
        if part in ("*", "?"):
            first, last = low, high
        elif "-" in part:
            a, b = part.split("-", 1)
            va, vb = value(a), value(b)
            if va is None or vb is None:
                return None
            first, last = va, vb
        else:
            v = value(part)
            if v is None:
                return None
            first, last = v, (high if stepped else v)
        if not (low <= first <= high and low <= last <= high) or first > last:
            return None
        selected.update(range(first, last + 1, step))
    return sorted(selected)


def weekly_minutes(expression: str, path: str, problems: ProblemCollector) -> list[int]:
    """Minutes of the week (0 = Monday 00:00 UTC) at which a weekly-recurring cron fires.

    Parameters
    ----------
    expression:
        An Application Auto Scaling schedule such as ``cron(0 7 ? * MON-FRI *)``.
    path:
        Key path used in problem messages, e.g. ``endpoints[0].scaling.schedule[1].cron``.
    problems:
        Receives one problem when the expression is not a weekly-recurring cron.

    Returns
    -------
    list[int]
        Sorted minutes of the week; empty when the expression was rejected.
    """
    match = _CRON.match(expression.strip())
    fields = match.group("body").split() if match else []
    if len(fields) != 6:
        problems.add(path, f"{expression!r} is not a six-field cron(m h dom mon dow year) expression", _FIX)
        return []
    minute_f, hour_f, dom_f, month_f, dow_f, year_f = fields
    if dom_f not in ("?", "*") or month_f != "*" or year_f not in ("*", "?"):
        problems.add(
            path,
            f"{expression!r} does not recur every week, so it cannot be placed in a weekly capacity profile",
            "set day-of-month to ?, month to * and year to *",
        )
        return []
    minutes = _expand(minute_f, 0, 59)
    hours = _expand(hour_f, 0, 23)
    days = _expand(dow_f, 1, 7, _DAY_NAMES)
    if minutes is None or hours is None or days is None:
        problems.add(path, f"{expression!r} has a minute, hour or day-of-week field that cannot be read", _FIX)
        return []
    # cron day 1 = Sunday; the profile's day 0 = Monday
    week_days = sorted((d - 2) % 7 for d in days)
    return sorted(day * 1440 + hour * 60 + minute for day in week_days for hour in hours for minute in minutes)
