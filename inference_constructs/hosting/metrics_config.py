"""The endpoint config's ``MetricsConfig``. Pure Python (no ``aws_cdk`` import).

Sources: the CloudFormation resource provider schema of ``AWS::SageMaker::EndpointConfig`` (cfn-lint 1.58.0):
``MetricsConfig`` with ``EnableDetailedObservability``, ``EnableEnhancedMetrics`` (booleans) and
``MetricPublishFrequencyInSeconds`` (10, 30, 60, 120, 180, 240, 300), listed in ``createOnlyProperties``. SageMaker
developer guide, "Getting started with detailed observability": "For endpoint configurations created after June 17,
2026, EnableDetailedObservability defaults to true"; "Amazon SageMaker AI enhanced metrics for inference endpoints":
enhanced metrics are described for "real-time endpoints", ``EnableEnhancedMetrics`` defaults to false and metrics are
published every 60 s by default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inference_constructs._plan_dict import plan_dict
from inference_constructs.errors import ProblemCollector
from inference_constructs.hosting.checks import key_path
from inference_constructs.hosting.request import EndpointRequest
from inference_constructs.spec import EndpointKind

__all__ = ["METRICS_KINDS", "METRIC_PUBLISH_FREQUENCIES", "MetricsConfigPlan", "check_metrics", "decide_metrics_config"]

METRIC_PUBLISH_FREQUENCIES = (10, 30, 60, 120, 180, 240, 300)
"""``MetricPublishFrequencyInSeconds`` enum (schema)."""
METRICS_KINDS = frozenset({EndpointKind.REALTIME})
"""Endpoint kinds the enhanced-metrics guide describes ("real-time endpoints"); no source names the others."""


@dataclass(frozen=True)
class MetricsConfigPlan:
    """The endpoint config's ``MetricsConfig`` (only the fields given are written)."""

    enable_detailed_observability: bool | None
    enable_enhanced_metrics: bool | None
    metric_publish_frequency_seconds: int | None

    @property
    def reason(self) -> str:
        """What it changes, and that it is create-only."""
        return (
            "MetricsConfig is create-only: adding or changing it creates a new endpoint config (a blue/green update "
            "of the endpoint); detailed observability and enhanced metrics publish additional CloudWatch metrics, "
            "billed by CloudWatch and not priced in this plan"
        )

    def to_dict(self) -> dict[str, Any]:
        """The plan's ``hosting.metrics_config`` block."""
        return plan_dict(self, reason=self.reason)


def check_metrics(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    """The metrics options: a kind a source documents them for, a publish frequency the schema allows."""
    m = req.metrics
    if m is None or not m.is_set:
        return
    key = key_path(path, "metrics")
    if req.kind not in METRICS_KINDS:
        p.add(
            key,
            f"no source documents MetricsConfig for {req.kind.value} endpoints",
            "use metrics on realtime endpoints only",
            code="conflict",
        )
    f = m.publish_frequency_seconds
    if f is not None and f not in METRIC_PUBLISH_FREQUENCIES:
        p.add(
            f"{key}.publish_frequency_seconds",
            f"{f} is not allowed",
            f"use one of {', '.join(map(str, METRIC_PUBLISH_FREQUENCIES))}",
            code="choice",
        )


def decide_metrics_config(req: EndpointRequest) -> MetricsConfigPlan | None:
    """The endpoint config's metrics config, or None when no field is given (nothing is written)."""
    m = req.metrics
    if m is None or not m.is_set:
        return None
    return MetricsConfigPlan(m.detailed_observability, m.enhanced_metrics, m.publish_frequency_seconds)
