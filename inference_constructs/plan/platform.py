"""Every decision for one config: :class:`PlatformPlan`, what the stacks build and what ``inference-plan.json``
holds (made by :func:`~inference_constructs.plan.planner.plan_platform`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from inference_constructs.agents.runtime_plan import AgentRuntimeSpec
from inference_constructs.bedrock.inference_profile_plan import ProfileSpec
from inference_constructs.bedrock.invocation_logging_plan import InvocationLoggingSpec
from inference_constructs.bedrock.plan_sections import InvocationLoggingPlan, ProfilePlan, RouterPlan
from inference_constructs.bedrock.router_plan import RouterSpec
from inference_constructs.catalog import Catalog
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.cost.commitment import CommitmentRecommendation
from inference_constructs.cost.decisions import CostPlan
from inference_constructs.observability.decisions import ObservabilityPlan
from inference_constructs.plan.endpoint import EndpointDecisions
from inference_constructs.plan.table import plan_table
from inference_constructs.regions import AccountRequirement, RegionRequirement, load_resource_regions

__all__ = ["PlatformPlan"]


@dataclass(frozen=True)
class PlatformPlan:
    """Every decision for one config: what the stacks build and what ``inference-plan.json`` holds."""

    config: PlatformConfig
    endpoints: tuple[EndpointDecisions, ...]
    catalog: Catalog
    warnings: tuple[str, ...] = ()
    savings_plan: CommitmentRecommendation | None = None
    """The Savings Plan commitment sized to the instance-backed endpoints' schedules (None without any)."""
    bedrock: tuple[ProfilePlan, ...] = ()
    """What the plan says of each Bedrock profile, in config order."""
    profiles: tuple[ProfileSpec, ...] = ()
    """The Bedrock profiles to create, in config order."""
    bedrock_routers: tuple[RouterPlan, ...] = ()
    """What the plan says of each Bedrock prompt router, in config order."""
    routers: tuple[RouterSpec, ...] = ()
    """The Bedrock prompt routers to create, in config order."""
    regions: dict[str, tuple[RegionRequirement, ...]] = field(default_factory=dict)
    accounts: dict[str, tuple[AccountRequirement, ...]] = field(default_factory=dict)
    """What each part (a hosting stack's name, ``bedrock``, ``cost``) needs that not every region has."""
    bedrock_invocation_logging: InvocationLoggingPlan | None = None
    """What the plan says of the account's Bedrock model invocation logging; None when off."""
    cost: CostPlan = field(default_factory=CostPlan)
    """What the cost stack builds: activated keys, the budget, the anomaly monitor, the required tags."""
    name: str = ""
    """The platform's name: it prefixes every stack and endpoint name."""
    account: str | None = None
    """The account the stacks are bound to; None: environment-agnostic templates."""
    region: str | None = None
    """The Region the stacks are bound to; None: environment-agnostic templates."""
    tags: dict[str, str] = field(default_factory=dict)
    """Tags applied to every taggable resource: ``inference:platform`` = the platform's name, then the config's."""
    invocation_logging: InvocationLoggingSpec | None = None
    """The account's Bedrock model invocation logging (destinations, retention, data flags); None when off."""
    observability: ObservabilityPlan = field(default_factory=ObservabilityPlan)
    """Alarm topic subscription, alarm thresholds, the dashboard, X-Ray sampling, and the alarms outside the
    hosting stacks."""
    agents: tuple[AgentRuntimeSpec, ...] = ()
    """The ``agents:`` entries: runtimes the agents stack deploys, and existing ones (``runtime_id``) only listed."""

    @property
    def needs_bedrock_stack(self) -> bool:
        """True when the plan has any Bedrock profile, prompt router or invocation logging."""
        return bool(self.profiles or self.routers or self.invocation_logging is not None)

    def endpoints_by_stack(self) -> dict[str, list[EndpointDecisions]]:
        """Endpoints grouped by the hosting stack they were planned into, in stack order."""
        out: dict[str, list[EndpointDecisions]] = {}
        for e in self.endpoints:
            out.setdefault(e.stack, []).append(e)
        return out

    @property
    def baseline_usd_per_hour(self) -> float:
        """On-demand $/h of the always-on capacity (every endpoint at its minimum; an endpoint on a capacity
        reservation is prepaid and not counted)."""
        return round(
            sum(
                (e.price_per_hour_usd or 0.0) * e.config.capacity.min
                for e in self.endpoints
                if e.hosting.capacity_reservation is None
            ),
            4,
        )

    def to_json(self) -> dict[str, Any]:
        """The plan document (``docs/config.md``, "The plan")."""
        doc: dict[str, Any] = {
            "name": self.name,
            "account": self.account,
            "tags": dict(self.tags),
            "prices_as_of": self.catalog.prices_as_of,
            "prices_region": self.catalog.region,
            "price_source": self.catalog.price_source,
            "endpoints": [e.to_json() for e in self.endpoints],
            "baseline_usd_per_hour": self.baseline_usd_per_hour,
            "savings_plan": self.savings_plan.to_dict() if self.savings_plan is not None else None,
            "bedrock": [p.to_json() for p in self.bedrock],
            "bedrock_invocation_logging": None
            if self.bedrock_invocation_logging is None
            else self.bedrock_invocation_logging.to_json(),
            "regions": self.regions_json(),
            "bedrock_routers": [r.to_json() for r in self.bedrock_routers],
            "cost": self.cost.to_json(),
            "observability": self.observability.to_dict(),
            "warnings": list(self.warnings) + [w for e in self.endpoints for w in e.warnings],
        }
        if self.agents:  # only with the key: plans of configs without agents stay as they were
            doc["agents"] = [a.to_dict() for a in self.agents]
        return doc

    def region_requirements(self, part: str) -> tuple[RegionRequirement, ...]:
        """What ``part`` (a hosting stack's name, ``bedrock`` or ``cost``) needs that not every region has."""
        return self.regions.get(part, ())

    def account_requirements(self, part: str) -> tuple[AccountRequirement, ...]:
        """The accounts ``part`` (``bedrock`` or ``cost``) must be deployed to: those of the roles it names."""
        return self.accounts.get(part, ())

    def regions_json(self) -> dict[str, Any]:
        """The plan's ``regions`` entry: the regions every requirement allows (of those the data covers), and why;
        the account the named roles need (``deployable_accounts``), and why."""
        reqs = [r for part in self.regions.values() for r in part]
        accounts = [a for part in self.accounts.values() for a in part]
        covered = load_resource_regions().regions
        return {
            "deploy_region": self.config.region,
            "deployable_regions": [r for r in covered if all(req.available_in(r) for req in reqs)],
            "requirements": [
                {"needs": req.what, "needed_by": list(req.needed_by), "rule": req.assert_description} for req in reqs
            ],
            "deploy_account": self.config.account,
            "deployable_accounts": sorted({a.account for a in accounts}),
            "account_requirements": [
                {"account": a.account, "needed_by": list(a.needed_by), "rule": a.assert_description} for a in accounts
            ],
        }

    def to_json_text(self) -> str:
        """The plan document as deterministic, indented JSON."""
        return json.dumps(self.to_json(), indent=2, sort_keys=False) + "\n"

    def table(self) -> str:
        """A short human-readable table of the endpoint decisions."""
        return plan_table(
            self.endpoints,
            catalog=self.catalog,
            baseline_usd_per_hour=self.baseline_usd_per_hour,
            savings_plan=self.savings_plan,
            bedrock=self.bedrock,
            routers=self.bedrock_routers,
            warnings=self.to_json()["warnings"],
            observability=[
                *self.observability.summary_lines(f"{self.name}-observability"),
                *(_agent_line(a, self.name) for a in self.agents),
            ],
        )


def _agent_line(agent: AgentRuntimeSpec, platform: str) -> str:
    """The plan table's line of one agent."""
    if not agent.deployed:
        return f"agent {agent.name}: existing runtime {agent.runtime_id} (not deployed here)"
    life = agent.lifecycle
    return (
        f"agent {agent.name}: runtime {agent.runtime_name} in {platform}-agents; idle timeout "
        f"{life.idle_timeout_seconds} s, max lifetime {life.max_lifetime_seconds} s ({life.reason}); memory is billed "
        "until a session ends, CPU only while it runs"
    )
