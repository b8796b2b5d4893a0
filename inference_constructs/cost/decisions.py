"""What the cost controls watch, so they share an account safely (pure decisions; no aws_cdk). The plan decides
them from the config's ``cost:`` block (:func:`inference_constructs.plan.cost.decide_cost`).

Rules (sources and tests in ``docs/aws-rules.md``):

* **Anomaly monitor.** An account may hold one DIMENSIONAL monitor per dimension, and many accounts already
  have the default ``SERVICE`` one, so creating another fails ("Limit exceeded on dimensional spend monitor
  creation"). The platform therefore creates a CUSTOM monitor whose ``MonitorSpecification`` selects its own
  spend (tag :data:`PLATFORM_TAG` = platform name), or subscribes to an existing monitor the config names.
* **Budget.** A budget without a filter counts the whole account's spend, and its deny action would then freeze
  this platform's endpoints for another team's spend. The budget filters on :data:`PLATFORM_TAG` (scope
  ``platform``, the default) unless the config asks for the whole account (scope ``account``).
* **Activation.** Cost Explorer, budgets and monitors see a user tag only once it is an active cost allocation
  tag, so :data:`PLATFORM_TAG` joins the keys the cost stack activates whenever a filter uses it.
* **Deny roles.** ``IamActionDefinition.Roles`` takes role *names*, resolved in the account that holds the budget
  action: a role ARN of another account would freeze a same-named role of the deploy account, or nothing. Every
  deny role must be in the deploy account (``account``, or one account when the templates are
  environment-agnostic).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from inference_constructs.cost.capacity_tags import PLATFORM_TAG
from inference_constructs.observability.decisions import AlarmDecision

_ACCOUNT_OF_ARN = re.compile(r"^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(\d{12}):")


def account_of(arn: str) -> str | None:
    """The 12-digit account id of ``arn``, or None when it has none (or is not an ARN)."""
    match = _ACCOUNT_OF_ARN.match(arn)
    return match.group(1) if match else None


#: How Budgets spells a user-defined cost allocation tag key in its legacy ``CostFilters`` (``TagKeyValue``:
#: ``user:<key>$<value>``). Whether ``FilterExpression.Tags.Key`` takes the key with or without it is UNCONFIRMED:
#: botocore's ``budgets`` model (``TagValues.Key``: "The key for the tag") and the CloudFormation schema say
#: nothing, Cost Explorer's ``Expression`` examples use the bare key. So the budget filter names both forms.
USER_TAG_PREFIX = "user:"
#: What a budget with a ``FilterExpression`` aggregates. botocore ``budgets`` CreateBudget: "Either FilterExpression
#: and Metrics or CostFilters and CostTypes, not both or a different combination"; unblended cost is what the legacy
#: ``CostTypes`` defaults (``UseBlended`` and ``UseAmortized`` false) counted.
BUDGET_METRIC = "UnblendedCost"


def platform_expression(platform: str) -> dict[str, Any]:
    """The Budgets ``FilterExpression`` selecting the spend tagged ``inference:platform = platform``.

    An ``Or`` of the tag key as it is and with :data:`USER_TAG_PREFIX` (which form Budgets matches is
    UNCONFIRMED); a cost line carries the tag under one key, so the two never count the same spend twice.
    ``MatchOptions`` ``EQUALS`` is in the botocore ``budgets`` ``MatchOption`` enum.
    """
    return {
        "Or": [
            {"Tags": {"Key": key, "MatchOptions": ["EQUALS"], "Values": [platform]}}
            for key in (PLATFORM_TAG, USER_TAG_PREFIX + PLATFORM_TAG)
        ]
    }


def monitor_expression(platform: str) -> dict[str, Any]:
    """The anomaly monitor's ``MonitorSpecification`` for the spend tagged ``inference:platform = platform``.

    botocore ``ce`` ``AnomalyMonitor.MonitorSpecification``: a customer managed monitor tracks cost allocation tags
    with ``{"Tags": {"Key": "your tag key", "Values": [...]}}`` (the bare key, at most 10 values); ``TagValues``:
    "MatchOptions is only applicable for actions related to cost category", so none is sent.
    """
    return {"Tags": {"Key": PLATFORM_TAG, "Values": [platform]}}


#: Actual-spend percents of the budget limit that notify (the forecast notifies at 100 %).
BUDGET_NOTIFY_AT_PERCENT = (80.0, 100.0)
#: How often Cost Anomaly Detection sends the e-mail subscription its findings.
ANOMALY_FREQUENCY = "DAILY"


@dataclass(frozen=True)
class BudgetPlan:
    """The monthly budget (``cost.budget``): its limit, who is notified at which actual-spend percents, and
    which roles are denied new endpoints at ``deny_at_percent``; ``metrics`` (:data:`BUDGET_METRIC`) when it has a
    ``FilterExpression``, else none (the whole account, counted by the legacy defaults)."""

    monthly_limit_usd: float
    notify_emails: tuple[str, ...] = ()
    notify_at_percent: tuple[float, ...] = BUDGET_NOTIFY_AT_PERCENT
    deny_role_arns: tuple[str, ...] = ()
    deny_at_percent: float = 100
    metrics: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The budget's plan entry."""
        return {
            "monthly_limit_usd": self.monthly_limit_usd,
            "metrics": list(self.metrics),
            "notify_emails": list(self.notify_emails),
            "notify_at_percent": list(self.notify_at_percent),
            "deny_role_arns": list(self.deny_role_arns),
            "deny_at_percent": self.deny_at_percent,
        }


