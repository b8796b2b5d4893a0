"""Network isolation by default for models that need no internet (pure decision; no aws_cdk).

With ``EnableNetworkIsolation`` the model container has no network access: SageMaker still downloads the model
artifacts from S3 before the container starts and writes async results and captured data itself, so a container
whose weights come from S3 needs no internet at all. Isolation is therefore on by default exactly when nothing the
library knows of needs the network (SageMaker developer guide, "Run training and inference containers in
internet-free mode"; ``CreateModel`` ``EnableNetworkIsolation``). An explicit ``network_isolation`` in the config
always wins; the plan records the choice and its reason for every endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

from inference_constructs.spec import EndpointKind, ModelSourceKind, Serving


@dataclass(frozen=True)
class IsolationDecision:
    """Whether the model container runs without network access, and why."""

    enabled: bool
    reason: str

    def to_json(self) -> dict[str, object]:
        """The ``network_isolation`` entry of an endpoint in the plan document."""
        return {"enabled": self.enabled, "reason": self.reason}


def decide_isolation(
    *, kind: EndpointKind, source: ModelSourceKind, serving: Serving, configured: bool | None, staged: bool = False
) -> IsolationDecision:
    """Network isolation for one endpoint: ``configured`` when the config sets it, otherwise on unless the
    endpoint type cannot use it or the container needs the network. ``staged``: a deploy-time job copies the hub
    model into S3, so the container downloads nothing."""
    if configured is not None:
        return IsolationDecision(configured, f"network_isolation: {str(configured).lower()} in the config")
    if staged and serving is not Serving.CUSTOM and kind is not EndpointKind.SERVERLESS:
        return IsolationDecision(
            True,
            "on: the gated model's weights are staged into S3 at deploy time (model.hf_token), which SageMaker "
            "copies to /opt/ml/model before the container starts, so the container needs no network access",
        )
    if kind is EndpointKind.SERVERLESS:
        return IsolationDecision(False, "off: serverless endpoints do not support network isolation")
    if serving is Serving.CUSTOM:
        return IsolationDecision(
            False,
            "off: a custom image may need the network, which the library cannot know; set network_isolation: true "
            "when it does not",
        )
    if kind is not EndpointKind.MULTI_MODEL and source is ModelSourceKind.HUGGINGFACE:
        return IsolationDecision(
            False,
            "off: the container downloads the model from the Hugging Face Hub at start; put the weights in S3 "
            "(model.source s3) to run without network access",
        )
    return IsolationDecision(
        True,
        "on: the model comes from S3, which SageMaker downloads before the container starts, so the container "
        "needs no network access",
    )
