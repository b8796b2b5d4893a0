"""Forgiving construct props (private): enum props given as their string values, ints checked as ints.

Python users write what the YAML says (``serving="vllm"``); the constructs turn it into the typed value once, at
the boundary, so the decisions never see a bare string (``capacity=(0, 4)`` is coerced next to ``Capacity``, by
:func:`inference_constructs.hosting.request.coerce_capacity`). Anything else raises an
:class:`InferencePropTypeError` (a ``TypeError``) or an :class:`~inference_constructs.errors.InferenceConfigError`
(a ``ValueError``) naming the prop, the value and what is allowed. Pure Python: no ``aws_cdk`` import.
"""

from __future__ import annotations

from dataclasses import fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

from inference_constructs.errors import InferenceConfigError, Problem

__all__ = [
    "InferencePropTypeError",
    "enum_fields",
    "enum_prop",
    "int_prop",
    "prop_type_error",
    "props_of",
    "typed_prop",
]

_T = TypeVar("_T")

_E = TypeVar("_E", bound=StrEnum)


class InferencePropTypeError(InferenceConfigError, TypeError):
    """A construct prop of the wrong Python type (also an :class:`InferenceConfigError`, so one ``except`` fits)."""


def prop_type_error(prop: str, value: object, allowed: str) -> InferencePropTypeError:
    """The :class:`InferencePropTypeError` of ``prop``: ``value`` is not accepted, use ``allowed``."""
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
    raise prop_type_error(prop, value, f"a {enum.__name__} or one of {allowed}")


def enum_fields(value: DataclassInstance, path: str, **enums: type[StrEnum]) -> None:
    """Each named field of the frozen dataclass ``value`` as a member of its enum (:func:`enum_prop`, the prop
    named ``<path>.<field>``), set in place: called from ``__post_init__``, so that Python callers may write the
    YAML's strings and the decisions see members."""
    for name, enum in enums.items():
        object.__setattr__(value, name, enum_prop(f"{path}.{name}", getattr(value, name), enum))


def typed_prop(prop: str, value: _T, cls: type[_T]) -> _T:
    """``value`` itself when it is a ``cls``; otherwise an :class:`InferencePropTypeError` naming ``cls``."""
    if not isinstance(value, cls):
        raise prop_type_error(prop, value, f"a {cls.__name__}")
    return value


def int_prop(prop: str, value: object) -> int:
    """``value`` itself when it is an ``int`` (not a ``bool``); otherwise an :class:`InferencePropTypeError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise prop_type_error(prop, value, "an int")
    return value


def props_of(value: DataclassInstance) -> dict[str, Any]:
    """The fields of a plan value as the keyword props of the construct that builds it, which names its props
    after them (``BudgetGuardrail(scope, "Budget", **props_of(budget))``). Each field's value as it is: unlike
    ``dataclasses.asdict``, nested dataclasses and collections are neither copied nor turned into dicts."""
    return {f.name: getattr(value, f.name) for f in fields(value)}
