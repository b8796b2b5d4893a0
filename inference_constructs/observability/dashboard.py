"""``InferenceDashboard``: one CloudWatch dashboard that answers "did the optimization work?".

Fleet graphs are SEARCH expressions, so endpoints and Bedrock profiles created later appear without editing the
dashboard. Endpoints and profiles the app knows get extra per-resource graphs (GPU utilization per GPU, tokens per
invocation and cache-hit ratio per profile).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any, cast

import jsii
from aws_cdk import Aws, Duration, IStableStringProducer, Lazy, RemovalPolicy, Stack, Token
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from inference_constructs.errors import ProblemCollector
from inference_constructs.observability import metric_definitions, metrics
from inference_constructs.observability.dashboard_sections import DashboardSections
from inference_constructs.observability.graph_data import (
    TextData,
    WidgetData,
    YAxis,
    body_json,
    dashboard_object,
    prints_as_javascript,
    rows_height,
)
from inference_constructs.observability.metric_factory import period_seconds, to_l2
from inference_constructs.observability.targets import (
    EndpointLike,
    MonitoredEndpoint,
    MonitoredProfile,
    ProfileLike,
    key,
    monitored_endpoints,
    monitored_profiles,
    validate_account_ids,
    validate_endpoints,
    validate_profiles,
)

MAX_WIDGETS = 500
"""CloudWatch allows at most 500 widgets in one dashboard body."""
MAX_SEARCH_LENGTH = metric_definitions.MAX_SEARCH_LENGTH
"""CloudWatch rejects a SEARCH query longer than 1024 characters."""
DASHBOARD_NAME = re.compile(r"^[A-Za-z0-9_-]{1,255}$")
"""A dashboard name: alphanumerics, dash and underscore, at most 255 characters (CloudWatch API reference,
``PutDashboard`` ``DashboardName``; aws-cdk's ``Dashboard`` checks the characters)."""
_TOKEN_MARK = "${Token["
"""How a string token starts in Python (aws-cdk's string encoding of tokens)."""
SHORT_PERIODS = (1, 5, 10, 30)
"""The periods under a minute a graph may have; longer ones are whole minutes (aws-cdk's ``Metric`` and
``MathExpression``, after CloudWatch's ``MetricStat.Period``)."""


def _cdk_axis(axis: YAxis | None) -> cloudwatch.YAxisProps | None:
    if axis is None:
        return None
    return cloudwatch.YAxisProps(min=axis.min, max=axis.max, label=axis.label, show_units=axis.show_units)


def cdk_widget(widget: WidgetData) -> cloudwatch.IWidget:
    """The aws-cdk widget of a widget given as data (its metrics made with ``metric_factory.to_l2``)."""
    if isinstance(widget, TextData):
        return cloudwatch.TextWidget(markdown=widget.markdown, width=widget.width, height=widget.height)
    return cloudwatch.GraphWidget(
        title=widget.title,
        left=[to_l2(m) for m in widget.left],
        right=[to_l2(m) for m in widget.right] or None,
        left_y_axis=_cdk_axis(widget.left_y_axis),
        right_y_axis=_cdk_axis(widget.right_y_axis),
        width=widget.width,
        height=widget.height,
        region=widget.region,
        period=None if widget.period_seconds is None else Duration.seconds(widget.period_seconds),
        start=widget.start,
    )


class InferenceDashboard(Construct):
    """A CloudWatch dashboard for SageMaker endpoints and Bedrock application inference profiles.

    Widgets, top to bottom:

    * SageMaker fleet (SEARCH): invocations; OverheadLatency (ms); 4XX/5XX error rate (%); ModelLatency p50, p90 and
      p99 (ms; the metric is microseconds); GPU utilization and GPU memory (summed over GPUs: 0–100 × GPU count);
      CPU utilization (summed over vCPUs) and host memory; async backlog and age of the oldest request; serverless
      ModelSetupTime (cold starts).
    * Per known endpoint with GPUs: GPU utilization and GPU memory divided by that host's GPU count (0–100 %).
    * Per known real-time endpoint whose endpoint config turns enhanced metrics on
      (``MonitoredEndpoint.enhanced_metrics``; SEARCH over the enhanced dimension sets, so each GPU and each instance
      is one line): GPU utilization and GPU memory per GPU (``AcceleratorId``, hosts with GPUs); CPU and host memory
      per instance (``InstanceId``); invocations and ModelLatency p99 per instance (per container, ``ContainerId``,
      for an inference component).
    * Bedrock fleet (SEARCH, per ``ModelId``): invocations; InvocationLatency p99 (ms); throttles and errors; input
      and output tokens; tokens per invocation; prompt-cache read and write tokens (both documented metric
      spellings); cache-hit ratio ``100 * read / (read + write + input)``.
    * Per known profile: tokens per invocation and cache-hit ratio.
    * Cost: estimated charges in USD, us-east-1, one point per day over 30 days.

    Parameters
    ----------
    scope, construct_id:
        Where the dashboard is created.
    endpoints:
        Endpoints the app knows: endpoint constructs (built or imported, any ``IInferenceEndpoint``) or
        :class:`MonitoredEndpoint` values; each with GPUs gets a per-GPU widget, and each whose endpoint config
        turns enhanced metrics on gets a row of per-GPU and per-instance graphs. Default: only the fleet graphs,
        which still show every endpoint in the account and Region.
    profiles:
        Bedrock application inference profiles the app knows (``ApplicationInferenceProfile`` constructs or
        :class:`MonitoredProfile` values); each gets a widget. Default: only the fleet graphs.
    source_account_ids:
        For a dashboard deployed in a CloudWatch cross-account observability **monitoring account**: every SEARCH
        gets ``:aws.AccountId = ("111..." OR "222...")`` so the fleet graphs cover exactly these source accounts,
        and the cost graph shows one line per account. The filter works only in a monitoring account linked to the
        source accounts (see docs/observability.md). Default: the graphs read the dashboard's own account.
    dashboard_name:
        Name of the dashboard. Default: CloudFormation generates a unique name.
    region:
        Region the graphs read (except the cost graph, which always reads us-east-1). Default: the Region the stack
        is deployed to (``AWS::Region``), so one template serves every Region.
    period:
        Aggregation period of the graphs (except cost: one day). Default: 5 minutes.

    Raises
    ------
    InferenceConfigError
        When an account id is not 12 digits, an endpoint or profile is malformed, the accounts make a SEARCH longer
        than 1024 characters, or the dashboard would exceed 500 widgets.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoints: Sequence[EndpointLike] = (),
        profiles: Sequence[ProfileLike] = (),
        source_account_ids: Sequence[str] = (),
        dashboard_name: str | None = None,
        region: str | None = None,
        period: Duration = metrics.DEFAULT_PERIOD,
    ) -> None:
        super().__init__(scope, construct_id)
        endpoints, profiles = monitored_endpoints(endpoints), monitored_profiles(profiles)
        problems = check_dashboard_inputs(endpoints=endpoints, profiles=profiles, source_account_ids=source_account_ids)
        if (
            dashboard_name is not None
            and not Token.is_unresolved(dashboard_name)
            and not DASHBOARD_NAME.match(dashboard_name)
        ):
            problems.add(
                "dashboard_name",
                f"{dashboard_name!r} is not a dashboard name",
                "use 1-255 letters, digits, dashes (-) and underscores (_)",
            )
        seconds = period_seconds(period)
        if seconds not in SHORT_PERIODS and (seconds < 60 or seconds % 60):
            problems.add("period", f"{seconds} seconds is not a graph period", "use 1, 5, 10, 30 or whole minutes")
        problems.raise_if_any()
        self._region = region or Aws.REGION

        sections = DashboardSections(
            accounts=source_account_ids, region=self._region, period=period, period_seconds=seconds
        )
        rows = sections.rows(endpoints, profiles)
        self.rows: tuple[tuple[WidgetData, ...], ...] = tuple(tuple(row) for row in rows)
        """The widgets as data, row by row, top to bottom (each row left to right)."""
        count = sum(len(row) for row in rows)
        if count > MAX_WIDGETS:
            problems = ProblemCollector()
            problems.add(
                "endpoints",
                f"{len(endpoints)} endpoints and {len(profiles)} profiles need {count} widgets; "
                f"a dashboard holds at most {MAX_WIDGETS}",
                "split them across several InferenceDashboard constructs (the fleet graphs already show all)",
            )
            problems.raise_if_any()
        self._added: list[cloudwatch.IWidget] = []
        # The L2 ``cloudwatch.Dashboard`` this class used to create had the id ``Resource`` and its ``CfnDashboard``
        # the id ``Resource`` under it: the same path keeps the logical id, so a deployed dashboard is not replaced.
        self._holder = _DashboardResource(self, "Resource", owner=self)
        self.resource = cloudwatch.CfnDashboard(
            self._holder, "Resource", dashboard_body=self._render(), dashboard_name=dashboard_name
        )
        """The ``AWS::CloudWatch::Dashboard``; its body is rendered from :attr:`rows` (and :meth:`add_widgets`)."""
        self._widgets: tuple[cloudwatch.IWidget, ...] | None = None

    def _render(self) -> str:
        """The body: :attr:`rows`, then the rows :meth:`add_widgets` added.

        When the only tokens in the body are the Region the graphs read (a pseudo parameter, whose value needs no
        escaping) and every number prints as JavaScript prints it, the JSON written here is what aws-cdk writes, and
        it is used as it is. Otherwise (a name that is a token, widgets a user added) it goes through
        ``Stack.to_json_string``, which escapes a token's value inside a JSON string as aws-cdk's dashboard does; that
        round trip hands the whole body to the jsii kernel, so it is kept for when it is needed."""
        widgets: list[Any] = list(dashboard_object(self.rows, region=self._region))
        if not self._added:
            body = body_json(widgets)
            region_tokens = body.count(self._region) if self._region.startswith(_TOKEN_MARK) else 0
            if body.count(_TOKEN_MARK) == region_tokens and prints_as_javascript(widgets):
                return body
        top = rows_height(self.rows)
        for row in self._added:
            row.position(0, top)
            top += int(row.height)
            widgets += row.to_json()
        return Stack.of(self).to_json_string({"widgets": widgets})

    @property
    def widgets(self) -> tuple[cloudwatch.IWidget, ...]:
        """Every widget of :attr:`rows` as an aws-cdk widget, in dashboard order, for a dashboard of your own: made on
        first use; changing them does not change this dashboard (which is rendered from :attr:`rows`)."""
        if self._widgets is None:
            self._widgets = tuple(cdk_widget(w) for row in self.rows for w in row)
        return self._widgets

    def add_widgets(self, *widgets: cloudwatch.IWidget) -> None:
        """Add ``widgets`` as a row below the others, as ``cloudwatch.Dashboard.add_widgets`` does (left to right,
        wrapping past 24 columns). Like the L2 dashboard, the body is rendered at synth, so a widget changed after
        this call shows as it is then."""
        if not widgets:
            return
        self._added.append(widgets[0] if len(widgets) == 1 else cast(cloudwatch.IWidget, cloudwatch.Row(*widgets)))
        if len(self._added) == 1:
            self.resource.dashboard_body = Lazy.string(_RenderAtSynth(self))

    @property
    def dashboard(self) -> Construct:
        """Deprecated: the construct that holds :attr:`resource` (its ``node.default_child``), with
        ``add_widgets``, ``dashboard_name``, ``dashboard_arn`` and ``apply_removal_policy``. It was the
        ``cloudwatch.Dashboard`` before the dashboard was rendered from data; use this construct's own members."""
        warnings.warn(
            "InferenceDashboard.dashboard is deprecated: use the InferenceDashboard itself (add_widgets, "
            "dashboard_name, dashboard_arn) or its resource",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._holder

    @property
    def dashboard_name(self) -> str:
        """Name of the dashboard: ``Ref`` of the resource, as the L2 dashboard's (it resolves to the given name)."""
        return self.resource.ref

    @property
    def dashboard_arn(self) -> str:
        """ARN of the dashboard (``arn:<partition>:cloudwatch::<account>:dashboard/<name>``)."""
        stack = Stack.of(self)
        return f"arn:{stack.partition}:cloudwatch::{stack.account}:dashboard/{self.dashboard_name}"


class _DashboardResource(Construct):
    """The construct that holds an :class:`InferenceDashboard`'s ``CfnDashboard`` (id ``Resource``, where the L2
    dashboard was), with the members of the L2 dashboard that the deprecated ``InferenceDashboard.dashboard`` kept."""

    def __init__(self, scope: Construct, construct_id: str, *, owner: InferenceDashboard) -> None:
        super().__init__(scope, construct_id)
        self._owner = owner

    def add_widgets(self, *widgets: cloudwatch.IWidget) -> None:
        """:meth:`InferenceDashboard.add_widgets`."""
        self._owner.add_widgets(*widgets)

    @property
    def dashboard_name(self) -> str:
        """:attr:`InferenceDashboard.dashboard_name`."""
        return self._owner.dashboard_name

    @property
    def dashboard_arn(self) -> str:
        """:attr:`InferenceDashboard.dashboard_arn`."""
        return self._owner.dashboard_arn

    def apply_removal_policy(self, policy: RemovalPolicy) -> None:
        """Apply ``policy`` to the ``AWS::CloudWatch::Dashboard``."""
        self._owner.resource.apply_removal_policy(policy)


@jsii.implements(IStableStringProducer)
class _RenderAtSynth:
    """Renders an :class:`InferenceDashboard`'s body when the template is written (once widgets were added)."""

    def __init__(self, dashboard: InferenceDashboard) -> None:
        self._dashboard = dashboard

    def produce(self) -> str | None:
        """The body."""
        return self._dashboard._render()


def check_dashboard_inputs(
    *,
    endpoints: Sequence[MonitoredEndpoint] = (),
    profiles: Sequence[MonitoredProfile] = (),
    source_account_ids: Sequence[str] = (),
    path: str = "",
) -> ProblemCollector:
    """Collect every problem with the dashboard inputs (``path`` prefixes the key names, e.g. ``observability``)."""
    problems = ProblemCollector()
    problems.extend(validate_endpoints(endpoints, path=key(path, "endpoints")))
    problems.extend(validate_profiles(profiles, path=key(path, "profiles")))
    account_problems = validate_account_ids(source_account_ids, path=key(path, "source_account_ids"))
    problems.extend(account_problems)
    if not account_problems and source_account_ids:
        longest = metric_definitions.longest_dashboard_search(source_account_ids)
        if longest > MAX_SEARCH_LENGTH:
            problems.add(
                key(path, "source_account_ids"),
                f"{len(source_account_ids)} accounts make a SEARCH expression {longest} characters long; "
                f"the limit is {MAX_SEARCH_LENGTH}",
                "list at most 48 accounts per dashboard, or none to cover every linked account",
            )
    return problems
