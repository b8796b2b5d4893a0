"""Regenerate the packaged image snapshot ``images.json`` from the installed SageMaker SDK tables.

Run ``python -m inference_constructs.containers.generate`` (needs ``sagemaker-core``, a dev-only
dependency) after upgrading the SDK or changing a pin below, review the diff, and commit it. The
library itself reads only the JSON file at synth time, so an SDK upgrade never changes a template
silently: ``tests/unit/containers/test_snapshot.py`` fails until the snapshot is regenerated.

Each image key (``<preset>-<variant>``) pins one framework version of the SDK's
``image_uri_config`` tables; the script asks ``sagemaker.core.image_uris.retrieve`` for the URI in
every region the tables know, and records the repository, tag, and each region's registry account
and ECR domain (``amazonaws.com``, or ``amazonaws.com.cn`` in the China partition).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

SNAPSHOT_PATH = Path(__file__).with_name("images.json")

PINS: Mapping[str, tuple[str, str, str | None]] = {
    # key: (SDK framework, pinned version, instance type used to pick the processor variant)
    "lmi-gpu": ("djl-lmi", "0.38.0", "ml.g5.xlarge"),
    "lmi-neuron": ("djl-neuronx", "0.29.0", "ml.inf2.xlarge"),
    "tgi-gpu": ("huggingface-llm", "3.3.6", "ml.g5.xlarge"),
    "tgi-neuron": ("huggingface-llm-neuronx", "0.3.0", "ml.inf2.xlarge"),
    "vllm-gpu": ("vllm", "0.30.0", "ml.g5.xlarge"),
    "triton-gpu": ("sagemaker-tritonserver", "25.09", "ml.g5.xlarge"),
    "triton-cpu": ("sagemaker-tritonserver", "25.09", "ml.m5.xlarge"),
    "sklearn-cpu": ("sklearn", "1.4-2-py312", "ml.m5.xlarge"),
    "sklearn-cpu-arm64": ("sklearn", "1.0-1", "ml.c7g.xlarge"),
    "xgboost-cpu": ("xgboost", "3.0-5", "ml.m5.xlarge"),
    "xgboost-gpu": ("xgboost", "3.0-5", "ml.g5.xlarge"),
    "xgboost-cpu-arm64": ("xgboost", "1.5-1", "ml.c7g.xlarge"),
    "pytorch-cpu": ("pytorch", "2.6.0", "ml.m5.xlarge"),
    "pytorch-gpu": ("pytorch", "2.6.0", "ml.g5.xlarge"),
    "pytorch-cpu-arm64": ("pytorch", "2.6.0", "ml.c7g.xlarge"),
}
"""The library's pinned default image per preset and host variant. ``neuron`` serving uses ``lmi-neuron``.
The Neuron images are resolved with an Inferentia2 probe; the same NeuronX SDK images serve Trainium."""

_URI = re.compile(
    r"^(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.(?P<domain>[a-z0-9.-]+)/(?P<repo>[^:]+):(?P<tag>.+)$"
)


def _walk_regions(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "registries" and isinstance(value, dict):
                yield from value
            else:
                yield from _walk_regions(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk_regions(item)


def _all_regions(config_dir: Path) -> list[str]:
    regions: set[str] = set()
    for path in config_dir.glob("*.json"):
        regions.update(_walk_regions(json.loads(path.read_text())))
    return sorted(regions)


def generate() -> dict[str, Any]:
    """Build the snapshot document from the installed ``sagemaker-core`` tables."""
    from sagemaker.core import common_utils, fw_utils, image_uris  # type: ignore[import-untyped]  # dev-only dependency

    # The SDK re-reads botocore's endpoint table on every call (about 0.2 s); one resolver serves all calls.
    resolver = common_utils._botocore_resolver()
    original = common_utils._botocore_resolver
    common_utils._botocore_resolver = lambda: resolver
    families = frozenset(fw_utils.GRAVITON_ALLOWED_TARGET_INSTANCE_FAMILY)
    graviton = (families, frozenset(fw_utils.GRAVITON_ALLOWED_FRAMEWORKS))
    try:
        return _generate(image_uris, graviton)
    finally:
        common_utils._botocore_resolver = original


def _architecture(framework: str, probe: str | None, graviton: tuple[frozenset[str], frozenset[str]]) -> dict[str, Any]:
    """The CPU architecture the pinned build runs on, with where the SDK says so. The SDK resolves an image in its
    ``inference_graviton`` scope (the arm64 builds) exactly when the framework has Graviton builds and the instance
    family is one of its Graviton families; every other scope holds x86_64 builds."""
    families, frameworks = graviton
    version = metadata.version("sagemaker-core")
    family = probe.split(".")[1] if probe else ""
    if framework in frameworks and family in families:
        return {
            "architecture": "arm64",
            "architecture_source": (
                f"sagemaker-core {version} image_uri_config/{framework}.json 'inference_graviton' scope (the arm64 "
                f"builds), which image_uris.retrieve uses for fw_utils.GRAVITON_ALLOWED_TARGET_INSTANCE_FAMILY"
            ),
            "host_families": sorted(families),
        }
    return {
        "architecture": "x86_64",
        "architecture_source": (
            f"sagemaker-core {version} image_uri_config/{framework}.json 'inference' scope: x86_64 builds (the SDK "
            f"lists arm64 builds only in an 'inference_graviton' scope)"
        ),
    }


def _generate(image_uris: Any, graviton: tuple[frozenset[str], frozenset[str]]) -> dict[str, Any]:
    config_dir = Path(image_uris.__file__).with_name("image_uri_config")
    regions = _all_regions(config_dir)
    images: dict[str, Any] = {}
    domains: dict[str, str] = {}
    for key, (framework, version, probe) in sorted(PINS.items()):
        accounts: dict[str, str] = {}
        repo_tag: set[tuple[str, str]] = set()
        for region in regions:
            try:
                uri = image_uris.retrieve(
                    framework=framework, region=region, version=version, image_scope="inference", instance_type=probe
                )
            except ValueError:
                continue  # the image is not published in this region
            match = _URI.match(uri)
            if match is None or match["region"] != region:
                raise RuntimeError(f"unexpected image uri for {key} in {region}: {uri}")
            accounts[region] = match["account"]
            domains[region] = match["domain"]
            repo_tag.add((match["repo"], match["tag"]))
        if len(repo_tag) != 1:
            raise RuntimeError(f"{key}: expected one repository and tag across regions, got {sorted(repo_tag)}")
        repository, tag = repo_tag.pop()
        images[key] = {
            "framework": framework,
            "version": version,
            "repository": repository,
            "tag": tag,
            "accounts": dict(sorted(accounts.items())),
            **_architecture(framework, probe, graviton),
        }
    return {
        "generated_by": "python -m inference_constructs.containers.generate",
        "sagemaker_core_version": metadata.version("sagemaker-core"),
        "domains": dict(sorted(domains.items())),
        "images": images,
    }


def render(doc: Mapping[str, Any]) -> str:
    """The snapshot as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the snapshot; exit 1 when ``--check`` finds a difference."""
    parser = argparse.ArgumentParser(prog="python -m inference_constructs.containers.generate", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed snapshot is out of date")
    args = parser.parse_args(argv)
    text = render(generate())
    if args.check:
        current = SNAPSHOT_PATH.read_text() if SNAPSHOT_PATH.exists() else ""
        if current != text:
            print(f"{SNAPSHOT_PATH} is out of date; run python -m inference_constructs.containers.generate")
            return 1
        return 0
    SNAPSHOT_PATH.write_text(text)
    print(f"wrote {SNAPSHOT_PATH} ({len(PINS)} images)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
