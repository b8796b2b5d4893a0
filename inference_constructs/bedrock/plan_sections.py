"""The Bedrock sections of the plan document as typed values (pure; no ``aws_cdk``): one :class:`ProfilePlan`
per application inference profile, one :class:`RouterPlan` per prompt router, and the account's
:class:`InvocationLoggingPlan`. Each renders its ``inference-plan.json`` entry with ``to_json``.

The nested cost figures (``token_economics``, a router's ``cost_range``) and a guardrail's entry are the pricing
and guardrail modules' own JSON-ready documents, carried as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any


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
        return {
            "name": self.name,
            "profile_name": self.profile_name,
            "replacement": self.replacement,
            "model": self.model,
            "source_kind": self.source_kind,
            "model_id": self.model_id,
            "geography": self.geography,
            "destination_regions": None if self.destination_regions is None else list(self.destination_regions),
            "leaves_region": self.leaves_region,
            "residency": self.residency,
            "max_output_tokens": self.max_output_tokens,
            "output_burndown_rate": self.output_burndown_rate,
            "cache_checkpoint_min_tokens": self.cache_checkpoint_min_tokens,
            "regions_table_as_of": self.regions_table_as_of,
            "guardrail": None if self.guardrail is None else dict(self.guardrail),
            "guidance": list(self.guidance),
            "warnings": list(self.warnings),
            "tags": dict(self.tags),
            "token_economics": None if self.token_economics is None else dict(self.token_economics),
        }


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
        return {
            "name": self.name,
            "router_name": self.router_name,
            "models": list(self.models),
            "fallback_model": self.fallback_model,
            "response_quality_difference": self.response_quality_difference,
            "family": self.family,
            "tags": dict(self.tags),
            "replacement": self.replacement,
            "invoke": self.invoke,
            "cost_range": None if self.cost_range is None else dict(self.cost_range),
        }


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
        return {
            "destinations": list(self.destinations),
            "bucket": self.bucket,
            "retention_days": self.retention_days,
            "data": dict(self.data),
            "overwrite_existing": self.overwrite_existing,
            "scope": self.scope,
            "warnings": list(self.warnings),
        }
