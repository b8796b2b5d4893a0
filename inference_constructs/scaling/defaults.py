"""Scaling defaults and bounds (documented in ``docs/scaling.md``): cooldowns per policy, the wake-up cooldowns,
the default targets, the largest targets and capacities accepted, and the serverless defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ASYNC_WAKE_UP_COOLDOWN_SECONDS",
    "COOLDOWNS",
    "DEFAULT_BACKLOG_PER_INSTANCE",
    "DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION",
    "DEFAULT_SERVERLESS_MAX_CONCURRENCY",
    "DEFAULT_SERVERLESS_PROVISIONED_CONCURRENCY",
    "INFERENCE_COMPONENT_WAKE_UP_COOLDOWN_SECONDS",
    "MAX_BACKLOG_TARGET",
    "MAX_CAPACITY",
    "MAX_CONCURRENCY_TARGET",
    "MAX_INVOCATIONS_TARGET",
    "MAX_SERVERLESS_CONCURRENCY",
    "Cooldowns",
]


@dataclass(frozen=True)
class Cooldowns:
    """Scale-out and scale-in cooldowns, in seconds."""

    scale_out_seconds: int
    scale_in_seconds: int


COOLDOWNS: dict[str, Cooldowns] = {
    # ConcurrentRequestsPerModel arrives every 10 s: react fast; capacity already being added
    # counts towards the next decision during the scale-out cooldown, so a short one does not
    # overshoot.
    "concurrency": Cooldowns(scale_out_seconds=60, scale_in_seconds=600),
    # One-minute metrics: wait for two data points before adding more.
    "invocations": Cooldowns(scale_out_seconds=120, scale_in_seconds=600),
    "gpu_memory": Cooldowns(scale_out_seconds=120, scale_in_seconds=600),
    "backlog": Cooldowns(scale_out_seconds=120, scale_in_seconds=600),
    # Provisioned concurrency warms in seconds to minutes, not an instance start.
    "provisioned_concurrency": Cooldowns(scale_out_seconds=60, scale_in_seconds=300),
}
"""Default cooldowns per policy. Scale-in waits 10 minutes everywhere an instance is removed,
because an LLM instance takes 5–10 minutes to come back (instance start, image pull, weight
download and load), twice Application Auto Scaling's own 300 s default for SageMaker variants."""

ASYNC_WAKE_UP_COOLDOWN_SECONDS = 300
"""Cooldown of the async scale-from-zero step policy (SageMaker async auto scaling guide)."""

INFERENCE_COMPONENT_WAKE_UP_COOLDOWN_SECONDS = 60
"""Cooldown of the inference-component wake-up step policy (SageMaker scale-to-zero guide)."""

DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION = 0.7
"""Default target of ``SageMakerVariantProvisionedConcurrencyUtilization`` (a 0–1 ratio)."""

DEFAULT_BACKLOG_PER_INSTANCE = 5.0
"""Default async backlog per instance (the value in the SageMaker async auto scaling guide)."""

# Bounds written once: these checks (construct props and the plan) and the config schema's ranges use them.
MAX_CONCURRENCY_TARGET = 10_000.0
"""Largest ``scaling.concurrency_per_instance`` target accepted."""
MAX_INVOCATIONS_TARGET = 1_000_000.0
"""Largest ``scaling.invocations_per_instance_per_minute`` target accepted."""
MAX_BACKLOG_TARGET = 100_000.0
"""Largest ``scaling.backlog_per_instance`` target accepted."""
MAX_CAPACITY = 1000
"""Largest ``capacity.max`` (and scheduled ``min``/``max``) accepted."""
MAX_SERVERLESS_CONCURRENCY = 200
"""Largest ``serverless.max_concurrency`` and ``provisioned_concurrency``: MaxConcurrency and ProvisionedConcurrency
are 1-200 (SageMaker API reference,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantServerlessConfig.html)."""

DEFAULT_SERVERLESS_MAX_CONCURRENCY = 20
"""Default ``serverless.max_concurrency`` (``ServerlessOptions.max_concurrency``): concurrent invocations."""
DEFAULT_SERVERLESS_PROVISIONED_CONCURRENCY = 0
"""Default ``serverless.provisioned_concurrency`` (``ServerlessOptions.provisioned_concurrency``): no warm
instances, so every cold start is paid by a request and nothing scales."""
