"""Monitoring of the Bedrock governance pieces: guardrail interventions and invocation-log delivery failures.

Metric names, namespaces and dimensions (Bedrock user guide):

* "Monitor Amazon Bedrock Guardrails using CloudWatch metrics": namespace ``AWS/Bedrock/Guardrails``,
  ``Invocations`` and ``InvocationsIntervened`` (SampleCount), among others, with the dimension set
  ``GuardrailArn`` + ``GuardrailVersion`` (the guardrail's ARN without version, and the version number).
* "Monitor bedrock-runtime inference using CloudWatch metrics": each delivery attempt of model invocation
  logging emits ``ModelInvocationLogs{CloudWatch,S3}Delivery{Success,Failure}`` and
  ``ModelInvocationLargeDataS3Delivery{Success,Failure}`` in ``AWS/Bedrock`` "across all model IDs", i.e.
  without dimensions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_sns as sns
from constructs import Construct

from inference_constructs.observability import metric_table
from inference_constructs.observability.alarm_resources import add_planned_alarm
from inference_constructs.observability.decisions import (
    DELIVERY_FAILURE_METRICS,
    delivery_failure_alarm,
    intervention_alarm,
)
from inference_constructs.observability.metric_definitions import BEDROCK_NAMESPACE, GUARDRAILS_NAMESPACE, Dimension
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.stats import Statistic

#: Delivery success metric of each destination (graphed beside the failures).
DELIVERY_SUCCESS_METRICS = {
    "s3": metric_table.LOGS_S3_DELIVERY_SUCCESS.name,
    "cloudwatch_logs": metric_table.LOGS_CLOUDWATCH_DELIVERY_SUCCESS.name,
    "large_data": metric_table.LARGE_DATA_S3_DELIVERY_SUCCESS.name,
}
_PERIOD = Duration.minutes(5)


@dataclass(frozen=True)
class MonitoredGuardrail:
    """A guardrail version a profile enforces; ``arn`` and ``version`` may be tokens."""

    profile: str
    arn: str
    version: str
    intervention_alarm_percent: float


@dataclass(frozen=True)
class MonitoredInvocationLogging:
    """Which invocation-logging destinations are configured: any of ``s3``, ``cloudwatch_logs``, ``large_data``."""

    destinations: tuple[str, ...]


def guardrail_metric(
    metric_name: MetricDefinition | str,
    guardrail: MonitoredGuardrail,
    *,
    statistic: Statistic | str = "Sum",
    period: Duration | None = None,
) -> cloudwatch.Metric:
    """``AWS/Bedrock/Guardrails`` ``metric_name`` (a metric table row or a name) of one guardrail version; sum over
    5 minutes by default."""
    return cloudwatch.Metric(
        namespace=GUARDRAILS_NAMESPACE,
        metric_name=metric_name if isinstance(metric_name, str) else metric_name.name,
        dimensions_map=_guardrail_dimensions(guardrail),
        statistic=statistic,
        period=period or _PERIOD,
    )


def _guardrail_dimensions(guardrail: MonitoredGuardrail) -> dict[str, str]:
    return {Dimension.GUARDRAIL_ARN.value: guardrail.arn, Dimension.GUARDRAIL_VERSION.value: guardrail.version}


def delivery_metric(metric_name: str, *, period: Duration | None = None) -> cloudwatch.Metric:
    """``AWS/Bedrock`` invocation-log delivery metric (no dimensions); sum over 5 minutes by default."""
    return cloudwatch.Metric(
        namespace=BEDROCK_NAMESPACE, metric_name=metric_name, statistic="Sum", period=period or _PERIOD
    )


class BedrockGovernanceMonitoring(Construct):
    """Alarms (and an optional dashboard) for guardrail interventions and invocation-log delivery.

    * ``DeliveryFailure<Destination>``: any failed delivery to a configured destination in 5 minutes
      (sum >= 1); missing data is not breaching (no traffic, no delivery).
    * ``Interventions<n>``: more than ``intervention_alarm_percent`` of a guardrail's evaluations intervened
      (``100*InvocationsIntervened/Invocations``) in 3 consecutive 5-minute periods: a sign of abuse, or of a
      filter too strict for the traffic.

    Parameters
    ----------
    guardrails:
        Guardrail versions the profiles enforce. Default: none.
    invocation_logging:
        Configured logging destinations. Default: logging is not monitored.
    topic:
        SNS topic every alarm notifies.
    dashboard:
        Also create a dashboard with the intervention and delivery graphs. Default: alarms only.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        topic: sns.ITopic,
        guardrails: Sequence[MonitoredGuardrail] = (),
        invocation_logging: MonitoredInvocationLogging | None = None,
        dashboard: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        self.alarms: list[cloudwatch.CfnAlarm] = []
        destinations = invocation_logging.destinations if invocation_logging else ()
        for destination in destinations:
            decision = delivery_failure_alarm(destination)
            self.alarms.append(add_planned_alarm(self, decision, {}, actions=[topic.topic_arn]))
        for i, guardrail in enumerate(guardrails):
            decision = intervention_alarm(i, guardrail.profile, guardrail.intervention_alarm_percent)
            values = _guardrail_dimensions(guardrail)
            self.alarms.append(add_planned_alarm(self, decision, values, actions=[topic.topic_arn]))
        self.dashboard: cloudwatch.Dashboard | None = None
        if dashboard:
            self.dashboard = cloudwatch.Dashboard(self, "Dashboard", widgets=self._rows(guardrails, destinations))

    @staticmethod
    def _rows(guardrails: Sequence[MonitoredGuardrail], destinations: Sequence[str]) -> list[list[cloudwatch.IWidget]]:
        rows: list[list[cloudwatch.IWidget]] = []
        axis = cloudwatch.YAxisProps(min=0)
        for guardrail in guardrails:
            rows.append(
                [
                    cloudwatch.GraphWidget(
                        title=f"Guardrail of {guardrail.profile}: evaluations and interventions",
                        left=[
                            guardrail_metric(metric_table.GUARDRAIL_INVOCATIONS, guardrail),
                            guardrail_metric(metric_table.GUARDRAIL_INVOCATIONS_INTERVENED, guardrail),
                        ],
                        left_y_axis=axis,
                        width=24,
                    )
                ]
            )
        if destinations:
            rows.append(
                [
                    cloudwatch.GraphWidget(
                        title="Invocation log delivery",
                        left=[delivery_metric(DELIVERY_SUCCESS_METRICS[d]) for d in destinations],
                        right=[delivery_metric(DELIVERY_FAILURE_METRICS[d]) for d in destinations],
                        left_y_axis=axis,
                        right_y_axis=axis,
                        width=24,
                    )
                ]
            )
        return rows


__all__ = [
    "BedrockGovernanceMonitoring",
    "MonitoredGuardrail",
    "MonitoredInvocationLogging",
    "delivery_metric",
    "guardrail_metric",
]
