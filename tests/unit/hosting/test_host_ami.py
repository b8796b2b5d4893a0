"""The host AMI and the image as one compatibility fact: the plan's InferenceAmiVersion per image family, the
refusals of an explicit host_ami, the data against botocore's and CloudFormation's enum, and the templates."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import botocore
import cfnlint
import pytest
from aws_cdk import Stack
from aws_cdk.assertions import Match, Template

from inference_constructs.catalog import load_catalog
from inference_constructs.config import parse_config
from inference_constructs.containers import load_snapshot
from inference_constructs.containers.compatibility import host_ami_versions, image_runtime, load_compatibility
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import Capacity, RealtimeEndpoint, ServerlessEndpoint
from inference_constructs.hosting.decisions import plan_endpoint
from inference_constructs.hosting.request import EndpointRequest
from inference_constructs.plan import plan_platform
from inference_constructs.spec import AcceleratorChoice, EndpointKind, ModelSourceKind, ModelSpec, Serving
from tests.unit.hosting.scenarios import new_app

GPU_4_1 = "al2023-ami-sagemaker-inference-gpu-4-1"
GPU_3_1 = "al2-ami-sagemaker-inference-gpu-3-1"
GPU_2 = "al2-ami-sagemaker-inference-gpu-2"
NEURON_2 = "al2-ami-sagemaker-inference-neuron-2"
LLAMA_8B = ModelSpec(id="NousResearch/Meta-Llama-3.1-8B-Instruct", max_context_tokens=4096, max_concurrent_sequences=4)
MISTRAL_7B = ModelSpec(id="mistralai/Mistral-7B-Instruct-v0.3", max_context_tokens=4096, max_concurrent_sequences=4)
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")


def _plan(**kw: Any) -> Any:
    kw.setdefault("kind", EndpointKind.REALTIME)
    return plan_endpoint(EndpointRequest(**kw), path="endpoints[0]")


# ------------------------------------------------------------------------------------- one test per image family


@pytest.mark.parametrize(
    ("serving", "instance_type", "ami", "cuda", "default"),
    [
        (Serving.LMI, "ml.g5.2xlarge", GPU_4_1, "13.0", "NVIDIA 470"),  # djl-inference ...-cu130 on g5 (470 default)
        (Serving.VLLM, "ml.g6e.xlarge", GPU_4_1, "13.0", "not documented"),  # vllm ...-cu130
        (Serving.TGI, "ml.g6.2xlarge", GPU_3_1, "12.4", "NVIDIA 535"),  # TGI ...-cu124: CUDA 12, driver 550 (not 580)
    ],
)
def test_gpu_image_gets_the_ami_whose_driver_runs_its_cuda_major(serving, instance_type, ami, cuda, default) -> None:
    # GIVEN an LLM image on a GPU host / WHEN planned
    plan = _plan(model=LLAMA_8B, serving=serving, instance_type=instance_type)
    # THEN the variant's AMI is the newest within the image's CUDA major (12.x: 525..579, 13.x: 580+), with the why
    # and the driver the host would run without it
    assert plan.inference_ami_version == ami
    assert image_runtime(plan.image.key).cuda == cuda
    assert f"CUDA {cuda}" in plan.host_ami.reason and default in plan.host_ami.reason
    assert "NVIDIA CUDA Compatibility" in plan.host_ami.source
    assert any(r.startswith(f"host AMI {ami}") for r in plan.reasons)


@pytest.mark.parametrize(
    ("model", "serving", "accelerator"),
    [(MISTRAL_7B, Serving.NEURON, AcceleratorChoice.INFERENTIA), (LLAMA_8B, Serving.TGI, AcceleratorChoice.TRAINIUM)],
)
def test_neuron_image_gets_the_neuron_ami(model, serving, accelerator) -> None:
    # GIVEN the LMI Neuron image on inf2 and TGI on optimum-neuron on trn1 / WHEN planned
    plan = _plan(model=model, serving=serving, accelerator=accelerator)
    # THEN the variant runs the Neuron AMI (without one, inf2 hosts run Neuron driver 2.10)
    assert plan.host.accelerator.is_neuron and plan.inference_ami_version == NEURON_2
    assert "Neuron driver 2.19" in plan.host_ami.reason


def test_cpu_host_and_serverless_get_no_ami() -> None:
    # GIVEN a CPU real-time endpoint and a serverless one / WHEN planned / THEN no InferenceAmiVersion
    cpu = _plan(model=TABULAR, serving=Serving.XGBOOST, instance_type="ml.m5.xlarge")
    serverless = _plan(kind=EndpointKind.SERVERLESS, model=TABULAR, serving=Serving.SKLEARN)
    assert (cpu.inference_ami_version, serverless.inference_ami_version) == (None, None)
    assert "CPU host" in cpu.host_ami.reason


def test_custom_gpu_image_gets_the_newest_driver_and_may_pin_another() -> None:
    # GIVEN a custom image (CUDA unknown) on g5 / WHEN planned / THEN the newest driver; a pinned AMI is kept
    auto = _plan(model=TABULAR, serving=Serving.CUSTOM, image="1.dkr.ecr.us-east-1.amazonaws.com/x:1",
                 instance_type="ml.g5.xlarge")  # fmt: skip
    pinned = _plan(model=TABULAR, serving=Serving.CUSTOM, image="1.dkr.ecr.us-east-1.amazonaws.com/x:1",
                   instance_type="ml.g5.xlarge", host_ami=GPU_3_1)  # fmt: skip
    assert (auto.inference_ami_version, pinned.inference_ami_version) == (GPU_4_1, GPU_3_1)


# ------------------------------------------------------------------------------------------------- refusals


def test_fails_explicit_ami_whose_driver_cannot_start_a_cuda_13_image() -> None:
    # GIVEN the CUDA 13 LMI image with host_ami gpu-3-1 (driver 550) / WHEN planned
    # THEN refused at the key, naming the driver, the CUDA major's minimum and what is allowed
    with pytest.raises(InferenceConfigError) as err:
        _plan(model=LLAMA_8B, serving=Serving.LMI, instance_type="ml.g6e.xlarge", host_ami=GPU_3_1)
    (problem,) = err.value.problems
    assert problem.startswith(f"endpoints[0].host_ami: {GPU_3_1} (NVIDIA driver 550, CUDA 12.4) cannot start")
    assert "CUDA 13.x needs NVIDIA driver 580 or later" in problem and problem.endswith(f"auto or one of {GPU_4_1}")


@pytest.mark.parametrize(
    ("serving", "instance_type", "ami", "allowed"),
    [
        (Serving.TGI, "ml.g6e.xlarge", GPU_2, f"auto or one of {GPU_3_1}, {GPU_4_1}"),  # gpu-2 lists no g6e
        (Serving.LMI, "ml.g6e.xlarge", NEURON_2, f"auto or one of {GPU_4_1}"),  # a Neuron AMI on a GPU host
        (Serving.NEURON, "ml.inf2.8xlarge", GPU_4_1, f"auto or one of {NEURON_2}"),  # a GPU AMI on inf2
    ],
)
def test_fails_explicit_ami_the_instance_type_does_not_run(serving, instance_type, ami, allowed) -> None:
    # GIVEN an AMI version that does not run on the host / WHEN planned / THEN refused, listing the AMIs that do
    with pytest.raises(InferenceConfigError) as err:
        _plan(model=MISTRAL_7B, serving=serving, instance_type=instance_type, host_ami=ami)
    (problem,) = err.value.problems
    assert problem.startswith(f"endpoints[0].host_ami: {ami} (") and f"does not run on {instance_type}" in problem
    assert problem.endswith(allowed)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"model": TABULAR, "serving": Serving.XGBOOST, "instance_type": "ml.m5.xlarge", "host_ami": GPU_4_1},
         r"endpoints\[0\]\.host_ami: ml\.m5\.xlarge is a CPU host.*; auto \(no AMI version on CPU hosts\)"),
        ({"kind": EndpointKind.SERVERLESS, "model": TABULAR, "serving": Serving.SKLEARN, "host_ami": GPU_4_1},
         r"endpoints\[0\]\.host_ami: .*serverless endpoints have no host AMI"),
        ({"model": LLAMA_8B, "serving": Serving.LMI, "instance_type": "ml.g5.2xlarge", "host_ami": "al2-ami-gpu-9"},
         rf"endpoints\[0\]\.host_ami: al2-ami-gpu-9 is not an InferenceAmiVersion; auto or one of {GPU_4_1}"),
    ],
)  # fmt: skip
def test_fails_explicit_ami_where_none_applies_or_unknown(kw, message) -> None:
    # GIVEN a host_ami on a CPU host, on serverless, or not a version / WHEN planned / THEN refused at the key
    with pytest.raises(InferenceConfigError, match=message):
        _plan(**kw)


def test_auto_host_respects_the_given_ami() -> None:
    # GIVEN TGI (CUDA 12) with host_ami gpu-2 and no instance type / WHEN planned
    plan = _plan(model=LLAMA_8B, serving=Serving.TGI, accelerator=AcceleratorChoice.GPU, host_ami=GPU_2)
    # THEN the chosen host is a family gpu-2 runs on (not g6e, which the cheapest choice would be otherwise)
    assert plan.host.instance.family in host_ami_versions()[GPU_2].families
    assert plan.inference_ami_version == GPU_2


# --------------------------------------------------------------------------------------------------- the data


def _botocore_enum() -> list[str]:
    path = Path(botocore.__file__).parent / "data" / "sagemaker" / "2017-07-24" / "service-2.json.gz"
    shapes = json.loads(gzip.decompress(path.read_bytes()))["shapes"]
    return sorted(shapes["ProductionVariantInferenceAmiVersion"]["enum"])


def _cloudformation_enum() -> list[str]:
    for path in (Path(cfnlint.__file__).parent / "data" / "schemas" / "resources").glob("*.json"):
        text = path.read_text()
        if '"AWS::SageMaker::EndpointConfig"' in text:
            doc = json.loads(text)
            return sorted(doc["definitions"]["ProductionVariant"]["properties"]["InferenceAmiVersion"]["enum"])
    raise AssertionError("no AWS::SageMaker::EndpointConfig schema")


def test_the_ami_table_is_exactly_the_api_enum() -> None:
    # GIVEN botocore's ProductionVariantInferenceAmiVersion and CloudFormation's InferenceAmiVersion enum
    # THEN the data describes every value and no other (a new version must be added with its driver and families)
    assert sorted(host_ami_versions()) == _botocore_enum() == _cloudformation_enum()


def test_every_pinned_accelerator_image_names_its_runtime() -> None:
    # GIVEN images.json / THEN every GPU image has a CUDA version (with its driver minimum), every Neuron image its SDK
    for key in load_snapshot().images:
        if key.endswith("-gpu"):
            runtime = image_runtime(key)
            assert runtime is not None and runtime.cuda and runtime.min_driver in (525, 580), key
        elif key.endswith("-neuron"):
            runtime = image_runtime(key)
            assert runtime is not None and runtime.neuron_sdk, key


def test_every_catalogued_accelerator_family_has_an_ami_or_is_listed_without_one() -> None:
    # GIVEN the instance catalog / THEN each GPU and Neuron family has an AMI version that runs on it, except the
    # families the data lists as having none (Blackwell families no source names an AMI for)
    families = {i.family for i in load_catalog().instances if i.devices}
    covered = {f for ami in host_ami_versions().values() for f in ami.families}
    without = set(load_compatibility()["host_amis"]["families_without_ami"]["families"])
    assert families - covered == without


# ---------------------------------------------------------------------------------- plan document and templates


def test_plan_document_and_table_show_the_ami_and_why() -> None:
    text = """
