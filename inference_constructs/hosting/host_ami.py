"""The host AMI of an endpoint's production variant: the ``InferenceAmiVersion`` whose driver runs its image.

An image and the host AMI that runs it are one compatibility fact (``containers/compatibility.json``:
``image_runtimes``, ``cuda_drivers``, ``host_amis``, ``host_ami_choice``). SageMaker applies no AMI override by
itself: without ``InferenceAmiVersion`` a g5 or g4dn host runs NVIDIA driver 470, which starts no CUDA 12 or 13
image. So every production variant on a GPU or Neuron host gets a version, chosen here or given by the user
(``endpoints[].host_ami``) and checked here; CPU hosts and serverless endpoints get none.

Pure Python (no ``aws_cdk`` import).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inference_constructs.catalog import InstanceType
from inference_constructs.containers.compatibility import (
    HostAmi,
    ImageRuntime,
    default_host_driver,
    host_ami,
    host_ami_versions,
    image_runtime,
    load_compatibility,
)
from inference_constructs.errors import ProblemCollector
from inference_constructs.spec import Accelerator

__all__ = ["AUTO", "HostAmiDecision", "decide_host_ami", "host_ami_problem"]

AUTO = "auto"
"""``host_ami`` value that lets the plan choose (the default)."""


@dataclass(frozen=True)
class HostAmiDecision:
    """The production variant's ``InferenceAmiVersion`` (``None``: not set, on CPU hosts and serverless), why, and
    the sources of the facts the choice rests on."""

    version: str | None
    reason: str
    source: str

    def to_dict(self) -> dict[str, Any]:
        """The plan entry (``hosting.inference_ami``)."""
        return {"version": self.version, "reason": self.reason, "source": self.source}


def _choice_source() -> str:
    return str(load_compatibility()["host_ami_choice"]["source"])


def _kind(inst: InstanceType) -> str:
    if inst.accelerator is Accelerator.GPU:
        return "gpu"
    return "neuron" if inst.accelerator.is_neuron else "cpu"


def _driver_ok(ami: HostAmi, runtime: ImageRuntime | None) -> bool:
    if runtime is None or runtime.min_driver is None:
        return True
    return ami.nvidia_driver is not None and ami.nvidia_driver >= runtime.min_driver


def _auto(runtime: ImageRuntime | None, inst: InstanceType) -> HostAmi | None:
    """The version ``host_ami_choice`` picks for ``runtime`` on ``inst``, or ``None`` when none runs it there."""
    candidates = [a for a in host_ami_versions().values() if a.runs_on(inst) and _driver_ok(a, runtime)]
    if not candidates:
        return None
    if _kind(inst) == "neuron":
        return candidates[0]

    def key(a: HostAmi) -> tuple[int, bool, str]:
        # Same driver: prefer the AMI with CUDA-compat mounting disabled (a stated behaviour), then by name.
        return (a.nvidia_driver or 0, a.cuda_compat_mounting == "disabled", a.version)

    if runtime is None or runtime.min_driver is None:
        return max(candidates, key=key)  # image's CUDA unknown: the newest driver (backward compatible)
    below = runtime.minor_compat_below
    within = [a for a in candidates if below is None or (a.nvidia_driver or 0) < below]
    return max(within, key=key) if within else min(candidates, key=key)


def _runtime_text(runtime: ImageRuntime | None) -> str:
    if runtime is None:
        return "a custom image (its CUDA build is unknown)"
    if runtime.cuda:
        return f"the {runtime.key} image, built on CUDA {runtime.cuda}"
    return f"the {runtime.key} image (Neuron SDK {runtime.neuron_sdk})"


def host_ami_problem(requested: str | None, image_key: str | None, inst: InstanceType) -> tuple[str, str] | None:
    """``(what is wrong, what is allowed)`` when no AMI runs the image ``image_key`` on ``inst`` (``requested``:
    an explicit ``host_ami``, or ``None``/``auto``), or ``None`` when one does. CPU hosts: a problem only for an
    explicit version."""
    runtime = image_runtime(image_key)
    if _kind(inst) == "cpu":
        if requested in (None, AUTO):
            return None
        return (
            f"{inst.name} is a CPU host; every InferenceAmiVersion is a GPU or Inferentia2/Trainium AMI",
            "auto (no AMI version on CPU hosts)",
        )
    if requested in (None, AUTO):
        if _auto(runtime, inst) is not None:
            return None
        need = f"NVIDIA driver {runtime.min_driver} or later" if runtime and runtime.min_driver else "an AMI"
        return (
            f"no inference AMI version runs on {inst.family} with {need}, which {_runtime_text(runtime)} needs",
            "another instance type",
        )
    ami = host_ami(requested)
    if ami is None:
        return f"{requested} is not an InferenceAmiVersion", _allowed(runtime, inst)
    if not ami.runs_on(inst):
        where = ", ".join(ami.families)
        return (
            f"{requested} ({ami.accelerator} AMI) does not run on {inst.name}; it runs on {where} "
            f"({ami.families_source})",
            _allowed(runtime, inst),
        )
    if not _driver_ok(ami, runtime) and runtime is not None:
        return (
            f"{ami.describe()} cannot start {_runtime_text(runtime)}: CUDA {runtime.cuda_major}.x needs NVIDIA driver "
            f"{runtime.min_driver} or later ({runtime.driver_source}; forward compatibility is not relied on)",
            _allowed(runtime, inst),
        )
    return None


def _allowed(runtime: ImageRuntime | None, inst: InstanceType) -> str:
    able = [a.version for a in host_ami_versions().values() if a.runs_on(inst) and _driver_ok(a, runtime)]
    return "auto" + (f" or one of {', '.join(able)}" if able else "")


def decide_host_ami(
    *,
    requested: str | None,
    image_key: str | None,
    inst: InstanceType | None,
    p: ProblemCollector,
    key: str,
) -> HostAmiDecision:
    """The production variant's host AMI for the image ``image_key`` (``None``: a custom image) on ``inst``
    (``None``: serverless).

    ``requested`` is the user's ``host_ami`` (``None`` or ``auto``: chosen by ``host_ami_choice``). A version that
    cannot start the image, does not run on the host's family, or is set for a CPU host or a serverless endpoint is
    added to ``p`` under ``key``.
    """
    explicit = requested not in (None, AUTO)
    if inst is None:
        if explicit:
            p.add(key, f"{requested}: serverless endpoints have no host AMI", "auto (serverless takes no AMI version)")
        return HostAmiDecision(
            None, "serverless: SageMaker runs the container on CPU compute it manages; no AMI version applies", ""
        )
    problem = host_ami_problem(requested, image_key, inst)
    if problem is not None:
        p.add(key, problem[0], problem[1])
        return HostAmiDecision(requested if explicit else None, problem[0], _choice_source())
    if _kind(inst) == "cpu":
        return HostAmiDecision(
            None,
            f"{inst.name} is a CPU host: no InferenceAmiVersion (every version is a GPU or Inferentia2/Trainium AMI)",
            str(load_compatibility()["host_amis"]["source"]),
        )
    runtime = image_runtime(image_key)
    ami = host_ami(requested) if explicit and requested else _auto(runtime, inst)
    assert ami is not None  # host_ami_problem found one
    default = default_host_driver(inst)
    without = (
        f"without an AMI version {inst.family} hosts run {default} driver"
        if default
        else f"the driver of {inst.family} hosts without an AMI version is not documented"
    )
    if explicit:
        why = f"{ami.describe()}, given explicitly (host_ami); it runs {_runtime_text(runtime)}"
    elif runtime is not None and runtime.cuda:
        why = (
            f"{ami.describe()}: {_runtime_text(runtime)} needs NVIDIA driver {runtime.min_driver} or later "
            f"(CUDA {runtime.cuda_major}.x minor version compatibility); the newest such AMI within that range on "
            f"{inst.family}"
        )
    elif runtime is None and _kind(inst) == "gpu":
        why = (
            f"{ami.describe()}: {_runtime_text(runtime)}: the newest driver on {inst.family} (older CUDA builds run "
            "through backward compatibility); set host_ami for an image that needs another"
        )
    else:
        why = f"{ami.describe()}: the Neuron inference AMI, for {_runtime_text(runtime)}"
    data = load_compatibility()
    source = "; ".join(
        s
        for s in (
            data["host_amis"]["source"],
            ami.families_source,
            runtime.source if runtime else "",
            runtime.driver_source if runtime else "",
            _choice_source(),
        )
        if s
    )
    return HostAmiDecision(ami.version, f"{why}; {without}", source)
