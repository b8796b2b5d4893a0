"""CloudWatch alarms rendered straight to ``AWS::CloudWatch::Alarm`` (``CfnAlarm``).

The L2 ``cloudwatch.Alarm`` builds a ``Metric`` object, its own construct around the ``CfnAlarm`` and one more
round trip to the jsii kernel per action; a platform has several alarms per endpoint, so that was the largest
single cost of a synth that the plain-resource baseline does not pay (``docs/benchmarks.md``). These helpers
describe an alarm's metric as plain data and emit the ``CfnAlarm`` in one call, with the properties the L2
alarm renders for the same metric (``tests/unit/observability/test_alarm_rendering.py`` compares the two).

Each ``CfnAlarm`` is the ``Resource`` child of a :class:`RenderedAlarm` named like the L2 alarm was, so construct
paths and logical ids (which hash the path) are the ones the L2 alarms had: a deployed stack keeps its alarms, and
the endpoints that name their rollback alarms are not updated. ``RenderedAlarm`` is a ``cloudwatch.AlarmBase``
(an ``IAlarm``): composite alarm rules, ``add_alarm_action(SnsAction(topic))`` and the other aws-cdk alarm uses
work on it; :func:`alarm_of` returns it for any ``CfnAlarm`` made here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, Unpack

from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability.decisions import AlarmDecision

#: Statistics CloudWatch renders as ``Statistic``; everything else (``p99``, ``tm90``, ...) is ``ExtendedStatistic``.
SIMPLE_STATISTICS = frozenset({"SampleCount", "Average", "Sum", "Minimum", "Maximum"})


def _pascal_case(member_name: str) -> str:
    """``GREATER_THAN_THRESHOLD`` -> ``GreaterThanThreshold``."""
    return "".join(word.capitalize() for word in member_name.split("_"))


#: CloudFormation ``ComparisonOperator`` of each CDK enum member: the member's name in PascalCase (jsii enum
#: values are the member names), e.g. ``GreaterThanThreshold``.
COMPARISON_OPERATORS: dict[cloudwatch.ComparisonOperator, str] = {
    member: _pascal_case(member.name) for member in cloudwatch.ComparisonOperator
}
#: CloudFormation ``TreatMissingData`` of each CDK enum member: the member's name in camelCase, e.g. ``notBreaching``.
TREAT_MISSING_DATA: dict[cloudwatch.TreatMissingData, str] = {
    member: member.name[0].lower() + _pascal_case(member.name)[1:] for member in cloudwatch.TreatMissingData
}
#: The CDK enum member of each CloudFormation ``ComparisonOperator`` and ``TreatMissingData`` (plans state the
#: CloudFormation values).
COMPARISON_OPERATOR_MEMBERS = {name: member for member, name in COMPARISON_OPERATORS.items()}
TREAT_MISSING_DATA_MEMBERS = {name: member for member, name in TREAT_MISSING_DATA.items()}


def js_number(value: float) -> str:
    """``value`` as JavaScript prints a number in a string (``2.0`` -> ``2``, ``2.5`` -> ``2.5``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True)
class AlarmMetric:
    """One plain metric an alarm watches.

    ``dimensions`` keeps its order (the template lists dimensions in this order). ``account_id``: the account
    that publishes the metric when it is not the alarm's own (a cross-account alarm); None reads this account.
    ``unit`` filters datapoints by unit (CloudWatch ``Unit``); None takes every unit.
    """

    namespace: str
    metric_name: str
    dimensions: tuple[tuple[str, str], ...]
    statistic: str
    period_seconds: int
    unit: str | None = None
    account_id: str | None = None

    def stat_query(self, query_id: str, *, return_data: bool) -> cloudwatch.CfnAlarm.MetricDataQueryProperty:
        """This metric as one ``MetricDataQuery`` of a metric-math or anomaly alarm."""
        return cloudwatch.CfnAlarm.MetricDataQueryProperty(
            id=query_id,
            account_id=self.account_id,
            metric_stat=cloudwatch.CfnAlarm.MetricStatProperty(
                metric=cloudwatch.CfnAlarm.MetricProperty(
                    metric_name=self.metric_name, namespace=self.namespace, dimensions=self._dimensions()
                ),
                period=self.period_seconds,
                stat=self.statistic,
                unit=self.unit,
            ),
            return_data=return_data,
        )

    def _dimensions(self) -> list[cloudwatch.CfnAlarm.DimensionProperty] | None:
        dims = [cloudwatch.CfnAlarm.DimensionProperty(name=n, value=v) for n, v in self.dimensions]
        return dims or None