@dataclass(frozen=True)
class AnomalySubscriptionPlan:
    """The anomaly subscription (``cost.anomaly_monitor``): who is told of anomalies whose total impact reaches
    ``threshold_usd``, how often."""

    notify_email: str
    threshold_usd: float = 100
    frequency: str = ANOMALY_FREQUENCY


@dataclass(frozen=True)
class CostPlan:
    """What the cost stack builds, decided from the ``cost:`` block.

    Attributes
    ----------
    activation_keys:
        Tag keys the stack activates: the config's ``activate_cost_allocation_tags``, then :data:`PLATFORM_TAG`
        when a budget or monitor filters on it, then ``inference:capacity`` when the endpoints carry capacity tags.
    budget_filter:
        The budget's ``FilterExpression``; None counts the whole account (scope ``account``) or there is no budget.
    monitor:
        ``custom`` (a CUSTOM monitor on ``monitor_specification``), ``existing`` (subscribe to
        ``existing_monitor_arn``) or None (no anomaly monitoring).
    deny_account:
        The account every deny role is in (the one the cost stack must be deployed to), or None without roles.
    budget:
        The budget, or None without ``cost.budget.monthly_limit_usd``.
    subscription:
        The anomaly subscription, or None without ``cost.anomaly_monitor.notify_email``.
    capacity_tags:
        True when the hosting stacks tag each endpoint with its baseline and peak capacity.
    required_tag_keys:
        Tag keys every taggable resource must carry (a missing one is a synth error): the activated keys the
        library does not set per endpoint.
    tag_activation_alarm:
        The pending-keys alarm of the tag activation, or None without keys to activate.
    """

    activation_keys: tuple[str, ...] = ()
    budget_filter: dict[str, Any] | None = None
    monitor: str | None = None
    monitor_specification: dict[str, Any] | None = None
    existing_monitor_arn: str | None = None
    deny_account: str | None = None
    warnings: tuple[str, ...] = field(default=())
    budget: BudgetPlan | None = None
    subscription: AnomalySubscriptionPlan | None = None
    capacity_tags: bool = True
    required_tag_keys: tuple[str, ...] = ()
    tag_activation_alarm: AlarmDecision | None = None

    @property
    def needs_stack(self) -> bool:
        """True when the plan asks for any cost resource (activation, budget or anomaly monitor)."""
        return bool(self.activation_keys or self.budget or self.monitor)

    def to_json(self) -> dict[str, Any]:
        """The ``cost`` section of the plan document."""
        return {
            "activate_cost_allocation_tags": list(self.activation_keys),
            "budget_filter": self.budget_filter,
            "anomaly_monitor": self.monitor,
            "anomaly_monitor_specification": self.monitor_specification,
            "existing_monitor_arn": self.existing_monitor_arn,
            "deny_roles_account": self.deny_account,
            "budget": None if self.budget is None else self.budget.to_json(),
            "anomaly_subscription": None
            if self.subscription is None
            else {
                "notify_email": self.subscription.notify_email,
                "threshold_usd": self.subscription.threshold_usd,
                "frequency": self.subscription.frequency,
            },
            "capacity_tags": self.capacity_tags,
            "required_tag_keys": list(self.required_tag_keys),
            "tag_activation_alarm": None if self.tag_activation_alarm is None else self.tag_activation_alarm.to_dict(),
        }
