"""AWS/Bedrock runtime metrics for one ``ModelId`` dimension value (side-effect free factories).

Observability code can build the same metrics as :class:`ApplicationInferenceProfile.metric_*` by
calling these functions with the profile id (``profile.profile_id``).

Which ``ModelId`` value does traffic through an application inference profile carry? Not stated
in the AWS docs (UNCONFIRMED: not on the Bedrock runtime metrics page); public monitoring helpers
query the profile ID (last ARN segment), which is what the construct passes. Graph
``SEARCH('{AWS/Bedrock,ModelId} <id>', 'Sum')`` on a live account to confirm.

Prompt-cache metric names disagree across AWS sources: the runtime-metrics page says
``CacheReadInputTokens`` / ``CacheWriteInputTokens``; the token-burndown page and public dashboards
say ``CacheReadInputTokenCount`` / ``CacheWriteInputTokenCount``. Both are offered, plus a total
expression ``FILL(a, 0) + FILL(b, 0)`` that shows whichever exists.
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch

from inference_constructs.observability import metric_table
from inference_constructs.stats import Statistic

NAMESPACE = metric_table.BEDROCK_NAMESPACE
DIMENSION = metric_table.Dimension.MODEL_ID.value
DEFAULT_PERIOD = Duration.minutes(5)

CACHE_METRIC_NAMES: dict[str, tuple[str, str]] = {
    "read": (metric_table.CACHE_READ_INPUT_TOKENS.name, metric_table.CACHE_READ_INPUT_TOKEN_COUNT.name),
    "write": (metric_table.CACHE_WRITE_INPUT_TOKENS.name, metric_table.CACHE_WRITE_INPUT_TOKEN_COUNT.name),
}
"""Per cache direction: (name on the runtime-metrics page, name on the burndown page)."""


def bedrock_metric(
    metric_name: str,
    model_id: str,
    *,
    statistic: Statistic | str = "Sum",
    period: Duration | None = None,
    label: str | None = None,
) -> cloudwatch.Metric:
    """``AWS/Bedrock`` ``metric_name`` for dimension ``ModelId=model_id``.

    Parameters
    ----------
    metric_name:
        Official metric name, e.g. ``Invocations``.
    model_id:
        ``ModelId`` dimension value (the application profile id, or a token for it).
    statistic:
        Default: ``Sum``, the total over the period.
    period:
        Default: 5 minutes.
    label:
        Default: CloudWatch shows the metric name.
    """
    return cloudwatch.Metric(
        namespace=NAMESPACE,
        metric_name=metric_name,
        dimensions_map={DIMENSION: model_id},
        statistic=statistic,
        period=period or DEFAULT_PERIOD,
        label=label,
    )


def cache_tokens_total(direction: str, model_id: str, *, period: Duration | None = None) -> cloudwatch.MathExpression:
    """Sum of both cache metric names for ``direction`` (``read`` or ``write``), missing points as 0.

    Returns a ``MathExpression`` ``FILL(documented, 0) + FILL(alternate, 0)``; fit for graphs and
    alarms (no SEARCH). When neither name has data in the window the expression has no data.
    """
    documented, alternate = CACHE_METRIC_NAMES[direction]
    return cloudwatch.MathExpression(
        expression="FILL(documented, 0) + FILL(alternate, 0)",
        using_metrics={
            "documented": bedrock_metric(documented, model_id, period=period),
            "alternate": bedrock_metric(alternate, model_id, period=period),
        },
        label=f"Cache {direction} input tokens",
        period=period or DEFAULT_PERIOD,
    )
