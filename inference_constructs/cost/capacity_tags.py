"""Cost tags that say which capacity is baseline and which is burst (pure Python, no ``aws_cdk``).

Tags sit on resources, and an endpoint with ``min 1, max 4`` is one resource: its bill cannot be
split by tag into baseline and burst hours. So the tags describe the split instead, and a FinOps
reader filters Cost Explorer by them:

``inference:capacity``
    ``baseline`` (min = max > 0: always on, fully coverable by a Savings Plan), ``burst``
    (min = 0: runs only under load, leave it on demand) or ``mixed`` (0 < min < max).
``inference:baseline-instances``
    The always-on minimum: the lowest instance count over the week, scheduled floors included.
``inference:max-instances``
    The ceiling auto scaling may reach.
``inference:baseline-usd-per-hour``
    Always-on minimum x on-demand price: the part of the endpoint a commitment covers (present
    when the price is known).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import ProblemCollector

PLATFORM_TAG = "inference:platform"
"""Tag on every resource naming the platform it belongs to."""
CAPACITY_TAG = "inference:capacity"
BASELINE_INSTANCES_TAG = "inference:baseline-instances"
MAX_INSTANCES_TAG = "inference:max-instances"
BASELINE_USD_PER_HOUR_TAG = "inference:baseline-usd-per-hour"
CAPACITY_TAG_KEYS = (CAPACITY_TAG, BASELINE_INSTANCES_TAG, MAX_INSTANCES_TAG, BASELINE_USD_PER_HOUR_TAG)
"""Keys worth activating as cost allocation tags next to the team tags."""

# https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html: letters, digits, spaces and _ . : / = + - @
_TAG_CHARS = re.compile(r"^[\w\s.:/=+\-@]*$")


def capacity_kind(min_capacity: int, max_capacity: int) -> str:
    """``baseline``, ``burst`` or ``mixed`` (see the module docstring)."""
    if min_capacity <= 0:
        return "burst"
    return "baseline" if min_capacity >= max_capacity else "mixed"


def capacity_tags(
    baseline_instances: int, max_instances: int, *, price_per_hour_usd: float | None = None
) -> dict[str, str]:
    """Tags describing an endpoint's baseline/burst split.

    Parameters
    ----------
    baseline_instances:
        The always-on minimum (the lowest minimum over the week, scheduled floors included).
    max_instances:
        The maximum auto scaling may reach.
    price_per_hour_usd:
        On-demand price of one instance. Default: the ``inference:baseline-usd-per-hour`` tag is
        left out.

    Returns
    -------
    dict[str, str]
        Tag key to value, e.g. ``{"inference:capacity": "mixed", "inference:baseline-instances": "1",
        "inference:max-instances": "4"}``.
    """
    tags = {
        CAPACITY_TAG: capacity_kind(baseline_instances, max_instances),
        BASELINE_INSTANCES_TAG: str(max(baseline_instances, 0)),
        MAX_INSTANCES_TAG: str(max_instances),
    }
    if price_per_hour_usd is not None:
        tags[BASELINE_USD_PER_HOUR_TAG] = f"{max(baseline_instances, 0) * price_per_hour_usd:.4f}"
    return tags


def validate_cost_tags(tags: Mapping[str, str], path: str, problems: ProblemCollector) -> None:
    """Record a problem for every tag key or value AWS would reject.

    Keys: 1-128 characters, not starting with ``aws:``; values: 0-256 characters; both limited to
    letters, digits, spaces and ``_ . : / = + - @``. Token keys and values are skipped.
    """
    for key, value in tags.items():
        if not is_unresolved(key):
            if not 1 <= len(key) <= 128 or not _TAG_CHARS.match(key):
                problems.add(
                    f"{path}.{key}",
                    "tag key is not allowed",
                    "use 1-128 letters, digits, spaces or _ . : / = + - @",
                )
            elif key.lower().startswith("aws:"):
                problems.add(f"{path}.{key}", "tag keys starting with aws: are reserved", "choose another prefix")
        if not is_unresolved(value) and (not isinstance(value, str) or len(value) > 256 or not _TAG_CHARS.match(value)):
            problems.add(
                f"{path}.{key}",
                f"tag value {value!r} is not allowed",
                "use up to 256 letters, digits, spaces or _ . : / = + - @",
            )
