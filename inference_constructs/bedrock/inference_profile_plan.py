"""The ``bedrock.profiles`` list: validation across profiles and plan entries.

Pure Python (no ``aws_cdk`` import). The config layer converts each validated YAML entry into a
:class:`ProfileSpec` and calls :func:`validate_profile_specs`; the plan calls :func:`plan_entries`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from inference_constructs._tokens import is_unresolved
from inference_constructs.bedrock.guardrail_plan import (
    GuardedRole,
    GuardrailSpec,
    check_guardrail,
    check_role_guardrails,
)
from inference_constructs.bedrock.guardrail_plan import plan_entry as guardrail_plan_entry
from inference_constructs.bedrock.guidance import (
    cache_checkpoint_min_tokens,
    output_burndown_rate,
    token_guidance,
)
from inference_constructs.bedrock.model_source import (
    ModelSource,
    ProfileSourceKind,
    Residency,
    check_profile,
    raise_if_problems,
)
from inference_constructs.bedrock.plan_sections import ProfilePlan
from inference_constructs.bedrock.regions import TABLE_AS_OF
from inference_constructs.bedrock.router_plan import RouterSpec
from inference_constructs.errors import InferenceConfigError

PROFILE_CREATE_ONLY_PROPERTIES = ("Description", "InferenceProfileName", "ModelSource")
"""``createOnlyProperties`` of ``AWS::Bedrock::ApplicationInferenceProfile`` in its CloudFormation resource schema:
changing any of them replaces the profile (a new id and ARN). The tests compare this list with the schema."""
NAME_HASH_LENGTH = 8
"""Hex characters of the create-only-properties hash appended to a profile's name."""
MAX_BASE_NAME = 64 - 1 - NAME_HASH_LENGTH
"""55: the configured name plus ``-`` and the hash must fit ``InferenceProfileName``'s 64 characters
(``AWS::Bedrock::ApplicationInferenceProfile`` resource schema: 1-64, ``^([0-9a-zA-Z][ _-]?)+$``)."""

_ROLE_ARN_PATTERN = re.compile(r"^arn:aws(-[a-z-]+)?:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$")


@dataclass(frozen=True)
class ProfileSpec:
    """One entry of ``bedrock.profiles`` (``docs/config.md``), already type-checked by the config schema."""

    name: str
    model: str
    tags: Mapping[str, str] = field(default_factory=dict)
    invoke_role_arns: tuple[str, ...] = ()
    max_output_tokens: int | None = None
    residency: Residency = Residency.ANY
    description: str | None = None
    guardrail: GuardrailSpec | None = None

    def replace_only_hash(self) -> str:
        """Hash of the create-only properties the platform sets besides the name: ``ModelSource`` (from
        ``model``). ``Description`` is not set on the platform's profiles, so it takes no part."""
        doc = {"ModelSource": self.model}
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:NAME_HASH_LENGTH]

    @property
    def physical_name(self) -> str:
        """``InferenceProfileName``: ``<name>-<hash>``. CloudFormation cannot replace a custom-named resource
        under the same name, and a model change replaces the profile, so the name changes with the model."""
        return f"{self.name}-{self.replace_only_hash()}"


def check_profile_specs(specs: Sequence[ProfileSpec], *, path: str = "bedrock.profiles") -> list[str]:
    """Every problem in ``specs``: each profile's rules, duplicate names, malformed role ARNs."""
    problems: list[str] = []
    first_index: dict[str, int] = {}
    roles: list[GuardedRole] = []
    for i, spec in enumerate(specs):
        item = f"{path}[{i}]"
        problems += check_profile(
            name=spec.name,
            model=spec.model,
            tags=spec.tags,
            description=spec.description,
            residency=spec.residency,
            max_output_tokens=spec.max_output_tokens,
            path=item,
        )
        problems += _base_name_problems(spec.name, f"{item}.name")
        if not is_unresolved(spec.name):
            seen = first_index.setdefault(spec.name, i)
            if seen != i:
                problems.append(
                    f"{item}.name: {spec.name!r} is already used by {path}[{seen}]; "
                    "profile names are unique per account and Region, choose another"
                )
        for j, arn in enumerate(spec.invoke_role_arns):
            if not is_unresolved(arn) and not _ROLE_ARN_PATTERN.match(arn):
                problems.append(
                    f"{item}.invoke_role_arns[{j}]: {arn!r} is not an IAM role ARN; "
                    "use arn:aws:iam::<account>:role/<name>"
                )
        if spec.guardrail is not None:
            problems += check_guardrail(spec.guardrail, path=f"{item}.guardrail")
        roles += _guarded_roles(spec, item)
    return problems + check_role_guardrails(roles)


def _base_name_problems(name: str, path: str) -> list[str]:
    """The configured name must leave room for ``-<hash>`` and must not end in a separator (``a--hash`` would
    break the name pattern)."""
    if is_unresolved(name) or not isinstance(name, str) or not name:
        return []
    if MAX_BASE_NAME < len(name) <= 64:  # longer names are reported by the InferenceProfileName check
        return [
            f"{path}: {name!r} has {len(name)} characters; use at most {MAX_BASE_NAME} (the plan appends '-' and "
            f"an {NAME_HASH_LENGTH}-character hash of the model, InferenceProfileName allows 64)"
        ]
    if name[-1] in " _-":
        return [f"{path}: {name!r} ends in {name[-1]!r}; end it with a letter or digit (the plan appends '-<hash>')"]
    return []


