"""``TransactionSearch``: turn on X-Ray Transaction Search in an account (every span X-Ray receives is stored in the
``aws/spans`` log group; ``indexing_percentage`` % of them are indexed as trace summaries).

An account-level setting: an account has one, so a second ``TransactionSearch`` for the same account and Region
in one app is refused. CloudFormation can turn it on only while it is off (CloudWatch user guide, "Using
Transaction Search with AWS CloudFormation"); synth cannot see the account, so in an account where it is already
on the deploy fails at this resource: turn it off first (CloudWatch console, X-Ray traces, Transaction Search), or
leave the setting out of this app. Sources: ``cross_account_plan``.
"""

from __future__ import annotations

import math

from aws_cdk import Aws, Stack, Token
from aws_cdk import aws_logs as logs
from aws_cdk import aws_xray as xray
from constructs import Construct

from inference_constructs.errors import InferenceConfigError, Problem
from inference_constructs.observability.cross_account_plan import (
    DEFAULT_INDEXING_PERCENTAGE,
    TransactionSearchDecision,
    transaction_search_log_policy,
)

__all__ = ["TransactionSearch", "transaction_search_for"]


def _where(stack: Stack) -> tuple[str, str]:
    """The account and Region a stack deploys to, ``*`` for an environment-agnostic one (the CLI's account)."""
    account, region = stack.account, stack.region
    return (
        "*" if Token.is_unresolved(account) else account,
        "*" if Token.is_unresolved(region) else region,
    )


class TransactionSearch(Construct):
    """X-Ray Transaction Search for the account and Region of the enclosing stack: an
    ``AWS::XRay::TransactionSearchConfig`` and the ``AWS::Logs::ResourcePolicy`` that lets X-Ray write spans to
    ``aws/spans`` and ``/aws/application-signals/data``.

    Parameters
    ----------
    scope, construct_id:
        Where it is created; the stack's account and Region get Transaction Search.
    indexing_percentage:
        Share of spans indexed as trace summaries, 0..100. Default: 1, the rate the console sets, indexed at no
        charge.
    policy_name:
        Name of the log resource policy (create-only; unique in the account and Region). Default:
        ``TransactionSearchAccess``, as the CloudWatch user guide's template names it.

    Raises
    ------
    InferenceConfigError
        For a percentage outside 0..100, or a second ``TransactionSearch`` for the same account and Region in
        this app (an environment-agnostic stack counts as one account).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        indexing_percentage: float = DEFAULT_INDEXING_PERCENTAGE,
        policy_name: str = "TransactionSearchAccess",
    ) -> None:
        stack = Stack.of(scope)
        problems = []
        if isinstance(indexing_percentage, bool) or not (
            math.isfinite(indexing_percentage) and 0 <= indexing_percentage <= 100
        ):
            problems.append(Problem("indexing_percentage", f"{indexing_percentage} is not allowed", "use 0..100"))
        where = _where(stack)
        owner = next(
            (
                c.node.path
                for c in stack.node.root.node.find_all()
                if isinstance(c, TransactionSearch) and _where(Stack.of(c)) == where
            ),
            None,
        )
        if owner is not None:
            problems.append(
                Problem(
                    "transaction_search",
                    f"{owner} already turns on Transaction Search for account {where[0]} in {where[1]}",
                    "an account has one Transaction Search setting: keep one of the two",
                    "duplicate",
                )
            )
        if problems:
            raise InferenceConfigError(problems)
        super().__init__(scope, construct_id)
        policy = transaction_search_log_policy(Aws.PARTITION, Aws.REGION, Aws.ACCOUNT_ID)
        self.log_policy = logs.CfnResourcePolicy(
            self, "LogPolicy", policy_name=policy_name, policy_document=stack.to_json_string(policy)
        )
        """The ``AWS::Logs::ResourcePolicy`` X-Ray writes spans with."""
        self.resource = xray.CfnTransactionSearchConfig(self, "Resource", indexing_percentage=indexing_percentage)
        """The ``AWS::XRay::TransactionSearchConfig``."""
        self.resource.node.add_dependency(self.log_policy)
        self.indexing_percentage: float = indexing_percentage
        """Share of spans indexed as trace summaries."""


def transaction_search_for(
    scope: Construct, decision: TransactionSearchDecision | None, account: str
) -> TransactionSearch | None:
    """The plan's Transaction Search in ``scope`` (id ``TransactionSearch``) when ``decision`` lists ``account``
    (``"this"`` for the platform's own), else None."""
    if decision is None or account not in decision.accounts:
        return None
    return TransactionSearch(scope, "TransactionSearch", indexing_percentage=decision.indexing_percentage)
