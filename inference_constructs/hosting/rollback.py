"""The alarms SageMaker's deployment auto-rollback watches: 5XX error rate and p99 model latency.

Each is a ``CfnAlarm`` on the endpoint's invocation metrics (per variant, or per inference component on an
endpoint hosted through one); an endpoint update in progress rolls back when either is in alarm.
"""

from __future__ import annotations

from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from inference_constructs.compliance import acknowledge_all
from inference_constructs.hosting.decisions import EndpointPlan
from inference_constructs.observability._alarm import AlarmMetric, add_alarm
from inference_constructs.observability.metric_definitions import SAGEMAKER_NAMESPACE

__all__ = ["rollback_alarms"]


def rollback_alarms(
    scope: Construct, plan: EndpointPlan, dimensions: tuple[tuple[str, str], ...]
) -> list[cloudwatch.CfnAlarm]:
    """The 5XX-rate and p99-latency alarms (ids ``Rollback5xxAlarm``, ``RollbackLatencyAlarm``) in ``scope``,
    on the invocation metrics with ``dimensions``."""
    d = plan.deployment
    errors = add_alarm(
        scope,
        "Rollback5xxAlarm",
        # Average of a 1-or-0-per-request metric: the 5XX error rate (0..1), as metric_invocation_5xx_errors().
        AlarmMetric(SAGEMAKER_NAMESPACE, "Invocation5XXErrors", dimensions, "Average", 60),
        threshold=d.max_error_rate_percent / 100.0,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluation_periods=3,
        datapoints_to_alarm=2,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        description=(
            f"5XX error rate above {d.max_error_rate_percent:g}% in 2 of 3 minutes: "
            "rolls back an endpoint update in progress"
        ),
    )
    latency = add_alarm(
        scope,
        "RollbackLatencyAlarm",
        AlarmMetric(SAGEMAKER_NAMESPACE, "ModelLatency", dimensions, "p99", 60, unit="Microseconds"),
        threshold=plan.rollback_p99_model_latency_ms * 1000.0,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluation_periods=3,
        datapoints_to_alarm=2,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        description=(
            f"p99 ModelLatency above {plan.rollback_p99_model_latency_ms:g} ms in 2 of 3 minutes: "
            "rolls back an endpoint update in progress"
        ),
    )
    reason = (
        "this alarm exists for sagemaker's deployment auto-rollback, which reads its state during an endpoint "
        "update; notification actions are added by the observability layer when an alarm topic is configured"
    )
    for alarm in (errors, latency):
        acknowledge_all(
            alarm,
            [("NIST.800.53.R5-CloudWatchAlarmAction", reason), ("HIPAA.Security-CloudWatchAlarmAction", reason)],
        )
    return [errors, latency]
