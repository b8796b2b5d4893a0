"""A monthly cost budget whose action freezes new SageMaker spend.

Budgets cannot stop running resources for SageMaker (the budget actions stop EC2 and RDS
instances only), so the guardrail applies an IAM deny policy on the actions that create or grow
endpoints to the roles that deploy them: running endpoints keep serving, new spend is frozen
until someone resets the action in the Budgets console.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import Stack
from aws_cdk import aws_budgets as budgets
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs._tokens import is_unresolved
from inference_constructs.aws_limits import ARNS
from inference_constructs.compliance import acknowledge
from inference_constructs.cost.decisions import BUDGET_METRIC, BUDGET_NOTIFY_AT_PERCENT, BudgetPlan, account_of
from inference_constructs.errors import ProblemCollector
from inference_constructs.region_rules import RegionRules
from inference_constructs.regions import account_requirement

DENIED_ACTIONS: tuple[str, ...] = (
    "sagemaker:CreateEndpoint",
    "sagemaker:CreateEndpointConfig",
    "sagemaker:UpdateEndpoint",
    "sagemaker:UpdateEndpointWeightsAndCapacities",
    "sagemaker:CreateInferenceComponent",
    "sagemaker:UpdateInferenceComponent",
    "sagemaker:UpdateInferenceComponentRuntimeConfig",
)
"""What the deny policy blocks: creating endpoints and endpoint configs, moving an endpoint to a
new (possibly larger) config, raising its instance count or inference-component copies by hand.
Auto scaling runs under Application Auto Scaling's service-linked role, which the policy is not
attached to, so endpoints keep scaling within their configured maximum; deletes stay allowed."""

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/(?:[\x21-\x7f]+/)?[\w+=,.@-]+$")
_MAX_SUBSCRIBERS = 10


def _sorted_keys(value: Any) -> Any:
    """``value`` with every mapping's keys in alphabetical order, recursively."""
    if isinstance(value, Mapping):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted_keys(v) for v in value]
    return value


