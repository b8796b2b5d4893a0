"""Activate cost allocation tags from a stack: tags become cost dimensions only once activated."""

from __future__ import annotations

import json
from collections.abc import Sequence

import jsii
from aws_cdk import CustomResource, Duration, Names, Resource, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_events as events
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk.interfaces import aws_events as events_refs
from constructs import Construct

from inference_constructs._handler import HandlerFunction, handler_identity
from inference_constructs._kms import log_group_key
from inference_constructs._policy import allow
from inference_constructs.compliance import acknowledge
from inference_constructs.cost.capacity_tags import validate_cost_tags
from inference_constructs.errors import ProblemCollector
from inference_constructs.observability.alarm_resources import add_planned_alarm
from inference_constructs.observability.decisions import (
    PENDING_ALARM_AFTER_SECONDS,
    PENDING_KEYS_METRIC,
    TAG_ACTIVATION_NAMESPACE,
    TAG_ACTIVATION_RETRY_SECONDS,
    AlarmDecision,
    pending_keys_alarm,
)

#: Namespace and metric the function writes (embedded metric format) after every run (defined with the alarm
#: decision on them).
METRIC_NAMESPACE = TAG_ACTIVATION_NAMESPACE
PENDING_METRIC = PENDING_KEYS_METRIC
#: The function's timeout. The handler stops calling Cost Explorer while 20 s are left, to answer in time.
FUNCTION_TIMEOUT = Duration.minutes(2)
#: How long CloudFormation waits for the answer (``ServiceTimeout``, 1-3600 s; its default is 3600 s). Above the
#: function's timeout, so that one Lambda retry of a crashed run can still answer; never the default hour.
SERVICE_TIMEOUT = Duration.minutes(5)
#: A key still pending after this long alarms: a new tag takes up to 24 hours to appear in Cost Explorer.
PENDING_ALARM_AFTER = Duration.seconds(PENDING_ALARM_AFTER_SECONDS)
#: PutMetricAlarm: period x evaluation periods may not exceed 7 days (604,800 s) for periods of an hour or more.
_MAX_EVALUATION_SECONDS = 604_800


