"""Which stack each endpoint goes to (pure: no aws_cdk).

CloudFormation allows 500 resources per stack ("CloudFormation quotas", Resources: 500 per stack,
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html). Moving an endpoint to
another stack deletes it in one and creates it in the other (a replacement, and a name clash while both exist), so
an endpoint's stack depends only on its own ``stack:`` key: hosting stack ``stack`` (1-based) when given, otherwise
hosting stack 1. Adding, removing, reordering or growing other endpoints never moves it. :func:`assign_stacks`
fails (in ``plan``, before CloudFormation would) when a stack's estimated resources exceed
:data:`MAX_RESOURCES_PER_STACK`, naming its endpoints and asking for ``stack:`` on some of them.
:func:`shard` (packing in order) remains for callers that size stacks once and never update them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inference_constructs.aws_limits import MAX_RESOURCES_PER_CLOUDFORMATION_STACK
from inference_constructs.errors import ProblemCollector
from inference_constructs.spec import EndpointKind

#: Resources one hosting stack may hold (below :data:`MAX_RESOURCES_PER_CLOUDFORMATION_STACK`; the rest is headroom).
MAX_RESOURCES_PER_STACK = 450
#: Resources a hosting stack may add once, shared by its endpoints (access-log and output buckets
#: with their policies).
SHARED_RESOURCES_PER_STACK = 4
#: Resources a staged gated model adds: its CodeBuild project, role, policy, log group and custom resource.
STAGING_RESOURCES = 5
#: Resources of a stack's staging provider (handlers, their role, policy, log groups and key, and aws-cdk-lib's
#: provider framework: 3 functions with roles and policies, the waiter state machine with role and policy).
STAGING_PROVIDER_RESOURCES = 19


@dataclass(frozen=True)
class EndpointFootprint:
    """What decides how many resources one endpoint adds to its stack."""

    kind: EndpointKind
    scaling_policies: int = 0
    scaling_enabled: bool = False
    wake_up: bool = False
    inference_component: bool = False
    rollback_alarms: bool = True
    staged: bool = False
    """A deploy-time job stages the model's weights into S3 (``model.hf_token``)."""
    pool_models: int = 0
    """Instance pools with their own model (``ModelNameOverride``): one model each."""
    extra_resources: int = 0
    """Resources of further inference components and adapters (an endpoint with ``components``)."""


def estimated_resources(f: EndpointFootprint) -> int:
    """Upper bound of the resources one endpoint adds (tests check it against synthesized templates).

    Endpoint: execution role, managed policy, model, endpoint config, endpoint (5), rollback alarms (2);
    async: two notification topics and a topic policy (3); scaling: a scalable target, one resource per
    policy, a step policy and its alarm to leave zero (2); an inference component (1); alarms of the
    observability layer: up to 4 per endpoint (serverless: cold start, 5XX rate, two anomalies); a staged model:
    its staging (5) and the stack's staging provider (19), counted on every staged endpoint so that each estimate
    stays independent of the others (an upper bound); one model per instance pool with its own model.
    """
    n = 5 + (2 if f.rollback_alarms else 0)
    if f.kind is EndpointKind.ASYNC:
        n += 3
    if f.scaling_enabled:
        n += 1 + f.scaling_policies + (2 if f.wake_up else 0)
    if f.inference_component:
        n += 1
    if f.staged:
        n += STAGING_RESOURCES + STAGING_PROVIDER_RESOURCES
    return n + f.pool_models + f.extra_resources + 4


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


DEFAULT_STACK = 1
"""The hosting stack of an endpoint without a ``stack:`` key."""


