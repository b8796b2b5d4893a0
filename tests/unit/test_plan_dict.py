"""A plan value's entry is its named attributes under their keys, in order, as JSON has them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from inference_constructs._plan_dict import plan_dict


class Mode(StrEnum):
    FAST = "fast"


@dataclass(frozen=True)
class Inner:
    n: int

    def to_dict(self) -> dict[str, int]:
        return {"n": self.n}


@dataclass(frozen=True)
class Value:
    mode: Mode
    names: tuple[str, ...]
    inners: tuple[Inner, ...]
    note: str = ""

    @property
    def reason(self) -> str:
        return "because"


def test_named_attributes_are_written_in_the_order_given_under_their_keys() -> None:
    # GIVEN a value WHEN two attributes are named, one under another key THEN the keys follow the names' order
    out = plan_dict(Value(Mode.FAST, (), ()), "reason", ("kind", "mode"))
    assert list(out.items()) == [("reason", "because"), ("kind", "fast")]


def test_without_names_a_dataclass_writes_its_fields_then_the_entries() -> None:
    # GIVEN a dataclass WHEN no attribute is named THEN its fields come in their order, then the entries as given
    out = plan_dict(Value(Mode.FAST, ("a", "b"), (Inner(1),)), extra=2, reason="given")
    assert list(out.items()) == [
        ("mode", "fast"),
        ("names", ["a", "b"]),
        ("inners", [{"n": 1}]),
        ("note", ""),
        ("extra", 2),
        ("reason", "given"),
    ]


def test_values_are_written_as_json_has_them() -> None:
    # GIVEN an enum, a tuple and plan values WHEN written THEN a plain str, a list and their own entries
    out = plan_dict(Value(Mode.FAST, ("a",), (Inner(3),)), "mode", "names", "inners")
    assert type(out["mode"]) is str
    assert out == {"mode": "fast", "names": ["a"], "inners": [{"n": 3}]}
