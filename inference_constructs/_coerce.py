"""Forgiving construct props (private): enum props given as their string values, ``capacity`` as a tuple or dict.

Python users write what the YAML says (``serving="vllm"``, ``capacity=(0, 4)``); the constructs turn it into
the typed value once, at the boundary, so the decisions never see a bare string. Anything else raises an
:class:`InferencePropTypeError` (a ``TypeError``) or an :class:`~inference_constructs.errors.InferenceConfigError`
(a ``ValueError``) naming the prop, the value and what is allowed. Pure Python: no ``aws_cdk`` import.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, TypeVar

from inference_constructs.errors import InferenceConfigError, Problem

if TYPE_CHECKING:
    from inference_constructs.hosting.request import Capacity

__all__ = ["CapacityLike", "InferencePropTypeError", "capacity", "enum_prop", "typed_prop"]

_T = TypeVar("_T")

_E = TypeVar("_E", bound=StrEnum)

#: What a ``capacity`` prop may be besides a ``Capacity``: ``(min, max)`` or ``{"min": .., "max": ..}``.
CapacityLike = tuple[int, int] | Mapping[str, int]


class InferencePropTypeError(InferenceConfigError, TypeError):
    """A construct prop of the wrong Python type (also an :class:`InferenceConfigError`, so one ``except`` fits)."""


def _type_error(prop: str, value: object, allowed: str) -> InferencePropTypeError:
    what = f"{value!r} ({type(value).__name__}) is not accepted"
    return InferencePropTypeError([Problem(prop, what, f"use {allowed}", "type")])


def enum_prop(prop: str, value: _E | str, enum: type[_E]) -> _E:
    """``value`` as a member of ``enum``: a member is returned as is, a string is looked up by value.

    Raises
    ------
    InferenceConfigError
        A string that is not one of the enum's values (code ``choice``).
    InferencePropTypeError
        Anything else.
    """
    if isinstance(value, enum):
        return value
    allowed = ", ".join(repr(m.value) for m in enum)
    if isinstance(value, str):
        try:
            return enum(value)
        except ValueError:
            problem = Problem(prop, f"{value!r} is not allowed", f"use one of {allowed}", "choice")
            raise InferenceConfigError([problem]) from None
    raise _type_error(prop, value, f"a {enum.__name__} or one of {allowed}")


def typed_prop(prop: str, value: _T, cls: type[_T]) -> _T:
    """``value`` itself when it is a ``cls``; otherwise an :class:`InferencePropTypeError` naming ``cls``."""
    if not isinstance(value, cls):
        raise _type_error(prop, value, f"a {cls.__name__}")
    return value


def _count(prop: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _type_error(prop, value, "an int")
    return value


def capacity(prop: str, value: Capacity | CapacityLike | None) -> Capacity | None:
    """``value`` as a :class:`~inference_constructs.hosting.Capacity`; ``None`` stays ``None`` (the default).

    Accepts a ``Capacity``, a ``(min, max)`` tuple or list, or a mapping with ``min`` and/or ``max``
    (a missing bound takes the ``Capacity`` default).
    """
    from inference_constructs.hosting.request import Capacity

    if value is None or isinstance(value, Capacity):
        return value
    allowed = "a Capacity, a (min, max) tuple or a {'min': .., 'max': ..} dict of ints"
    if isinstance(value, tuple | list):
        if len(value) != 2:
            raise InferenceConfigError([Problem(prop, f"{value!r} has {len(value)} items", f"use {allowed}", "length")])
        return Capacity(min=_count(f"{prop}[0]", value[0]), max=_count(f"{prop}[1]", value[1]))
    if isinstance(value, Mapping):
        unknown = sorted(str(k) for k in value if k not in ("min", "max"))
        if unknown:
            raise InferenceConfigError(
                [Problem(f"{prop}.{unknown[0]}", "is not a capacity key", "use min and max", "unknown_key")]
            )
        bounds = {k: _count(f"{prop}.{k}", v) for k, v in value.items()}
        return Capacity(**bounds)
    raise _type_error(prop, value, allowed)
