"""What each pinned serving engine can run: model families and features, Neuron SDK per instance family, tensor
parallel degrees, dtypes per accelerator generation, headroom and quantized-weight layout; and what each pinned
image needs from its host (CUDA or Neuron runtime, lowest driver) and what each SageMaker inference AMI provides.

The rules are data (``compatibility.json`` next to this module, keyed like ``images.json``), each
with its source; this module only reads them and answers questions. ``docs/compatibility.md`` lists
every rule with its source and the test that shows it.

Pure Python: no ``aws_cdk`` import.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from inference_constructs.catalog import InstanceType
from inference_constructs.containers.images import ImageVariant, image_key, load_snapshot
from inference_constructs.spec import Accelerator, DType, EndpointKind, Serving

__all__ = [
    "COMPATIBILITY_FILE",
    "DtypeSupport",
    "EngineRules",
    "Headroom",
    "HostAmi",
    "ImageRuntime",
    "LoraRules",
    "QuantizedLayout",
    "default_host_driver",
    "dtype_quality",
    "dtype_support",
    "endpoint_kinds",
    "engine_for",
    "engine_rules",
    "family_problem",
    "feature_problem",
    "headroom",
    "host_ami",
    "host_ami_versions",
    "host_image_problem",
    "image_runtime",
    "load_compatibility",
    "lora_rules",
    "margin_floor_fraction",
    "min_cuda_for",
    "neuron_sdk_problem",
    "quantized_layout",
    "tensor_parallel_degrees",
    "variant_hosts",
]

COMPATIBILITY_FILE = Path(__file__).with_name("compatibility.json")
"""The packaged compatibility data."""


@cache
def load_compatibility() -> Mapping[str, Any]:
    """The parsed ``compatibility.json`` (once per process)."""
    doc: Mapping[str, Any] = json.loads(COMPATIBILITY_FILE.read_text(encoding="utf-8"))
    return doc


@dataclass(frozen=True)
class EngineRules:
    """The rules of one pinned engine image (``key`` as in ``images.json``, e.g. ``lmi-neuron``)."""

    key: str
    engine: str
    families_closed: bool
    families: tuple[str, ...]
    families_source: str
    neuron_sdk: str | None
    tensor_parallel: str
    dtypes: str
    headroom: str


@cache
def engine_rules(key: str) -> EngineRules | None:
    """The rules of engine image ``key``, or ``None`` for images without LLM rules (e.g. sklearn)."""
    row = load_compatibility()["engines"].get(key)
    if row is None:
        return None
    fam = row["families"]
    closed = fam["mode"] == "closed"
    return EngineRules(
        key=key,
        engine=row["engine"],
        families_closed=closed,
        families=tuple(fam["list"] if closed else fam["native"]),
        families_source=fam["source"],
        neuron_sdk=row.get("neuron_sdk"),
        tensor_parallel=row["tensor_parallel"],
        dtypes=row["dtypes"],
        headroom=row["headroom"],
    )


def engine_for(serving: Serving, inst: InstanceType) -> EngineRules | None:
    """The engine that ``serving`` runs on ``inst`` (its image for that host), or ``None``."""
    key = image_key(serving, ImageVariant.for_host(inst.accelerator, inst.architecture))
    return engine_rules(key) if key else None


def family_problem(rules: EngineRules, family: str | None) -> str | None:
    """Why ``rules``' engine cannot load a model of ``family``, or ``None`` when it can."""
    if not rules.families_closed:
        return None
    supported = ", ".join(rules.families)
    if family is None:
        return (
            f"{rules.engine} loads only {supported}, and the model's family is unknown; "
            f"set model.architecture.family (the model_type in its config.json)"
        )
    if family not in rules.families:
        return f"{rules.engine} does not support {family} models (it loads {supported})"
    return None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def neuron_sdk_problem(rules: EngineRules, inst: InstanceType) -> str | None:
    """Why the engine's Neuron SDK cannot drive ``inst``'s family (e.g. trn2 before 2.21), or ``None``."""
    minimum = load_compatibility()["neuron_sdk_minimum"].get(inst.family)
    if minimum is None or rules.neuron_sdk is None:
        return None
    if _version(rules.neuron_sdk) < _version(minimum["version"]):
        return f"{rules.engine} cannot drive {inst.family}, which needs Neuron SDK {minimum['version']} or later"
    return None


