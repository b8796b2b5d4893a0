"""Price refresh: parsing of realistic Price List API responses, offline with botocore's Stubber."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import boto3
import pytest
from botocore.stub import Stubber

from inference_constructs.catalog import load_catalog, load_catalog_file
from inference_constructs.catalog.refresh import (
    SERVICE_CODE,
    build_filters,
    fetch_hosting_prices,
    main,
    parse_price_item,
    refreshed_catalog,
)

REGION = "eu-west-1"
TODAY = dt.date(2026, 11, 30)


def _item(
    usagetype: str,
    price: str,
    *,
    region: str = REGION,
    component: str = "Hosting",
    unit: str = "Hrs",
    sku: str = "SKU1",
) -> str:
    """One PriceList entry as the API returns it: a JSON string."""
    name = usagetype.rsplit(":", maxsplit=1)[-1]
    return json.dumps(
        {
            "product": {
                "productFamily": "ML Instance",
                "attributes": {
                    "regionCode": region,
                    "servicecode": SERVICE_CODE,
                    "usagetype": usagetype,
                    "location": "EU (Ireland)",
                    "locationType": "AWS Region",
                    "instanceName": name,
                    "component": component,
                    "platoinstancetype": component,
                    "computeType": "GPU instance" if ".g" in name else "Standard Instances",
                    "vCpu": "4",
                    "memory": "16 GiB",
                    "operation": "RunInstance",
                    "servicename": "Amazon SageMaker",
                },
                "sku": sku,
            },
            "serviceCode": SERVICE_CODE,
            "terms": {
                "OnDemand": {
                    f"{sku}.JRTCKXETXF": {
                        "priceDimensions": {
                            f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": unit,
                                "endRange": "Inf",
                                "description": f"${price} per On Demand {component} {name} in {region}",
                                "appliesTo": [],
                                "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                                "beginRange": "0",
                                "pricePerUnit": {"USD": price},
                            }
                        },
                        "sku": sku,
                        "effectiveDate": "2026-11-01T00:00:00Z",
                        "offerTermCode": "JRTCKXETXF",
                        "termAttributes": {},
                    }
                }
            },
            "version": "20261101000000",
            "publicationDate": "2026-11-01T00:00:00Z",
        }
    )


PAGE_1 = [
    _item("EU-Host:ml.g5.xlarge", "1.5810000000", sku="A1"),
    _item("EU-Train:ml.g5.xlarge", "1.5810000000", component="Training", sku="A2"),
    _item("EU-Notebk:ml.g5.xlarge", "1.6000000000", component="Notebook", sku="A3"),
    _item("EU-Host:ml.m5.xlarge", "0.2580000000", sku="A4"),
]
PAGE_2 = [
    _item("EU-Host:ml.inf2.xlarge", "1.1100000000", sku="B1"),
    _item("EU-Host:ml.g6.2xlarge", "0.0000000000", sku="B2"),  # a zero-priced term is not a price
]


def _expected(token: str | None = None) -> dict[str, object]:
    params: dict[str, object] = {
        "ServiceCode": SERVICE_CODE,
        "Filters": build_filters(REGION),
        "FormatVersion": "aws_v1",
        "MaxResults": 100,
    }
    if token:
        params["NextToken"] = token
    return params


@pytest.fixture
def pricing():
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def _two_pages(stub: Stubber) -> None:
    stub.add_response("get_products", {"PriceList": PAGE_1, "NextToken": "t2", "FormatVersion": "aws_v1"}, _expected())
    stub.add_response("get_products", {"PriceList": PAGE_2, "FormatVersion": "aws_v1"}, _expected("t2"))


def test_fetch_keeps_only_on_demand_hosting_prices_across_pages(pricing):
    # GIVEN two pages mixing hosting, training and notebook usage for the same instance type
    client, stub = pricing
    _two_pages(stub)
    # WHEN prices are fetched
    prices = fetch_hosting_prices(client, REGION)
    # THEN only hosting usage with a non-zero hourly price is kept, from both pages
    assert {k: v.price_per_hour_usd for k, v in prices.items()} == {
        "ml.g5.xlarge": 1.581,
        "ml.m5.xlarge": 0.258,
        "ml.inf2.xlarge": 1.11,
    }
    assert prices["ml.g5.xlarge"].usage_type == "EU-Host:ml.g5.xlarge"


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (_item("EU-Host:ml.g5.xlarge", "1.58"), 1.58),
        (_item("EU-Train:ml.g5.xlarge", "1.58", component="Training"), None),
        (_item("USE1-Host:ml.g5.xlarge", "1.41", region="us-east-1"), None),
        (_item("EU-Host:ml.g5.xlarge", "1.58", unit="Quantity"), None),
        (_item("EU-Host:ml.g5.xlarge", "0.0"), None),
    ],
    ids=["hosting", "training", "other-region", "not-hourly", "zero"],
)
def test_parse_price_item_accepts_only_hourly_hosting_in_region(item, expected):
    # GIVEN one PriceList JSON string / WHEN parsed for eu-west-1
    parsed = parse_price_item(item, REGION)
    # THEN only an hourly on-demand hosting price in that region is returned
    assert (parsed.price_per_hour_usd if parsed else None) == expected


def test_parse_price_item_falls_back_to_hosting_attributes_without_host_usage_type():
    # GIVEN a hosting product whose usage type has an unexpected shape
    item = json.loads(_item("EU-Host:ml.c5.large", "0.12"))
    item["product"]["attributes"]["usagetype"] = "EU-SomethingNew"
    # WHEN parsed / THEN component=Hosting plus instanceName identify it
    parsed = parse_price_item(item, REGION)
    assert parsed is not None and parsed.instance_type == "ml.c5.large"


def test_refreshed_catalog_reprices_and_drops_types_the_region_lacks(pricing):
    # GIVEN fetched prices for three types
    client, stub = pricing
    _two_pages(stub)
    prices = fetch_hosting_prices(client, REGION)
    # WHEN the packaged catalog is refreshed for the region
    catalog, missing = refreshed_catalog(load_catalog(), prices, region=REGION, as_of=TODAY)
    # THEN it keeps the three priced types with facts from the packaged catalog, dated and sourced
    assert [i.name for i in catalog.instances] == ["ml.m5.xlarge", "ml.g5.xlarge", "ml.inf2.xlarge"]
    g5 = catalog.get("ml.g5.xlarge")
    assert g5 is not None and g5.price_per_hour_usd == 1.581 and g5.device_memory_gib == 24
    assert (catalog.region, catalog.prices_as_of) == (REGION, "2026-11-30")
    assert "AmazonSageMaker" in catalog.price_source
    assert "ml.p5.48xlarge" in missing and "ml.g5.xlarge" not in missing


def test_refreshed_catalog_keep_missing_marks_old_prices_stale():
    # GIVEN one fresh price and keep_missing
    base = load_catalog()
    prices = {"ml.g5.xlarge": parse_price_item(_item("EU-Host:ml.g5.xlarge", "1.6"), REGION)}
    # WHEN refreshed
    catalog, _ = refreshed_catalog(
        base, {k: v for k, v in prices.items() if v}, region=REGION, as_of=TODAY, keep_missing=True
    )
    # THEN every row stays and unpriced rows say where their price came from
    assert len(catalog.instances) == len(base.instances)
    m5 = catalog.get("ml.m5.xlarge")
    assert m5 is not None and m5.price_source.startswith("stale-us-east-1")
    assert m5.price_source in catalog.price_sources


def test_main_writes_a_loadable_catalog_file(pricing, tmp_path):
    # GIVEN a stubbed pricing client with two pages
    client, stub = pricing
    _two_pages(stub)
    out = tmp_path / "eu.json"
    # WHEN the command runs
    status = main(["--region", REGION, "--out", str(out)], client=client, today=TODAY)
    # THEN it succeeds and the file loads as a catalog for the region
    assert status == 0
    catalog = load_catalog_file(out)
    inf2 = catalog.get("ml.inf2.xlarge")
    assert inf2 is not None and inf2.price_per_hour_usd == 1.11 and inf2.neuron_cores == 2
    assert json.loads(out.read_text())["missing_in_price_list"]


def test_fails_main_when_the_region_has_no_hosting_prices(pricing, tmp_path, capsys):
    # GIVEN a price list with no entries for the region
    client, stub = pricing
    stub.add_response("get_products", {"PriceList": [], "FormatVersion": "aws_v1"}, _expected())
    # WHEN the command runs
    status = main(["--region", REGION, "--out", str(tmp_path / "x.json")], client=client, today=TODAY)
    # THEN it exits non-zero, says why and writes nothing
    assert status == 1
    assert "no SageMaker hosting prices found for region eu-west-1" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_decision_modules_import_neither_boto3_nor_aws_cdk():
    # GIVEN a fresh interpreter
    code = (
        "import sys, inference_constructs.sizing, inference_constructs.catalog.refresh;"
        "print(sorted(m for m in ('boto3', 'aws_cdk') if m in sys.modules))"
    )
    # WHEN sizing and the refresh module are imported
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # THEN neither boto3 nor aws_cdk was loaded
    assert out.strip() == "[]"