name: tt
endpoints:
  - name: chat
    model: {id: NousResearch/Meta-Llama-3.1-8B-Instruct}
    serving: lmi
    accelerator: gpu
  - name: pinned
    model: {id: NousResearch/Meta-Llama-3.1-8B-Instruct}
    serving: tgi
    instance_type: ml.g5.2xlarge
    host_ami: al2-ami-sagemaker-inference-gpu-2
"""
    plan = plan_platform(parse_config(text))
    chat, pinned = plan.to_json()["endpoints"]
    assert chat["hosting"]["inference_ami_version"] == GPU_4_1
    assert chat["hosting"]["inference_ami"]["reason"] and chat["hosting"]["inference_ami"]["source"]
    assert pinned["hosting"]["inference_ami_version"] == GPU_2
    assert "given explicitly (host_ami)" in pinned["hosting"]["inference_ami"]["reason"]
    assert f"host AMI chat: {GPU_4_1}" in plan.table()


def test_fails_plan_of_an_explicit_ami_at_its_config_key() -> None:
    text = """
name: tt
endpoints:
  - name: chat
    model: {id: NousResearch/Meta-Llama-3.1-8B-Instruct}
    serving: vllm
    instance_type: ml.g5.2xlarge
    host_ami: al2-ami-sagemaker-inference-gpu-2-1
