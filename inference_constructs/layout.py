"""Which stack each endpoint goes to (pure: no aws_cdk).

CloudFormation allows 500 resources per stack. Endpoints are packed in config order into hosting
stacks of at most :data:`MAX_RESOURCES_PER_STACK` estimated resources, so appending endpoints to the
config never moves existing ones (moving an endpoint between stacks would replace it). Reordering or
inserting endpoints in the middle can move the ones after it: append instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inference_constructs.spec import EndpointKind

#: Resources one hosting stack may hold (CloudFormation's limit is 500; the rest is headroom).
MAX_RESOURCES_PER_STACK = 450
#: Resources a hosting stack may add once, shared by its endpoints (access-log and output buckets
#: with their policies).
SHARED_RESOURCES_PER_STACK = 4


@dataclass(frozen=True)
class EndpointFootprint:
    """What decides how many resources one endpoint adds to its stack."""

    kind: EndpointKind
    scaling_policies: int = 0
    scaling_enabled: bool = False
    wake_up: bool = False
    inference_component: bool = False
    rollback_alarms: bool = True


def estimated_resources(f: EndpointFootprint) -> int:
    """Upper bound of the resources one endpoint adds (tests check it against synthesized templates).

    Endpoint: execution role, managed policy, model, endpoint config, endpoint (5), rollback alarms (2);
    async: two notification topics and a topic policy (3); scaling: a scalable target, one resource per
    policy, a step policy and its alarm to leave zero (2); an inference component (1); alarms of the
    observability layer: up to 4 per endpoint (serverless: cold start, 5XX rate, two anomalies).
    """
    n = 5 + (2 if f.rollback_alarms else 0)
    if f.kind is EndpointKind.ASYNC:
        n += 3
    if f.scaling_enabled:
        n += 1 + f.scaling_policies + (2 if f.wake_up else 0)
    if f.inference_component:
        n += 1
    return n + 4


def shard(footprints: Sequence[EndpointFootprint], *, max_resources: int = MAX_RESOURCES_PER_STACK) -> list[list[int]]:
    """Indexes of ``footprints`` grouped into stacks, in order, each within ``max_resources``."""
    if max_resources <= SHARED_RESOURCES_PER_STACK:
        raise ValueError(f"max_resources must exceed {SHARED_RESOURCES_PER_STACK}, got {max_resources}")
    shards: list[list[int]] = [[]]
    used = SHARED_RESOURCES_PER_STACK
    for index, footprint in enumerate(footprints):
        n = estimated_resources(footprint)
        if shards[-1] and used + n > max_resources:
            shards.append([])
            used = SHARED_RESOURCES_PER_STACK
        shards[-1].append(index)
        used += n
    return [s for s in shards if s]