def assign_stacks(
    footprints: Sequence[EndpointFootprint],
    stacks: Sequence[int | None],
    paths: Sequence[str],
    *,
    max_resources: int = MAX_RESOURCES_PER_STACK,
    names: Sequence[str] | None = None,
) -> tuple[list[int], list[str]]:
    """The hosting stack number (1-based) of each endpoint, and the problems of stacks over ``max_resources``.

    Parameters
    ----------
    footprints:
        What decides each endpoint's resource count.
    stacks:
        Each endpoint's ``stack:`` key. Default (``None``): :data:`DEFAULT_STACK`.
    paths:
        Each endpoint's key path (``endpoints[i]``), for the problems.
    max_resources:
        Estimated resources one stack may hold, its shared resources included.
    names:
        Each endpoint's name, shown beside its key path. Default: key paths only.

    Returns
    -------
    tuple[list[int], list[str]]
        The stack number per endpoint (independent of every other endpoint), and one problem per stack whose
        endpoints' estimated resources exceed ``max_resources``. A problem proposes the ``stack:`` keys to add:
        the endpoints without one, in endpoint order, in groups that fit, on stack numbers not yet used.
    """
    numbers = [DEFAULT_STACK if s is None else s for s in stacks]
    labels = [f"{path} ({name})" for path, name in zip(paths, names, strict=True)] if names else list(paths)
    used: dict[int, int] = {}
    members: dict[int, list[int]] = {}
    for index, (footprint, number) in enumerate(zip(footprints, numbers, strict=True)):
        used[number] = used.get(number, SHARED_RESOURCES_PER_STACK) + estimated_resources(footprint)
        members.setdefault(number, []).append(index)
    problems = ProblemCollector()
    free = max(used, default=DEFAULT_STACK) + 1
    for number in sorted(used):
        if used[number] <= max_resources:
            continue
        held = members[number]
        listed = f" ({', '.join(labels[i] for i in held)})" if len(held) <= _LISTED else ""
        moves, free = _moves(footprints, stacks, held, max_resources, free)
        if moves:
            fix = (
                "add stack: keys in endpoint order, "
                + "; ".join(f"stack: {n} on {_runs(group, labels)}" for n, group in moves)
                + f"; the others stay in stack {number}"
            )
        else:
            fix = f"set stack: {free} (or another unused number) on some of these endpoints"
        problems.add(
            paths[held[-1]] + ".stack",
            f"hosting stack {number} would hold about {used[number]} resources from {len(held)} endpoints{listed}, "
            f"over the {max_resources} allowed (CloudFormation allows {MAX_RESOURCES_PER_CLOUDFORMATION_STACK} "
            "resources per stack)",
            fix + "; an endpoint's stack never changes unless its stack: key does, and changing it replaces the "
            "endpoint",
            code="range",
        )
    return numbers, list(problems.problems)


_LISTED = 6
"""An overfull stack's problem lists its endpoints up to this many; beyond, it counts them."""


def _moves(
    footprints: Sequence[EndpointFootprint],
    stacks: Sequence[int | None],
    held: Sequence[int],
    max_resources: int,
    free: int,
) -> tuple[list[tuple[int, list[int]]], int]:
    """The ``stack:`` keys that empty an overfull stack: its endpoints with a key keep theirs, those without one
    stay while they fit, in endpoint order, and the rest fill new stacks (numbered from ``free``) in order. Returns
    the new stacks with their endpoints, and the next unused number."""
    room = SHARED_RESOURCES_PER_STACK + sum(estimated_resources(footprints[i]) for i in held if stacks[i] is not None)
    moves: list[tuple[int, list[int]]] = []
    for i in (i for i in held if stacks[i] is None):
        n = estimated_resources(footprints[i])
        if room + n > max_resources:
            moves.append((free, []))
            free += 1
            room = SHARED_RESOURCES_PER_STACK
        if moves:
            moves[-1][1].append(i)
        room += n
    return moves, free


def _runs(indexes: Sequence[int], labels: Sequence[str]) -> str:
    """``indexes`` as runs of consecutive endpoints: ``endpoints[3] (a) to endpoints[9] (g), endpoints[12] (j)``."""
    runs: list[list[int]] = []
    for i in indexes:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(labels[r[0]] if len(r) == 1 else f"{labels[r[0]]} to {labels[r[-1]]}" for r in runs)
