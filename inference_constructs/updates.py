"""What CloudFormation cannot apply in one deploy, found by comparing two plan documents (the JSON ``plan --json``
prints, or ``inference-plan.json`` of a synthesized assembly). Pure Python (no ``aws_cdk`` import).

Each warning has a stable code (:data:`UPDATE_WARNING_CODES`), the endpoint or profile it concerns, and what to do:

``scaled-variant-instance-type``
    The instance type of an endpoint whose variant Application Auto Scaling owns changes (an explicit
    ``instance_type``, or a re-plan: a longer context, a catalog refresh). SageMaker refuses an UpdateEndpoint
    that changes the instance type of a variant registered as a scalable target until it is deregistered
    (SageMaker developer guide, "Update endpoints that use auto scaling"). CloudFormation deletes a removed
    scalable target only after it has updated the endpoint, and renaming the variant is no way out: with
    deployment guardrails (every endpoint of the platform has a blue/green ``DeploymentConfig``) the new endpoint
    configuration must keep the variant name (SageMaker developer guide, deployment guardrails "Exclusions").
    So the change takes two deploys: first ``capacity.min`` = ``capacity.max`` and no ``scaling:`` block (the
    scalable target and its policies are deleted; the endpoint keeps its instance type), then the new host with
    the scaling back (the endpoint is updated first: the new scalable target depends on it).
``scaled-variant-instance-pools``
    The instance pools of such a variant change while its first pool stays (a host added, removed or reordered:
    ``instance_pools``, or a re-plan). Whether SageMaker counts a changed pool list as a changed instance type is
    not documented; the library reads it as one (an update "that would change the instance type for any model
    that is a target for auto scaling" fails), so the same two deploys apply.
``profile-replaced``
    A Bedrock profile's model changes: ``ModelSource`` is create-only, so CloudFormation replaces the profile;
    its name carries a hash of the model, so the replacement has a new name. Callers get a new id and ARN.
``endpoint-moves-stack``
    An endpoint's ``stack`` changes: it is created in the new hosting stack while the old one still holds its
    name, which SageMaker refuses; remove it in one deploy and add it to the other stack in the next.
``component-removed``
    An inference component or adapter of an endpoint that hosts several loses its own inference component: it is
    no longer in the plan, or it is renamed (another resource and name), or a further component became the first
    (which the endpoint's own inference component serves). CloudFormation deletes it, and callers that name it
    (``InvokeEndpoint`` with ``InferenceComponentName``) get errors.
``first-component-changed``
    The first component of such an endpoint is another one: the endpoint's own inference component (whose name
    stays) is updated to serve the new first component's model, so callers that name it get another model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["UPDATE_WARNING_CODES", "UpdateWarning", "update_warnings"]

SCALED_VARIANT_INSTANCE_TYPE = "scaled-variant-instance-type"
SCALED_VARIANT_INSTANCE_POOLS = "scaled-variant-instance-pools"
PROFILE_REPLACED = "profile-replaced"
ENDPOINT_MOVES_STACK = "endpoint-moves-stack"
COMPONENT_REMOVED = "component-removed"
FIRST_COMPONENT_CHANGED = "first-component-changed"
UPDATE_WARNING_CODES = (
    SCALED_VARIANT_INSTANCE_TYPE,
    PROFILE_REPLACED,
    ENDPOINT_MOVES_STACK,
    SCALED_VARIANT_INSTANCE_POOLS,
    COMPONENT_REMOVED,
    FIRST_COMPONENT_CHANGED,
)
"""Every code :func:`update_warnings` may return; codes are never renamed."""

_VARIANT_INSTANCES = "sagemaker:variant:DesiredInstanceCount"


@dataclass(frozen=True)
class UpdateWarning:
    """One change CloudFormation cannot apply as planned, or applies by replacing something callers use."""

    code: str
    subject: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """Plain JSON-able form."""
        return {"code": self.code, "subject": self.subject, "message": self.message}

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


def _by_name(items: Sequence[Mapping[str, Any]] | None) -> dict[str, Mapping[str, Any]]:
    return {str(i["name"]): i for i in items or ()}


def _scaled_variant(endpoint: Mapping[str, Any]) -> bool:
    scaling = endpoint.get("scaling") or {}
    return bool(scaling.get("enabled")) and scaling.get("scalable_dimension") == _VARIANT_INSTANCES


def _pool_types(endpoint: Mapping[str, Any]) -> tuple[str, ...]:
    """The variant's instance types by priority: its pools, else its one instance type."""
    pools = ((endpoint.get("hosting") or {}).get("instance_pools") or {}).get("pools")
    if pools:
        return tuple(str(p.get("instance_type")) for p in pools)
    return (str(endpoint.get("instance_type")),) if endpoint.get("instance_type") else ()


