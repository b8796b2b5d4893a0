"""Intelligent prompt routers (``AWS::Bedrock::IntelligentPromptRouter``): validation, name, plan entry.

Pure Python (no ``aws_cdk`` import). A router sends each request to one of two models of the same
family, predicting which answers well enough; the fallback model takes the requests where the cheaper
one is not predicted to come within ``response_quality_difference`` percent of it.

Rules, with sources (read 2026-12):

- [CFN] CloudFormation ``AWS::Bedrock::IntelligentPromptRouter`` schema (cfn-lint 1.58):
  ``PromptRouterName`` (required, 1-64, ``^([0-9a-zA-Z][ _-]?)+$``), ``Models`` and ``FallbackModel``
  (required; ``ModelArn`` a ``foundation-model``, ``inference-profile`` or
  ``application-inference-profile`` ARN), ``RoutingCriteria.ResponseQualityDifference`` (required,
  0-100), ``Description`` (1-200, ``^([0-9a-zA-Z:.][ _-]?)+$``), ``Tags`` (<= 200, updatable).
  Create-only: ``PromptRouterName``, ``Models``, ``FallbackModel``, ``RoutingCriteria``,
  ``Description``: any change replaces the router, and a replacement under the same name would
  collide, so the physical name carries a hash of those properties.
- [ROUTING] Amazon Bedrock User Guide, *Understanding intelligent prompt routing* (prompt-routing.html)
  and the *Amazon Bedrock Intelligent Prompt Routing* product page: a router routes "between different
  foundational models within the same model family"; "configure a prompt router with any two models
  from the same family with Anthropic (Haiku, Haiku 3.5, Claude Sonnet 3.5 v1, Claude Sonnet 3.5 v2),
  Meta Llama (3.1 8b, 70b, 3.2 11B, 90B and 3.3 70B) and Amazon Nova (Nova Lite and Nova Pro)".
- [INVOKE] A router is invoked with its own ARN as ``modelId``; an application inference profile
  cannot copy from it (``CopyFrom`` allows only ``foundation-model`` and ``inference-profile`` ARNs,
  see the application profile schema). IAM: ``bedrock:InvokeModel*`` on the router ARN and on every
  model it routes to (aws-cdk ``@aws-cdk/aws-bedrock-alpha`` ``PromptRouter.grantInvoke``: the router
  ARN plus each routing endpoint's own grant).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inference_constructs._tokens import is_unresolved
from inference_constructs.bedrock.model_source import (
    ModelSource,
    check_description,
    check_model,
    check_name,
    check_tags,
)
from inference_constructs.bedrock.plan_sections import RouterPlan
from inference_constructs.bedrock.pricing import PriceTable, Workload, deployment_of, load_prices, on_demand_option

NAME_HASH_LENGTH = 8
"""Hex characters of the replace-only-properties hash appended to the router name."""
MAX_BASE_NAME = 64 - 1 - NAME_HASH_LENGTH
"""55: the configured name plus ``-`` and the hash must fit ``PromptRouterName``'s 64 characters."""

ROUTER_FAMILIES: Mapping[str, tuple[str, ...]] = {
    "anthropic": (
        "anthropic.claude-3-haiku-20240307",
        "anthropic.claude-3-5-haiku-20241022",
        "anthropic.claude-3-5-sonnet-20240620",
        "anthropic.claude-3-5-sonnet-20241022",
    ),
    "meta": (
        "meta.llama3-1-8b-instruct",
        "meta.llama3-1-70b-instruct",
        "meta.llama3-2-11b-instruct",
        "meta.llama3-2-90b-instruct",
        "meta.llama3-3-70b-instruct",
    ),
    "amazon": ("amazon.nova-lite", "amazon.nova-pro"),
}
"""Model families a router supports [ROUTING], by foundation model id prefix."""


def router_family(model_id: str | None) -> str | None:
    """The router family of a bare foundation model id, or None when routers do not support it."""
    if not model_id:
        return None
    return next((f for f, prefixes in ROUTER_FAMILIES.items() if any(model_id.startswith(p) for p in prefixes)), None)


@dataclass(frozen=True)
class RouterSpec:
    """One entry of ``bedrock.routers`` (already type-checked by the config schema)."""

    name: str
    models: tuple[str, ...]
    fallback_model: str
    response_quality_difference: float
    description: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    invoke_role_arns: tuple[str, ...] = ()
    workload: Workload | None = None

    @property
    def sources(self) -> tuple[ModelSource, ...]:
        """The parsed models (call after :func:`check_router_specs`)."""
        return tuple(ModelSource.parse(m) for m in self.models)

    @property
    def fallback_source(self) -> ModelSource:
        """The parsed fallback model."""
        return ModelSource.parse(self.fallback_model)

    def replace_only_hash(self) -> str:
        """Hash of the create-only properties besides the name: models, fallback, criteria, description."""
        doc = {
            "models": sorted(self.models),
            "fallback": self.fallback_model,
            "response_quality_difference": self.response_quality_difference,
            "description": self.description,
        }
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:NAME_HASH_LENGTH]

    @property
    def physical_name(self) -> str:
        """``PromptRouterName``: ``<name>-<hash>``, so a change of a replace-only property gets a new name."""
        return f"{self.name}-{self.replace_only_hash()}"


