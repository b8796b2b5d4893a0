"""A plan value's entry in the plan document (private): named attributes under their keys, as JSON has them.

Most plan values write some of their attributes one per key (``"strategy": self.strategy``); :func:`plan_dict` builds
that mapping from the names, in the order given (by default a dataclass's fields, in their order), so the keys and
their order are written once. Pure Python.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

__all__ = ["plan_dict"]


def plan_dict(value: object, /, *attributes: str | tuple[str, str], **entries: Any) -> dict[str, Any]:
    """The plan entry of ``value``: each attribute under its own name, or ``(key, attribute)`` under ``key``, then
    ``entries`` as given, in that order. Without ``attributes``, those of a dataclass are its fields, in their order.

    An attribute's value is written as JSON has it: an enum member as its value, a plan value (anything with a
    ``to_dict``) as its entry, a tuple or list as a list of such values; anything else as it is. ``entries`` are
    written as given.
    """
    if not attributes and is_dataclass(value):
        attributes = tuple(f.name for f in fields(value))
    out: dict[str, Any] = {}
    for attribute in attributes:
        key, name = (attribute, attribute) if isinstance(attribute, str) else attribute
        out[key] = _json(getattr(value, name))
    out.update(entries)
    return out


def _json(value: object) -> object:
    """``value`` as the plan document writes it: an enum by its value, a plan value by its entry, a sequence as a
    list."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_json(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value
