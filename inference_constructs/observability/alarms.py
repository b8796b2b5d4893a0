"""``InferenceAlarms``: anomaly-detection and static alarms for inference endpoints and Bedrock profiles, all sent to
one KMS-encrypted, SSL-only SNS topic.

Every alarm watches one plain metric or metric math over plain metrics of a known endpoint or profile: CloudWatch
cannot alarm on SEARCH, so resources created outside the app are graphed by the dashboard but not alarmed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from aws_cdk import ArnFormat, Aws, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from inference_constructs._arns import format_arn
from inference_constructs._kms import alarm_topic_key
from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.observability import metric_definitions
from inference_constructs.observability.alarm_resources import add_planned_alarm
from inference_constructs.observability.decisions import (
    DEFAULT_SETTINGS,
    AlarmDecision,
    AlarmSettings,
    endpoint_alarm_prefix,
    endpoint_alarms,
    profile_alarms,
)
from inference_constructs.observability.metric_definitions import Dimension
from inference_constructs.observability.targets import (
    EndpointLike,
    MonitoredEndpoint,
    ProfileLike,
    key,
    monitored_endpoints,
    monitored_profiles,
    validate_endpoints,
    validate_profiles,
)

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DEFAULTS = DEFAULT_SETTINGS
_MAX_ALARM_WINDOW_MINUTES = 1440  # period x evaluation periods may not exceed one day


class InferenceAlarms(Construct):
    """Alarms that say when an optimization made things worse, on one encrypted SNS topic.

    Per endpoint (from :class:`MonitoredEndpoint`):

    * anomaly on ``ModelLatency`` p99 (above the band): latency regressed against its own history;
    * anomaly on ``Invocations`` (outside the band; not async, which does not publish it): traffic surge or drop;
    * static ``100 * Invocation5XXErrors / Invocations`` above ``error_rate_percent`` (not async);
    * async: ``HasBacklogWithoutCapacity`` ≥ 1 for ``backlog_without_capacity_minutes`` (scale-from-zero is not
      working) and ``ApproximateAgeOfOldestRequest`` above ``oldest_request_age_seconds``;
    * serverless: ``ModelSetupTime`` (cold start) above ``cold_start_seconds``.

    Per Bedrock profile: anomaly on ``OutputTokenCount`` (above the band), the token spend of a workload.

    Anomaly alarms use 5-minute periods, three of three breaching, band width ``anomaly_std_devs``; a new model
    needs up to 3 hours before it has a band and about two weeks to learn weekly patterns. Missing data (no
    traffic) never breaches. Anomaly-detection alarms cannot drive auto scaling; these only notify.

    Parameters
    ----------
    scope, construct_id:
        Where the alarms are created.
    endpoints:
        Endpoints to alarm on: endpoint constructs (built or imported, any ``IInferenceEndpoint``) or
        :class:`MonitoredEndpoint` values. Default: no endpoint alarms.
    profiles:
        Bedrock application inference profiles to alarm on (``ApplicationInferenceProfile`` constructs or
        :class:`MonitoredProfile` values). Default: no profile alarms.
    anomaly_std_devs:
        Width of the anomaly-detection band in standard deviations (``ANOMALY_DETECTION_BAND(m, n)``); wider means
        fewer alarms. Default: 2, the CloudWatch default.
    alarm_email:
        Address subscribed to the topic (it must confirm the subscription). Default: no subscription; subscribe
        a pager or chat integration to :attr:`topic` yourself.
    error_rate_percent:
        5XX error rate that breaches, 0–100. Default: 5 %, in two of three 5-minute periods.
    oldest_request_age_seconds:
        Age of the oldest queued async request that breaches. Default: 900 s (15 minutes), three 5-minute periods.
    backlog_without_capacity_minutes:
        Minutes an async endpoint may hold a backlog with zero instances before alarming (1–1440); scale-from-zero
        normally takes a few minutes. Default: 15.
    cold_start_seconds:
        Serverless ``ModelSetupTime`` that breaches; SageMaker fails a cold start after 3 minutes. Default: 60 s.
    topic:
        An existing alarm topic (e.g. the :attr:`topic` of another ``InferenceAlarms``), so alarms spread over
        several stacks still notify ONE topic; ``alarm_email`` must then be None. Default: a new KMS-encrypted,
        SSL-only topic (and key) is created here.

    Raises
    ------
    InferenceConfigError
        When a setting is out of range, the email is malformed, or an endpoint or profile is malformed.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoints: Sequence[EndpointLike] = (),
        profiles: Sequence[ProfileLike] = (),
        anomaly_std_devs: float = _DEFAULTS.anomaly_std_devs,
        alarm_email: str | None = None,
        error_rate_percent: float = _DEFAULTS.error_rate_percent,
        oldest_request_age_seconds: int = _DEFAULTS.oldest_request_age_seconds,
        backlog_without_capacity_minutes: int = _DEFAULTS.backlog_without_capacity_minutes,
        cold_start_seconds: float = _DEFAULTS.cold_start_seconds,
        topic: sns.ITopic | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        endpoints, profiles = monitored_endpoints(endpoints), monitored_profiles(profiles)
        settings = AlarmSettings(
            anomaly_std_devs=anomaly_std_devs,
            error_rate_percent=error_rate_percent,
            oldest_request_age_seconds=oldest_request_age_seconds,
            backlog_without_capacity_minutes=backlog_without_capacity_minutes,
            cold_start_seconds=cold_start_seconds,
        )
        problems = check_alarm_settings(settings, alarm_email=alarm_email)
        problems.extend(validate_endpoints(endpoints))
        problems.extend(validate_profiles(profiles))
        problems.raise_if_any()

        if topic is not None:
            if alarm_email:
                raise InferenceConfigError(
                    "alarm_email: cannot subscribe to a topic passed in; subscribe where the topic is created"
                )
            self.key: kms.IKey | None = None
            """Customer-managed KMS key of the topic (rotation on); None when ``topic`` was passed in."""
            self.topic: sns.ITopic = topic
            """The SNS topic every alarm notifies (alarm and OK)."""
        else:
            key = alarm_topic_key(
                self,
                "TopicKey",
                description="Encrypts the inference alarm topic; this account's CloudWatch alarms may publish with it",
            )
            self.key = key
            self.topic = sns.Topic(
                self,
                "Topic",
                display_name="Inference alarms",
                master_key=key,
                enforce_ssl=True,
            )
            alarm_arns = format_arn(
                Stack.of(self),
                service="cloudwatch",
                resource="alarm",
                resource_name="*",
                arn_format=ArnFormat.COLON_RESOURCE_NAME,
            )
            self.topic.add_to_resource_policy(
                iam.PolicyStatement(
                    sid="AllowCloudWatchAlarmsOfThisAccount",
                    principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                    actions=["sns:Publish"],
                    resources=[self.topic.topic_arn],
                    conditions={
                        "ArnLike": {"aws:SourceArn": alarm_arns},
                        "StringEquals": {"aws:SourceAccount": Aws.ACCOUNT_ID},
                    },
                )
            )
            if alarm_email:
                self.topic.add_subscription(subscriptions.EmailSubscription(alarm_email))
        self._actions = [self.topic.topic_arn]
        self._stack_account = Stack.of(self).account

        self.alarms: dict[str, cloudwatch.CfnAlarm] = {}
        """Every alarm by construct id (``AWS::CloudWatch::Alarm`` resources). ``alarm_of(alarm)`` is the same alarm
        as a ``cloudwatch.IAlarm`` (``add_alarm_action``, composite alarm rules)."""
        for index, endpoint in enumerate(endpoints):
            label = "endpoint" if is_unresolved(endpoint.name) else f"endpoint {endpoint.name}"
            label += f" component {endpoint.component}" if endpoint.component else ""
            decisions = endpoint_alarms(
                endpoint.kind,
                prefix=_endpoint_id(endpoint, index),
                label=label,
                settings=settings,
                inference_component=endpoint.inference_component_name is not None,
            )
            values = {
                **metric_definitions.endpoint_dimensions(endpoint.name, endpoint.variant_name),
                Dimension.INFERENCE_COMPONENT_NAME.value: endpoint.inference_component_name or "",
            }
            for decision in decisions:
                self._add(decision, values, endpoint.account_id)
        for profile in profiles:
            for decision in profile_alarms(profile.name, settings=settings):
                self._add(decision, {Dimension.MODEL_ID.value: profile.profile_id}, profile.account_id)

    def _add(self, decision: AlarmDecision, dimension_values: dict[str, str], account_id: str | None) -> None:
        """Translate one planned alarm, notifying the topic on ALARM and OK."""
        self.alarms[decision.alarm] = add_planned_alarm(
            self,
            decision,
            dimension_values,
            account_id=self._account(account_id),
            actions=self._actions,
            ok_actions=self._actions,
        )

    def _account(self, account_id: str | None) -> str | None:
        """The account to read a metric from when it is not this stack's (a cross-account alarm), else None."""
        return account_id if account_id is not None and account_id != self._stack_account else None