def _endpoint_warnings(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[UpdateWarning]:
    out: list[UpdateWarning] = []
    before, after = old.get("instance_type"), new.get("instance_type")
    if _scaled_variant(old) and before and after and before != after:
        out.append(
            UpdateWarning(
                SCALED_VARIANT_INSTANCE_TYPE,
                name,
                f"endpoint {name}: instance type {before} -> {after} on a variant Application Auto Scaling owns, "
                "which SageMaker refuses to update in place; apply it in two deploys: first capacity.min = "
                "capacity.max and no scaling: block (the scalable target is deleted), then the new host with the "
                "scaling back",
            )
        )
    elif _scaled_variant(old) and before and after and _pool_types(old) != _pool_types(new):
        out.append(
            UpdateWarning(
                SCALED_VARIANT_INSTANCE_POOLS,
                name,
                f"endpoint {name}: instance pools {', '.join(_pool_types(old))} -> {', '.join(_pool_types(new))} on a "
                "variant Application Auto Scaling owns; whether SageMaker updates a changed pool list in place is not "
                "documented, so apply it as an instance type change, in two deploys: first capacity.min = "
                "capacity.max and no scaling: block (the scalable target is deleted), then the new pools with the "
                "scaling back",
            )
        )
    out += _component_warnings(name, old, new)
    if old.get("stack") != new.get("stack"):
        out.append(
            UpdateWarning(
                ENDPOINT_MOVES_STACK,
                name,
                f"endpoint {name}: moves from stack {old.get('stack')} to {new.get('stack')}, which creates it in the "
                "new stack while the old one still holds its name; remove it in one deploy, add it in the next",
            )
        )
    return out


def _names(endpoint: Mapping[str, Any], key: str) -> list[str]:
    """The names of an endpoint's inference components or adapters (``key``), in plan order; none without."""
    block = endpoint.get("components")
    entries = block.get(key) if isinstance(block, Mapping) else None
    return [str(e.get("name")) for e in entries or () if isinstance(e, Mapping)]


def _component_warnings(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[UpdateWarning]:
    """A removed component or adapter, and a new first component, of an endpoint that hosts several."""
    out: list[UpdateWarning] = []
    before, after = _names(old, "components"), _names(new, "components")
    if before and after and before[0] != after[0]:
        out.append(
            UpdateWarning(
                FIRST_COMPONENT_CHANGED,
                name,
                f"endpoint {name}: the first component is {after[0]} instead of {before[0]}; the endpoint's own "
                f"inference component keeps its name and is updated to serve {after[0]}, so callers that name it get "
                f"another model; keep {before[0]} first, or switch those callers",
            )
        )
    # A further component has an inference component of its own; the first is served by the endpoint's.
    for key, kind, was, kept in (
        ("components", "component", before[1:], set(after[1:])),
        ("adapters", "adapter", _names(old, "adapters"), set(_names(new, "adapters"))),
    ):
        for gone in (g for g in was if g not in kept):
            first = key == "components" and gone in after
            now = " (it is now the first, served by the endpoint's own)" if first else ""
            out.append(
                UpdateWarning(
                    COMPONENT_REMOVED,
                    f"{name}/{gone}",
                    f"endpoint {name}: the inference component of {kind} {gone} is deleted{now}; callers that name it "
                    "(InvokeEndpoint InferenceComponentName) get errors, and a rename is a removal and a new component "
                    "with a new name",
                )
            )
    return out


def update_warnings(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[UpdateWarning]:
    """Warnings for deploying plan ``new`` over plan ``old`` (two plan documents), endpoints then profiles, each
    in the new plan's order."""
    out: list[UpdateWarning] = []
    old_endpoints = _by_name(old.get("endpoints"))
    for name, endpoint in _by_name(new.get("endpoints")).items():
        if name in old_endpoints:
            out += _endpoint_warnings(name, old_endpoints[name], endpoint)
    old_profiles = _by_name(old.get("bedrock"))
    for name, profile in _by_name(new.get("bedrock")).items():
        was = old_profiles.get(name)
        if was is not None and was.get("profile_name") != profile.get("profile_name"):
            out.append(
                UpdateWarning(
                    PROFILE_REPLACED,
                    name,
                    f"bedrock profile {name}: model {was.get('model')} -> {profile.get('model')} replaces the profile "
                    f"as {profile.get('profile_name')} (a new id and ARN; callers must switch)",
                )
            )
    return out