@dataclass(frozen=True)
class AlarmMath:
    """Metric math over plain metrics, e.g. ``100*errors/invocations``; ``using`` maps expression ids to metrics."""

    expression: str
    using: tuple[tuple[str, AlarmMetric], ...]
    label: str | None = None


class _ExtraOptions(TypedDict, total=False):
    actions: Sequence[str]
    ok_actions: Sequence[str]
    direct_child: bool


class AlarmOptions(_ExtraOptions):
    """How an alarm of :func:`add_alarm` or :func:`add_anomaly_alarm` evaluates and whom it notifies, rendered the
    same way by both.

    ``comparison_operator``, ``evaluation_periods``, ``datapoints_to_alarm`` and ``treat_missing_data`` are the
    alarm's; ``description`` its ``AlarmDescription``; ``actions`` / ``ok_actions`` the ARNs notified on ALARM / OK
    (default: none). ``direct_child``: the ``CfnAlarm`` is itself the child ``construct_id`` of the scope, for an
    alarm whose logical id predates :class:`RenderedAlarm` (:func:`alarm_of` does not know it). Default: the
    ``Resource`` child of a :class:`RenderedAlarm` ``construct_id``.
    """

    comparison_operator: cloudwatch.ComparisonOperator
    evaluation_periods: int
    datapoints_to_alarm: int
    treat_missing_data: cloudwatch.TreatMissingData
    description: str


class AlarmTerms(Protocol):
    """How a planned alarm evaluates, in CloudFormation's values: what a platform alarm
    (``observability.decisions.AlarmDecision``), a rollback alarm (``hosting.deployment.RollbackAlarmPlan``) and a
    wake-up step policy's alarm (``scaling.types.WakeUpPolicy``) each carry. A protocol, so the layers that plan
    those alarms stay above this one and this module imports none of them."""

    @property
    def comparison_operator(self) -> str: ...
    @property
    def evaluation_periods(self) -> int: ...
    @property
    def datapoints_to_alarm(self) -> int: ...
    @property
    def treat_missing_data(self) -> str: ...


def planned_options(terms: AlarmTerms, *, description: str, **extra: Unpack[_ExtraOptions]) -> AlarmOptions:
    """The :class:`AlarmOptions` of a planned alarm: its evaluation ``terms`` as the CDK enum members, its
    ``description``, and the ``extra`` actions and child placement (default: none, a :class:`RenderedAlarm`)."""
    return {
        "comparison_operator": COMPARISON_OPERATOR_MEMBERS[terms.comparison_operator],
        "evaluation_periods": terms.evaluation_periods,
        "datapoints_to_alarm": terms.datapoints_to_alarm,
        "treat_missing_data": TREAT_MISSING_DATA_MEMBERS[terms.treat_missing_data],
        "description": description,
        **extra,
    }