def check_router_specs(specs: Sequence[RouterSpec], *, path: str = "bedrock.routers") -> list[str]:
    """Every problem in ``specs``: names, two models of one supported family, the fallback, tags."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        item = f"{path}[{i}]"
        problems += check_router(spec, path=item)
        first = seen.setdefault(spec.name, i)
        if first != i:
            problems.append(f"{item}.name: {spec.name!r} is already used by {path}[{first}]; choose another")
    return problems


def check_router(spec: RouterSpec, *, path: str = "router") -> list[str]:
    """Every problem of one router; key paths start with ``path``."""
    problems = check_name(spec.name, path=f"{path}.name")
    if not is_unresolved(spec.name) and len(spec.name) > MAX_BASE_NAME:
        problems.append(
            f"{path}.name: {spec.name!r} has {len(spec.name)} characters; use at most {MAX_BASE_NAME} "
            f"(the plan appends '-' and an {NAME_HASH_LENGTH}-character hash, PromptRouterName allows 64)"
        )
    rqd = spec.response_quality_difference
    if not is_unresolved(rqd) and not 0 <= rqd <= 100:
        problems.append(f"{path}.response_quality_difference: {rqd} is not allowed; use 0..100 (percent)")
    problems += check_description(spec.description, path=f"{path}.description")
    problems += check_tags(spec.tags, path=f"{path}.tags")
    problems += _model_problems(spec, path)
    return problems


def _model_problems(spec: RouterSpec, item: str) -> list[str]:
    problems: list[str] = []
    if len(spec.models) != 2 or len(set(spec.models)) != 2:
        return [
            f"{item}.models: {list(spec.models)!r} is not two different models; a prompt router routes between "
            "two models of one family (the cheaper one and the fallback)"
        ]
    families = []
    for j, model in enumerate(spec.models):
        model_problems = check_model(model, path=f"{item}.models[{j}]")
        problems += model_problems
        if model_problems or is_unresolved(model):
            continue
        source = ModelSource.parse(model)
        family = router_family(source.model_id)
        if family is None:
            supported = ", ".join(p for prefixes in ROUTER_FAMILIES.values() for p in prefixes)
            problems.append(
                f"{item}.models[{j}]: {model!r} is not a model intelligent prompt routing supports; "
                f"use one of {supported}"
            )
        families.append(family)
    if len(families) == 2 and None not in families and families[0] != families[1]:
        problems.append(
            f"{item}.models: {families[0]} and {families[1]} models cannot share a router; both models must be "
            "of the same family"
        )
    if spec.fallback_model not in spec.models:
        problems.append(
            f"{item}.fallback_model: {spec.fallback_model!r} is not one of models; name the stronger of the two models"
        )
    return problems


def router_cost_range(spec: RouterSpec, *, table: PriceTable | None = None) -> dict[str, Any] | None:
    """What the router's workload costs on-demand with every request on each model: the range from
    all-cheapest to all-fallback. None without a workload."""
    if spec.workload is None:
        return None
    t = table or load_prices()
    per_model: list[dict[str, Any]] = []
    for model, source in zip(spec.models, spec.sources, strict=True):
        row = t.find(source.model_id, deployment_of(source))
        option = on_demand_option(row, spec.workload) if row else None
        per_model.append(
            {
                "model": model,
                "fallback": model == spec.fallback_model,
                "monthly_usd": option.monthly_usd if option else None,
                "arithmetic": option.arithmetic if option else None,
                "price_row": row.to_dict() if row else None,
            }
        )
    known = [float(m["monthly_usd"]) for m in per_model if m["monthly_usd"] is not None]
    fallback = next(m for m in per_model if m["fallback"])
    return {
        "workload": spec.workload.to_dict(),
        "per_model": per_model,
        "all_cheapest_monthly_usd": min(known) if len(known) == 2 else None,
        "all_fallback_monthly_usd": fallback["monthly_usd"],
        "note": "the router picks per request; the bill falls between the two figures (router pricing: the "
        "tokens of the model that served each request)",
    }


def router_plan(spec: RouterSpec, *, table: PriceTable | None = None) -> RouterPlan:
    """What the plan says of one (valid) router."""
    return RouterPlan(
        name=spec.name,
        router_name=spec.physical_name,
        models=tuple(spec.models),
        fallback_model=spec.fallback_model,
        response_quality_difference=spec.response_quality_difference,
        family=router_family(spec.sources[0].model_id),
        tags=dict(spec.tags),
        replacement=(
            "PromptRouterName, Models, FallbackModel, RoutingCriteria and Description are create-only: changing "
            f"models, fallback, criteria or description gives a new name (hash {spec.replace_only_hash()}) and a "
            "new router ARN; callers invoke the router ARN and must switch to the new one"
        ),
        invoke="modelId = the router ARN; grants cover the router and both models",
        cost_range=router_cost_range(spec, table=table),
    )


__all__ = [
    "MAX_BASE_NAME",
    "NAME_HASH_LENGTH",
    "ROUTER_FAMILIES",
    "RouterSpec",
    "check_router",
    "check_router_specs",
    "router_cost_range",
    "router_family",
    "router_plan",
]