class CostAllocationTagActivation(Construct):
    """Activates user-defined cost allocation tag keys, and keeps retrying keys that are not visible yet.

    There is no CloudFormation resource for ``ce:UpdateCostAllocationTagsStatus``, so one Lambda
    function (``lambda/cost_allocation_tags``) serves as a custom resource and as the target of an
    EventBridge schedule:

    * On create/update it activates every key Cost Explorer lists and returns ``SUCCESS`` with
      ``ActiveKeys`` / ``PendingKeys`` / ``Warning``. A key appears only after a resource carrying
      it has been billed, which takes up to a day; such keys, throttling that outlasts five tries,
      and access denied are reported, never failed.
    * The schedule repeats the activation every ``retry_interval``, so pending keys become active
      without a redeploy; once all are active a run costs one read call.
    * Delete deactivates nothing (other stacks may rely on the keys) and never fails.

    Activation works only in the management (payer) account of an AWS Organization or in a
    standalone account; in a member account the function logs a message saying so and the stack
    still deploys.

    Parameters
    ----------
    tag_keys:
        Tag keys to activate (config ``cost.activate_cost_allocation_tags``), e.g. ``["team", "cost-center"]``.
    retry_interval:
        How often the schedule retries. Default: every 6 hours (four runs a day; a new key is
        usually visible within 24 hours).
    log_retention:
        Retention of the function's log group. Default: one year.
    log_encryption_key:
        KMS key for the log group (its key policy must allow the CloudWatch Logs service). Default: a
        new customer-managed key (rotation on) that CloudWatch Logs may use for this account's log groups only.
    alarm_topic:
        Topic notified (alarm and OK) by ``PendingAlarm``, which fires when some key has been pending in
        every run for 48 hours (metric ``PendingKeys``). Default: no alarm; the metric is still written.
    path:
        Key path for problem messages. Default: ``cost.activate_cost_allocation_tags``.

    Raises
    ------
    InferenceConfigError
        When no key is given or a key is not a valid tag key.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        tag_keys: Sequence[str],
        retry_interval: Duration | None = None,
        log_retention: logs.RetentionDays = logs.RetentionDays.ONE_YEAR,
        log_encryption_key: kms.IKey | None = None,
        alarm_topic: sns.ITopic | None = None,
        path: str = "cost.activate_cost_allocation_tags",
    ) -> None:
        super().__init__(scope, construct_id)
        problems = ProblemCollector()
        keys = list(dict.fromkeys(tag_keys))
        if not keys:
            problems.add(path, "no tag key given", "list at least one tag key, e.g. [team, cost-center]")
        validate_cost_tags(dict.fromkeys(keys, ""), path, problems)
        self.tag_keys: tuple[str, ...] = tuple(keys)

        interval = retry_interval or Duration.seconds(TAG_ACTIVATION_RETRY_SECONDS)
        period_s = int(interval.to_seconds())
        alarm = pending_keys_alarm(period_s)
        if period_s % 60 or period_s * alarm.evaluation_periods > _MAX_EVALUATION_SECONDS:
            problems.add(
                "retry_interval",
                f"{period_s} s is not allowed",
                "use whole minutes, at most 7 days (the pending-keys alarm uses it as its period, and CloudWatch "
                "evaluates an alarm over at most 7 days)",
            )
        problems.raise_if_any()

        self.log_key: kms.IKey = log_encryption_key or log_group_key(
            self, "LogKey", description="Encrypts the cost allocation tag activation function's log group"
        )
        identity = handler_identity(
            self,
            retention=log_retention,
            encryption_key=self.log_key,
            role_description=(
                "Activates cost allocation tags (ce:ListCostAllocationTags, ce:UpdateCostAllocationTagsStatus)"
            ),
            policy_description="Cost allocation tag activation: Cost Explorer tag calls and this function's own logs",
            statements=[allow(["ce:ListCostAllocationTags", "ce:UpdateCostAllocationTagsStatus"], ["*"])],
        )
        self.log_group, role, self.policy = identity.log_group, identity.role, identity.policy
        self.function: lambda_.FunctionBase = HandlerFunction(
            self,
            "Function",
            asset="cost_allocation_tags",
            timeout=FUNCTION_TIMEOUT,
            role=role,
            log_group=self.log_group,
            description="Activates cost allocation tags; retried on a schedule until every key is active",
        )
        """The activation function, construct id ``Function`` (an ``IFunction``; its ``AWS::Lambda::Function`` is
        ``function.node.default_child``)."""
        self.resource = CustomResource(
            self,
            "Resource",
            service_token=self.function.function_arn,
            resource_type="Custom::CostAllocationTags",
            properties={"TagKeys": keys},
            service_timeout=SERVICE_TIMEOUT,
        )
        self.resource.node.add_dependency(self.policy)
        self.schedule: events.IRule = _RetrySchedule(
            self, "Schedule", function=self.function, interval=interval, keys=keys
        )
        """The rule that retries the activation (``Schedule``; its ``AWS::Events::Rule`` is
        ``schedule.node.default_child``)."""
        self.pending_alarm: cloudwatch.CfnAlarm | None = None
        if alarm_topic is not None:
            self.pending_alarm = self._pending_alarm(alarm_topic, alarm)
        self._acknowledge()

    def _pending_alarm(self, topic: sns.ITopic, alarm: AlarmDecision) -> cloudwatch.CfnAlarm:
        """The planned pending-keys alarm, on this function's metric (a direct child: its logical id predates
        the plan)."""
        arns = [topic.topic_arn]
        values = {"FunctionName": self.function.function_name}
        return add_planned_alarm(self, alarm, values, actions=arns, ok_actions=arns, direct_child=True)

    @property
    def active_keys(self) -> str:
        """Comma-separated keys active after the last deployment (``Data.ActiveKeys``)."""
        return self.resource.get_att_string("ActiveKeys")

    @property
    def pending_keys(self) -> str:
        """Comma-separated keys still waiting to appear in Cost Explorer (``Data.PendingKeys``)."""
        return self.resource.get_att_string("PendingKeys")

    def _acknowledge(self) -> None:
        acknowledge(
            self.policy,
            "AwsSolutions-IAM5[Resource::*]",
            "ce:ListCostAllocationTags and ce:UpdateCostAllocationTagsStatus support no resource-level "
            "permissions (Cost Explorer is account-wide), so the resource must be *",
        )
        log_group_id = Stack.of(self).get_logical_id(self.log_group.node.default_child)  # type: ignore[arg-type]
        acknowledge(
            self.policy,
            f"AwsSolutions-IAM5[Resource::<{log_group_id}.Arn>:*]",
            "logs:CreateLogStream/PutLogEvents on the log streams of this function's own log group only",
        )
        reason_concurrency = (
            "invoked only by CloudFormation on deploy and by a schedule every few hours; reserving concurrency "
            "would take capacity from accounts whose concurrency limit is 10 and fail the deployment there"
        )
        for rule in ("NIST.800.53.R5-LambdaConcurrency", "HIPAA.Security-LambdaConcurrency"):
            acknowledge(self.function, rule, reason_concurrency)
        reason_dlq = (
            "the function never raises for AWS errors (it reports pending keys), and a lost scheduled run is "
            "repeated by the next one; CloudFormation invocations are synchronous and get an answer"
        )
        for rule in ("NIST.800.53.R5-LambdaDLQ", "HIPAA.Security-LambdaDLQ"):
            acknowledge(self.function, rule, reason_dlq)
        reason_vpc = (
            "calls only the public Cost Explorer API and touches no VPC resource; a VPC would need a NAT "
            "gateway because Cost Explorer has no VPC endpoint in most regions"
        )
        for rule in (
            "NIST.800.53.R5-LambdaInsideVPC",
            "HIPAA.Security-LambdaInsideVPC",
            "cdk-validator-cfnguard::lambda_inside_vpc_check",  # CT.LAMBDA.PR.3
        ):
            acknowledge(self.function, rule, reason_vpc)


@jsii.implements(events.IRule)
class _RetrySchedule(Resource):
    """The rule that invokes ``function`` every ``interval`` with ``keys`` (two more tries of a failed invocation),
    as an ``events.IRule``: its ``AWS::Events::Rule`` (``Resource``) and the permission that lets EventBridge invoke
    the function.

    Written as ``events.Rule`` with a ``LambdaFunction`` target writes them (same paths, logical ids and
    properties), without the two L2s, whose first use in a process cost more synth time than the rest of
    :class:`CostAllocationTagActivation`. Tags, dependencies and the removal policy reach the rule, as with
    ``events.Rule``.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, function: lambda_.IFunction, interval: Duration, keys: list[str]
    ) -> None:
        super().__init__(scope, construct_id)
        self.resource = events.CfnRule(
            self,
            "Resource",
            description="Retries cost allocation tag activation until every key is active",
            schedule_expression=events.Schedule.rate(interval).expression_string,
            state="ENABLED",
            targets=[
                events.CfnRule.TargetProperty(
                    arn=function.function_arn,
                    id="Target0",
                    input=json.dumps({"TagKeys": keys}, separators=(",", ":"), ensure_ascii=False),
                    retry_policy=events.CfnRule.RetryPolicyProperty(maximum_retry_attempts=2),
                )
            ],
        )
        """The ``AWS::Events::Rule``."""
        lambda_.CfnPermission(
            self,
            f"AllowEventRule{Names.node_unique_id(function.node)}",
            action="lambda:InvokeFunction",
            function_name=function.function_arn,
            principal="events.amazonaws.com",
            source_arn=self.resource.attr_arn,
        )

    @property
    def rule_arn(self) -> str:
        """The rule's ARN (``Fn::GetAtt Arn``)."""
        return self.resource.attr_arn

    @property
    def rule_name(self) -> str:
        """The rule's name (``Ref``; CloudFormation generates it)."""
        return self.resource.ref

    @property
    def rule_ref(self) -> events_refs.RuleReference:
        """A reference to the rule, by its ARN."""
        return events_refs.RuleReference(rule_arn=self.rule_arn)
