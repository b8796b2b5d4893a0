"""SageMaker hosting instance facts and prices, as dated data.

The data lives in ``instances.json`` next to this module (not in code): one row per SageMaker
hosting instance size with its vCPUs, host memory, accelerator kind, device count, memory per
device, NeuronCores, local NVMe storage, CPU architecture and the on-demand hosting price per
hour in one region, plus where each price came from. ``python -m inference_constructs.catalog.refresh``
rewrites the prices for a region from the AWS Price List API.

Pure Python: no ``aws_cdk`` import, no boto3 import.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from inference_constructs.spec import Accelerator

__all__ = [
    "ACCELERATORS_FILE",
    "CATALOG_FILE",
    "AcceleratorFacts",
    "Catalog",
    "InstanceType",
    "catalog_from_dict",
    "catalog_to_json",
    "load_accelerator_facts",
    "load_catalog",
    "load_catalog_file",
    "read_packaged_json",
]

CATALOG_FILE = "instances.json"
"""Name of the packaged data file."""

ACCELERATORS_FILE = "accelerators.json"
"""Name of the packaged per-accelerator facts (reported memory, compute capability, NeuronCore generation)."""


@dataclass(frozen=True)
class AcceleratorFacts:
    """Facts about one accelerator model, with their sources (``accelerators.json``)."""

    model: str
    reported_gib: float
    nominal: str
    compute_capability: float | None
    neuron_core: str
    reported_source: str
    generation_source: str
    estimated: tuple[str, ...] = ()
    """The facts of this row that no source gives (``reported_gib``, ``compute_capability``): estimates."""


def read_packaged_json(name: str) -> Any:
    """Parse the data file ``name`` packaged next to this module."""
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


@cache
def load_accelerator_facts() -> Mapping[str, AcceleratorFacts]:
    """Per accelerator model (the catalog's ``accelerator_model``), its facts; parsed once per process."""
    doc = read_packaged_json(ACCELERATORS_FILE)
    return {
        name: AcceleratorFacts(
            model=name,
            reported_gib=float(row["reported_gib"]),
            nominal=row["nominal"],
            compute_capability=row.get("compute_capability"),
            neuron_core=row.get("neuron_core", ""),
            reported_source=row["reported_source"],
            generation_source=row["generation_source"],
            estimated=tuple(row.get("estimated", ())),
        )
        for name, row in doc["accelerators"].items()
    }


@dataclass(frozen=True)
class InstanceType:
    """One SageMaker hosting instance size.

    Parameters
    ----------
    name:
        SageMaker instance type, e.g. ``ml.g5.xlarge``.
    family:
        Instance family, e.g. ``g5``.
    vcpus:
        Virtual CPUs.
    memory_gib:
        Host RAM in GiB.
    accelerator:
        Kind of device (``cpu`` for hosts without one).
    devices:
        GPUs or Neuron devices (Inferentia2 / Trainium chips). 0 for CPU hosts.
    device_memory_gib:
        Memory of ONE device in GiB (GPU memory, or Neuron device HBM). 0 for CPU hosts.
    neuron_cores:
        NeuronCores of the whole instance (logical cores at the default LNC for Trainium2). 0 unless Neuron.
    local_nvme:
        The instance has local NVMe instance storage: the production variant must not set
        ``VolumeSizeInGB`` nor (for compatibility) the endpoint config ``KmsKeyId``.
    architecture:
        ``x86_64`` or ``arm64``.
    burstable:
        Burstable performance (``ml.t*``): not for autoscaled endpoints.
    price_per_hour_usd:
        On-demand SageMaker hosting price per instance hour in the catalog's region.
    price_source:
        Key into :attr:`Catalog.price_sources` saying where this price came from (``derived-*`` keys are estimates).
    accelerator_model:
        Device model, e.g. ``NVIDIA A10G``. Empty for CPU hosts.
    device_memory_reported_gib:
        Memory of ONE device as the runtime reports it (``nvidia-smi`` total, Neuron HBM), in GiB,
        from ``accelerators.json``: what the sizing uses. ``device_memory_gib`` is the nominal size,
        for display. 0 for CPU hosts.
    compute_capability:
        CUDA compute capability of the GPU (e.g. 7.5 for T4, 8.9 for L4); ``None`` unless GPU.
    neuron_core_version:
        NeuronCore generation (``v2`` for Inferentia2/Trainium, ``v3`` for Trainium2); empty unless Neuron.
    estimated:
        The row's facts that no source gives and were estimated (``price``, ``vcpus_memory``, ``devices``,
        ``device_memory``, ``local_nvme``), as written in ``instances.json``; empty when every fact is sourced.
    device_estimated:
        The device facts of ``accelerators.json`` that are estimates (``reported_gib``, ``compute_capability``).
    """

    name: str
    family: str
    vcpus: int
    memory_gib: float
    accelerator: Accelerator
    devices: int
    device_memory_gib: float
    neuron_cores: int
    local_nvme: bool
    architecture: str
    burstable: bool
    price_per_hour_usd: float
    price_source: str = ""
    accelerator_model: str = ""
    device_memory_reported_gib: float = 0.0
    compute_capability: float | None = None
    neuron_core_version: str = ""
    estimated: tuple[str, ...] = ()
    device_estimated: tuple[str, ...] = ()

    @property
    def estimated_facts(self) -> tuple[str, ...]:
        """Every estimated fact of the host, its own and its device's (e.g. ``("price", "reported_gib")``)."""
        return self.estimated + self.device_estimated

    @property
    def chosen_automatically(self) -> bool:
        """False when a fact of the host is an estimate: the sizing then never picks it by itself (it is
        accepted as an explicit ``instance_type``, and a price refresh clears an estimated price)."""
        return not self.estimated_facts

    @property
    def accelerator_memory_gib(self) -> float:
        """Total device memory of the instance in GiB (0 for CPU hosts)."""
        return self.devices * self.device_memory_gib

    @property
    def neuron_cores_per_device(self) -> int:
        """NeuronCores on one device (0 unless Neuron)."""
        return self.neuron_cores // self.devices if self.devices and self.neuron_cores else 0

    @property
    def memory_per_neuron_core_gib(self) -> float:
        """Device memory one NeuronCore addresses in GiB, as the runtime reports it (0 unless Neuron)."""
        per_device = self.neuron_cores_per_device
        return self.device_memory_reported_gib / per_device if per_device else 0.0

    @property
    def price_is_estimate(self) -> bool:
        """True when the price was derived rather than read from a price list."""
        return self.price_source.startswith("derived")


@dataclass(frozen=True, eq=False)
class Catalog:
    """A dated snapshot of instance facts and prices for one region.

    Compared and hashed by identity, so decisions can be cached per catalog cheaply.

    Parameters
    ----------
    instances:
        Every instance size, in file order.
    region:
        Region the prices apply to, e.g. ``us-east-1``.
    prices_as_of:
        ISO date the prices were read.
    price_source:
        Where the prices came from, as a sentence.
    price_sources:
        Per-row provenance keys (see :attr:`InstanceType.price_source`) and what they mean.
    """

    instances: tuple[InstanceType, ...]
    region: str
    prices_as_of: str
    price_source: str
    price_sources: Mapping[str, str] = field(default_factory=dict)

    def get(self, name: str) -> InstanceType | None:
        """The instance type called ``name`` (e.g. ``ml.g5.xlarge``), or None if the catalog lacks it."""
        return self._by_name.get(name)

    @cached_property
    def _by_name(self) -> dict[str, InstanceType]:
        return {i.name: i for i in self.instances}

    @cached_property
    def by_price(self) -> tuple[InstanceType, ...]:
        """Instances sorted cheapest first; ties: fewer devices, then fewer vCPUs, then name."""
        return tuple(sorted(self.instances, key=lambda i: (i.price_per_hour_usd, i.devices, i.vcpus, i.name)))


def _family(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) == 3 else name


def catalog_from_dict(doc: Mapping[str, Any]) -> Catalog:
    """Build a :class:`Catalog` from the parsed ``instances.json`` document."""
    rows = []
    facts = load_accelerator_facts()
    for row in doc["instances"]:
        fact = facts.get(row.get("accelerator_model", ""))
        rows.append(
            InstanceType(
                name=row["name"],
                family=row.get("family") or _family(row["name"]),
                vcpus=int(row["vcpus"]),
                memory_gib=float(row["memory_gib"]),
                accelerator=Accelerator(row["accelerator"]),
                devices=int(row["devices"]),
                device_memory_gib=float(row["device_memory_gib"]),
                neuron_cores=int(row["neuron_cores"]),
                local_nvme=bool(row["local_nvme"]),
                architecture=row["architecture"],
                burstable=bool(row["burstable"]),
                price_per_hour_usd=float(row["price_per_hour_usd"]),
                price_source=row.get("price_source", ""),
                accelerator_model=row.get("accelerator_model", ""),
                device_memory_reported_gib=fact.reported_gib if fact else 0.0,
                compute_capability=fact.compute_capability if fact else None,
                neuron_core_version=fact.neuron_core if fact else "",
                estimated=tuple(row.get("estimated", ())),
                device_estimated=fact.estimated if fact else (),
            )
        )
    return Catalog(
        instances=tuple(rows),
        region=doc["region"],
        prices_as_of=doc["prices_as_of"],
        price_source=doc["price_source"],
        price_sources=dict(doc.get("price_sources", {})),
    )


_ROW_KEYS = (
    "name",
    "vcpus",
    "memory_gib",
    "accelerator",
    "devices",
    "device_memory_gib",
    "neuron_cores",
    "local_nvme",
    "architecture",
    "burstable",
    "price_per_hour_usd",
    "price_source",
    "accelerator_model",
)


def catalog_to_json(catalog: Catalog, *, extra: Mapping[str, Any] | None = None) -> str:
    """Render ``catalog`` in the ``instances.json`` format: one instance per line, stable key order."""

    def value(inst: InstanceType, key: str) -> Any:
        v = getattr(inst, key)
        if isinstance(v, Accelerator):
            return v.value
        if isinstance(v, float) and v.is_integer() and key != "price_per_hour_usd":
            return int(v)
        return v

    head: dict[str, Any] = {
        "schema_version": 1,
        "region": catalog.region,
        "currency": "USD",
        "prices_as_of": catalog.prices_as_of,
        "price_source": catalog.price_source,
        "price_sources": dict(catalog.price_sources),
    }
    head.update(extra or {})
    lines = ["{"]
    for key, val in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(val, indent=None, ensure_ascii=False)},")
    lines.append('  "instances": [')

    def row(inst: InstanceType) -> dict[str, Any]:
        out = {k: value(inst, k) for k in _ROW_KEYS}
        if inst.estimated:
            out["estimated"] = list(inst.estimated)
        return out

    rows = [json.dumps(row(i), ensure_ascii=False) for i in catalog.instances]
    lines.append(",\n".join(f"    {r}" for r in rows))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def load_catalog_file(path: str | Path) -> Catalog:
    """Load a catalog written by :func:`catalog_to_json` (e.g. a refreshed region) from ``path``."""
    with open(path, encoding="utf-8") as f:
        return catalog_from_dict(json.load(f))


@cache
def load_catalog() -> Catalog:
    """The packaged catalog (us-east-1 prices), parsed once per process."""
    return catalog_from_dict(read_packaged_json(CATALOG_FILE))
