"""The committed image snapshot is exactly what the generator makes from the installed SageMaker SDK tables."""

from __future__ import annotations

import json

import pytest

from inference_constructs.containers import ImageVariant, load_snapshot, select_image
from inference_constructs.containers.generate import PINS, SNAPSHOT_PATH, generate, render
from inference_constructs.errors import InferenceConfigError
from inference_constructs.spec import Accelerator, Serving


def test_committed_snapshot_equals_generated_from_installed_sdk() -> None:
    # GIVEN the installed sagemaker-core (a dev dependency)
    pytest.importorskip("sagemaker.core")
    # WHEN the generator runs
    generated = render(generate())
    # THEN it equals the committed file, so an sdk upgrade shows up here, never as a silent template change
    assert SNAPSHOT_PATH.read_text() == generated, "run python -m inference_constructs.containers.generate"


def test_snapshot_pins_every_preset_once() -> None:
    # GIVEN the committed snapshot
    doc = json.loads(SNAPSHOT_PATH.read_text())
    # THEN it holds exactly the pinned keys, each with its pinned version
    assert {k: (v["framework"], v["version"]) for k, v in doc["images"].items()} == {
        k: (f, v) for k, (f, v, _) in PINS.items()
    }


@pytest.mark.parametrize(
    ("region", "domain"),
    [("us-east-1", "amazonaws.com"), ("cn-north-1", "amazonaws.com.cn"), ("us-gov-west-1", "amazonaws.com")],
)
def test_snapshot_records_partition_domains(region: str, domain: str) -> None:
    # GIVEN the snapshot WHEN a region's domain is read THEN the china partition uses amazonaws.com.cn
    assert load_snapshot().domains[region] == domain


def test_lmi_gpu_uri_in_us_east_1_is_the_dlc_registry() -> None:
    # GIVEN the pinned lmi gpu image WHEN rendered for us-east-1 THEN it is the documented djl-inference uri
    assert load_snapshot().uri("lmi-gpu", "us-east-1") == (
        "763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.38.0-lmi29.0.0-cu130"
    )


@pytest.mark.parametrize(
    ("serving", "accelerator", "architecture", "key"),
    [
        (Serving.LMI, Accelerator.GPU, "x86_64", "lmi-gpu"),
        (Serving.LMI, Accelerator.INFERENTIA, "x86_64", "lmi-neuron"),
        (Serving.NEURON, Accelerator.TRAINIUM, "x86_64", "lmi-neuron"),
        (Serving.TGI, Accelerator.GPU, "x86_64", "tgi-gpu"),
        (Serving.TGI, Accelerator.INFERENTIA, "x86_64", "tgi-neuron"),
        (Serving.VLLM, Accelerator.GPU, "x86_64", "vllm-gpu"),
        (Serving.TRITON, Accelerator.GPU, "x86_64", "triton-gpu"),
        (Serving.TRITON, Accelerator.CPU, "x86_64", "triton-cpu"),
        (Serving.SKLEARN, Accelerator.CPU, "x86_64", "sklearn-cpu"),
        (Serving.SKLEARN, Accelerator.CPU, "arm64", "sklearn-cpu-arm64"),
        (Serving.XGBOOST, Accelerator.CPU, "x86_64", "xgboost-cpu"),
        (Serving.PYTORCH, Accelerator.GPU, "x86_64", "pytorch-gpu"),
        (Serving.PYTORCH, Accelerator.CPU, "arm64", "pytorch-cpu-arm64"),
    ],
)
def test_select_image_follows_the_host(serving: Serving, accelerator: Accelerator, architecture: str, key: str) -> None:
    # GIVEN a serving preset and a host WHEN the image is selected THEN the host's variant is used
    image = select_image(serving, accelerator, architecture=architecture)
    assert image.key == key
    assert image.is_neuron == (ImageVariant.for_host(accelerator, architecture) is ImageVariant.NEURON)


@pytest.mark.parametrize(
    ("serving", "accelerator", "message"),
    [
        (Serving.VLLM, Accelerator.INFERENTIA, "vllm has no neuron image"),
        (Serving.SKLEARN, Accelerator.TRAINIUM, "sklearn has no neuron image"),
        (Serving.NEURON, Accelerator.GPU, "neuron has no gpu image.*use an inferentia2 or trainium instance type"),
        (Serving.CUSTOM, Accelerator.GPU, "custom has no preset image; give image"),
    ],
)
def test_fails_select_image_without_a_build_for_the_host(
    serving: Serving, accelerator: Accelerator, message: str
) -> None:
    # GIVEN a preset without an image for the host WHEN selected THEN one clear error says what to change
    with pytest.raises(InferenceConfigError, match=message):
        select_image(serving, accelerator)