def add_alarm(
    scope: Construct,
    construct_id: str,
    metric: AlarmMetric | AlarmMath,
    *,
    threshold: float,
    **options: Unpack[AlarmOptions],
) -> cloudwatch.CfnAlarm:
    """A static-threshold alarm on ``metric``; ``options`` are the :class:`AlarmOptions`.

    A plain metric of this account renders as the classic ``MetricName/Namespace/Dimensions/Statistic`` form,
    metric math and cross-account metrics as ``Metrics`` (the expression is ``expr_1``), as the L2 alarm does.
    """
    if isinstance(metric, AlarmMetric) and metric.account_id is None:
        simple = metric.statistic in SIMPLE_STATISTICS
        return _emit(
            scope,
            construct_id,
            options,
            threshold=threshold,
            namespace=metric.namespace,
            metric_name=metric.metric_name,
            dimensions=metric._dimensions(),
            period=metric.period_seconds,
            statistic=metric.statistic if simple else None,
            extended_statistic=None if simple else metric.statistic,
            unit=metric.unit,
        )
    if isinstance(metric, AlarmMetric):
        queries = [metric.stat_query("m1", return_data=True)]
    else:
        queries = [
            cloudwatch.CfnAlarm.MetricDataQueryProperty(
                id="expr_1", expression=metric.expression, label=metric.label, return_data=True
            ),
            *(m.stat_query(qid, return_data=False) for qid, m in metric.using),
        ]
    return _emit(scope, construct_id, options, threshold=threshold, metrics=queries)


def add_anomaly_alarm(
    scope: Construct,
    construct_id: str,
    metric: AlarmMetric,
    *,
    std_devs: float,
    **options: Unpack[AlarmOptions],
) -> cloudwatch.CfnAlarm:
    """An anomaly-detection alarm: ``metric`` (id ``m0``) against ``ANOMALY_DETECTION_BAND(m0, std_devs)``
    (id ``expr_1``, the threshold metric), as ``cloudwatch.AnomalyDetectionAlarm`` renders it; ``options`` are
    the :class:`AlarmOptions`."""
    return _emit(
        scope,
        construct_id,
        options,
        threshold_metric_id="expr_1",
        metrics=[
            cloudwatch.CfnAlarm.MetricDataQueryProperty(
                id="expr_1",
                expression=f"ANOMALY_DETECTION_BAND(m0, {js_number(std_devs)})",
                label="Anomaly Detection Band",
                return_data=True,
            ),
            metric.stat_query("m0", return_data=True),
        ],
    )