def tensor_parallel_degrees(rules: EngineRules | None, inst: InstanceType) -> tuple[int, ...]:
    """The tensor parallel degrees the engine may use on ``inst`` (never above its GPUs / NeuronCores)."""
    tp = load_compatibility()["tensor_parallel"]
    if inst.accelerator is Accelerator.GPU:
        return tuple(d for d in tp["gpu"]["degrees"] if d <= inst.devices)
    if inst.accelerator.is_neuron:
        listed = tp["neuron"]["degrees"].get(inst.family, [1, 2, 4, 8, 16, 32, 64])
        return tuple(d for d in listed if d <= inst.neuron_cores)
    return (1,)


@dataclass(frozen=True)
class DtypeSupport:
    """Whether a dtype runs on a host with an engine, and how."""

    supported: bool
    reason: str
    weight_only: str = ""


def dtype_support(rules: EngineRules, dtype: DType, inst: InstanceType) -> DtypeSupport:
    """Whether ``rules``' engine runs ``dtype`` on ``inst``'s accelerator generation."""
    row = load_compatibility()["dtypes"][rules.dtypes].get(dtype.value)
    if row is None:
        return DtypeSupport(False, f"{rules.engine} has no {dtype.value} support")
    if inst.accelerator.is_neuron:
        if row.get("neuron"):
            return DtypeSupport(True, "")
        return DtypeSupport(False, f"{rules.engine} does not run {dtype.value} weights on Neuron")
    cc = inst.compute_capability
    minimum = row.get("min_compute_capability")
    if cc is None or minimum is None:
        return DtypeSupport(True, "")
    if cc < minimum:
        return DtypeSupport(
            False,
            f"{dtype.value} needs compute capability {minimum} with {rules.engine}; {inst.accelerator_model} has {cc}",
        )
    compute = row.get("compute_min_compute_capability")
    if compute is not None and cc < compute:
        return DtypeSupport(True, "", f"{row['weight_only_below']} on compute capability {cc}")
    return DtypeSupport(True, "")


@dataclass(frozen=True)
class Headroom:
    """Overhead beyond weights + KV cache, per accelerator kind."""

    overhead_fraction: float
    per_shard_gib: float


def headroom(accelerator: Accelerator) -> Headroom:
    """Activation/runtime overhead of the LLM engines on ``accelerator`` (GPU or Neuron)."""
    row = load_compatibility()["headroom"]["neuron" if accelerator.is_neuron else "gpu"]
    return Headroom(float(row["overhead_fraction"]), float(row["per_shard_gib"]))


def margin_floor_fraction() -> float:
    """Share of the usable accelerator memory that must stay free on a fitting host."""
    return float(load_compatibility()["headroom"]["margin_floor_fraction"])


@dataclass(frozen=True)
class LoraRules:
    """What vLLM reserves for LoRA adapters (``compatibility.json`` ``lora``): the ranks ``max_lora_rank`` takes, its
    default, LMI's default number of adapter slots (``max_loras``), the families whose embeddings and output layer also
    get adapter buffers, the families that load no adapters, and where the facts were read (``read_at``)."""

    ranks: tuple[int, ...]
    default_rank: int
    default_slots: int
    embedding_families: frozenset[str]
    families_without_lora: frozenset[str]
    read_at: str


@cache
def lora_rules() -> LoraRules:
    """The LoRA reservation rules of the engine that loads adapters (LMI's vLLM backend)."""
    row = load_compatibility()["lora"]
    return LoraRules(
        ranks=tuple(int(r) for r in row["ranks"]),
        default_rank=int(row["default_rank"]),
        default_slots=int(row["default_slots"]),
        embedding_families=frozenset(row["embedding_families"]),
        families_without_lora=frozenset(row["families_without_lora"]),
        read_at=str(row["read_at"]),
    )


@dataclass(frozen=True)
class QuantizedLayout:
    """How a quantized checkpoint stores its weights: bits per weight plus scales; embeddings stay 16-bit."""

    bits: int
    group_size: int
    per_group_bytes: float
    per_row_bytes: float


def quantized_layout(dtype: DType) -> QuantizedLayout | None:
    """The stored layout of ``dtype`` weights (int4, int8, fp8), or ``None`` for 16/32-bit dtypes."""
    row = load_compatibility()["quantized_weights"].get(dtype.value)
    if row is None:
        return None
    return QuantizedLayout(
        bits=int(row["bits"]),
        group_size=int(row.get("group_size", 0)),
        per_group_bytes=float(row.get("per_group_bytes", 0.0)),
        per_row_bytes=float(row.get("per_row_bytes", 0.0)),
    )


