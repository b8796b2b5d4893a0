"""Updates keep the instance count Application Auto Scaling set: ``RetainAllVariantProperties`` where scaling owns the
variant's instance count, as a plan field the construct translates."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from inference_constructs.config import parse_config
from inference_constructs.hosting import RealtimeEndpoint
from inference_constructs.plan import plan_platform
from inference_constructs.spec import AcceleratorChoice, ModelSpec

CHAT = "{id: org/chat-8b, parameters_billion: 8, max_context_tokens: 8192, max_concurrent_sequences: 16}"


def _entry(endpoint_yaml: str) -> dict[str, Any]:
    doc = plan_platform(parse_config(f"name: acme\nendpoints:\n{endpoint_yaml}")).to_json()
    entry: dict[str, Any] = doc["endpoints"][0]
    return entry


@pytest.mark.parametrize(
    ("endpoint_yaml", "retained"),
    [
        # scaling owns the variant's instance count (min < max): retained
        (f"  - {{name: chat, serving: lmi, accelerator: gpu, model: {CHAT}, capacity: {{min: 2, max: 5}}}}\n", True),
        # fixed capacity, no policies: the config's count is the truth, an update applies it
        (f"  - {{name: chat, serving: lmi, accelerator: gpu, model: {CHAT}, capacity: {{min: 2, max: 2}}}}\n", False),
        # real-time minimum 0: the inference component's copies scale, not the variant's instances
        (f"  - {{name: chat, serving: lmi, accelerator: gpu, model: {CHAT}, capacity: {{min: 0, max: 2}}}}\n", False),
        # serverless: no instance count
        (
            "  - {name: churn, type: serverless, serving: sklearn, "
            'model: {source: s3, s3_uri: "s3://acme-models/churn.tar.gz"}, serverless: {memory_mb: 3072}}\n',
            False,
        ),
    ],
    ids=["scaled-variant", "fixed-capacity", "inference-component", "serverless"],
)
def test_plan_retains_variant_properties_only_where_scaling_owns_the_count(endpoint_yaml: str, retained: bool) -> None:
    # GIVEN one endpoint WHEN planned THEN the deployment section says whether updates keep the scaled count
    assert _entry(endpoint_yaml)["deployment"]["retain_all_variant_properties"] is retained


@pytest.mark.parametrize("scaled", [True, False])
def test_endpoint_retains_variant_properties_once_auto_scaled(scaled: bool) -> None:
    # GIVEN a real-time endpoint built from Python, auto scaled or not
    stack = Stack(App(), "Test")
    chat = RealtimeEndpoint(
        stack,
        "Chat",
        model=ModelSpec(id="org/chat-8b", parameters_billion=8, max_context_tokens=8192, max_concurrent_sequences=16),
        accelerator=AcceleratorChoice.GPU,
    )
    if scaled:
        chat.auto_scale(min_capacity=1, max_capacity=4).scale_on_concurrency(per_instance=8)
    # WHEN synthesized
    endpoint = next(iter(Template.from_stack(stack).find_resources("AWS::SageMaker::Endpoint").values()))
    # THEN RetainAllVariantProperties is true only when Application Auto Scaling owns the instance count
    assert endpoint["Properties"].get("RetainAllVariantProperties") is (True if scaled else None)
