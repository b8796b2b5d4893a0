"""Refresh the catalog's SageMaker hosting prices for one region from the AWS Price List API.

Run with credentials that allow ``pricing:GetProducts``::

    python -m inference_constructs.catalog.refresh --region eu-west-1 --out catalog-eu-west-1.json

It pages through ``pricing.get_products`` (service code ``AmazonSageMaker``, product family
``ML Instance``, the region's ``regionCode``), keeps the real-time hosting usage of ``ml.*``
instance types (usage type ``<REGION>-Host:ml.<family>.<size>``, or ``component`` /
``platoinstancetype`` ``Hosting``), reads the on-demand USD price per hour, and writes a catalog
file in the packaged format: instance facts from the packaged catalog, prices from the price
list, dated today. Types the region does not price are dropped (``--keep-missing`` keeps them
with their old price, marked stale). Load the result with
``inference_constructs.catalog.load_catalog_file``.

boto3 is imported only when the command runs: the library does not need it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inference_constructs.catalog import Catalog, InstanceType, catalog_to_json, load_catalog

__all__ = [
    "PRICING_API_REGION",
    "SERVICE_CODE",
    "HostingPrice",
    "build_filters",
    "fetch_hosting_prices",
    "iter_price_list",
    "main",
    "parse_price_item",
    "refreshed_catalog",
]

SERVICE_CODE = "AmazonSageMaker"
"""Price List service code of SageMaker AI."""

PRICING_API_REGION = "us-east-1"
"""Region of the Price List API endpoint (it also runs in eu-central-1 and ap-south-1)."""

_HOST_USAGE = re.compile(r"^[A-Z0-9]+-Host:(ml\.[a-z0-9-]+\.[a-z0-9]+)$")
_INSTANCE = re.compile(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")


@dataclass(frozen=True)
class HostingPrice:
    """One on-demand hosting price read from the price list."""

    instance_type: str
    region: str
    price_per_hour_usd: float
    usage_type: str
    sku: str


def build_filters(region: str) -> list[dict[str, str]]:
    """``get_products`` filters: SageMaker ML instances priced in ``region``."""
    return [
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": region},
        {"Type": "TERM_MATCH", "Field": "productFamily", "Value": "ML Instance"},
    ]


def _is_hosting(attributes: Mapping[str, Any]) -> tuple[bool, str | None]:
    usage = str(attributes.get("usagetype", ""))
    match = _HOST_USAGE.match(usage)
    if match:
        return True, match.group(1)
    kind = attributes.get("platoinstancetype") or attributes.get("component")
    name = attributes.get("instanceName") or attributes.get("instanceType")
    if kind == "Hosting" and isinstance(name, str) and _INSTANCE.match(name):
        return True, name
    return False, None


def _on_demand_hourly_usd(terms: Mapping[str, Any]) -> float | None:
    for term in (terms.get("OnDemand") or {}).values():
        for dim in (term.get("priceDimensions") or {}).values():
            if str(dim.get("unit", "")).lower() not in ("hrs", "hr", "hours", "hour"):
                continue
            usd = (dim.get("pricePerUnit") or {}).get("USD")
            if usd is None:
                continue
            value = float(usd)
            if value > 0:
                return value
    return None


def parse_price_item(item: str | Mapping[str, Any], region: str) -> HostingPrice | None:
    """One ``PriceList`` entry (a JSON string, as the API returns it) as a hosting price, or None
    when it is not on-demand real-time hosting of an ``ml.*`` instance in ``region``."""
    doc: Mapping[str, Any] = json.loads(item) if isinstance(item, str) else item
    product = doc.get("product") or {}
    attributes = product.get("attributes") or {}
    if attributes.get("regionCode", region) != region:
        return None
    hosting, name = _is_hosting(attributes)
    if not hosting or name is None:
        return None
    price = _on_demand_hourly_usd(doc.get("terms") or {})
    if price is None:
        return None
    return HostingPrice(name, region, price, str(attributes.get("usagetype", "")), str(product.get("sku", "")))


def iter_price_list(client: Any, region: str, *, page_size: int = 100) -> Iterator[str]:
    """Every ``PriceList`` entry for SageMaker ML instances in ``region``, following ``NextToken``."""
    token: str | None = None
    while True:
        kwargs: dict[str, Any] = {
            "ServiceCode": SERVICE_CODE,
            "Filters": build_filters(region),
            "FormatVersion": "aws_v1",
            "MaxResults": page_size,
        }
        if token:
            kwargs["NextToken"] = token
        response = client.get_products(**kwargs)
        yield from response.get("PriceList", [])
        token = response.get("NextToken")
        if not token:
            return


def fetch_hosting_prices(client: Any, region: str) -> dict[str, HostingPrice]:
    """Hosting price per instance type in ``region``; if the list prices a type twice, the lower wins."""
    prices: dict[str, HostingPrice] = {}
    for item in iter_price_list(client, region):
        parsed = parse_price_item(item, region)
        if parsed is None:
            continue
        seen = prices.get(parsed.instance_type)
        if seen is None or parsed.price_per_hour_usd < seen.price_per_hour_usd:
            prices[parsed.instance_type] = parsed
    return prices


def refreshed_catalog(
    base: Catalog,
    prices: Mapping[str, HostingPrice],
    *,
    region: str,
    as_of: dt.date,
    keep_missing: bool = False,
) -> tuple[Catalog, list[str]]:
    """``base`` with the price list's prices; returns the catalog and the instance types it did not price."""
    from dataclasses import replace

    rows: list[InstanceType] = []
    missing: list[str] = []
    stale = f"stale-{base.region}-{base.prices_as_of}"
    for inst in base.instances:
        found = prices.get(inst.name)
        if found is not None:
            # A price-list price is no estimate: a row whose only estimated fact was its price becomes choosable.
            estimated = tuple(fact for fact in inst.estimated if fact != "price")
            rows.append(
                replace(
                    inst, price_per_hour_usd=found.price_per_hour_usd, price_source="price-list", estimated=estimated
                )
            )
        else:
            missing.append(inst.name)
            if keep_missing:
                rows.append(replace(inst, price_source=stale))
    source = (
        f"AWS Price List API, service code {SERVICE_CODE}, {region} on-demand hosting (usage type *-Host:ml.*), "
        f"read {as_of.isoformat()}"
    )
    sources = {"price-list": source}
    if keep_missing and missing:
        sources[stale] = (
            f"not priced in {region} by the price list; kept the {base.region} price of {base.prices_as_of}"
        )
    catalog = Catalog(tuple(rows), region, as_of.isoformat(), source, sources)
    return catalog, missing


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m inference_constructs.catalog.refresh",
        description="Refresh SageMaker hosting prices for a region from the AWS Price List API.",
    )
    parser.add_argument("--region", required=True, help="region to price, e.g. eu-west-1")
    parser.add_argument("--out", required=True, help="catalog JSON file to write ('-' for stdout)")
    parser.add_argument(
        "--keep-missing",
        action="store_true",
        help="keep instance types the region does not price, with their old price marked stale",
    )
    parser.add_argument(
        "--pricing-endpoint-region",
        default=PRICING_API_REGION,
        help=f"region of the Price List API endpoint (default {PRICING_API_REGION})",
    )
    return parser.parse_args(argv)


