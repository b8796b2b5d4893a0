"""What an application inference profile copies, and the rules for its name and tags.

Pure Python (no ``aws_cdk`` import), so the plan and the config layer can call it. ARNs are built
from caller-supplied ``partition``, ``region`` and ``account`` strings: the construct passes
``Aws.PARTITION`` / ``Aws.REGION`` / ``Aws.ACCOUNT_ID`` tokens (region-agnostic templates), the
plan passes literals or placeholders.

Accepted model strings (CloudFormation ``ModelSource.CopyFrom`` accepts a foundation model or a
system-defined inference profile; an application profile cannot copy another application profile):

- foundation model id: ``anthropic.claude-3-haiku-20240307-v1:0``
- foundation model ARN: ``arn:aws:bedrock:us-east-1::foundation-model/<id>``
- system profile id: ``<geography>.<model id>``, geography one of :data:`regions.GEOGRAPHIES`
  (``us``, ``eu``, ``apac``, ``jp``, ``au``, ``ca``, ``us-gov``, ``global``)
- system profile ARN: ``arn:aws:bedrock:<region>:<account>:inference-profile/<profile id>``

An id is used region-agnostically (the ARN resolves in the deploy Region); an ARN is used as given.
A profile id whose prefix is not a known geography cannot be told apart from a foundation model id;
pass it as an ARN (``inference-profile/...``) and the grants fall back to every Region (``*``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inference_constructs._tokens import is_unresolved
from inference_constructs.bedrock.regions import NON_COMMERCIAL_PREFIXES, Geography, geography_for_prefix
from inference_constructs.containers.images import load_snapshot
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.regions import RegionRequirement, load_resource_regions, profile_source_requirement

# CloudFormation AWS::Bedrock::ApplicationInferenceProfile (cfn-lint schema, read 2026-11).
NAME_PATTERN = re.compile(r"^([0-9a-zA-Z][ _-]?)+$")
NAME_MAX_LENGTH = 64
DESCRIPTION_PATTERN = re.compile(r"^([0-9a-zA-Z:.][ _-]?)+$")
DESCRIPTION_MAX_LENGTH = 200
TAG_PATTERN = re.compile(r"^[a-zA-Z0-9\s._:/=+@-]*$")
TAG_KEY_MAX_LENGTH = 128
TAG_VALUE_MAX_LENGTH = 256
MAX_TAGS = 200
# Foundation model id, from the schema's InferenceProfileModel.ModelArn pattern.
FOUNDATION_MODEL_ID_PATTERN = re.compile(
    r"^[a-z0-9-]{1,63}[.]([a-z0-9-]{1,63}[.]){0,2}[a-z0-9-]{1,63}([:][a-z0-9-]{1,63}){0,2}$"
)
_ARN_PATTERN = re.compile(
    r"^arn:(?P<partition>aws|aws-us-gov|aws-cn|aws-iso|aws-iso-b):bedrock:(?P<region>[0-9a-z-]{0,20}):"
    r"(?P<account>[0-9]{12})?:(?P<resource>[a-z-]+)/(?P<name>.+)$"
)
_BEDROCK_ACTIONS_ON_ARN = ("inference-profile", "foundation-model")
_MODEL_FIX = (
    "use a foundation model id (anthropic.claude-3-haiku-20240307-v1:0), a system profile id "
    "(us.anthropic.claude-sonnet-4-5-20250929-v1:0, global.…) or the ARN of either"
)


class ProfileSourceKind(StrEnum):
    """What an application inference profile copies from (the ``kind`` of a :class:`ModelSource`).

    Not :class:`inference_constructs.spec.ModelSourceKind`, which says where a SageMaker container gets its weights.
    """

    FOUNDATION_MODEL = "foundation-model"
    """A single-Region foundation model: requests stay in the deploy Region."""
    CROSS_REGION_PROFILE = "cross-region-profile"
    """A system-defined cross-Region (geographic or global) profile: requests may leave the Region."""
    UNRESOLVED = "unresolved"
    """A CDK token (e.g. a CfnParameter): used as the CopyFrom ARN, its kind is unknown at synth."""


class Residency(StrEnum):
    """Where a profile's requests may be processed."""

    ANY = "any"
    """Cross-Region and global profiles are allowed (flagged in the plan)."""
    SINGLE_REGION = "single-region"
    """Only a foundation model in the deploy Region is allowed."""