def dtype_quality(dtype: DType) -> str:
    """What switching to ``dtype`` costs in quality, as the data states it."""
    return str(load_compatibility()["dtype_quality"].get(dtype.value, ""))


def endpoint_kinds(serving: Serving, variant: ImageVariant) -> frozenset[EndpointKind]:
    """The endpoint kinds ``serving``'s image for a ``variant`` host can be (``endpoint_kinds`` in the data; for
    ``custom`` the row ``custom-<variant>``). Empty when the data lists none, which refuses every kind."""
    rows: Mapping[str, Any] = load_compatibility()["endpoint_kinds"]
    key = image_key(serving, variant) or f"{serving.value}-{variant.value}"
    return frozenset(EndpointKind(kind) for kind in rows.get(key, ()))


def variant_hosts(kind: EndpointKind, variant: ImageVariant) -> bool:
    """True when some image for a ``variant`` host can be a ``kind`` endpoint (no Neuron image is multi-model, and
    no GPU or Neuron image serverless)."""
    rows: Mapping[str, Any] = load_compatibility()["endpoint_kinds"]
    suffix = f"-{variant.value}"
    return any(key.endswith(suffix) and kind.value in kinds for key, kinds in rows.items() if key != "source")


# ------------------------------------------------------------------------------------ host and image


@dataclass(frozen=True)
class ImageRuntime:
    """What a pinned accelerator image is built on (``image_runtimes`` in the data).

    ``min_driver`` is the lowest NVIDIA driver its CUDA major runs on without the forward-compatibility
    package; ``minor_compat_below`` the first driver outside that major's minor-compatibility range (``None``:
    no upper end); both ``None`` for Neuron images.
    """

    key: str
    cuda: str | None
    neuron_sdk: str | None
    min_driver: int | None
    minor_compat_below: int | None
    forward_compat_min_driver: int | None
    source: str
    driver_source: str

    @property
    def cuda_major(self) -> str | None:
        """The CUDA major version (e.g. ``13``), or ``None``."""
        return self.cuda.split(".", 1)[0] if self.cuda else None


@cache
def image_runtime(key: str | None) -> ImageRuntime | None:
    """The runtime of pinned image ``key`` (e.g. ``lmi-gpu``), or ``None`` (CPU images, custom images)."""
    if not key:
        return None
    row = load_compatibility()["image_runtimes"].get(key)
    if not isinstance(row, Mapping):
        return None
    cuda = row.get("cuda")
    drivers: Mapping[str, Any] = {}
    if cuda:
        drivers = load_compatibility()["cuda_drivers"][str(cuda).split(".", 1)[0]]
    below = drivers.get("minor_compat_below")
    forward = drivers.get("forward_compat_min_driver")
    return ImageRuntime(
        key=key,
        cuda=cuda,
        neuron_sdk=row.get("neuron_sdk"),
        min_driver=int(drivers["min_driver"]) if drivers else None,
        minor_compat_below=int(below) if below is not None else None,
        forward_compat_min_driver=int(forward) if forward is not None else None,
        source=str(row["source"]),
        driver_source=str(drivers.get("source", "")),
    )


@dataclass(frozen=True)
class HostAmi:
    """One SageMaker inference AMI version (``ProductionVariant.InferenceAmiVersion``)."""

    version: str
    accelerator: str
    """``gpu`` or ``neuron``."""
    nvidia_driver: int | None
    cuda: str | None
    cuda_compat_mounting: str
    neuron_driver: str | None
    families: tuple[str, ...]
    families_source: str

    def runs_on(self, inst: InstanceType) -> bool:
        """True when this AMI runs on ``inst``'s accelerator and instance family."""
        kind = "gpu" if inst.accelerator is Accelerator.GPU else "neuron" if inst.accelerator.is_neuron else "cpu"
        return kind == self.accelerator and inst.family in self.families

    def describe(self) -> str:
        """e.g. ``al2023-ami-sagemaker-inference-gpu-4-1 (NVIDIA driver 580, CUDA 13.0)``."""
        if self.accelerator == "neuron":
            return f"{self.version} (Neuron driver {self.neuron_driver})"
        return f"{self.version} (NVIDIA driver {self.nvidia_driver}, CUDA {self.cuda})"


