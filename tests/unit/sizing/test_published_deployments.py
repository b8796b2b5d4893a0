"""Published deployments (published_deployments.json): what worked is accepted, what failed is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.errors import InferenceConfigError
from inference_constructs.sizing import MARGIN_FLOOR_FRACTION, choose_host
from inference_constructs.spec import AcceleratorChoice, DType, ModelSpec, Serving

ROWS: list[dict[str, Any]] = json.loads(Path(__file__).with_name("published_deployments.json").read_text())[
    "deployments"
]
WORKS = [r for r in ROWS if r["outcome"] == "works"]
FAILS = [r for r in ROWS if r["outcome"] == "fails"]


def _spec(row: dict[str, Any], batch: int | None = None) -> ModelSpec:
    return ModelSpec(
        id=row["model"],
        dtype=DType(row["dtype"]),
        max_context_tokens=row["context"],
        max_concurrent_sequences=row["batch"] if batch is None else batch,
        neuron_compiled=row.get("neuron_compiled", False),
    )


def _id(row: dict[str, Any]) -> str:
    return f"{row['model'].split('/')[-1]}-{row['dtype']}-{row['instance']}-tp{row['degree']}"


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


def test_no_documented_deployment_is_left_as_a_disagreement():
    # GIVEN the table / THEN every working row passes as stated (none is kept as an expected failure)
    assert not [r["model"] for r in ROWS if "library_disagrees" in r]


@pytest.mark.parametrize("row", WORKS, ids=_id)
def test_published_working_deployment_is_accepted_and_the_own_choice_costs_no_more(row):
    # GIVEN a deployment published as working
    model, serving = _spec(row), Serving(row["serving"])
    # WHEN its instance is given explicitly
    explicit = choose_host(model, serving=serving, instance_type=row["instance"], quantization_hint=False)
    # THEN it is accepted at the published degree or a smaller one (the smallest that holds it), with the margin floor
    assert explicit.tensor_parallel_degree <= row["degree"]
    assert explicit.memory_required_gb <= explicit.memory_available_gb * (1 - MARGIN_FLOOR_FRACTION) + 1e-3
    # AND the library's own choice on the same kind of accelerator, for what the host holds at once (the batch, or
    # the max-length sequences a paged KV cache holds when fewer), costs no more
    assert explicit.kv is not None
    held = explicit.kv.max_length_sequences
    kind = AcceleratorChoice(explicit.accelerator.value)
    own = choose_host(_spec(row, held), serving=serving, accelerator=kind, quantization_hint=False)
    assert own.price_per_hour_usd <= explicit.price_per_hour_usd


def test_mixtral_on_g5_48xlarge_holds_13_of_16_full_sequences_and_tgi_batches_the_rest():
    # GIVEN the published Mixtral 8x7B bf16 deployment on 8 A10G with TGI: 32000-token sequences, a 16-sequence ceiling
    row = next(r for r in WORKS if r["model"].startswith("mistralai/Mixtral") and r["instance"] == "ml.g5.48xlarge")
    # WHEN its instance is given explicitly
    host = choose_host(_spec(row), serving=Serving.TGI, instance_type=row["instance"], quantization_hint=False)
    # THEN it is accepted: the KV cache left after the weights holds 13 full sequences, not 16, and the plan says so
    assert host.kv is not None and host.kv.paged and not host.kv.batch_fits
    assert host.kv.max_length_sequences == 13 and 13 * 32000 <= host.kv.tokens < 14 * 32000
    assert "13 of the 16 requested 32,000-token sequences" in host.reason
    assert host.tensor_parallel_degree == 8 and not any(r.startswith("TP 8:") for r in host.degree_rejections)
    # AND the library's own choice for the full 16 holds them all, on a host that costs more
    own = choose_host(_spec(row), serving=Serving.TGI, accelerator=AcceleratorChoice.GPU, quantization_hint=False)
    assert own.kv is not None and own.kv.batch_fits and own.price_per_hour_usd > host.price_per_hour_usd


@pytest.mark.parametrize("row", FAILS, ids=_id)
def test_published_failure_is_refused_with_its_cause(row):
    # GIVEN a deployment documented to fail / WHEN its instance is given explicitly
    # THEN the library refuses it, naming the cause
    with pytest.raises(InferenceConfigError, match=row["expect"]):
        choose_host(_spec(row), serving=Serving(row["serving"]), instance_type=row["instance"])