@dataclass(frozen=True)
class ModelSource:
    """A parsed ``model`` string: the thing an application inference profile copies.

    Build it with :meth:`parse`. ``model_id`` is the bare foundation model id (no geography prefix);
    ``profile_id`` is the system profile id (``us.<model id>``) for cross-Region sources.
    """

    value: str
    kind: ProfileSourceKind
    model_id: str | None = None
    profile_id: str | None = None
    geography: Geography | None = None
    arn: str | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def parse(cls, value: str, *, path: str = "model") -> ModelSource:
        """Parse ``value`` or raise one :class:`InferenceConfigError` naming ``path``."""
        problems = ProblemCollector()
        source = cls._parse(value, path, problems)
        problems.raise_if_any()
        assert source is not None
        return source

    @classmethod
    def _parse(cls, value: object, path: str, problems: ProblemCollector) -> ModelSource | None:
        if is_unresolved(value):
            return cls(value=str(value), kind=ProfileSourceKind.UNRESOLVED)
        if not isinstance(value, str) or not value:
            problems.add(path, f"{value!r} is not a model id or ARN", _MODEL_FIX)
            return None
        if value.startswith("arn:"):
            return cls._parse_arn(value, path, problems)
        return cls._parse_id(value, path, problems)

    @classmethod
    def _parse_arn(cls, value: str, path: str, problems: ProblemCollector) -> ModelSource | None:
        match = _ARN_PATTERN.match(value)
        if match is None:
            problems.add(path, f"{value!r} is not a bedrock ARN", _MODEL_FIX)
            return None
        resource, name = match["resource"], match["name"]
        if resource == "application-inference-profile":
            problems.add(
                path,
                f"{value!r} is an application inference profile, which cannot be copied",
                "copy the foundation model or system profile it was created from",
            )
            return None
        if resource not in _BEDROCK_ACTIONS_ON_ARN:
            problems.add(path, f"{value!r} names a bedrock {resource}, not a model", _MODEL_FIX)
            return None
        if resource == "foundation-model":
            if not FOUNDATION_MODEL_ID_PATTERN.match(name):
                problems.add(path, f"{name!r} in {value!r} is not a foundation model id", _MODEL_FIX)
                return None
            return cls(value=value, kind=ProfileSourceKind.FOUNDATION_MODEL, model_id=name, arn=value)
        prefix, _, model_id = name.partition(".")
        if not model_id or not FOUNDATION_MODEL_ID_PATTERN.match(model_id):
            problems.add(path, f"{name!r} in {value!r} is not a <geography>.<model id> profile id", _MODEL_FIX)
            return None
        return cls._system_profile(value, name, model_id, geography_for_prefix(prefix), arn=value)

    @classmethod
    def _parse_id(cls, name: str, path: str, problems: ProblemCollector) -> ModelSource | None:
        prefix, _, rest = name.partition(".")
        geography = geography_for_prefix(prefix)
        if geography is not None:
            if not FOUNDATION_MODEL_ID_PATTERN.match(rest):
                problems.add(path, f"{rest!r} after {prefix!r}. is not a foundation model id", _MODEL_FIX)
                return None
            return cls._system_profile(name, name, rest, geography)
        if not FOUNDATION_MODEL_ID_PATTERN.match(name):
            problems.add(path, f"{name!r} is not a foundation model id or system profile id", _MODEL_FIX)
            return None
        return cls(value=name, kind=ProfileSourceKind.FOUNDATION_MODEL, model_id=name)

    @classmethod
    def _system_profile(
        cls, value: str, profile_id: str, model_id: str, geography: Geography | None, *, arn: str | None = None
    ) -> ModelSource:
        """A system cross-Region profile ``<geography>.<model id>``, given as ``value`` (its id or ``arn``)."""
        return cls(value, ProfileSourceKind.CROSS_REGION_PROFILE, model_id, profile_id, geography, arn)

    # ------------------------------------------------------------------ decisions
    @property
    def leaves_region(self) -> bool:
        """True when requests may be processed outside the deploy Region.

        Cross-Region (geographic or global) profiles route across Regions; an unresolved token is
        treated as able to leave, since it cannot be checked. A foundation model stays.
        """
        return self.kind is not ProfileSourceKind.FOUNDATION_MODEL

    @property
    def is_global(self) -> bool:
        """True for a ``global.`` profile (any commercial Region worldwide)."""
        return self.geography is not None and self.geography.any_commercial_region

    @property
    def geography_prefix(self) -> str | None:
        """``us``, ``eu``, ``global``…; the raw prefix for an unknown geography; None otherwise."""
        if self.geography is not None:
            return self.geography.prefix
        if self.profile_id is not None:
            return self.profile_id.partition(".")[0]
        return None

    def destination_regions(self, deploy_region: str | None = None) -> tuple[str, ...] | None:
        """Regions a request may be served in; None when any Region is possible or it is unknown.

        A foundation model stays in its ARN's Region, else the deploy Region (None when the stack is
        region-agnostic and no ``deploy_region`` is given).
        """
        if self.kind is ProfileSourceKind.FOUNDATION_MODEL:
            pinned = _arn_region(self.arn)
            region = pinned or deploy_region
            return (region,) if region else None
        if self.geography is None or self.geography.any_commercial_region:
            return None
        return self.geography.destination_regions

    def copy_from_arn(self, *, partition: str, region: str, account: str) -> str:
        """The ``ModelSource.CopyFrom`` ARN: as given, or built in the deploy Region from an id."""
        if self.arn is not None or self.kind is ProfileSourceKind.UNRESOLVED:
            return self.arn or self.value
        if self.kind is ProfileSourceKind.FOUNDATION_MODEL:
            return f"arn:{partition}:bedrock:{region}::foundation-model/{self.model_id}"
        return f"arn:{partition}:bedrock:{region}:{account}:inference-profile/{self.profile_id}"

    def invoke_resource_arns(self, *, partition: str, region: str, account: str) -> tuple[str, ...]:
        """ARNs besides the application profile that InvokeModel must be allowed on.

        - foundation model: the CopyFrom ARN only;
        - geographic profile: the system profile, plus ``foundation-model/<id>`` in every destination
          Region of the geography (:mod:`regions` table);
        - ``global.``: the system profile, the Region-less global model ARN
          ``arn:<p>:bedrock:::foundation-model/<id>`` and ``arn:<p>:bedrock:*::foundation-model/<id>``
          (destinations are all commercial Regions, which no fixed list covers);
        - unknown geography: the system profile and ``foundation-model/<id>`` in every Region (``*``);
        - unresolved token: the token ARN only (the model id is unknown at synth).
        """
        source_arn = self.copy_from_arn(partition=partition, region=region, account=account)
        if self.kind is not ProfileSourceKind.CROSS_REGION_PROFILE:
            return (source_arn,)
        part = _arn_partition(self.arn) or partition
        model = f"foundation-model/{self.model_id}"
        if self.geography is None:
            return (source_arn, f"arn:{part}:bedrock:*::{model}")
        if self.geography.any_commercial_region:
            return (source_arn, f"arn:{part}:bedrock:::{model}", f"arn:{part}:bedrock:*::{model}")
        return (source_arn, *(f"arn:{part}:bedrock:{r}::{model}" for r in self.geography.destination_regions))

    @property
    def grants_any_region(self) -> bool:
        """True when :meth:`invoke_resource_arns` contains a ``*`` Region wildcard."""
        return self.kind is ProfileSourceKind.CROSS_REGION_PROFILE and (
            self.geography is None or self.geography.any_commercial_region
        )


