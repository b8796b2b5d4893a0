"""Network isolation by default where the model needs no internet; the plan records the choice and why."""

from __future__ import annotations

from typing import Any

import pytest

from inference_constructs.config import validate_config
from inference_constructs.isolation import decide_isolation
from inference_constructs.plan import plan_platform
from inference_constructs.spec import EndpointKind, ModelSourceKind, Serving

S3_MODEL = {"source": "s3", "s3_uri": "s3://acme-models/m.tar.gz"}


@pytest.mark.parametrize(
    ("endpoint", "enabled", "reason_starts"),
    [
        ({"type": "realtime", "serving": "sklearn", "model": S3_MODEL}, True, "on: the model comes from S3"),
        (
            {
                "type": "multi-model",
                "serving": "sklearn",
                "model": {"source": "s3"},
                "multi_model": {"model_data_prefix": "s3://acme-m/t/"},
            },
            True,
            "on: the model comes from S3",
        ),
        (
            {"type": "realtime", "serving": "vllm", "model": {"id": "org/m", "parameters_billion": 1}},
            False,
            "off: the container downloads the model from the Hugging Face Hub",
        ),
        ({"type": "serverless", "serving": "sklearn", "model": S3_MODEL}, False, "off: serverless endpoints"),
        (
            {"type": "realtime", "serving": "sklearn", "model": S3_MODEL, "network_isolation": False},
            False,
            "network_isolation: false in the config",
        ),
    ],
    ids=["s3-model", "multi-model", "hugging-face", "serverless", "explicit-off"],
)
def test_plan_turns_isolation_on_only_where_no_internet_is_needed(
    endpoint: dict[str, Any], enabled: bool, reason_starts: str
) -> None:
    # GIVEN one endpoint WHEN planned
    plan = plan_platform(validate_config({"name": "acme", "endpoints": [{"name": "e", **endpoint}]}))
    (entry,) = plan.to_json()["endpoints"]
    # THEN the plan says whether the container is isolated and why, and the hosting request carries it
    assert entry["network_isolation"]["enabled"] is enabled
    assert entry["network_isolation"]["reason"].startswith(reason_starts)
    assert plan.endpoints[0].hosting.network_isolation is enabled


def test_a_custom_image_is_not_isolated_unless_the_config_says_so() -> None:
    decision = decide_isolation(
        kind=EndpointKind.REALTIME, source=ModelSourceKind.S3, serving=Serving.CUSTOM, configured=None
    )
    assert decision.enabled is False
    assert "set network_isolation: true" in decision.reason
