"""The Bedrock price table is dated data beside the catalog's instance-price snapshot: its date and sources are
there, and every row of the file loads into the table the economics read."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from inference_constructs import catalog
from inference_constructs.bedrock import pricing
from inference_constructs.bedrock.price_table import PRICE_KEYS, PRICES_FILE, Deployment, load_prices

RAW: dict[str, Any] = json.loads(PRICES_FILE.read_text(encoding="utf-8"))


def test_the_table_is_stored_beside_the_catalogs_instance_prices() -> None:
    # GIVEN the packaged price table WHEN its path is read THEN it is a JSON file in the catalog's data folder
    assert PRICES_FILE.suffix == ".json"
    assert PRICES_FILE.parent == Path(catalog.__file__).parent
    assert (PRICES_FILE.parent / catalog.CATALOG_FILE).is_file()


def test_the_table_names_its_date_and_its_sources() -> None:
    # GIVEN the JSON file WHEN its header is read THEN it has an ISO date and a description of every source
    assert date.fromisoformat(RAW["as_of"])
    assert RAW["sources"]
    assert all(isinstance(text, str) and text for text in RAW["sources"].values())
    # AND the loaded table carries the same date and sources
    table = load_prices()
    assert table.as_of == RAW["as_of"]
    assert dict(table.sources) == RAW["sources"]


@pytest.mark.parametrize("index", range(len(RAW["rows"])), ids=lambda i: f"{RAW['rows'][i]['model']}-{i}")
def test_every_price_row_of_the_file_loads(index: int) -> None:
    # GIVEN one row of the JSON file
    raw = RAW["rows"][index]
    # WHEN the table is loaded
    row = load_prices().rows[index]
    # THEN the row holds the file's values: model, deployment, region, date, sources and every price
    assert (row.model, row.name, row.deployment, row.region, row.date) == (
        raw["model"],
        raw["name"],
        Deployment(raw["deployment"]),
        raw["region"],
        raw["date"],
    )
    assert row.source == tuple(raw["source"])
    assert dict(row.prices) == {key: float(value) for key, value in raw["prices"].items()}
    assert set(row.prices) <= set(PRICE_KEYS)


def test_every_row_and_quota_of_the_file_is_in_the_table() -> None:
    # GIVEN the JSON file WHEN the table is loaded THEN no row or quota is dropped
    table = load_prices()
    assert len(table.rows) == len(RAW["rows"])
    assert len(table.quotas) == len(RAW.get("quotas", []))


def test_the_economics_module_reads_the_same_table() -> None:
    # GIVEN the economics module WHEN it names the table and its loader THEN they are the price table's
    assert pricing.PRICES_FILE == PRICES_FILE
    assert pricing.load_prices is load_prices