def source_region_requirement(source: ModelSource, needed_by: Sequence[str]) -> RegionRequirement | None:
    """Where the system profile ``source`` copies can be copied from, when its ``CopyFrom`` ARN is built in the deploy
    Region (a profile *id*, not an ARN): the geography's source Regions, or for ``global.`` every Region outside the
    commercial partition refused. None for a foundation model, an ARN, an unknown geography or a token."""
    geography = source.geography
    if source.kind is not ProfileSourceKind.CROSS_REGION_PROFILE or source.arn is not None or geography is None:
        return None
    if geography.any_commercial_region:
        known = sorted({*load_resource_regions().regions, *load_snapshot().domains})
        excluded = [r for r in known if r.startswith(NON_COMMERCIAL_PREFIXES)]
        return profile_source_requirement(geography.prefix, geography.description, (), needed_by, excluded=excluded)
    return profile_source_requirement(geography.prefix, geography.description, geography.source_regions, needed_by)


def _arn_region(arn: str | None) -> str | None:
    match = _ARN_PATTERN.match(arn) if arn else None
    return (match["region"] or None) if match else None


def _arn_partition(arn: str | None) -> str | None:
    match = _ARN_PATTERN.match(arn) if arn else None
    return match["partition"] if match else None


# ---------------------------------------------------------------------------- validation


