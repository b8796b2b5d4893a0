"""Endpoint scenarios shared by the template and gate tests: the five of config/default.yaml plus one
per remaining host family (trainium, cpu realtime, gpu multi-model)."""

from __future__ import annotations

import json
from pathlib import Path

from aws_cdk import App, Stack
from aws_cdk import aws_kms as kms

from inference_constructs.hosting import (
    AsyncOptions,
    Capacity,
    DataCaptureOptions,
    DeploymentOptions,
    DeploymentStrategy,
    InferenceEndpoint,
    MultiModelEndpoint,
    RealtimeEndpoint,
    ServerlessEndpoint,
    VpcOptions,
)
from inference_constructs.spec import AcceleratorChoice, ModelSourceKind, ModelSpec, Serving

KEY_ARN = "arn:aws:kms:us-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab"
LLAMA_8B = ModelSpec(
    id="NousResearch/Meta-Llama-3.1-8B-Instruct",
    parameters_billion=8,
    max_context_tokens=8192,
    max_concurrent_sequences=16,
)
#: The Inferentia2 scenario, as in config/default.yaml: a model without Llama 3.x's scaled RoPE, which the LMI Neuron
#: engine lacks (containers/compatibility.json model_features).
MISTRAL_7B = ModelSpec(
    id="mistralai/Mistral-7B-Instruct-v0.3",
    parameters_billion=7.25,
    max_context_tokens=8192,
    max_concurrent_sequences=16,
)
_CDK_JSON = Path(__file__).resolve().parents[3] / "cdk.json"


def new_app(outdir: str | None = None) -> App:
    """An app with the project's feature flags (cdk.json context)."""
    context = json.loads(_CDK_JSON.read_text()).get("context", {}) if _CDK_JSON.exists() else {}
    return App(outdir=outdir, context=context)


def build(stack: Stack) -> dict[str, InferenceEndpoint]:
    """Every scenario endpoint in ``stack``."""
    key = kms.Key.from_key_arn(stack, "Key", KEY_ARN)
    return {
        # config/default.yaml: a GPU LLM
        "gpu_llm": RealtimeEndpoint(stack, "Chat", model=LLAMA_8B, kms_key=key),
        # config/default.yaml: an Inferentia2 LLM
        "inf2_llm": RealtimeEndpoint(
            stack,
            "ChatInf2",
            model=MISTRAL_7B,
            serving=Serving.NEURON,
            accelerator=AcceleratorChoice.INFERENTIA,
            kms_key=key,
            deployment=DeploymentOptions(strategy=DeploymentStrategy.CANARY),
        ),
        # config/default.yaml: an async endpoint (scales to zero)
        "async": RealtimeEndpoint(
            stack,
            "Batch",
            model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/llama/", parameters_billion=8),
            async_inference=AsyncOptions(),
            capacity=Capacity(0, 2),
            kms_key=key,
            deployment=DeploymentOptions(strategy=DeploymentStrategy.LINEAR),
        ),
        # config/default.yaml: a serverless CPU model
        "serverless": ServerlessEndpoint(
            stack,
            "Tabular",
            model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz"),
            deployment=DeploymentOptions(strategy=DeploymentStrategy.ALL_AT_ONCE),
        ),
        # config/default.yaml: a CPU multi-model endpoint
        "cpu_mme": MultiModelEndpoint(
            stack, "Tenants", model_data_prefix="s3://my-models/tenants/", data_capture=DataCaptureOptions(20)
        ),
        # other host families
        "trn_llm": RealtimeEndpoint(
            stack, "ChatTrn", model=LLAMA_8B, serving=Serving.TGI, accelerator=AcceleratorChoice.TRAINIUM
        ),
        "cpu_realtime": RealtimeEndpoint(
            stack,
            "Classic",
            model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/resnet/model.tar.gz"),
            serving=Serving.PYTORCH,
            instance_type="ml.m5.xlarge",
            kms_key=key,
            vpc=VpcOptions(("subnet-0123456789abcdef0",), ("sg-0123456789abcdef0",)),
            network_isolation=True,
            deployment=DeploymentOptions(rollback_on_alarms=False),
        ),
        "gpu_mme": MultiModelEndpoint(
            stack, "Triton", model_data_prefix="s3://my-models/triton/", serving=Serving.TRITON
        ),
    }