def _pricing_client(endpoint_region: str) -> Any:
    try:
        import boto3
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SystemExit("the price refresh needs boto3: pip install 'inference-constructs[refresh]'") from exc
    return boto3.client("pricing", region_name=endpoint_region)


def main(argv: Sequence[str] | None = None, *, client: Any = None, today: dt.date | None = None) -> int:
    """Command entry point; ``client`` and ``today`` are for tests. Returns the exit status."""
    args = _parse_args(argv)
    pricing = client if client is not None else _pricing_client(args.pricing_endpoint_region)
    prices = fetch_hosting_prices(pricing, args.region)
    if not prices:
        print(
            f"no SageMaker hosting prices found for region {args.region}; check the region code and credentials",
            file=sys.stderr,
        )
        return 1
    catalog, missing = refreshed_catalog(
        load_catalog(),
        prices,
        region=args.region,
        as_of=today or dt.datetime.now(dt.UTC).date(),
        keep_missing=args.keep_missing,
    )
    extra = {"missing_in_price_list": missing} if missing else None
    text = catalog_to_json(catalog, extra=extra)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    print(
        f"{len(catalog.instances)} instance types priced for {args.region}"
        + (f"; not priced there: {', '.join(_short(missing))}" if missing else ""),
        file=sys.stderr,
    )
    return 0


def _short(names: Iterable[str], limit: int = 12) -> list[str]:
    items = list(names)
    return items if len(items) <= limit else [*items[:limit], f"... {len(items) - limit} more"]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