@cache
def host_ami_versions() -> Mapping[str, HostAmi]:
    """Every inference AMI version the data knows, keyed by its ``InferenceAmiVersion`` value."""
    out: dict[str, HostAmi] = {}
    for version, row in load_compatibility()["host_amis"]["versions"].items():
        out[version] = HostAmi(
            version=version,
            accelerator=row["accelerator"],
            nvidia_driver=row.get("nvidia_driver"),
            cuda=row.get("cuda"),
            cuda_compat_mounting=str(row.get("cuda_compat_mounting", "")),
            neuron_driver=row.get("neuron_driver"),
            families=tuple(row["families"]),
            families_source=row["families_source"],
        )
    return out


def host_ami(version: str) -> HostAmi | None:
    """The AMI ``version``, or ``None`` when it is not one of ``ProductionVariantInferenceAmiVersion``."""
    return host_ami_versions().get(version)


def default_host_driver(inst: InstanceType) -> str | None:
    """The driver ``inst`` runs without an ``InferenceAmiVersion`` (e.g. ``NVIDIA 470``), or ``None`` when unknown."""
    data = load_compatibility()["default_host_drivers"]
    if inst.accelerator is Accelerator.GPU:
        driver = data["nvidia"].get(inst.family)
        return None if driver is None else f"NVIDIA {driver}"
    if inst.accelerator.is_neuron:
        neuron = data["neuron"].get(inst.family)
        return None if neuron is None else f"Neuron {neuron}"
    return None


def min_cuda_for(inst: InstanceType) -> str | None:
    """The lowest CUDA toolkit an image needs to run on ``inst``'s GPU generation (``gpu_generations``), or
    ``None`` when every pinned CUDA image runs there (and on hosts without a GPU)."""
    if inst.accelerator is not Accelerator.GPU or inst.compute_capability is None:
        return None
    row = load_compatibility()["gpu_generations"].get(f"{inst.compute_capability:.1f}")
    return str(row["min_cuda"]) if isinstance(row, Mapping) else None


def host_image_problem(serving: Serving, inst: InstanceType, *, explicit: bool) -> str | None:
    """Why ``serving``'s image cannot run on ``inst``: its build's CPU architecture or Graviton families
    (``images.json``), or its CUDA toolkit on the host's GPU generation (``gpu_generations``); ``None`` when it
    can. A custom image's architecture and CUDA are not known: an arm64 host, or a GPU that needs a newer CUDA
    than 12.x, is then only used when given ``explicit``-ly. An LLM stack without an image for the host's
    accelerator is left to the engine rules (:func:`engine_for`)."""
    need = min_cuda_for(inst)
    if serving is Serving.CUSTOM:
        if explicit:
            return None
        if inst.architecture != "x86_64":
            return f"a custom image's architecture is not known, so {inst.architecture} hosts are used only when given"
        if need is not None:
            return (
                f"a custom image's CUDA is not known; {inst.accelerator_model} (compute capability "
                f"{inst.compute_capability}) needs CUDA {need} or later, so it is used only when given"
            )
        return None
    variant = ImageVariant.for_host(inst.accelerator, inst.architecture)
    key = image_key(serving, variant)
    if key is None:
        return None if serving.is_llm else f"no {serving.value} image is pinned for {variant.value} hosts"
    image = load_snapshot().images[key]
    problem = image.host_problem(inst.family, inst.architecture)
    if problem is not None or need is None:
        return problem
    runtime = image_runtime(key)
    cuda = runtime.cuda if runtime else None
    if cuda is None or _version(cuda) < _version(need):
        return (
            f"{image.repository}:{image.tag} is built on CUDA {cuda or 'unknown'}; {inst.accelerator_model} "
            f"(compute capability {inst.compute_capability}) needs CUDA {need} or later"
        )
    return None


# ------------------------------------------------------------------------------------ model features


def feature_problem(rules: EngineRules, features: Mapping[str, str]) -> tuple[str, str] | None:
    """``(why, fix)`` when ``rules``' engine lacks one of the model's ``features`` (``model_features`` in the
    data, e.g. ``rope_scaling:llama3``), or ``None`` when it has them all (or none is known)."""
    table: Mapping[str, Any] = load_compatibility()["model_features"]
    for name, value in sorted(features.items()):
        row = table.get(f"{name}:{value}")
        if not isinstance(row, Mapping):
            continue
        engine = row["engines"].get(rules.key)
        supported = bool(engine["supported"]) if engine else bool(row.get("others", False))
        if not supported:
            source = engine["source"] if engine else "the engine is not listed for this feature"
            fix = engine.get("fix", "another serving stack") if engine else "another serving stack"
            return f"{rules.engine} does not implement {row['what']} ({source})", fix
    return None
