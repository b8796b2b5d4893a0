"""Cost: Savings Plan commitment sizing, capacity tags, tag activation, budget guardrail, anomaly monitor.

The pure decision modules (:mod:`.commitment`, :mod:`.capacity_tags`) import no ``aws_cdk``; the
constructs are loaded on first access, so ``from inference_constructs.cost import
recommend_commitment`` stays fast and CDK-free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inference_constructs._lazy import lazy_exports
from inference_constructs.cost.capacity_tags import (
    BASELINE_INSTANCES_TAG,
    BASELINE_USD_PER_HOUR_TAG,
    CAPACITY_TAG,
    CAPACITY_TAG_KEYS,
    MAX_INSTANCES_TAG,
    capacity_kind,
    capacity_tags,
)
from inference_constructs.cost.commitment import (
    BurstAssumption,
    CapacitySchedule,
    CommitmentOption,
    CommitmentRecommendation,
    SavingsPlanPayment,
    SavingsPlanRate,
    api_commitment,
    commitment_cost,
    optimal_commitment,
    recommend_commitment,
    savings_plan_rate,
    weekly_profile,
)

if TYPE_CHECKING:
    from inference_constructs.cost.anomaly import CostAnomalyMonitor
    from inference_constructs.cost.budget import BudgetGuardrail
    from inference_constructs.cost.tag_activation import CostAllocationTagActivation
    from inference_constructs.cost.tags import RequireCostTags, apply_cost_tags

# The constructs load aws_cdk on first use, so the pure decisions import without it (the plan needs that).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CostAnomalyMonitor": "inference_constructs.cost.anomaly",
        "BudgetGuardrail": "inference_constructs.cost.budget",
        "CostAllocationTagActivation": "inference_constructs.cost.tag_activation",
        "RequireCostTags": "inference_constructs.cost.tags",
        "apply_cost_tags": "inference_constructs.cost.tags",
    },
)


__all__ = [
    "BASELINE_INSTANCES_TAG",
    "BASELINE_USD_PER_HOUR_TAG",
    "CAPACITY_TAG",
    "CAPACITY_TAG_KEYS",
    "MAX_INSTANCES_TAG",
    "BudgetGuardrail",
    "BurstAssumption",
    "CapacitySchedule",
    "CommitmentOption",
    "CommitmentRecommendation",
    "CostAllocationTagActivation",
    "CostAnomalyMonitor",
    "RequireCostTags",
    "SavingsPlanPayment",
    "SavingsPlanRate",
    "api_commitment",
    "apply_cost_tags",
    "capacity_kind",
    "capacity_tags",
    "commitment_cost",
    "optimal_commitment",
    "recommend_commitment",
    "savings_plan_rate",
    "weekly_profile",
]