def check_router_roles(profiles: Sequence[ProfileSpec], routers: Sequence[RouterSpec]) -> list[str]:
    """A role granted on a guarded profile and on a prompt router over the same model: router calls carry no
    guardrail condition, so the profile's Deny refuses them. Reported at the router's key path."""
    grants = [g for i, spec in enumerate(profiles) for g in _guarded_roles(spec, f"bedrock.profiles[{i}]")]
    for i, router in enumerate(routers):
        for model in router.models:
            try:
                model_id = ModelSource.parse(model).model_id
            except InferenceConfigError:
                continue  # reported by check_router_specs
            if model_id is not None:
                path = f"bedrock.routers[{i}].invoke_role_arns"
                grants += [
                    GuardedRole(arn, model_id, None, f"{path}[{j}]") for j, arn in enumerate(router.invoke_role_arns)
                ]
    return [p for p in check_role_guardrails(grants) if p.startswith("bedrock.routers[")]


def _guarded_roles(spec: ProfileSpec, item: str) -> list[GuardedRole]:
    """The roles of one profile with its model id and guardrail, for the cross-profile check."""
    try:
        model_id = ModelSource.parse(spec.model).model_id
    except InferenceConfigError:
        return []  # reported by check_profile
    if model_id is None:
        return []  # an unresolved token: nothing to compare
    guardrail = spec.guardrail
    name = None
    if guardrail is not None:
        name = f"{guardrail.existing_id}:{guardrail.existing_version}" if guardrail.is_existing else guardrail.name
    return [
        GuardedRole(arn, model_id, name, f"{item}.invoke_role_arns[{j}]") for j, arn in enumerate(spec.invoke_role_arns)
    ]


def validate_profile_specs(specs: Sequence[ProfileSpec], *, path: str = "bedrock.profiles") -> None:
    """Raise one :class:`InferenceConfigError` listing every problem in ``specs``."""
    raise_if_problems(check_profile_specs(specs, path=path))


def profile_plan(spec: ProfileSpec, *, deploy_region: str | None = None) -> ProfilePlan:
    """What the plan says of one (valid) profile.

    Keys: ``name``, ``profile_name`` (the ``InferenceProfileName``: name plus a hash of the model),
    ``replacement`` (why the name carries the hash), ``model``, ``source_kind``, ``model_id``, ``geography``,
    ``destination_regions``
    (null = any commercial Region, or the deploy Region when it is not known), ``leaves_region``,
    ``residency``, ``max_output_tokens``, ``output_burndown_rate``, ``cache_checkpoint_min_tokens``,
    ``regions_table_as_of``, ``guardrail`` (what the profile's grants enforce, or null), ``guidance``
    (sentences) and ``warnings`` (sentences).
    """
    source = ModelSource.parse(spec.model)
    regions = source.destination_regions(deploy_region)
    warnings: list[str] = []
    if source.leaves_region:
        if source.kind is ProfileSourceKind.UNRESOLVED:
            where = "an unresolved model token may name a cross-Region profile"
        elif source.is_global:
            where = "global profile: requests may be served in any commercial Region worldwide"
        elif source.geography is None:
            where = f"profile of unknown geography {source.geography_prefix!r}: destination Regions unknown"
        else:
            where = f"{source.geography_prefix} geography: requests may be served in {', '.join(regions or ())}"
        warnings.append(f"bedrock profile {spec.name}: requests can leave the deploy Region ({where})")
    return ProfilePlan(
        name=spec.name,
        profile_name=spec.physical_name,
        replacement=(
            "InferenceProfileName, ModelSource and Description are create-only: a model change replaces the profile, "
            f"so its name carries a hash of the model ({spec.replace_only_hash()}) and changes with it; the new "
            "profile has a new id and ARN, which callers must switch to"
        ),
        model=spec.model,
        source_kind=source.kind.value,
        model_id=source.model_id,
        geography=source.geography_prefix,
        destination_regions=tuple(regions) if regions is not None else None,
        leaves_region=source.leaves_region,
        residency=spec.residency.value,
        max_output_tokens=spec.max_output_tokens,
        output_burndown_rate=output_burndown_rate(source.model_id),
        cache_checkpoint_min_tokens=cache_checkpoint_min_tokens(source.model_id),
        regions_table_as_of=TABLE_AS_OF,
        guardrail=guardrail_plan_entry(spec.guardrail) if spec.guardrail is not None else None,
        guidance=tuple(token_guidance(source.model_id, spec.max_output_tokens)),
        warnings=tuple(warnings),
        tags=dict(spec.tags),
    )


def plan_entries(specs: Sequence[ProfileSpec], *, deploy_region: str | None = None) -> list[ProfilePlan]:
    """What the plan says of ``specs``, in config order (call after :func:`validate_profile_specs`)."""
    return [profile_plan(spec, deploy_region=deploy_region) for spec in specs]