def check_model(value: object, *, path: str = "model") -> list[str]:
    """Problems with a ``model`` value (empty when valid or an unresolved token)."""
    problems = ProblemCollector()
    ModelSource._parse(value, path, problems)
    return problems.problems


@dataclass(frozen=True)
class _Wording:
    """How the problems of one free-text profile property name it and say what to change."""

    what: str
    empty_fix: str
    pattern_fix: str
    quote_when_long: bool = False
    """Whether a value over the maximum length is quoted in its message (a 200-character description is not)."""


_NAME_WORDING = _Wording(
    what="profile name",
    empty_fix="give the profile a name of 1-64 characters",
    pattern_fix="use letters and digits, each optionally followed by one space, '_' or '-' (^([0-9a-zA-Z][ _-]?)+$)",
    quote_when_long=True,
)
_DESCRIPTION_WORDING = _Wording(
    what="description",
    empty_fix="omit it or give 1-200 characters",
    pattern_fix="use letters, digits, ':' and '.', each optionally followed by one space, '_' or '-'",
)


def _check_text(value: object, path: str, pattern: re.Pattern[str], max_length: int, wording: _Wording) -> list[str]:
    """Problems with a free-text ``value``: empty (or not a string), longer than ``max_length``, or off ``pattern``."""
    problems = ProblemCollector()
    if not isinstance(value, str) or not value:
        problems.add(path, f"{value!r} is empty", wording.empty_fix)
        return problems.problems
    if len(value) > max_length:
        subject = f"{value!r} is" if wording.quote_when_long else "is"
        problems.add(path, f"{subject} {len(value)} characters long", f"use at most {max_length} characters")
    if not pattern.match(value):
        problems.add(path, f"{value!r} is not a valid {wording.what}", wording.pattern_fix)
    return problems.problems


def check_name(name: object, *, path: str = "name") -> list[str]:
    """Problems with an ``InferenceProfileName`` (required; 1-64; ``^([0-9a-zA-Z][ _-]?)+$``)."""
    return [] if is_unresolved(name) else _check_text(name, path, NAME_PATTERN, NAME_MAX_LENGTH, _NAME_WORDING)


def check_description(description: object, *, path: str = "description") -> list[str]:
    """Problems with a ``Description`` (1-200; ``^([0-9a-zA-Z:.][ _-]?)+$``); None is fine."""
    if description is None or is_unresolved(description):
        return []
    return _check_text(description, path, DESCRIPTION_PATTERN, DESCRIPTION_MAX_LENGTH, _DESCRIPTION_WORDING)


