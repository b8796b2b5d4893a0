"""One front door: ``from inference_constructs import RealtimeEndpoint, ModelSpec, ...`` for the public constructs
and value types, resolved on first use so the plan command never loads aws_cdk."""

from __future__ import annotations

from pathlib import Path

import pytest

import inference_constructs
from tests.fresh_interpreter import loaded_packages

ROOT = Path(__file__).resolve().parents[3]

#: Value types, errors and interfaces a program may use without synthesizing anything.
PURE_NAMES = [
    "AcceleratorChoice",
    "Capacity",
    "DType",
    "IInferenceEndpoint",
    "InferenceConfigError",
    "InferencePropTypeError",
    "MetricOptions",
    "ModelSpec",
    "Residency",
    "Serving",
]


def _loaded_cdk(statement: str) -> str:
    return loaded_packages(statement)


def test_every_front_door_name_resolves_and_is_listed() -> None:
    # GIVEN the package's __all__ WHEN each name is read from the package
    # THEN it resolves and dir() lists it
    assert [n for n in inference_constructs.__all__ if getattr(inference_constructs, n, None) is None] == []
    assert set(inference_constructs.__all__) <= set(dir(inference_constructs))


@pytest.mark.parametrize(
    ("name", "subpackage"),
    [
        ("RealtimeEndpoint", "hosting"),
        ("ApplicationInferenceProfile", "bedrock"),
        ("EndpointScaling", "scaling"),
        ("MonitoredEndpoint", "observability"),
        ("BudgetGuardrail", "cost"),
        ("add_compliance_gates", "compliance"),
        ("acknowledge", "compliance"),
    ],
)
def test_a_front_door_name_is_the_subpackage_object(name: str, subpackage: str) -> None:
    # GIVEN a construct exported by a subpackage WHEN it is read from the front door
    module = __import__(f"inference_constructs.{subpackage}", fromlist=[name])
    # THEN it is the very same object
    assert getattr(inference_constructs, name) is getattr(module, name)


@pytest.mark.parametrize(
    ("statement", "loads_cdk"),
    [
        ("import inference_constructs", False),
        (f"from inference_constructs import {', '.join(PURE_NAMES)}", False),
        ("from inference_constructs import RealtimeEndpoint", True),
    ],
    ids=["package", "value-types", "construct"],
)
def test_the_front_door_loads_aws_cdk_only_for_a_construct(statement: str, loads_cdk: bool) -> None:
    # GIVEN a fresh interpreter WHEN the package, its value types, or a construct is imported from the front door
    out = _loaded_cdk(statement)
    # THEN aws_cdk is loaded only when a construct is named
    assert (out.strip() != "[]") is loads_cdk