class BudgetGuardrail(Construct):
    """Monthly cost budget with e-mail notifications and an automatic deny-new-endpoints action.

    Creates ``Resource`` (``AWS::Budgets::Budget``, COST, MONTHLY) with notifications on actual
    spend at each of ``notify_at_percent`` and on forecast spend at 100 %. When ``deny_role_arns``
    is set it also creates ``DenyPolicy`` (a managed policy denying :data:`DENIED_ACTIONS`),
    ``ExecutionRole`` (assumed by ``budgets.amazonaws.com``, allowed only to attach and detach
    that one policy on those roles) and ``Action`` (``AWS::Budgets::BudgetsAction``,
    APPLY_IAM_POLICY, automatic approval, at ``deny_at_percent`` of the limit).

    Parameters
    ----------
    monthly_limit_usd:
        Budget limit in USD per calendar month (config ``cost.budget.monthly_limit_usd``).
    notify_emails:
        Addresses that receive the notifications and the action's messages, at most 10
        (config ``cost.budget.notify_email``). Default: no notifications; then no deny action
        either, because a budget action needs a subscriber.
    notify_at_percent:
        Percentages of the limit at which actual spend notifies. Default: 80 and 100.
    deny_role_arns:
        Roles that get the deny policy when the action fires, 1-100 (config
        ``cost.budget.deny_role_arns``). Default: no action, the budget only notifies.
    deny_at_percent:
        Percentage of the limit at which actual spend applies the deny policy (config
        ``cost.budget.deny_new_endpoints_at_percent``). Default: 100.
    filter_expression:
        The spend the budget counts, as a Budgets ``FilterExpression`` (e.g.
        :func:`inference_constructs.cost.decisions.platform_expression`: spend tagged with the platform's name).
        Default: the whole account's spend, which lets other teams' spend trigger the deny action.
    metrics:
        How the budget aggregates (Budgets ``Metrics``), sent with ``filter_expression`` only (CreateBudget takes
        ``FilterExpression`` with ``Metrics``). Default: ``["UnblendedCost"]`` when there is a filter.
    budget_name:
        Budget name. Default: CloudFormation generates a unique name.
    path:
        Key path for problem messages. Default: ``cost.budget``.

    Raises
    ------
    InferenceConfigError
        Listing every invalid limit, percentage, address or role ARN, and every deny role outside the
        stack's account (a budget action names roles of its own account only).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        monthly_limit_usd: float,
        notify_emails: Sequence[str] = (),
        notify_at_percent: Sequence[float] = BUDGET_NOTIFY_AT_PERCENT,
        deny_role_arns: Sequence[str] = (),
        deny_at_percent: float = BudgetPlan.deny_at_percent,
        filter_expression: Mapping[str, Any] | None = None,
        metrics: Sequence[str] | None = None,
        budget_name: str | None = None,
        path: str = "cost.budget",
    ) -> None:
        super().__init__(scope, construct_id)
        self._validate(
            limit=monthly_limit_usd,
            emails=notify_emails,
            percents=notify_at_percent,
            role_arns=deny_role_arns,
            deny_percent=deny_at_percent,
            account=Stack.of(self).account,
            path=path,
        )
        # an environment-agnostic stack asserts the roles' account instead (InferenceAccount rule)
        for requirement in account_requirement(
            ARNS["deny_role_arns"].why,
            [(f"{path}.deny_role_arns[{i}]", arn) for i, arn in enumerate(deny_role_arns)],
        ):
            RegionRules.of(Stack.of(self)).require_account(requirement)
        subscribers = [
            budgets.CfnBudget.SubscriberProperty(subscription_type="EMAIL", address=a) for a in notify_emails
        ]
        notifications = [
            budgets.CfnBudget.NotificationWithSubscribersProperty(
                notification=budgets.CfnBudget.NotificationProperty(
                    notification_type=kind,
                    comparison_operator="GREATER_THAN",
                    threshold=float(percent),
                    threshold_type="PERCENTAGE",
                ),
                subscribers=subscribers,
            )
            for kind, percent in [("ACTUAL", p) for p in notify_at_percent] + [("FORECASTED", 100.0)]
        ]
        self.budget = budgets.CfnBudget(
            self,
            "Resource",
            budget=budgets.CfnBudget.BudgetDataProperty(
                budget_type="COST",
                time_unit="MONTHLY",
                budget_limit=budgets.CfnBudget.SpendProperty(amount=monthly_limit_usd, unit="USD"),
                budget_name=budget_name,
            ),
            notifications_with_subscribers=notifications if subscribers else None,
        )
        if filter_expression:
            # Keys in the order the typed ExpressionProperty renders them (alphabetical), so the template does not
            # depend on how the mapping was written.
            self.budget.add_property_override("Budget.FilterExpression", _sorted_keys(filter_expression))
            self.budget.add_property_override("Budget.Metrics", list(metrics or (BUDGET_METRIC,)))
        self.deny_policy: iam.ManagedPolicy | None = None
        self.execution_role: iam.Role | None = None
        self.action: budgets.CfnBudgetsAction | None = None
        if deny_role_arns and notify_emails:
            self._add_action(list(notify_emails), list(deny_role_arns), deny_at_percent)

    @property
    def budget_name(self) -> str:
        """Name of the budget (``Ref``)."""
        return self.budget.ref

    def _add_action(self, emails: list[str], role_arns: list[str], percent: float) -> None:
        roles = [iam.Role.from_role_arn(self, f"DenyRole{i}", arn, mutable=False) for i, arn in enumerate(role_arns)]
        self.deny_policy = iam.ManagedPolicy(
            self,
            "DenyPolicy",
            description="Applied by the budget action: denies creating or growing SageMaker endpoints",
            statements=[
                iam.PolicyStatement(
                    sid="DenyNewSageMakerInferenceSpend",
                    effect=iam.Effect.DENY,
                    actions=list(DENIED_ACTIONS),
                    resources=["*"],
                )
            ],
        )
        self.execution_role = iam.Role(
            self,
            "ExecutionRole",
            assumed_by=iam.ServicePrincipal("budgets.amazonaws.com"),
            description="Lets AWS Budgets attach and detach the deny policy on the listed roles only",
        )
        execution_policy = iam.ManagedPolicy(
            self,
            "ExecutionPolicy",
            description="AWS Budgets may attach and detach the deny policy, and nothing else, on the listed roles",
            roles=[self.execution_role],
            statements=[
                iam.PolicyStatement(
                    actions=["iam:AttachRolePolicy", "iam:DetachRolePolicy"],
                    resources=[r.role_arn for r in roles],
                    conditions={"ArnEquals": {"iam:PolicyARN": self.deny_policy.managed_policy_arn}},
                )
            ],
        )
        self.action = budgets.CfnBudgetsAction(
            self,
            "Action",
            budget_name=self.budget.ref,
            notification_type="ACTUAL",
            action_type="APPLY_IAM_POLICY",
            action_threshold=budgets.CfnBudgetsAction.ActionThresholdProperty(type="PERCENTAGE", value=percent),
            execution_role_arn=self.execution_role.role_arn,
            approval_model="AUTOMATIC",
            definition=budgets.CfnBudgetsAction.DefinitionProperty(
                iam_action_definition=budgets.CfnBudgetsAction.IamActionDefinitionProperty(
                    policy_arn=self.deny_policy.managed_policy_arn,
                    roles=[r.role_name for r in roles],
                )
            ),
            subscribers=[budgets.CfnBudgetsAction.SubscriberProperty(type="EMAIL", address=a) for a in emails],
        )
        self.action.node.add_dependency(execution_policy)
        acknowledge(
            self.deny_policy,
            "AwsSolutions-IAM5[Resource::*]",
            "a Deny statement: it grants nothing, and denying on * freezes endpoint creation for every name",
        )

    @staticmethod
    def _validate(  # noqa: C901, PLR0912 - one branch per budget setting's rule
        *,
        limit: float,
        emails: Sequence[str],
        percents: Sequence[float],
        role_arns: Sequence[str],
        deny_percent: float,
        account: str,
        path: str,
    ) -> None:
        problems = ProblemCollector()
        if not is_unresolved(limit) and not limit > 0:
            problems.add(f"{path}.monthly_limit_usd", f"{limit} is not allowed", "use an amount above 0")
        if len(emails) > _MAX_SUBSCRIBERS:
            problems.add(f"{path}.notify_email", f"{len(emails)} addresses given", "use at most 10")
        for i, address in enumerate(emails):
            if not is_unresolved(address) and not _EMAIL.match(address):
                problems.add(f"{path}.notify_email[{i}]", f"{address!r} is not an e-mail address", "use name@domain")
        for i, percent in enumerate(percents):
            if not 0 < percent <= 1000:
                problems.add(f"{path}.notify_at_percent[{i}]", f"{percent} is not allowed", "use 1..1000")
        if not is_unresolved(deny_percent) and not 0 < deny_percent <= 1000:
            problems.add(
                f"{path}.deny_new_endpoints_at_percent", f"{deny_percent} is not allowed", "use a percentage 1..1000"
            )
        if len(role_arns) > 100:
            problems.add(f"{path}.deny_role_arns", f"{len(role_arns)} roles given", "use at most 100")
        for i, arn in enumerate(role_arns):
            if is_unresolved(arn):
                continue
            if not _ROLE_ARN.match(arn):
                problems.add(
                    f"{path}.deny_role_arns[{i}]",
                    f"{arn!r} is not an IAM role ARN",
                    "use arn:aws:iam::<account>:role/<name>",
                )
            elif not is_unresolved(account) and account_of(arn) != account:
                problems.add(
                    f"{path}.deny_role_arns[{i}]",
                    f"role in account {account_of(arn)}, not the stack's account {account}",
                    "a budget action names roles of its own account only; list roles of this account",
                )
        if role_arns and not emails:
            problems.add(
                f"{path}.notify_email",
                "is required when deny_role_arns is set (a budget action needs a subscriber)",
                "set an address that is told when the deny policy is applied",
            )
        problems.raise_if_any()
