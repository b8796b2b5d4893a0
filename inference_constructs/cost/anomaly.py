"""Cost Anomaly Detection: a monitor of the platform's own spend and an e-mail subscription above an absolute
impact."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from aws_cdk import Names
from aws_cdk import aws_ce as ce
from constructs import Construct

from inference_constructs._tokens import is_unresolved
from inference_constructs.cost.decisions import ANOMALY_FREQUENCY, AnomalySubscriptionPlan
from inference_constructs.errors import ProblemCollector

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_FREQUENCIES = ("DAILY", "WEEKLY")


class CostAnomalyMonitor(Construct):
    """A monitor of one slice of spend and a subscription that e-mails anomalies above a dollar impact.

    Creates ``Resource`` (``AWS::CE::AnomalyMonitor``, CUSTOM, on ``monitor_specification``) unless
    ``existing_monitor_arn`` is given, and ``Subscription`` (``AWS::CE::AnomalySubscription``) with
    ``ThresholdExpression`` ``ANOMALY_TOTAL_IMPACT_ABSOLUTE >= threshold_usd``. E-mail subscribers
    receive DAILY or WEEKLY summaries; IMMEDIATE alerts need an SNS subscriber and are not offered.

    Parameters
    ----------
    notify_email:
        Address that receives the anomaly summaries (config ``cost.anomaly_monitor.notify_email``).
    threshold_usd:
        Smallest total impact, in USD, of an anomaly worth an e-mail (config
        ``cost.anomaly_monitor.threshold_usd``). Default: 100.
    frequency:
        ``DAILY`` or ``WEEKLY``. Default: ``DAILY``.
    monitor_specification:
        Cost Explorer ``Expression`` the CUSTOM monitor watches, e.g.
        :func:`inference_constructs.cost.decisions.monitor_expression` (spend tagged ``inference:platform``).
        Required unless ``existing_monitor_arn`` is given. A DIMENSIONAL ``SERVICE`` monitor is never
        created: an account may hold only one, and many already have it.
    existing_monitor_arn:
        Subscribe to a monitor that already exists instead of creating one. Default: a CUSTOM monitor on
        ``monitor_specification`` is created.
    path:
        Key path for problem messages. Default: ``cost.anomaly_monitor``.

    Raises
    ------
    InferenceConfigError
        Listing every invalid address, threshold or frequency, or when neither a specification nor an
        existing monitor is given.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        notify_email: str,
        threshold_usd: float = AnomalySubscriptionPlan.threshold_usd,
        frequency: str = ANOMALY_FREQUENCY,
        monitor_specification: Mapping[str, Any] | None = None,
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
        if existing_monitor_arn is None and not monitor_specification:
            problems.add(
                path,
                "no monitor_specification and no existing_monitor_arn",
                "give the spend to watch (e.g. the platform's tag) or an existing monitor to subscribe to; a new "
                "DIMENSIONAL SERVICE monitor would collide with the one an account may hold",
            )
        problems.raise_if_any()

        self.monitor: ce.CfnAnomalyMonitor | None = None
        if existing_monitor_arn is None:
            self.monitor = ce.CfnAnomalyMonitor(
                self,
                "Resource",
                monitor_name=Names.unique_resource_name(self, max_length=100),
                monitor_type="CUSTOM",
                monitor_specification=json.dumps(monitor_specification, separators=(",", ":"), sort_keys=True),
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