"""
    with pytest.raises(InferenceConfigError, match=r"endpoints\[0\]\.host_ami: al2-ami-sagemaker-inference-gpu-2-1"):
        plan_platform(parse_config(text))


def _variant(template: Template) -> dict[str, Any]:
    (config,) = template.find_resources("AWS::SageMaker::EndpointConfig").values()
    variant: dict[str, Any] = config["Properties"]["ProductionVariants"][0]
    return variant


def test_construct_api_sets_the_ami_on_instance_and_inference_component_variants() -> None:
    # GIVEN the Python API: a GPU endpoint, one that scales to zero (inference component), a serverless one
    app = new_app()
    stacks = [Stack(app, name) for name in ("Gpu", "Zero", "Sls")]
    RealtimeEndpoint(stacks[0], "Chat", model=LLAMA_8B, accelerator=AcceleratorChoice.GPU)
    zero_ep = RealtimeEndpoint(
        stacks[1], "Chat", model=LLAMA_8B, accelerator=AcceleratorChoice.GPU, capacity=Capacity(0, 2)
    )
    zero_ep.auto_scale_copies().scale_on_concurrency(per_copy=4)
    ServerlessEndpoint(stacks[2], "Churn", model=TABULAR)
    gpu, zero, serverless = (_variant(Template.from_stack(s)) for s in stacks)
    # THEN the instance variants carry the plan's AMI (CUDA 13 LMI image: gpu-4-1); serverless has none
    assert gpu["InferenceAmiVersion"] == GPU_4_1
    assert zero["InferenceAmiVersion"] == GPU_4_1 and "ManagedInstanceScaling" in zero
    assert "InferenceAmiVersion" not in serverless
    Template.from_stack(stacks[0]).has_resource_properties(
        "AWS::SageMaker::EndpointConfig",
        {"ProductionVariants": [Match.object_like({"InferenceAmiVersion": GPU_4_1})]},
    )
