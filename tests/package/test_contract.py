"""The config and plan contract of docs/config.md, through the ``plan`` command: the plan document's keys, and
one clear message naming the key path of a bad value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gates.test_cli import _plan

#: Keys of the plan document that pipelines read (docs/config.md, "The plan").
TOP = (
    "name",
    "account",
    "tags",
    "prices_as_of",
    "prices_region",
    "endpoints",
    "baseline_usd_per_hour",
    "savings_plan",
    "cost",
    "observability",
    "warnings",
)
ENTRY = (
    "name",
    "instance_type",
    "accelerator",
    "devices",
    "memory_required_gb",
    "memory_available_gb",
    "tensor_parallel_degree",
    "price_per_hour_usd",
    "monthly_usd_at_min",
    "monthly_usd_at_max",
    "reason",
    "alarms",
)
ENDPOINT = (
    "name: contract\nendpoints:\n  - name: chat\n    type: realtime\n"
    "    model: {source: huggingface, id: example/chat-3b, parameters_billion: 3}\n"
)


def test_plan_document_has_the_contract_keys() -> None:
    # GIVEN the default platform WHEN its plan is printed as JSON
    result = _plan("config/default.yaml", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    # THEN the top-level keys and every endpoint entry's keys are there, with a known accelerator
    assert [k for k in TOP if k not in doc] == []
    assert doc["endpoints"]
    for entry in doc["endpoints"]:
        assert [k for k in ENTRY if k not in entry] == []
        assert entry["accelerator"] in {"gpu", "inferentia", "trainium", "cpu"}


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ("    serving: lmi\n    capacity: {min: 1, max: -3}\n", "endpoints[0].capacity.max"),
        ("    servng: lmi\n", "endpoints[0].servng"),
    ],
)
def test_a_bad_value_exits_2_naming_its_key_path(tmp_path: Path, extra: str, key: str) -> None:
    # GIVEN a config with one bad key or value
    bad = tmp_path / "bad.yaml"
    bad.write_text(ENDPOINT + extra)
    # WHEN it is planned
    result = _plan(str(bad))
    # THEN the command exits 2 with a message naming the key path, and no traceback
    output = result.stdout + result.stderr
    assert result.returncode == 2
    assert key in output
    assert "Traceback" not in output
