"""How CloudFormation applies the change between two sets of synthesized templates, resource by resource.

Resources are matched by stack and logical id. A resource is ``added``, ``removed``, ``updated`` (in place),
``replaced`` (a create-only property changes, :mod:`inference_constructs.diff.schemas`) or ``moved`` (deleted from
one stack and created in another with the same logical id or custom name: a replacement too).

A property that refers to a replaced resource (``Ref``, ``Fn::GetAtt``, ``Fn::Sub``) changes value at deploy time
even when its text does not: the change propagates, so a replaced ``AWS::SageMaker::Model`` replaces the
``AWS::SageMaker::EndpointConfig`` that names it (every EndpointConfig property is create-only), which updates the
``AWS::SageMaker::Endpoint`` in place (its ``EndpointConfigName`` is not create-only: SageMaker moves the endpoint to
the new config). Each forced replacement names the property and whether its text changed (``direct``) or a
referenced resource was replaced.

What CloudFormation refuses (``blockers``):

- replacing a resource whose custom name stays the same (*Resource custom naming*,
  https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html);
- changing or deleting an output export while another stack imports it ("you can't modify or remove an output
  value that is referenced by another stack", *Get exported outputs from a deployed CloudFormation stack*,
  https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-exports.html);
- creating a resource in its new stack under the custom name the old stack's resource still holds (names are
  unique across active stacks, *Resource custom naming*);
- an endpoint update that changes the instance type of (or removes) a production variant registered as an
  Application Auto Scaling target: "If the update would change the instance type for any model that is a target
  for auto scaling, the update fails" (SageMaker, *Update endpoints that use auto scaling*,
  https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-scaling-update.html).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from inference_constructs._plan_dict import plan_dict
from inference_constructs.diff.schemas import TypeRules, load_type_rules

__all__ = ["USER_FACING", "ResourceChange", "TemplateDiff", "diff_templates"]

Templates = Mapping[str, Mapping[str, Any]]

#: Resource types a user of the platform sees: what it is, and what its replacement means for them. Replacing any
#: other type (an endpoint config, a SageMaker model, an alarm, a scaling policy, a role) is routine: nothing a
#: client calls changes.
USER_FACING: dict[str, tuple[str, str]] = {
    "AWS::SageMaker::Endpoint": ("endpoint", "a new endpoint"),
    "AWS::SageMaker::InferenceComponent": ("inference component", "a new inference component"),
    "AWS::Bedrock::ApplicationInferenceProfile": ("inference profile", "a new profile ARN for callers"),
    "AWS::Bedrock::IntelligentPromptRouter": ("prompt router", "a new router ARN for callers"),
    "AWS::Bedrock::Guardrail": ("guardrail", "a new guardrail id"),
    "AWS::ApplicationAutoScaling::ScalableTarget": ("scalable target", "deregistered and registered again"),
    "AWS::S3::Bucket": ("bucket", "a new, empty bucket"),
    "AWS::KMS::Key": ("KMS key", "a new key"),
    "AWS::SNS::Topic": ("topic", "a new topic ARN; email subscriptions need confirming again"),
    "AWS::SSM::Parameter": ("SSM parameter", "deleted and written again"),
}

_SUB_REF = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9.]+)?\}")
#: Properties whose value names the resource for a reader, in order of preference.
_LABEL_PROPERTIES = ("ResourceId",)


@dataclass(frozen=True)
class ResourceChange:
    """One resource that differs between the two template sets.

    ``forced_by`` lists, for a replacement, each create-only property that changes (``direct`` when its text
    changes, else the replaced resource it refers to); ``changed`` the top-level properties and attributes that
    differ; ``blockers`` why the update would fail (CloudFormation or SageMaker refuses it).
    """

    stack: str
    logical_id: str
    resource_type: str
    status: str
    label: str
    forced_by: tuple[str, ...] = ()
    may_replace: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()
    old_stack: str | None = None

    @property
    def user_facing(self) -> str | None:
        """What a user sees (``endpoint``, ``inference profile``...), None for a routine resource."""
        entry = USER_FACING.get(self.resource_type)
        return entry[0] if entry else None

    @property
    def replacement_effect(self) -> str | None:
        """What replacing it means for a user (None for a routine resource)."""
        entry = USER_FACING.get(self.resource_type)
        return entry[1] if entry else None

    @property
    def replaces(self) -> bool:
        """True when the change deletes and re-creates the resource (a replacement or a move)."""
        return self.status in ("replaced", "moved")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form."""
        out = plan_dict(self, "stack", "logical_id", ("type", "resource_type"), "status", "label", "user_facing")
        for key in ("forced_by", "may_replace", "changed", "blockers"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        if self.old_stack is not None:
            out["old_stack"] = self.old_stack
        return out


@dataclass(frozen=True)
class TemplateDiff:
    """Every resource change of two template sets, the stacks added and removed, and the rules' source."""

    changes: tuple[ResourceChange, ...]
    stacks_added: tuple[str, ...]
    stacks_removed: tuple[str, ...]
    source: str
    export_blockers: tuple[str, ...] = ()

    @property
    def replacements(self) -> tuple[ResourceChange, ...]:
        """Every replaced or moved resource."""
        return tuple(c for c in self.changes if c.replaces)

    @property
    def user_facing_replacements(self) -> tuple[ResourceChange, ...]:
        """Replaced or moved resources a user sees (an endpoint, a profile, a scalable target...)."""
        return tuple(c for c in self.replacements if c.user_facing is not None)

    @property
    def blockers(self) -> tuple[str, ...]:
        """Every reason the update would fail."""
        return tuple(f"{c.stack}/{c.logical_id}: {b}" for c in self.changes for b in c.blockers) + self.export_blockers

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form."""
        return {
            "resources": [c.to_dict() for c in self.changes],
            "stacks_added": list(self.stacks_added),
            "stacks_removed": list(self.stacks_removed),
            "blockers": list(self.blockers),
            "rules_source": self.source,
        }


# ------------------------------------------------------------------------------------------------ values


def _refs(value: Any) -> Iterator[str]:
    """Logical ids ``value`` refers to (``Ref``, ``Fn::GetAtt``, ``Fn::Sub``), pseudo parameters excluded."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if key == "Ref" and isinstance(inner, str) and not inner.startswith("AWS::"):
                yield inner
            elif key == "Fn::GetAtt":
                target = inner[0] if isinstance(inner, list) and inner else str(inner).split(".", 1)[0]
                if isinstance(target, str):
                    yield target
            elif key == "Fn::Sub":
                text = inner[0] if isinstance(inner, list) and inner else inner
                if isinstance(text, str):
                    yield from (m for m in _SUB_REF.findall(text) if not m.startswith("AWS"))
                if isinstance(inner, list) and len(inner) > 1:
                    yield from _refs(inner[1])
            else:
                yield from _refs(inner)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def _at(value: Any, parts: list[str]) -> Iterator[Any]:
    """Values at a JSON pointer below ``Properties`` (``*`` matches every list item); nothing when absent."""
    if not parts:
        yield value
        return
    head, rest = parts[0], parts[1:]
    if head == "*":
        if isinstance(value, list):
            for item in value:
                yield from _at(item, rest)
        return
    if isinstance(value, Mapping) and head in value:
        yield from _at(value[head], rest)


def _pointer_values(props: Mapping[str, Any], pointer: str) -> list[Any]:
    return list(_at(props, pointer.split("/")[2:]))


def _render(value: Any) -> str:
    """A short human form of a property value: literals as is, ``Fn::Join`` joined, references as ``${Id}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        key, inner = next(iter(value.items()))
        if key == "Ref":
            return f"${{{inner}}}"
        if key == "Fn::Join" and isinstance(inner, list) and len(inner) == 2 and isinstance(inner[1], list):
            return str(inner[0]).join(_render(v) for v in inner[1])
        if key == "Fn::GetAtt" and isinstance(inner, list):
            return "${" + ".".join(str(i) for i in inner) + "}"
    return json.dumps(value, sort_keys=True)


def _label(resource: Mapping[str, Any], rules: TypeRules | None, logical_id: str) -> str:
    props = resource.get("Properties") or {}
    names = [p.split("/")[-1] for p in (rules.name_properties if rules else ())]
    for key in (*names, *_LABEL_PROPERTIES):
        if key in props:
            return _render(props[key])
    return logical_id


def _custom_name(resource: Mapping[str, Any], rules: TypeRules | None) -> Any:
    """The custom name the template gives the resource (a literal or an expression), None without one."""
    props = resource.get("Properties") or {}
    for pointer in rules.name_properties if rules else ():
        values = _pointer_values(props, pointer)
        if values:
            return values[0]
    return None


# ------------------------------------------------------------------------------------------------ per resource


def _forced(
    props_old: Mapping[str, Any], props_new: Mapping[str, Any], pointers: tuple[str, ...], replaced: set[str]
) -> list[str]:
    """The pointers among ``pointers`` whose value changes: by text (``direct``) or through a replaced reference."""
    out = []
    for pointer in pointers:
        before, after = _pointer_values(props_old, pointer), _pointer_values(props_new, pointer)
        name = pointer.removeprefix("/properties/").replace("/", ".")
        if before != after:
            out.append(f"{name} (direct)")
            continue
        via = sorted({r for r in _refs(after) if r in replaced})
        if via:
            out.append(f"{name} (refers to {', '.join(via)}, replaced)")
    return out


def _changed(old: Mapping[str, Any], new: Mapping[str, Any], replaced: set[str]) -> list[str]:
    """Top-level properties (and resource attributes other than Metadata) that differ or refer to a replaced
    resource."""
    props_old, props_new = old.get("Properties") or {}, new.get("Properties") or {}
    out = [
        k
        for k in sorted({*props_old, *props_new})
        if props_old.get(k) != props_new.get(k) or any(r in replaced for r in _refs(props_new.get(k)))
    ]
    attributes = ("DependsOn", "DeletionPolicy", "UpdateReplacePolicy", "Condition", "UpdatePolicy", "CreationPolicy")
    out += [a for a in attributes if old.get(a) != new.get(a)]
    return out


def _compare(
    stack: str, logical_id: str, old: Mapping[str, Any], new: Mapping[str, Any], replaced: set[str]
) -> ResourceChange | None:
    rules_by_type, _ = load_type_rules()
    resource_type = str(new.get("Type"))
    rules = rules_by_type.get(resource_type)
    label = _label(new, rules, logical_id)
    if old.get("Type") != new.get("Type"):
        return ResourceChange(stack, logical_id, resource_type, "replaced", label, forced_by=("Type (direct)",))
    changed = _changed(old, new, replaced)
    if not changed:
        return None
    props_old, props_new = old.get("Properties") or {}, new.get("Properties") or {}
    if rules is None:
        note = (f"{resource_type}: no create-only rules known; CloudFormation decides at deploy time",)
        unknown = not resource_type.startswith("Custom::") and resource_type != "AWS::CloudFormation::CustomResource"
        return ResourceChange(
            stack,
            logical_id,
            resource_type,
            "updated",
            label,
            changed=tuple(changed),
            may_replace=note if unknown else (),
        )
    forced = _forced(props_old, props_new, rules.create_only, replaced)
    maybe = _forced(props_old, props_new, rules.conditional_create_only, replaced)
    if not forced:
        return ResourceChange(
            stack, logical_id, resource_type, "updated", label, changed=tuple(changed), may_replace=tuple(maybe)
        )
    blockers = []
    name = _custom_name(new, rules)
    if name is not None and name == _custom_name(old, rules) and not any(r in replaced for r in _refs(name)):
        blockers.append(
            f"replaced while its custom name {_render(name)} stays: CloudFormation refuses; the name must change "
            "with the replacement"
        )
    return ResourceChange(
        stack,
        logical_id,
        resource_type,
        "replaced",
        label,
        forced_by=tuple(forced),
        may_replace=tuple(maybe),
        changed=tuple(changed),
        blockers=tuple(blockers),
    )


# ------------------------------------------------------------------------------------------------ whole sets


def _resources(templates: Templates) -> dict[tuple[str, str], Mapping[str, Any]]:
    return {
        (stack, logical_id): resource
        for stack, template in templates.items()
        for logical_id, resource in (template.get("Resources") or {}).items()
        if resource.get("Type") != "AWS::CDK::Metadata"
    }


def _replaced_fixpoint(old: Templates, new: Templates) -> dict[tuple[str, str], ResourceChange]:
    """Compare every resource in both sets until no further replacement propagates through references."""
    before, after = _resources(old), _resources(new)
    common = [k for k in after if k in before]
    replaced: dict[str, set[str]] = {stack: set() for stack in new}
    while True:
        found: dict[tuple[str, str], ResourceChange] = {}
        for key in common:
            change = _compare(key[0], key[1], before[key], after[key], replaced[key[0]])
            if change is not None:
                found[key] = change
        grown = {stack: {k[1] for k, c in found.items() if k[0] == stack and c.replaces} for stack in new}
        if grown == replaced:
            return found
        replaced = grown


def _moves(old: Templates, new: Templates) -> tuple[list[ResourceChange], set[tuple[str, str]], set[tuple[str, str]]]:
    """Resources deleted from one stack and created in another (same type, and same logical id or custom name)."""
    rules_by_type, _ = load_type_rules()
    before, after = _resources(old), _resources(new)
    removed = {k: r for k, r in before.items() if k not in after}
    added = {k: r for k, r in after.items() if k not in before}
    moves: list[ResourceChange] = []
    used_old: set[tuple[str, str]] = set()
    used_new: set[tuple[str, str]] = set()
    for (stack, logical_id), resource in added.items():
        rules = rules_by_type.get(str(resource.get("Type")))
        name = _custom_name(resource, rules)
        for (old_stack, old_id), old_resource in removed.items():
            if (old_stack, old_id) in used_old or old_resource.get("Type") != resource.get("Type"):
                continue
            same_name = name is not None and name == _custom_name(old_resource, rules)
            if old_id != logical_id and not same_name:
                continue
            blockers: tuple[str, ...] = ()
            if same_name:
                blockers = (
                    f"created in {stack} under the custom name {_render(name)} that {old_stack} still holds: "
                    "CloudFormation refuses until the old stack releases it",
                )
            moves.append(
                ResourceChange(
                    stack,
                    logical_id,
                    str(resource.get("Type")),
                    "moved",
                    _label(resource, rules, logical_id),
                    forced_by=(f"stack {old_stack} -> {stack}",),
                    blockers=blockers,
                    old_stack=old_stack,
                )
            )
            used_old.add((old_stack, old_id))
            used_new.add((stack, logical_id))
            break
    return moves, used_old, used_new


def _exports(templates: Templates) -> dict[str, tuple[str, Any]]:
    return {
        str(output["Export"]["Name"]): (stack, output.get("Value"))
        for stack, template in templates.items()
        for output in (template.get("Outputs") or {}).values()
        if isinstance(output.get("Export"), Mapping) and isinstance(output["Export"].get("Name"), str)
    }


def _imports(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if key == "Fn::ImportValue" and isinstance(inner, str):
                yield inner
            else:
                yield from _imports(inner)
    elif isinstance(value, list):
        for item in value:
            yield from _imports(item)


def _export_blockers(old: Templates, new: Templates, replaced: Mapping[str, set[str]]) -> list[str]:
    """Exports another stack imports (in the deployed, old templates) that change value or disappear."""
    importers: dict[str, set[str]] = {}
    for stack, template in old.items():
        for name in _imports(template.get("Resources")):
            importers.setdefault(name, set()).add(stack)
    old_exports, new_exports = _exports(old), _exports(new)
    out = []
    for name, (stack, value) in sorted(old_exports.items()):
        users = sorted(importers.get(name, set()) - {stack})
        if not users:
            continue
        after = new_exports.get(name)
        if after is None:
            out.append(
                f"export {name} of {stack} is removed while {', '.join(users)} imports it: CloudFormation refuses"
            )
            continue
        via = sorted({r for r in _refs(after[1]) if r in replaced.get(after[0], set())})
        if after[1] != value or via:
            why = f" (it refers to {', '.join(via)}, replaced)" if via else ""
            out.append(
                f"export {name} of {stack} changes value{why} while {', '.join(users)} imports it: "
                "CloudFormation refuses"
            )
    return out


def _variants(template: Mapping[str, Any], endpoint: Mapping[str, Any]) -> dict[str, Any]:
    """Variant name -> instance type of the endpoint config ``endpoint`` names (empty when not in ``template``)."""
    resources = template.get("Resources") or {}
    for ref in _refs((endpoint.get("Properties") or {}).get("EndpointConfigName")):
        config = resources.get(ref) or {}
        if config.get("Type") == "AWS::SageMaker::EndpointConfig":
            variants = (config.get("Properties") or {}).get("ProductionVariants") or []
            return {str(v.get("VariantName")): _variant_hosts(v) for v in variants if isinstance(v, Mapping)}
    return {}


def _variant_hosts(variant: Mapping[str, Any]) -> Any:
    """A variant's ``InstanceType``, or with ``InstancePools`` its pools' instance types by priority (one text):
    a changed pool list is read as a changed instance type."""
    pools = variant.get("InstancePools")
    if not isinstance(pools, list) or not pools:
        return variant.get("InstanceType")
    ranked = sorted((p for p in pools if isinstance(p, Mapping)), key=lambda p: str(p.get("Priority")))
    return "pools " + ", ".join(str(p.get("InstanceType")) for p in ranked)


def _registered(template: Mapping[str, Any], logical_id: str, endpoint: Mapping[str, Any], variant: str) -> bool:
    """True when ``template`` registers ``variant`` of the endpoint as a scalable target."""
    name = _render((endpoint.get("Properties") or {}).get("EndpointName", ""))
    for resource in (template.get("Resources") or {}).values():
        if resource.get("Type") != "AWS::ApplicationAutoScaling::ScalableTarget":
            continue
        resource_id = (resource.get("Properties") or {}).get("ResourceId")
        text = _render(resource_id)
        if text.endswith(f"/variant/{variant}") and (
            f"endpoint/{name}/" in text or logical_id in set(_refs(resource_id))
        ):
            return True
    return False


def _scaling_blockers(old: Templates, new: Templates, changes: list[ResourceChange]) -> dict[tuple[str, str], str]:
    """Endpoints updated in place whose update changes the instance type of (or removes) a registered variant."""
    out: dict[tuple[str, str], str] = {}
    for change in changes:
        if change.resource_type != "AWS::SageMaker::Endpoint" or change.status != "updated":
            continue
        before = old[change.stack]["Resources"][change.logical_id]
        after = new[change.stack]["Resources"][change.logical_id]
        old_variants = _variants(old[change.stack], before)
        new_variants = _variants(new[change.stack], after)
        for variant, instance_type in old_variants.items():
            if new_variants.get(variant) == instance_type:
                continue
            if _registered(old[change.stack], change.logical_id, before, variant):
                what = (
                    f"changes variant {variant} from {instance_type} to {new_variants[variant]}"
                    if variant in new_variants
                    else f"removes variant {variant}"
                )
                out[(change.stack, change.logical_id)] = (
                    f"the endpoint update {what} while it is registered with Application Auto Scaling: SageMaker "
                    "refuses until the scalable target is deregistered (two deploys: the plan's "
                    "scaled-variant-instance-type warning)"
                )
    return out


def diff_templates(old: Templates, new: Templates) -> TemplateDiff:
    """Compare two template sets (``stack name -> template``): the templates deployed now and the ones to deploy.

    Resources are matched by stack and logical id; a resource that leaves one stack for another (same type, and
    same logical id or same custom name) is a move. Changes are listed in the order of the new templates, then
    the removed resources.
    """
    found = _replaced_fixpoint(old, new)
    moves, moved_old, moved_new = _moves(old, new)
    before, after = _resources(old), _resources(new)
    rules_by_type, source = load_type_rules()
    changes: list[ResourceChange] = []
    move_by_key = {(m.stack, m.logical_id): m for m in moves}
    for key, resource in after.items():
        rules = rules_by_type.get(str(resource.get("Type")))
        if key in found:
            changes.append(found[key])
        elif key in move_by_key:
            changes.append(move_by_key[key])
        elif key not in before and key not in moved_new:
            changes.append(
                ResourceChange(key[0], key[1], str(resource.get("Type")), "added", _label(resource, rules, key[1]))
            )
    for key, resource in before.items():
        if key not in after and key not in moved_old:
            rules = rules_by_type.get(str(resource.get("Type")))
            changes.append(
                ResourceChange(key[0], key[1], str(resource.get("Type")), "removed", _label(resource, rules, key[1]))
            )
    scaling = _scaling_blockers(old, new, changes)
    changes = [
        replace(c, blockers=(*c.blockers, scaling[(c.stack, c.logical_id)]))
        if (c.stack, c.logical_id) in scaling
        else c
        for c in changes
    ]
    replaced = {stack: {c.logical_id for c in changes if c.stack == stack and c.replaces} for stack in new}
    return TemplateDiff(
        changes=tuple(changes),
        stacks_added=tuple(s for s in new if s not in old),
        stacks_removed=tuple(s for s in old if s not in new),
        source=source,
        export_blockers=tuple(_export_blockers(old, new, replaced)),
    )
