"""Cost Anomaly Detection: a per-service monitor and an e-mail subscription above an absolute impact."""

from __future__ import annotations

import json
import re

from aws_cdk import Names
from aws_cdk import aws_ce as ce
from constructs import Construct

from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import ProblemCollector

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_FREQUENCIES = ("DAILY", "WEEKLY")


class CostAnomalyMonitor(Construct):
    """An AWS services anomaly monitor and a subscription that e-mails anomalies above a dollar impact.

    Creates ``Resource`` (``AWS::CE::AnomalyMonitor``, DIMENSIONAL by SERVICE, so SageMaker and
    Bedrock are each modelled on their own spend) unless ``existing_monitor_arn`` is given, and
    ``Subscription`` (``AWS::CE::AnomalySubscription``) with
    ``ThresholdExpression`` ``ANOMALY_TOTAL_IMPACT_ABSOLUTE >= threshold_usd``. E-mail subscribers
    receive DAILY or WEEKLY summaries; IMMEDIATE alerts need an SNS subscriber and are not offered.

    Parameters
    ----------
    scope:
        Parent construct.
    construct_id:
        Construct id.
    notify_email:
        Address that receives the anomaly summaries (config ``cost.anomaly_monitor.notify_email``).
    threshold_usd:
        Smallest total impact, in USD, of an anomaly worth an e-mail (config
        ``cost.anomaly_monitor.threshold_usd``). Default: 100.
    frequency:
        ``DAILY`` or ``WEEKLY``. Default: ``DAILY``.
    existing_monitor_arn:
        Subscribe to a monitor that already exists (an account has a limited number of monitors).
        Default: a new AWS services monitor is created.
    path:
        Key path for problem messages. Default: ``cost.anomaly_monitor``.

    Raises
    ------
    InferenceConfigError
        Listing every invalid address, threshold or frequency.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        notify_email: str,
        threshold_usd: float = 100,
        frequency: str = "DAILY",
        existing_monitor_arn: str | None = None,
        path: str = "cost.anomaly_monitor",
    ) -> None:
        super().__init__(scope, construct_id)
        problems = ProblemCollector()
        if not is_unresolved(notify_email) and not _EMAIL.match(notify_email or ""):
            problems.add(f"{path}.notify_email", f"{notify_email!r} is not an e-mail address", "use name@domain")
        if not is_unresolved(threshold_usd) and not threshold_usd >= 0:
            problems.add(f"{path}.threshold_usd", f"{threshold_usd} is not allowed", "use 0 or more USD")
        if frequency not in _FREQUENCIES:
            problems.add(
                f"{path}.frequency",
                f"{frequency!r} is not allowed",
                "use DAILY or WEEKLY (IMMEDIATE needs an SNS subscriber)",
            )
        problems.raise_if_any()

        self.monitor: ce.CfnAnomalyMonitor | None = None
        if existing_monitor_arn is None:
            self.monitor = ce.CfnAnomalyMonitor(
                self,
                "Resource",
                monitor_name=Names.unique_resource_name(self, max_length=100),
                monitor_type="DIMENSIONAL",
                monitor_dimension="SERVICE",
            )
            self.monitor_arn = self.monitor.attr_monitor_arn
        else:
            self.monitor_arn = existing_monitor_arn
        threshold = {
            "Dimensions": {
                "Key": "ANOMALY_TOTAL_IMPACT_ABSOLUTE",
                "MatchOptions": ["GREATER_THAN_OR_EQUAL"],
                "Values": [f"{threshold_usd:g}"],
            }
        }
        self.subscription = ce.CfnAnomalySubscription(
            self,
            "Subscription",
            subscription_name=Names.unique_resource_name(self, max_length=100),
            monitor_arn_list=[self.monitor_arn],
            subscribers=[ce.CfnAnomalySubscription.SubscriberProperty(address=notify_email, type="EMAIL")],
            frequency=frequency,
            threshold_expression=json.dumps(threshold, separators=(",", ":")),
        )
