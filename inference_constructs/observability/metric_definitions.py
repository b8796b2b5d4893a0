"""The rules over the metrics the library reads: which dimensions an endpoint's metric carries, how GPU metrics
scale with the host's GPU count, and how SEARCH expressions over them are written. The metrics themselves
(namespace, name, dimensions, statistic, unit) are the rows of :mod:`~inference_constructs.observability.metric_table`;
the namespaces and dimension names are re-exported here.

Pure Python (no ``aws_cdk`` import): the hosting constructs' ``metric_*`` methods, the rollback alarms, the
observability alarms and dashboard, and the scaling decisions all read these, so each rule is written once.

Sources: the SageMaker metric reference (https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html)
and the inference component metrics
(https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-inference-components-cloudwatch.html).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from inference_constructs import aws_limits
from inference_constructs._tokens import is_unresolved
from inference_constructs.observability import metric_table
from inference_constructs.observability.metric_table import (  # re-exported: the namespaces are part of this API
    BEDROCK_NAMESPACE,
    BILLING_NAMESPACE,
    ENDPOINT_INSTANCE_NAMESPACE,
    GUARDRAILS_NAMESPACE,
    INFERENCE_COMPONENT_NAMESPACE,
    SAGEMAKER_NAMESPACE,
    Dimension,
)
from inference_constructs.stats import Statistic

__all__ = [
    "BEDROCK_DIMENSIONS",
    "BEDROCK_NAMESPACE",
    "BILLING_NAMESPACE",
    "CACHE_WRITE_METRIC_NAMES",
    "COMPONENT_DIMENSIONS",
    "ENDPOINT_INSTANCE_NAMESPACE",
    "ENDPOINT_ONLY_DIMENSIONS",
    "ERROR_METRICS",
    "GUARDRAILS_NAMESPACE",
    "INFERENCE_COMPONENT_NAMESPACE",
    "MAX_SEARCH_LENGTH",
    "MONITORING_ACCOUNT",
    "SAGEMAKER_NAMESPACE",
    "VARIANT_DIMENSIONS",
    "Dimension",
    "ErrorClass",
    "ErrorRateExpression",
    "account_filter",
    "endpoint_dimensions",
    "enhanced_dimensions",
    "enhanced_search",
    "error_rate_expression",
    "gpu_metric_divisor",
    "gpu_metric_target",
    "longest_dashboard_search",
    "search",
]

VARIANT_DIMENSIONS = (Dimension.ENDPOINT_NAME, Dimension.VARIANT_NAME)
"""The dimensions of a production variant's invocation and instance metrics."""
ENDPOINT_ONLY_DIMENSIONS = (Dimension.ENDPOINT_NAME,)
"""The dimensions of the async queue metrics (``ApproximateBacklogSize*``, ``HasBacklogWithoutCapacity``...)."""
COMPONENT_DIMENSIONS = (Dimension.INFERENCE_COMPONENT_NAME,)
"""The dimensions of an inference component's metrics."""


def endpoint_dimensions(
    endpoint_name: str,
    variant_name: str,
    *,
    namespace: str = SAGEMAKER_NAMESPACE,
    inference_component_name: str | None = None,
    variant_dimension: bool = True,
) -> dict[str, str]:
    """Dimensions of one endpoint's metric in ``namespace``, in template order.

    An ``AWS/SageMaker`` invocation metric of an endpoint hosted through an inference component, and every metric
    of ``/aws/sagemaker/InferenceComponents`` (per copy), is published per component (``InferenceComponentName``);
    every other endpoint metric per variant (``EndpointName``, ``VariantName``); the async queue metrics
    (``variant_dimension=False``) per endpoint only.
    """
    if inference_component_name is not None and (
        namespace == INFERENCE_COMPONENT_NAMESPACE or (namespace == SAGEMAKER_NAMESPACE and variant_dimension)
    ):
        return {Dimension.INFERENCE_COMPONENT_NAME.value: inference_component_name}
    if variant_dimension:
        return {Dimension.ENDPOINT_NAME.value: endpoint_name, Dimension.VARIANT_NAME.value: variant_name}
    return {Dimension.ENDPOINT_NAME.value: endpoint_name}


