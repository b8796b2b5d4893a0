"""The packaged instance catalog: complete, consistent with AWS's own tables, dated and sourced."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
from pathlib import Path

import botocore.session
import pytest

from inference_constructs.catalog import (
    Catalog,
    catalog_from_dict,
    catalog_to_json,
    load_accelerator_facts,
    load_catalog,
    load_catalog_file,
)
from inference_constructs.spec import Accelerator

CATALOG = load_catalog()
HOSTING_TYPES = frozenset(
    botocore.session.get_session().get_service_model("sagemaker").shape_for("ProductionVariantInstanceType").enum
)
REQUIRED_FAMILIES = (
    "g4dn",
    "g5",
    "g6",
    "g6e",
    "p4d",
    "p4de",
    "p5",
    "p5e",
    "p5en",
    "inf2",
    "trn1",
    "trn1n",
    "trn2",
    "m5",
    "m6i",
    "m7i",
    "c5",
    "c6i",
    "c7i",
    "r5",
    "g7",
    "g7e",
    "p6-b200",
    "p6-b300",
    "p6e-gb200",
    "c6g",
    "m6g",
    "r6g",
    "c7g",
    "c8g",
    "m8g",
    "r8g",
)


def test_every_catalog_name_is_a_sagemaker_hosting_instance_type():
    # GIVEN botocore's ProductionVariantInstanceType enum (the API's own list)
    # WHEN the catalog names are compared with it
    unknown = {i.name for i in CATALOG.instances} - HOSTING_TYPES
    # THEN none is unknown to SageMaker hosting
    assert unknown == set()


def _cloudformation_instance_types() -> frozenset[str]:
    import cfnlint

    schemas = Path(cfnlint.__file__).parent / "data" / "schemas"
    digest = json.loads((schemas / "providers" / "us-east-1.json").read_text())["AWS::SageMaker::EndpointConfig"]
    schema = json.loads((schemas / "resources" / f"{digest}.json").read_text())
    return frozenset(schema["definitions"]["ProductionVariant"]["properties"]["InstanceType"]["enum"])


def test_every_catalog_name_is_in_the_cloudformation_schema_enum():
    # GIVEN the InstanceType enum of AWS::SageMaker::EndpointConfig ProductionVariant in cfn-lint's bundled schema
    # WHEN the catalog names are compared with it / THEN each is a hosting type CloudFormation accepts
    assert {i.name for i in CATALOG.instances} - _cloudformation_instance_types() == set()


@pytest.mark.parametrize("family", REQUIRED_FAMILIES)
def test_catalog_has_every_hosting_size_of_required_family(family):
    # GIVEN every size SageMaker hosting offers for the family
    offered = {n for n in HOSTING_TYPES if n.split(".")[1] == family}
    # WHEN the catalog's sizes of that family are listed
    listed = {i.name for i in CATALOG.instances if i.family == family}
    # THEN they are exactly the offered sizes
    assert offered and listed == offered


def test_catalog_names_are_unique():
    # GIVEN the catalog rows / WHEN names are counted / THEN each appears once
    names = [i.name for i in CATALOG.instances]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("inst", CATALOG.instances, ids=lambda i: i.name)
def test_row_is_internally_consistent(inst):
    # GIVEN one catalog row
    # WHEN its fields are checked against its accelerator kind
    # THEN CPU hosts have no devices, accelerated hosts have devices with memory, Neuron hosts have cores
    assert inst.vcpus > 0 and inst.memory_gib > 0 and inst.price_per_hour_usd > 0
    assert inst.family == inst.name.split(".")[1]
    assert inst.architecture in ("x86_64", "arm64")
    if inst.accelerator is Accelerator.CPU:
        assert (inst.devices, inst.device_memory_gib, inst.neuron_cores) == (0, 0, 0)
    else:
        assert inst.devices >= 1 and inst.device_memory_gib > 0
        assert (inst.neuron_cores > 0) == inst.accelerator.is_neuron
    assert inst.burstable == (inst.family in ("t2", "t3"))
    assert inst.price_source in CATALOG.price_sources


@pytest.mark.parametrize(
    ("family", "cores_per_device", "memory_per_device"),
    [("inf2", 2, 32), ("trn1", 2, 32), ("trn1n", 2, 32), ("trn2", 4, 96)],
)
def test_neuron_devices_have_documented_cores_and_memory(family, cores_per_device, memory_per_device):
    # GIVEN the Neuron hardware docs: Inferentia2/Trainium 2 NeuronCore-v2 and 32 GiB per device;
    # Trainium2 8 physical cores = 4 logical cores at the default LNC=2, 96 GiB per device
    rows = [i for i in CATALOG.instances if i.family == family]
    # WHEN per-device figures are derived / THEN they match
    assert rows and {(i.neuron_cores_per_device, i.device_memory_gib) for i in rows} == {
        (cores_per_device, memory_per_device)
    }


@pytest.mark.parametrize(
    ("name", "cores"),
    [("ml.inf2.xlarge", 2), ("ml.inf2.24xlarge", 12), ("ml.inf2.48xlarge", 24), ("ml.trn1.32xlarge", 32)],
)
def test_neuron_core_counts_match_fact_sheet(name, cores):
    # GIVEN a Neuron instance / WHEN its cores are read
    # THEN they match the Neuron device tables (2 NeuronCores per device)
    inst = CATALOG.get(name)
    assert inst is not None and inst.neuron_cores == cores


def _sdk_gpu_rows() -> list[tuple[str, int, float]]:
    spec = importlib.util.find_spec("sagemaker.core")  # locate the package's data without importing it (slow)
    assert spec is not None and spec.submodule_search_locations
    path = Path(next(iter(spec.submodule_search_locations))) / "image_uri_config" / "instance_gpu_info.json"
    table = json.loads(path.read_text())["us-east-1"]
    return [(n, v["Count"], v["TotalGpuMemoryInMiB"] / 1024) for n, v in sorted(table.items()) if CATALOG.get(n)]


@pytest.mark.parametrize(("name", "count", "total_gib"), _sdk_gpu_rows(), ids=str)
def test_gpu_counts_and_memory_match_sagemaker_sdk_table(name, count, total_gib):
    # GIVEN the SageMaker SDK's instance_gpu_info.json row for a catalog GPU instance
    inst = CATALOG.get(name)
    assert inst is not None
    # WHEN device count and total memory are compared
    # THEN the count matches and the memory is within 8 %
    # (the SDK lists ml.g5.48xlarge at 178.8 GiB total, 7.4 % under 8 x 24)
    assert inst.devices == count
    assert inst.accelerator_memory_gib == pytest.approx(total_gib, rel=0.08)


@pytest.mark.parametrize("inst", CATALOG.instances, ids=lambda i: i.name)
def test_local_nvme_follows_sagemaker_sdk_rule(inst):
    # GIVEN the SageMaker Python SDK rule (sagemaker-core common_utils.volume_size_supported): families with a
    # "d", and g5, g6*, g7e, p5*, p6-b200, trn1*, trn2 have local storage (so VolumeSizeInGB must not be sent)
    family = inst.family
    expected = "d" in family or family.startswith(("g5", "g6", "g7e", "p5", "p6-b200", "trn1", "trn2"))
    # WHEN the row is read / THEN its flag matches
    assert inst.local_nvme == expected


def test_catalog_is_dated_and_sourced():
    # GIVEN the packaged catalog / WHEN its header is read
    # THEN it names its region, an ISO date and a source, and flags derived prices as estimates
    assert CATALOG.region == "us-east-1"
    assert dt.date.fromisoformat(CATALOG.prices_as_of) <= dt.date.today()
    assert "Price List" in CATALOG.price_source
    estimates = {i.name for i in CATALOG.instances if i.price_is_estimate}
    new_families = ("g7", "g7e", "p6-b200", "p6-b300", "p6e-gb200", "c6g", "m6g", "r6g", "c7g", "c8g", "m8g", "r8g")
    added = {i.name for i in CATALOG.instances if i.family in new_families}
    assert estimates == {"ml.p5e.48xlarge", "ml.p5en.48xlarge", "ml.trn1n.32xlarge", "ml.trn2.48xlarge"} | added
    assert all("ESTIMATE" in CATALOG.price_sources[k] for k in CATALOG.price_sources if k.startswith("derived"))


_UNSOURCED = ("ESTIMATE", "UNCONFIRMED")
"""What a source text says of a figure no source gives."""


@pytest.mark.parametrize("inst", CATALOG.instances, ids=lambda i: i.name)
def test_every_row_prices_and_device_memory_carry_a_source_or_are_marked_estimated(inst):
    # GIVEN a catalog row
    # WHEN its price source is read
    price_source = CATALOG.price_sources.get(inst.price_source, "")
    # THEN it names a source the header lists, and a source that is itself an estimate marks the price estimated
    assert price_source, f"{inst.name}: price_source {inst.price_source!r} is not in price_sources"
    if any(word in price_source for word in _UNSOURCED):
        assert "price" in inst.estimated, f"{inst.name}: {inst.price_source} is an estimate"
    if inst.devices == 0:
        return
    # AND a device's reported memory comes from accelerators.json with a source, or is marked estimated there
    facts = load_accelerator_facts()[inst.accelerator_model]
    assert facts.reported_source
    if any(word in facts.reported_source for word in _UNSOURCED):
        assert "reported_gib" in facts.estimated, f"{inst.accelerator_model}: reported memory is an estimate"
    # AND the nominal per-device memory is marked estimated wherever the device's reported memory is
    if "reported_gib" in facts.estimated and inst.family in _NOMINAL_UNSOURCED:
        assert "device_memory" in inst.estimated, inst.name


_NOMINAL_UNSOURCED = ("p5e", "p5en", "g7")
"""Families whose per-device nominal memory no AWS table read here states (H200 141 GB on p5e/p5en, RTX PRO 4500
32 GB on g7); the Blackwell B-series and RTX PRO 6000 nominal figures are cited in accelerators.json."""


@pytest.mark.parametrize(
    ("name", "estimated"),
    [
        ("ml.p5e.48xlarge", ("price", "device_memory", "reported_gib")),
        ("ml.p5en.48xlarge", ("price", "device_memory", "reported_gib")),
        ("ml.trn1n.32xlarge", ("price",)),
        ("ml.trn2.48xlarge", ("price",)),
        ("ml.p5.48xlarge", ()),
        ("ml.trn1.32xlarge", ()),
    ],
)
def test_the_h200_and_derived_neuron_rows_are_not_chosen_automatically(name, estimated):
    # GIVEN a row whose price is derived (p5e/p5en, trn1n, trn2) or sourced (p5, trn1)
    inst = CATALOG.get(name)
    # THEN its estimated facts are as listed, and only a row without any is chosen automatically
    assert inst is not None
    assert inst.estimated_facts == estimated
    assert inst.chosen_automatically is (not estimated)


def test_load_catalog_is_cached():
    # GIVEN two loads / WHEN compared / THEN they are the same object (parsed once)
    assert load_catalog() is load_catalog()


def test_by_price_is_sorted_cheapest_first_with_fewer_devices_on_ties():
    # GIVEN the price order / WHEN adjacent rows are compared / THEN keys never decrease
    keys = [(i.price_per_hour_usd, i.devices) for i in CATALOG.by_price]
    assert keys == sorted(keys)


def test_get_returns_none_for_unknown_type():
    # GIVEN a name that is not in the catalog / WHEN looked up / THEN None
    assert CATALOG.get("ml.g99.xlarge") is None


def test_json_round_trip_preserves_every_row(tmp_path):
    # GIVEN the catalog rendered in the file format
    path = tmp_path / "catalog.json"
    path.write_text(catalog_to_json(CATALOG))
    # WHEN it is loaded back
    again = load_catalog_file(path)
    # THEN rows, region, date and sources are identical
    assert isinstance(again, Catalog)
    assert again.instances == CATALOG.instances
    assert (again.region, again.prices_as_of, again.price_source) == (
        CATALOG.region,
        CATALOG.prices_as_of,
        CATALOG.price_source,
    )
    assert dict(again.price_sources) == dict(CATALOG.price_sources)


def test_catalog_from_dict_derives_family_from_name():
    # GIVEN a minimal row without a family / WHEN parsed / THEN the family comes from the name
    doc = {
        "region": "eu-west-1",
        "prices_as_of": "2026-01-01",
        "price_source": "test",
        "instances": [
            {
                "name": "ml.g5.xlarge",
                "vcpus": 4,
                "memory_gib": 16,
                "accelerator": "gpu",
                "devices": 1,
                "device_memory_gib": 24,
                "neuron_cores": 0,
                "local_nvme": True,
                "architecture": "x86_64",
                "burstable": False,
                "price_per_hour_usd": 1.5,
            }
        ],
    }
    assert catalog_from_dict(doc).instances[0].family == "g5"
