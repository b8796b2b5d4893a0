"""The alarms SageMaker's deployment auto-rollback watches: 5XX error rate and p99 model latency.

Each is a ``CfnAlarm`` on the endpoint's invocation metrics (per variant, or per inference component on an
endpoint hosted through one); an endpoint update in progress rolls back when either is in alarm.
"""

from __future__ import annotations

from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from inference_constructs.compliance import acknowledge_all
from inference_constructs.hosting.decisions import EndpointPlan
from inference_constructs.observability.alarm_resources import (
    AlarmMetric,
    add_alarm,
    planned_options,
)

__all__ = ["rollback_alarms"]


def rollback_alarms(
    scope: Construct, plan: EndpointPlan, dimensions: tuple[tuple[str, str], ...]
) -> list[cloudwatch.CfnAlarm]:
    """The alarms of ``plan.update_policy.rollback_alarms`` (ids ``Rollback5xxAlarm``, ``RollbackLatencyAlarm``)
    in ``scope``, on the invocation metrics with ``dimensions``."""
    reason = (
        "this alarm exists for sagemaker's deployment auto-rollback, which reads its state during an endpoint "
        "update; notification actions are added by the observability layer when an alarm topic is configured"
    )
    alarms = []
    for a in plan.update_policy.rollback_alarms:
        alarm = add_alarm(
            scope,
            a.construct_id,
            AlarmMetric(a.namespace, a.metric_name, dimensions, a.statistic, a.period_seconds, unit=a.unit),
            threshold=a.threshold,
            **planned_options(a, description=a.description),
        )
        acknowledge_all(
            alarm,
            [
                ("NIST.800.53.R5-CloudWatchAlarmAction", reason),
                ("HIPAA.Security-CloudWatchAlarmAction", reason),
                ("cdk-validator-cfnguard::cloudwatch_alarm_action_check", reason),  # CT.CLOUDWATCH.PR.1
            ],
        )
        alarms.append(alarm)
    return alarms
