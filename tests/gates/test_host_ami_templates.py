"""The default platform's templates carry the plan's InferenceAmiVersion on every GPU and Neuron production variant
(its CUDA 13 LMI image does not start on the default driver-470/535 host image) and none on CPU or serverless."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.gates.synth import ROOT, Assembly, synth_config

GPU_4_1 = "al2023-ami-sagemaker-inference-gpu-4-1"
NEURON_2 = "al2-ami-sagemaker-inference-neuron-2"


@pytest.fixture(scope="module")
def default_platform(tmp_path_factory: pytest.TempPathFactory) -> Assembly:
    return synth_config(ROOT / "config" / "default.yaml", Path(tmp_path_factory.mktemp("default-ami")))


def test_default_platform_variants_carry_the_planned_ami(default_platform: Assembly) -> None:
    # GIVEN the default config synthesized / WHEN its endpoint configs are read
    variants = [
        variant
        for template in default_platform.templates.values()
        for resource in template.get("Resources", {}).values()
        if resource["Type"] == "AWS::SageMaker::EndpointConfig"
        for variant in resource["Properties"]["ProductionVariants"]
    ]
    found = Counter((v.get("InstanceType"), v.get("InferenceAmiVersion")) for v in variants)
    # THEN the two CUDA 13 LMI endpoints run the driver-580 AMI, the Inferentia2 one the Neuron AMI, CPU and
    # serverless none
    assert found == Counter(
        {("ml.g6e.xlarge", GPU_4_1): 2, ("ml.inf2.8xlarge", NEURON_2): 1, ("ml.c5.large", None): 1, (None, None): 1}
    )
    # AND the plan beside the templates states the same versions with their reasons
    planned = {e["name"]: e["hosting"]["inference_ami_version"] for e in default_platform.plan["endpoints"]}
    assert planned == {"chat": GPU_4_1, "summarize": NEURON_2, "batch-extract": GPU_4_1, "churn": None,
                       "tenant-risk": None}  # fmt: skip
