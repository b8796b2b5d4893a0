"""The hostile-input benchmark's generated files stay what the benchmark says they are: the two largest valid
inputs plan (exit 0), the others are refused; and the generated synth platforms plan at every benchmarked size."""

from __future__ import annotations

import pytest

from benchmarks import hostile_input
from benchmarks.synth import platform_config
from inference_constructs.config import parse_config, validate_config
from inference_constructs.config.load import MAX_FILE_BYTES
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan import plan_platform


@pytest.mark.parametrize("make", [hostile_input.max_endpoints, hostile_input.max_size_file])
def test_largest_valid_inputs_plan(make) -> None:  # type: ignore[no-untyped-def]
    # GIVEN the benchmark's largest valid inputs WHEN planned THEN every endpoint gets a host and a stack
    text = make()
    assert len(text.encode()) <= MAX_FILE_BYTES
    plan = plan_platform(parse_config(text))
    assert len(plan.endpoints) == 1000
    assert all(len(endpoints) <= 25 for endpoints in plan.endpoints_by_stack().values())


@pytest.mark.parametrize("make", [hostile_input.alias_bomb, hostile_input.over_cap, hostile_input.deepest])
def test_hostile_inputs_are_refused(make) -> None:  # type: ignore[no-untyped-def]
    # GIVEN an input the loader must refuse WHEN parsed THEN one clean InferenceConfigError
    with pytest.raises(InferenceConfigError):
        parse_config(make())


@pytest.mark.parametrize("n", [10, 50, 300])
def test_generated_synth_platforms_plan(n: int) -> None:
    # GIVEN the synth benchmark's generated platform WHEN planned THEN it spreads over its configured stacks
    plan = plan_platform(validate_config(platform_config(n)))
    assert len(plan.endpoints_by_stack()) == -(-n // 25)
