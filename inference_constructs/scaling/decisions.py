"""Scaling decisions: validate scaling intent against the endpoint kind and host, and compute targets.

Pure Python (no ``aws_cdk`` import). :func:`plan_scaling` turns the ``capacity:`` and ``scaling:``
keys of one endpoint (``docs/config.md``) into a :class:`ScalingPlan` that the constructs in
:mod:`inference_constructs.scaling` translate into resources and that the plan document shows.
The per-policy functions (``concurrency_policy`` ...) are what the constructs' ``scale_on_*``
methods call, so a Python user and a config file get the same rules and the same messages.

Metric facts (sources: SageMaker "Metrics in Amazon CloudWatch" (monitoring-cloudwatch), "Define a
scaling policy" and "Scale an endpoint to zero instances"; the Application Auto Scaling API model,
botocore ``application-autoscaling/2016-02-06``):

- ``ConcurrentRequestsPerModel`` is high resolution (10 s); its predefined metric is
  ``SageMakerVariantConcurrentRequestsPerModelHighResolution``.
- ``GPUMemoryUtilization`` in ``/aws/sagemaker/Endpoints`` runs 0–100 × the host's GPU count, so a
  per-GPU percent is multiplied by the GPU count.
- Async backlog metrics carry the ``EndpointName`` dimension only; scale from zero needs a step
  policy driven by ``HasBacklogWithoutCapacity >= 1``.
- Real-time scale to zero needs an inference component with managed instance scaling, a copy-count
  target and a step policy driven by ``NoCapacityInvocationFailures >= 1``.

The decisions live in one module per concept, re-exported here: :mod:`.types` (the vocabulary and the plan),
:mod:`.defaults` (cooldowns, default targets, bounds), :mod:`.checks` (capacity, ranges, cron, scheduled
floors), :mod:`.policies` (one policy each), :mod:`.explain` (the signal sentence and the warnings) and
:mod:`.plan` (:func:`plan_scaling`, :func:`bottleneck_intent`).
"""

from __future__ import annotations

from inference_constructs.scaling import checks, defaults, explain, plan, policies, types
from inference_constructs.scaling.checks import *  # noqa: F403 - each module's __all__ is its public names
from inference_constructs.scaling.defaults import *  # noqa: F403
from inference_constructs.scaling.explain import *  # noqa: F403
from inference_constructs.scaling.plan import *  # noqa: F403
from inference_constructs.scaling.policies import *  # noqa: F403
from inference_constructs.scaling.types import *  # noqa: F403

__all__ = checks.__all__ + defaults.__all__ + explain.__all__ + plan.__all__ + policies.__all__ + types.__all__
