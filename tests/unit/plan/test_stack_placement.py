"""Stable placement: an endpoint's hosting stack comes from its own ``stack:`` key only, so adding, removing,
reordering or growing other endpoints never moves it (a move would replace it), and an overfull stack fails in plan."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from inference_constructs.config import parse_config
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform


def _endpoint(name: str, *, stack: int | None = None, max_capacity: int = 1, policy: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": name,
        "serving": "sklearn",
        "model": {"source": "s3", "s3_uri": f"s3://acme-models/{name}.tar.gz"},
        "capacity": {"min": 1, "max": max_capacity},
    }
    if policy:
        entry["scaling"] = {"invocations_per_instance_per_minute": 600}
    if stack is not None:
        entry["stack"] = stack
    return entry


def _stacks(endpoints: list[dict[str, Any]], **limits: int) -> dict[str, str]:
    config = parse_config(json.dumps({"name": "acme", "endpoints": endpoints}))
    return {e.name: e.stack for e in plan_platform(config, **limits).endpoints}


BEFORE = [_endpoint("a"), _endpoint("b", stack=2), _endpoint("c"), _endpoint("d", stack=3)]


@pytest.mark.parametrize(
    "after",
    [
        pytest.param([_endpoint("new", stack=2), *BEFORE], id="insert-first"),
        pytest.param([*BEFORE[:2], _endpoint("new"), *BEFORE[2:]], id="insert-middle"),
        pytest.param([BEFORE[0], *BEFORE[2:]], id="remove-explicit"),
        pytest.param(BEFORE[1:], id="remove-first"),
        pytest.param(list(reversed(BEFORE)), id="reorder"),
        pytest.param(
            [_endpoint("a", max_capacity=6, policy=True), *BEFORE[1:]],
            id="grow-first",
        ),
        pytest.param(
            [*BEFORE, *(_endpoint(f"x{i}", max_capacity=4, policy=True) for i in range(5))],
            id="append-many",
        ),
    ],
)
def test_no_endpoint_moves_stack(after: list[dict[str, Any]]) -> None:
    # GIVEN a platform planned before and after a change to other endpoints
    before, changed = _stacks(BEFORE), _stacks(after)
    # WHEN the endpoints both plans hold are compared
    common = before.keys() & changed.keys()
    # THEN each stays in its stack (stack 1 unless its own stack: key says otherwise)
    assert common and {n: changed[n] for n in common} == {n: before[n] for n in common}
    assert before == {"a": "acme-hosting-1", "b": "acme-hosting-2", "c": "acme-hosting-1", "d": "acme-hosting-3"}


def test_an_overfull_stack_fails_in_plan_naming_its_endpoints() -> None:
    # GIVEN three endpoints in stack 1 and a limit that holds two of them
    endpoints = [_endpoint("a"), _endpoint("b"), _endpoint("c")]
    # WHEN planned THEN one problem names the stack, its endpoints and the stack: key to set
    with pytest.raises(InferenceConfigError) as caught:
        _stacks(endpoints, max_resources_per_stack=30)
    [problem] = [str(p) for p in caught.value.problems]
    assert problem.startswith("endpoints[2].stack: hosting stack 1 would hold about 37 resources")
    assert "(endpoints[0] (a), endpoints[1] (b), endpoints[2] (c))" in problem
    assert "stack: 2 on endpoints[2] (c)" in problem
    # AND moving one with stack: plans (the others do not move)
    assert _stacks([*endpoints[:2], _endpoint("c", stack=2)], max_resources_per_stack=30) == {
        "a": "acme-hosting-1",
        "b": "acme-hosting-1",
        "c": "acme-hosting-2",
    }


@pytest.mark.parametrize("value", [0, -1, "two"])
def test_stack_key_is_validated_with_its_key_path(value: object) -> None:
    # GIVEN a stack: key that is not a positive stack number WHEN parsed THEN the error names its key path
    with pytest.raises(InferenceConfigError, match=r"endpoints\[0\]\.stack"):
        parse_config(json.dumps({"name": "acme", "endpoints": [{**_endpoint("a"), "stack": value}]}))


def test_hundreds_of_endpoints_without_stack_keys_get_a_short_refusal_with_the_keys_to_add() -> None:
    # GIVEN 300 endpoints without stack: keys, far more than one stack holds
    endpoints = [_endpoint(f"e{i}") for i in range(300)]
    # WHEN planned
    with pytest.raises(InferenceConfigError) as caught:
        _stacks(endpoints)
    [problem] = [str(p) for p in caught.value.problems]
    # THEN the refusal is short: it counts the endpoints, names the CloudFormation limit, and proposes keys
    assert len(problem) < 1000
    assert "hosting stack 1 would hold about" in problem and "from 300 endpoints" in problem
    assert "CloudFormation allows 500 resources per stack" in problem
    assert problem.count("endpoints[1]") == 0
    proposed = re.findall(r"stack: (\d+) on endpoints\[(\d+)\] \(e\d+\) to endpoints\[(\d+)\]", problem)
    assert proposed and proposed[0][0] == "2" and proposed[-1][2] == "299"
    # AND the proposed keys plan, each group within the limit, the first endpoints staying in stack 1
    for number, first, last in proposed:
        for i in range(int(first), int(last) + 1):
            endpoints[i] = _endpoint(f"e{i}", stack=int(number))
    placed = _stacks(endpoints)
    assert placed["e0"] == "acme-hosting-1" and placed["e299"] == f"acme-hosting-{proposed[-1][0]}"