def enhanced_dimensions(row: metric_table.MetricDefinition, *, inference_component: bool = False) -> tuple[str, ...]:
    """The dimension names ``row`` is published with for one instance (a GPU metric: one GPU of an instance) when
    the endpoint config turns ``MetricsConfig.EnableEnhancedMetrics`` on; empty when no source documents one.

    An ``AWS/SageMaker`` invocation metric of an endpoint hosted through an inference component is published per
    container of the component instead (``EndpointName, VariantName, InferenceComponentName, InstanceId,
    ContainerId``): the same rule as :func:`endpoint_dimensions`.
    """
    if inference_component and row.namespace == SAGEMAKER_NAMESPACE:
        return row.enhanced_component_dimensions
    return row.enhanced_dimensions


def enhanced_search(
    row: metric_table.MetricDefinition,
    statistic: Statistic | str,
    *,
    endpoint_name: str,
    variant_name: str,
    inference_component_name: str | None = None,
    account_ids: Sequence[str] = (),
) -> str:
    """SEARCH over ``row``'s enhanced dimension set for one endpoint variant (one line per instance, or per GPU of
    each instance, or per container of ``inference_component_name``).

    Raises
    ------
    ValueError
        When no source documents an enhanced dimension set for ``row`` (a programming error: the dashboard only
        asks for rows that have one).
    """
    dimensions = enhanced_dimensions(row, inference_component=inference_component_name is not None)
    if not dimensions:
        raise ValueError(f"{row.namespace} {row.name} has no documented enhanced dimension set")
    values = {Dimension.ENDPOINT_NAME.value: endpoint_name, Dimension.VARIANT_NAME.value: variant_name}
    if inference_component_name is not None and Dimension.INFERENCE_COMPONENT_NAME.value in dimensions:
        values[Dimension.INFERENCE_COMPONENT_NAME.value] = inference_component_name
    return search(row.namespace, dimensions, [row.name], statistic, account_ids=account_ids, dimension_values=values)


def gpu_metric_divisor(gpu_count: int) -> int:
    """What to divide an ``/aws/sagemaker/Endpoints`` GPU metric by for 0..100 % per GPU.

    ``GPUUtilization`` and ``GPUMemoryUtilization`` are summed over the host's GPUs (0..100 x GPU count); a host
    without GPUs divides by 1.
    """
    return max(gpu_count, 1)


def gpu_metric_target(percent_per_gpu: float, gpu_count: int) -> float:
    """The value of an ``/aws/sagemaker/Endpoints`` GPU metric at ``percent_per_gpu`` on every GPU (80 % on a
    4-GPU host is 320)."""
    return percent_per_gpu * gpu_count


BEDROCK_DIMENSIONS = (Dimension.MODEL_ID.value,)
CACHE_WRITE_METRIC_NAMES = (metric_table.CACHE_WRITE_INPUT_TOKENS.name, metric_table.CACHE_WRITE_INPUT_TOKEN_COUNT.name)
"""Both spellings AWS documents for prompt-cache writes."""
MAX_SEARCH_LENGTH = aws_limits.MAX_SEARCH_LENGTH
"""CloudWatch rejects a SEARCH query longer than 1024 characters."""


# --------------------------------------------------------------------------------------------------------- SEARCH


def _quote(value: str) -> str:
    """Double-quote an exact-match value, escaping ``" \\ ( )`` as the SEARCH syntax requires (tokens pass as is)."""
    if is_unresolved(value):
        return f'"{value}"'
    escaped = "".join("\\" + char if char in '"\\()' else char for char in value)
    return f'"{escaped}"'


MONITORING_ACCOUNT = "LOCAL"
"""The account-id value that names the monitoring account itself in a SEARCH term (CloudWatch user guide, "CloudWatch
search expression syntax": ``:aws.AccountId = 'LOCAL'``); written double-quoted, as the console writes it."""