def _endpoint_id(endpoint: MonitoredEndpoint, index: int) -> str:
    """Construct-id prefix of an endpoint's alarms: its name (and variant unless AllTraffic), or its index when the
    name is a token."""
    return endpoint_alarm_prefix(
        None if is_unresolved(endpoint.name) else endpoint.name,
        None if is_unresolved(endpoint.variant_name) else endpoint.variant_name,
        index,
        endpoint.component,
    )


def check_alarm_settings(
    settings: AlarmSettings = _DEFAULTS, *, alarm_email: str | None = None, path: str = ""
) -> ProblemCollector:
    """Collect every problem with the alarm ``settings`` and ``alarm_email`` (``path`` prefixes key names, e.g.
    ``observability``)."""
    problems = ProblemCollector()
    if (
        isinstance(settings.anomaly_std_devs, bool)
        or not math.isfinite(settings.anomaly_std_devs)
        or settings.anomaly_std_devs <= 0
    ):
        problems.add(
            key(path, "anomaly_std_devs"), f"{settings.anomaly_std_devs} is not allowed", "use a number above 0, e.g. 2"
        )
    if alarm_email is not None and not is_unresolved(alarm_email) and not _EMAIL.match(alarm_email):
        problems.add(key(path, "alarm_email"), f"{alarm_email!r} is not an email address", "use name@example.com")
    if not 0 < settings.error_rate_percent <= 100:
        problems.add(
            key(path, "error_rate_percent"), f"{settings.error_rate_percent} is not allowed", "use 0 < percent <= 100"
        )
    if settings.oldest_request_age_seconds <= 0:
        problems.add(
            key(path, "oldest_request_age_seconds"),
            f"{settings.oldest_request_age_seconds} is not allowed",
            "use seconds > 0",
        )
    if not 1 <= settings.backlog_without_capacity_minutes <= _MAX_ALARM_WINDOW_MINUTES:
        problems.add(
            key(path, "backlog_without_capacity_minutes"),
            f"{settings.backlog_without_capacity_minutes} is not allowed",
            f"use 1..{_MAX_ALARM_WINDOW_MINUTES} (an alarm looks back at most one day)",
        )
    if settings.cold_start_seconds <= 0:
        problems.add(
            key(path, "cold_start_seconds"), f"{settings.cold_start_seconds} is not allowed", "use seconds > 0"
        )
    return problems