class RenderedAlarm(cloudwatch.AlarmBase):
    """An alarm rendered straight to its ``CfnAlarm`` (:attr:`resource`, id ``Resource``), usable as a
    ``cloudwatch.IAlarm``: ``add_alarm_action`` / ``add_ok_action`` / ``add_insufficient_data_action`` append
    to the ``CfnAlarm``'s action lists, and ``render_alarm_rule`` makes it part of a ``CompositeAlarm``."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)

    @property
    def resource(self) -> cloudwatch.CfnAlarm:
        """The ``AWS::CloudWatch::Alarm``."""
        child = self.node.default_child
        assert isinstance(child, cloudwatch.CfnAlarm)
        return child

    @property
    def alarm_arn(self) -> str:
        """ARN of the alarm (``Fn::GetAtt``)."""
        return self.resource.attr_arn

    @property
    def alarm_name(self) -> str:
        """Name of the alarm (``Ref``; CloudFormation generates it)."""
        return self.resource.ref

    def _arns(self, actions: Sequence[cloudwatch.IAlarmAction]) -> list[str]:
        return [a.bind(self, self).alarm_action_arn for a in actions]

    def add_alarm_action(self, *actions: cloudwatch.IAlarmAction) -> None:
        """Notify ``actions`` when the alarm enters ALARM (appended to the alarm's ``AlarmActions``)."""
        cfn = self.resource
        cfn.alarm_actions = [*(cfn.alarm_actions or []), *self._arns(actions)]

    def add_ok_action(self, *actions: cloudwatch.IAlarmAction) -> None:
        """Notify ``actions`` when the alarm returns to OK (appended to ``OKActions``)."""
        cfn = self.resource
        cfn.ok_actions = [*(cfn.ok_actions or []), *self._arns(actions)]

    def add_insufficient_data_action(self, *actions: cloudwatch.IAlarmAction) -> None:
        """Notify ``actions`` on INSUFFICIENT_DATA (appended to ``InsufficientDataActions``)."""
        cfn = self.resource
        cfn.insufficient_data_actions = [*(cfn.insufficient_data_actions or []), *self._arns(actions)]


def alarm_of(alarm: cloudwatch.CfnAlarm) -> RenderedAlarm:
    """The :class:`RenderedAlarm` (a ``cloudwatch.IAlarm``) owning ``alarm``, one of the ``CfnAlarm`` s this
    library renders (an endpoint's ``rollback_alarms``, ``InferenceAlarms.alarms``).

    Raises
    ------
    InferenceConfigError
        ``alarm`` was not made by this library.
    """
    owner = alarm.node.scope
    if not isinstance(owner, RenderedAlarm):
        raise InferenceConfigError(
            f"{alarm.node.path}: is not an alarm this library rendered; use cloudwatch.Alarm.from_alarm_arn(...)"
        )
    return owner


def _emit(scope: Construct, construct_id: str, options: AlarmOptions, **metric_props: Any) -> cloudwatch.CfnAlarm:
    """The ``CfnAlarm`` (id ``Resource`` under a construct ``construct_id``, unless ``direct_child``) of
    ``options`` and ``metric_props``."""
    if options.get("direct_child", False):
        owner, child_id = scope, construct_id
    else:
        owner, child_id = RenderedAlarm(scope, construct_id), "Resource"
    return cloudwatch.CfnAlarm(
        owner,
        child_id,
        alarm_description=options["description"],
        comparison_operator=COMPARISON_OPERATORS[options["comparison_operator"]],
        datapoints_to_alarm=options["datapoints_to_alarm"],
        evaluation_periods=options["evaluation_periods"],
        treat_missing_data=TREAT_MISSING_DATA[options["treat_missing_data"]],
        alarm_actions=list(options.get("actions", ())) or None,
        ok_actions=list(options.get("ok_actions", ())) or None,
        **metric_props,
    )


def add_planned_alarm(
    scope: Construct,
    decision: AlarmDecision,
    dimension_values: Mapping[str, str],
    *,
    account_id: str | None = None,
    actions: Sequence[str] = (),
    ok_actions: Sequence[str] = (),
    direct_child: bool = False,
) -> cloudwatch.CfnAlarm:
    """The ``CfnAlarm`` of a planned alarm, as the child ``decision.alarm`` of ``scope``: its dimensions bound to
    ``dimension_values`` (name -> value, e.g. the built endpoint's name), read from ``account_id`` when that is
    not the alarm's own account (``direct_child``: see :class:`AlarmOptions`)."""

    def metric(name: str, statistic: str) -> AlarmMetric:
        dims = tuple((d, dimension_values[d]) for d in decision.dimensions)
        return AlarmMetric(
            decision.namespace,
            name,
            dims,
            statistic,
            decision.period_seconds,
            unit=decision.unit,
            account_id=account_id,
        )

    options = planned_options(
        decision, description=decision.description, actions=actions, ok_actions=ok_actions, direct_child=direct_child
    )
    if decision.kind == "anomaly":
        std_devs = decision.std_devs
        assert std_devs is not None, "an anomaly alarm decision states its band width"
        return add_anomaly_alarm(
            scope, decision.alarm, metric(decision.metric, decision.statistic), std_devs=std_devs, **options
        )
    threshold = decision.threshold
    assert threshold is not None, "a static alarm decision states its threshold"
    watched: AlarmMetric | AlarmMath = (
        AlarmMath(
            decision.expression,
            tuple((q.id, metric(q.metric, q.statistic)) for q in decision.metrics),
            label=decision.expression_label,
        )
        if decision.expression is not None
        else metric(decision.metric, decision.statistic)
    )
    return add_alarm(scope, decision.alarm, watched, threshold=threshold, **options)