def account_filter(account_ids: Sequence[str]) -> str:
    """SEARCH term restricting results to ``account_ids`` and the monitoring account itself (works only in a
    cross-account monitoring account).

    ``:aws.AccountId = ("111122223333" OR "LOCAL")``: the listed source accounts plus the monitoring account's own
    metrics (``LOCAL``); an empty string for none (search the dashboard's own account, or every linked account in a
    monitoring account).
    """
    if not account_ids:
        return ""
    return ":aws.AccountId = (" + " OR ".join(_quote(a) for a in [*account_ids, MONITORING_ACCOUNT]) + ")"


def search(
    namespace: str,
    dimensions: Sequence[str],
    metric_names: Sequence[str],
    statistic: Statistic | str,
    *,
    account_ids: Sequence[str] = (),
    dimension_values: Mapping[str, str] | None = None,
) -> str:
    """Render ``SEARCH('{namespace,dims} MetricName="..." ...', 'statistic')``.

    Parameters
    ----------
    namespace, dimensions:
        The metric schema: only metrics with exactly these dimension names match.
    metric_names:
        One name, or several alternatives joined with ``OR`` (e.g. both cache-metric spellings).
    statistic:
        Any CloudWatch statistic: ``Sum``, ``Average``, ``p99``...
    account_ids:
        Source accounts to cover from a monitoring account. Default: no account filter.
    dimension_values:
        Exact dimension values to match, e.g. ``{"ModelId": profile_id}``. Default: every value.
    """
    schema = "{" + ",".join([namespace, *dimensions]) + "}"
    names = [f"MetricName={_quote(n)}" for n in metric_names]
    terms = [names[0] if len(names) == 1 else "(" + " OR ".join(names) + ")"]
    terms += [f"{dim}={_quote(value)}" for dim, value in (dimension_values or {}).items()]
    accounts = account_filter(account_ids)
    if accounts:
        terms.append(accounts)
    return f"SEARCH('{schema} {' '.join(terms)}', '{statistic}')"


def longest_dashboard_search(account_ids: Sequence[str]) -> int:
    """Characters of the longest SEARCH expression the dashboard writes with the account filter of ``account_ids``
    (Bedrock cache writes: two metric spellings; per-copy GPU memory of every inference component: the longest
    namespace and metric name); the dashboard and the plan both check it against :data:`MAX_SEARCH_LENGTH`."""
    copy_memory = metric_table.GPU_MEMORY_UTILIZATION_NORMALIZED
    component = [d.value for d in COMPONENT_DIMENSIONS]
    return max(
        len(
            search(
                BEDROCK_NAMESPACE, BEDROCK_DIMENSIONS, CACHE_WRITE_METRIC_NAMES, "SampleCount", account_ids=account_ids
            )
        ),
        len(search(copy_memory.namespace, component, [copy_memory.name], "Average", account_ids=account_ids)),
    )


ErrorClass = Literal["4XX", "5XX"]
"""The invocation error classes SageMaker counts (``Invocation4XXErrors``, ``Invocation5XXErrors``)."""
ERROR_METRICS: Mapping[ErrorClass, metric_table.MetricDefinition] = {
    "4XX": metric_table.INVOCATION_4XX_ERRORS,
    "5XX": metric_table.INVOCATION_5XX_ERRORS,
}
"""The error metric of each class."""


class ErrorRateExpression(NamedTuple):
    """The parts of ``100*errors/invocations`` for one error class (shared by the graph and the alarm)."""

    errors_id: str
    errors_metric: str
    expression: str
    label: str


def error_rate_expression(error_class: ErrorClass) -> ErrorRateExpression:
    """``100*errors<class>/invocations`` over ``Invocation<class>Errors`` and ``Invocations`` (both sums)."""
    errors_id = f"errors{error_class.lower()}"
    return ErrorRateExpression(
        errors_id, ERROR_METRICS[error_class].name, f"100*{errors_id}/invocations", f"{error_class} error rate (%)"
    )
