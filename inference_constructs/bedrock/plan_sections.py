"""The Bedrock sections of the plan document as typed values (pure; no ``aws_cdk``): one :class:`ProfilePlan`
per application inference profile, one :class:`RouterPlan` per prompt router, and the account's
:class:`InvocationLoggingPlan`. Each renders its ``inference-plan.json`` entry with ``to_json``.

An entry holds every field of its value, in declaration order, under the field's name: adding a field adds it to
the plan document. The nested cost figures (``token_economics``, a router's ``cost_range``) and a guardrail's entry
are the pricing and guardrail modules' own JSON-ready documents, carried as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def _json_entry(section: DataclassInstance) -> dict[str, Any]:
    """Every field of ``section`` in declaration order: tuples as lists, mappings as dicts, None as it is."""
    return {f.name: _json_value(getattr(section, f.name)) for f in fields(section)}


def _json_value(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


@dataclass(frozen=True)
class ProfilePlan:
    """What the plan says of one application inference profile.

    ``destination_regions`` is None for any commercial Region (or the deploy Region when it is not known);
    ``guardrail`` what the profile's grants enforce (None without one); ``tags`` the profile's own tags (the
    platform's are added to every resource); ``token_economics`` the priced options of its ``workload`` (None
    without one).
    """

    name: str
    profile_name: str
    replacement: str
    model: str
    source_kind: str
    model_id: str | None
    geography: str | None
    destination_regions: tuple[str, ...] | None
    leaves_region: bool
    residency: str
    max_output_tokens: int | None
    output_burndown_rate: float | None
    cache_checkpoint_min_tokens: int | None
    regions_table_as_of: str
    guardrail: Mapping[str, Any] | None
    guidance: tuple[str, ...]
    warnings: tuple[str, ...]
    tags: Mapping[str, str] = field(default_factory=dict)
    token_economics: Mapping[str, Any] | None = None

    def priced(self, economics: Mapping[str, Any] | None) -> ProfilePlan:
        """This entry with its token economics, and their warnings added to its own."""
        added = tuple(f"bedrock profile {self.name}: {w}" for w in (economics or {}).get("warnings", []))
        return replace(self, token_economics=economics, warnings=self.warnings + added)

    def to_json(self) -> dict[str, Any]:
        """The ``bedrock[]`` entry of the plan document."""
        return _json_entry(self)


@dataclass(frozen=True)
class RouterPlan:
    """What the plan says of one prompt router: its physical name (create-only properties hashed in), models,
    fallback, quality criterion, family, tags, what replaces it, how callers invoke it, and its cost range."""

    name: str
    router_name: str
    models: tuple[str, ...]
    fallback_model: str
    response_quality_difference: float
    family: str | None
    tags: Mapping[str, str]
    replacement: str
    invoke: str
    cost_range: Mapping[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """The ``bedrock_routers[]`` entry of the plan document."""
        return _json_entry(self)


@dataclass(frozen=True)
class InvocationLoggingPlan:
    """What the plan says of the account's model invocation logging: destinations, the bucket (``created`` or
    an existing bucket's name, None without S3), retention, which data is delivered, whether an existing
    configuration is replaced, its scope and warnings."""

    destinations: tuple[str, ...]
    bucket: str | None
    retention_days: int
    data: Mapping[str, bool]
    overwrite_existing: bool
    scope: str
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The ``bedrock_invocation_logging`` section of the plan document."""
        return _json_entry(self)
