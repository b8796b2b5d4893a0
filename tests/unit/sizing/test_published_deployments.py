"""Published deployments (published_deployments.json): what worked is accepted, what failed is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.errors import InferenceConfigError
from inference_constructs.sizing import choose_host
from inference_constructs.spec import AcceleratorChoice, DType, ModelSpec, Serving

ROWS: list[dict[str, Any]] = json.loads(Path(__file__).with_name("published_deployments.json").read_text())[
    "deployments"
]
WORKS = [r for r in ROWS if r["outcome"] == "works"]
FAILS = [r for r in ROWS if r["outcome"] == "fails"]


def _spec(row: dict[str, Any]) -> ModelSpec:
    return ModelSpec(
        id=row["model"],
        dtype=DType(row["dtype"]),
        max_context_tokens=row["context"],
        max_concurrent_sequences=row["batch"],
        neuron_compiled=row.get("neuron_compiled", False),
    )


def _id(row: dict[str, Any]) -> str:
    return f"{row['model'].split('/')[-1]}-{row['dtype']}-{row['instance']}-tp{row['degree']}"


def _working(row: dict[str, Any]) -> Any:
    # A documented working deployment the library refuses stays in the table as a strict expected failure:
    # if the library changes to accept it, the test fails and the record must go.
    if "library_disagrees" in row:
        return pytest.param(row, id=_id(row), marks=pytest.mark.xfail(strict=True, reason=row["library_disagrees"]))
    return pytest.param(row, id=_id(row))


def test_table_covers_what_it_must():
    # GIVEN the table / WHEN read / THEN at least 20 rows, with Neuron, degree > 1, degree > KV heads, quantized,
    # long context (>= 16k) and documented failures, each with a source
    assert len(ROWS) >= 20 and all(r["source"] and r["note"] and r["engine_version"] for r in ROWS)
    assert all(r["verified"] is True for r in ROWS)  # each row was checked against its source
    assert any(".inf2." in r["instance"] or ".trn" in r["instance"] for r in WORKS)
    assert any(r["degree"] > 1 for r in WORKS)
    assert any(r["degree"] > 8 and "Llama-3" in r["model"] for r in WORKS)  # Llama 3 has 8 KV heads
    assert any(r["dtype"] in ("int4", "int8", "fp8") for r in WORKS)
    assert any(r["context"] >= 16384 for r in WORKS)
    assert any(r["context"] >= 16384 and (".inf2." in r["instance"] or ".trn" in r["instance"]) for r in WORKS)
    assert len(FAILS) >= 4


@pytest.mark.parametrize("row", [_working(r) for r in WORKS])
def test_published_working_deployment_is_accepted_and_the_own_choice_costs_no_more(row):
    # GIVEN a deployment published as working
    model, serving = _spec(row), Serving(row["serving"])
    # WHEN its instance is given explicitly
    explicit = choose_host(model, serving=serving, instance_type=row["instance"], quantization_hint=False)
    # THEN it is accepted, and the library's own choice on the same kind of accelerator costs no more
    kind = AcceleratorChoice(explicit.accelerator.value)
    own = choose_host(model, serving=serving, accelerator=kind, quantization_hint=False)
    assert explicit.memory_required_gb <= explicit.memory_available_gb
    assert own.price_per_hour_usd <= explicit.price_per_hour_usd


@pytest.mark.parametrize("row", FAILS, ids=_id)
def test_published_failure_is_refused_with_its_cause(row):
    # GIVEN a deployment documented to fail / WHEN its instance is given explicitly
    # THEN the library refuses it, naming the cause
    with pytest.raises(InferenceConfigError, match=row["expect"]):
        choose_host(_spec(row), serving=Serving(row["serving"]), instance_type=row["instance"])