def check_tags(tags: Mapping[str, str] | None, *, path: str = "tags") -> list[str]:
    """Problems with profile tags: at most 200; key 1-128 and value 0-256 of ``[a-zA-Z0-9 ._:/=+@-]``;
    keys starting with ``aws:`` are reserved by AWS."""
    problems = ProblemCollector()
    if not tags:
        return []
    if len(tags) > MAX_TAGS:
        problems.add(path, f"{len(tags)} tags", f"use at most {MAX_TAGS}")
    allowed = "use letters, digits, spaces and . _ : / = + @ -"
    for raw_key, value in tags.items():
        key = str(raw_key)
        if not is_unresolved(key):
            if not key or len(key) > TAG_KEY_MAX_LENGTH:
                problems.add(f"{path}.{key}", f"key is {len(key)} characters long", "use 1-128 characters")
            if not TAG_PATTERN.match(key):
                problems.add(f"{path}.{key}", f"key {key!r} has characters tags do not allow", allowed)
            if key.lower().startswith("aws:"):
                problems.add(f"{path}.{key}", "keys starting with 'aws:' are reserved for AWS", "use another prefix")
        if not is_unresolved(value):
            if not isinstance(value, str):
                problems.add(f"{path}.{key}", f"value {value!r} is not a string", "quote it")
                continue
            if len(value) > TAG_VALUE_MAX_LENGTH:
                problems.add(f"{path}.{key}", f"value is {len(value)} characters long", "use at most 256 characters")
            if not TAG_PATTERN.match(value):
                problems.add(f"{path}.{key}", f"value {value!r} has characters tags do not allow", allowed)
    return problems.problems


def check_residency(source: ModelSource | None, residency: Residency, *, path: str = "residency") -> list[str]:
    """Problems when ``residency: single-region`` meets a source whose requests may leave the Region."""
    if residency is not Residency.SINGLE_REGION or source is None or not source.leaves_region:
        return []
    if source.kind is ProfileSourceKind.UNRESOLVED:
        what = "the model is an unresolved token, so single-region residency cannot be verified"
    else:
        where = "any commercial Region" if source.is_global else f"the {source.geography_prefix} geography"
        what = f"{source.value!r} is a cross-Region profile; requests may be served anywhere in {where}"
    return [f"{path}: {what}; use the foundation model id ({source.model_id or '<model id>'}) or set residency: any"]


def check_profile(
    *,
    name: object,
    model: object,
    tags: Mapping[str, str] | None = None,
    description: object = None,
    residency: Residency = Residency.ANY,
    max_output_tokens: object = None,
    path: str = "",
) -> list[str]:
    """Every problem of one profile; ``path`` prefixes each key (``bedrock.profiles[1]``)."""

    def key(k: str) -> str:
        return f"{path}.{k}" if path else k

    problems = ProblemCollector()
    problems.extend(check_name(name, path=key("name")))
    model_problems = check_model(model, path=key("model"))
    problems.extend(model_problems)
    problems.extend(check_tags(tags, path=key("tags")))
    problems.extend(check_description(description, path=key("description")))
    if not model_problems and isinstance(model, str):
        problems.extend(check_residency(ModelSource.parse(model), residency, path=key("residency")))
    if (
        max_output_tokens is not None
        and not is_unresolved(max_output_tokens)
        and (isinstance(max_output_tokens, bool) or not isinstance(max_output_tokens, int) or max_output_tokens < 1)
    ):
        problems.add(key("max_output_tokens"), f"{max_output_tokens!r} is not allowed", "use a whole number >= 1")
    return problems.problems


def raise_if_problems(problems: list[str]) -> None:
    """Raise one :class:`InferenceConfigError` when ``problems`` is not empty."""
    if problems:
        raise InferenceConfigError(problems)


def __getattr__(name: str) -> Any:
    """``ModelSourceKind``, the old name of :class:`ProfileSourceKind`: deprecated, removed in the next release."""
    if name == "ModelSourceKind":
        warnings.warn(
            "inference_constructs.bedrock's ModelSourceKind is deprecated and removed in the next release; use "
            "inference_constructs.bedrock.ProfileSourceKind (inference_constructs.ModelSourceKind is where a "
            "SageMaker model's weights come from)",
            DeprecationWarning,
            stacklevel=2,
        )
        return ProfileSourceKind
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
