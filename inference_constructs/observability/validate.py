"""Static checks for the CloudWatch expressions a synthesized template carries.

CloudFormation accepts a dashboard body as an opaque string and an alarm on a SEARCH expression lints clean, yet both
fail (or show nothing) once deployed. :func:`validate_template` reads every ``AWS::CloudWatch::Dashboard`` and
``AWS::CloudWatch::Alarm`` / ``AWS::CloudWatch::AnomalyDetector`` of a template and returns one line per problem:

* SEARCH syntax: ``SEARCH('{Namespace,Dim,...} terms', 'Statistic')`` with balanced quotes and parentheses, a known
  namespace with dimension names that exist there, known metric names, a valid statistic, and at most 1024
  characters;
* metric-math ids match ``^[a-z][A-Za-z0-9_]*$``, are unique, and every id an expression uses is defined;
* at most 500 widgets per dashboard and 100 SEARCH expressions per graph;
* no alarm or anomaly detector references SEARCH; anomaly alarms use at most one band and ten metrics; period ×
  evaluation periods stays within one day.

Pure Python (no ``aws_cdk`` import), so the gates can run it over every template of ``cdk.out``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inference_constructs.observability.metric_table import dimension_sets
from inference_constructs.observability.namespaces import KNOWN_NAMESPACES, Namespace

MAX_WIDGETS = 500
MAX_SEARCH_PER_GRAPH = 100
MAX_EXPRESSION_LENGTH = 1024
MAX_ANOMALY_METRICS = 10
MAX_ALARM_WINDOW_SECONDS = 86_400

ID_PATTERN = re.compile(r"^[a-z][A-Za-z0-9_]*$")

_PERCENT_OR_VALUE = r"(\d+(\.\d+)?%?)?"
STATISTIC_PATTERN = re.compile(
    r"^(?:"
    r"SampleCount|Average|Sum|Minimum|Maximum|IQM"
    r"|p(?:\d{1,2}(?:\.\d+)?|100)"
    r"|(?:tm|wm|tc|ts)(?:\d{1,2}(?:\.\d+)?|100)"
    rf"|(?:TM|WM|TC|TS|PR)\({_PERCENT_OR_VALUE}:{_PERCENT_OR_VALUE}\)"
    r")$"
)
"""CloudWatch statistics: the five basic ones, percentiles ``pNN(.N)`` and the trimmed/winsorized/percentile-rank
families (``tm99``, ``TM(10%:90%)``, ``PR(:300)``...), see the CloudWatch "Statistics definitions" page."""


_PSEUDO_DESIGNATORS = frozenset({"MetricName", "Namespace"})


# ------------------------------------------------------------------------------------------ token resolution


def resolve_to_string(value: Any) -> str:
    """Render a CloudFormation string value, joining ``Fn::Join`` parts and replacing other intrinsics by placeholders.

    ``{"Ref": "AWS::Region"}`` becomes ``TOKEN_AWS_Region``, ``{"Fn::GetAtt": ["Profile", "Id"]}`` becomes
    ``TOKEN_Profile_Id``: letters, digits and underscores only, so the placeholder never breaks JSON or SEARCH quoting.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, dict) and len(value) == 1:
        ((name, argument),) = value.items()
        if name == "Fn::Join" and isinstance(argument, list) and len(argument) == 2:
            delimiter, parts = argument
            if isinstance(parts, list):
                return resolve_to_string(delimiter).join(resolve_to_string(p) for p in parts)
        if name == "Ref":
            return _placeholder(str(argument))
        if name == "Fn::GetAtt":
            return _placeholder("_".join(argument) if isinstance(argument, list) else str(argument))
        return _placeholder(name)
    return _placeholder("value")


def _placeholder(text: str) -> str:
    return "TOKEN_" + re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


# ------------------------------------------------------------------------------------------------ SEARCH


@dataclass(frozen=True)
class SearchCall:
    """One parsed ``SEARCH(...)`` call."""

    query: str
    statistic: str
    start: int
    end: int


class _ParseError(ValueError):
    pass


def _read_single_quoted(text: str, index: int) -> tuple[str, int]:
    """Read a single-quoted string starting at ``text[index] == "'"``; backslash escapes the next character."""
    if index >= len(text) or text[index] != "'":
        raise _ParseError("expected a single-quoted string")
    out: list[str] = []
    i = index + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if char == "'":
            return "".join(out), i + 1
        out.append(char)
        i += 1
    raise _ParseError("unterminated single quote")


def _skip_spaces(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def find_searches(expression: str) -> tuple[list[SearchCall], list[str]]:
    """Every ``SEARCH(...)`` call in a metric-math expression, and the syntax problems met while reading them."""
    calls: list[SearchCall] = []
    problems: list[str] = []
    for match in re.finditer(r"\bSEARCH\s*\(", expression, flags=re.IGNORECASE):
        if match.group(0)[:6] != "SEARCH":
            problems.append("SEARCH must be written in upper case")
        try:
            i = _skip_spaces(expression, match.end())
            query, i = _read_single_quoted(expression, i)
            i = _skip_spaces(expression, i)
            if i >= len(expression) or expression[i] != ",":
                raise _ParseError("expected ', ' and a quoted statistic after the query")
            i = _skip_spaces(expression, i + 1)
            statistic, i = _read_single_quoted(expression, i)
            i = _skip_spaces(expression, i)
            if i < len(expression) and expression[i] == ",":
                period = re.match(r"\s*(\d+)\s*", expression[i + 1 :])
                if not period:
                    raise _ParseError("the optional third argument must be a period in seconds")
                i = i + 1 + period.end()
            if i >= len(expression) or expression[i] != ")":
                raise _ParseError("missing closing parenthesis")
            calls.append(SearchCall(query=query, statistic=statistic, start=match.start(), end=i + 1))
        except _ParseError as error:
            problems.append(f"malformed SEARCH at character {match.start()}: {error}")
    return calls, problems


def _split_schema(schema: str) -> list[str]:
    """Split ``AWS/SageMaker,EndpointName,"Dim with space"`` on commas outside double quotes."""
    items: list[str] = []
    current: list[str] = []
    quoted = False
    for char in schema:
        if char == '"':
            quoted = not quoted
            continue
        if char == "," and not quoted:
            items.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    items.append("".join(current).strip())
    return items


_TERM = re.compile(
    r"""
    (?P<designator>:?[A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(?P<value>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\(|[^\s()"]+)
    | (?P<quoted>"(?:\\.|[^"\\])*")
    | (?P<open>\() | (?P<close>\))
    | (?P<word>[^\s()"=]+)
    """,
    re.VERBOSE,
)


def check_search(call: SearchCall) -> list[str]:  # noqa: C901, PLR0912 - one branch per SEARCH syntax rule
    """Problems with one SEARCH call: schema, designators, metric names, quotes, parentheses, statistic."""
    problems: list[str] = []
    if not STATISTIC_PATTERN.match(call.statistic):
        problems.append(f"statistic {call.statistic!r} is not a cloudwatch statistic")
    query = call.query.strip()
    namespace: Namespace | None = None
    namespace_name: str | None = None
    schema_dimensions: list[str] = []
    if query.startswith("{"):
        close = query.find("}")
        if close < 0:
            return [*problems, "metric schema '{' is not closed"]
        items = _split_schema(query[1:close])
        namespace_name, schema_dimensions = items[0], items[1:]
        namespace = KNOWN_NAMESPACES.get(namespace_name)
        if namespace is None:
            problems.append(f"namespace {namespace_name!r} is not one the library knows")
        else:
            unknown = [d for d in schema_dimensions if d not in namespace.dimensions]
            if unknown:
                problems.append(f"dimension names {unknown} do not exist in {namespace_name}")
        query = query[close + 1 :]
    if _unbalanced_double_quotes(query):
        problems.append("unbalanced double quotes in the search term")
        return problems
    depth = 0
    for term in _TERM.finditer(query):
        if term.group("open"):
            depth += 1
        elif term.group("close"):
            depth -= 1
            if depth < 0:
                problems.append("unbalanced parentheses in the search term")
                depth = 0
        elif term.group("designator"):
            problems += _check_designator(term.group("designator"), term.group("value"), namespace, namespace_name)
            if term.group("value") == "(":
                depth += 1
        elif term.group("word") and term.group("word") in {"and", "or", "not"}:
            problems.append(f"boolean operator {term.group('word')!r} must be upper case")
    if depth != 0:
        problems.append("unbalanced parentheses in the search term")
    if namespace_name is not None and namespace is not None:
        problems += _check_schema_dimensions(namespace_name, schema_dimensions, query)
    problems += _check_account_filters(query)
    if not call.query.strip():
        problems.append("empty search query")
    return problems


_METRIC_NAME = re.compile(r'MetricName\s*=\s*"([^"]*)"')


def _check_schema_dimensions(namespace_name: str, schema_dimensions: Sequence[str], query: str) -> list[str]:
    """A schema matches only metrics with exactly its dimension names: each ``MetricName`` the query names must be
    published with that set (``metric_table.dimension_sets``; an empty set of a namespace-only schema is not
    checked)."""
    if not schema_dimensions:
        return []
    wanted = frozenset(schema_dimensions)
    problems: list[str] = []
    for name in _METRIC_NAME.findall(query):
        published = dimension_sets(namespace_name, name)
        if published and wanted not in published:
            sets = sorted(", ".join(sorted(s)) for s in published)
            problems.append(
                f"metric {name!r} is not published with dimensions {sorted(wanted)} in {namespace_name} "
                f"(it is with: {'; '.join(sets)})"
            )
    return problems


_ACCOUNT_FILTER = re.compile(r':aws\.AccountId\s*=\s*(\([^)]*\)|"[^"]*"|\S+)')


def _check_account_filters(query: str) -> list[str]:
    problems: list[str] = []
    for match in _ACCOUNT_FILTER.finditer(query):
        values = re.findall(r'"([^"]*)"', match.group(1)) or [match.group(1)]
        for value in values:
            if not re.fullmatch(r"\d{12}|LOCAL|TOKEN_\w+", value):
                problems.append(f"account id {value!r} in the :aws.AccountId filter is not 12 digits or LOCAL")
    return problems


def _unbalanced_double_quotes(text: str) -> bool:
    unescaped = re.sub(r"\\.", "", text)
    return unescaped.count('"') % 2 == 1


def _check_designator(name: str, value: str, namespace: Namespace | None, namespace_name: str | None) -> list[str]:
    literal = value[1:-1] if value.startswith('"') else None
    if name == ":aws.AccountId":
        return []  # checked by _check_account_filters, which also reads the ("1..." OR "2...") form
    if name.startswith(":"):
        return [f"unknown search property {name!r}"]
    if name == "MetricName":
        if namespace is not None and literal is not None and literal not in namespace.metrics:
            return [f"metric {literal!r} does not exist in {namespace_name}"]
        return []
    if name in _PSEUDO_DESIGNATORS:
        return []
    if namespace is not None and name not in namespace.dimensions:
        return [f"dimension {name!r} does not exist in {namespace_name}"]
    return []


# ----------------------------------------------------------------------------------------------- metric math

_FUNCTION_OR_ID = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\b")


def _strip_quoted(expression: str) -> str:
    """Remove single- and double-quoted strings (SEARCH queries, labels) so identifiers can be listed."""
    return re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", "''", expression)


def referenced_ids(expression: str) -> set[str]:
    """Lower-case identifiers an expression uses (function names are upper case in metric math)."""
    return {name for name in _FUNCTION_OR_ID.findall(_strip_quoted(expression)) if name[0].islower()}


def check_expression(expression: str, *, defined_ids: set[str]) -> list[str]:
    """Problems with one metric-math expression: length, SEARCH syntax, ids it uses."""
    problems: list[str] = []
    if len(expression) > MAX_EXPRESSION_LENGTH:
        problems.append(f"expression is {len(expression)} characters long; the limit is {MAX_EXPRESSION_LENGTH}")
    calls, syntax = find_searches(expression)
    problems += syntax
    for call in calls:
        problems += [f"{p} in {expression[call.start : call.end]}" for p in check_search(call)]
    undefined = sorted(referenced_ids(expression) - defined_ids)
    if undefined:
        problems.append(f"expression {expression!r} uses undefined ids {undefined}")
    return problems


# ------------------------------------------------------------------------------------------------ dashboards


def _widget_entries(widget: Mapping[str, Any]) -> Iterator[tuple[list[Any], dict[str, Any]]]:
    """(metric fields, rendering options) for each row of a metric widget's ``metrics`` array."""
    for row in widget.get("properties", {}).get("metrics", []) or []:
        if not isinstance(row, list):
            continue
        if row and isinstance(row[-1], dict):
            yield row[:-1], row[-1]
        else:
            yield row, {}


def validate_dashboard_body(body: str | Mapping[str, Any], *, where: str = "dashboard") -> list[str]:
    """Problems with one dashboard body (a JSON string or its parsed form)."""
    if isinstance(body, str):
        try:
            parsed: Any = json.loads(body)
        except json.JSONDecodeError as error:
            return [f"{where}: the body is not valid json ({error.msg} at character {error.pos})"]
    else:
        parsed = body
    widgets = parsed.get("widgets", []) if isinstance(parsed, dict) else None
    if not isinstance(widgets, list):
        return [f"{where}: the body has no widgets array"]
    problems: list[str] = []
    if len(widgets) > MAX_WIDGETS:
        problems.append(f"{where}: {len(widgets)} widgets; a dashboard holds at most {MAX_WIDGETS}")
    for index, widget in enumerate(widgets):
        if isinstance(widget, dict) and widget.get("type") == "metric":
            title = widget.get("properties", {}).get("title", "")
            problems += [f"{where} widget {index} ({title}): {p}" for p in check_metric_widget(widget)]
    return problems


def check_metric_widget(widget: Mapping[str, Any]) -> list[str]:
    """Problems with one metric widget: ids, expressions, statistics, namespaces, SEARCH count."""
    problems: list[str] = []
    entries = list(_widget_entries(widget))
    ids = [options["id"] for _, options in entries if "id" in options]
    for metric_id in ids:
        if not isinstance(metric_id, str) or not ID_PATTERN.match(metric_id):
            problems.append(f"id {metric_id!r} does not match {ID_PATTERN.pattern}")
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        problems.append(f"ids {duplicates} are defined more than once")
    defined = {i for i in ids if isinstance(i, str)}
    searches = 0
    widget_stat = widget.get("properties", {}).get("stat")
    if isinstance(widget_stat, str) and not STATISTIC_PATTERN.match(widget_stat):
        problems.append(f"widget statistic {widget_stat!r} is not a cloudwatch statistic")
    for fields, options in entries:
        expression = options.get("expression")
        if isinstance(expression, str):
            searches += len(find_searches(expression)[0])
            problems += check_expression(expression, defined_ids=defined)
            continue
        problems += _check_metric_fields(fields)
        stat = options.get("stat")
        if isinstance(stat, str) and not STATISTIC_PATTERN.match(stat):
            problems.append(f"statistic {stat!r} is not a cloudwatch statistic")
    if searches > MAX_SEARCH_PER_GRAPH:
        problems.append(f"{searches} SEARCH expressions; a graph allows at most {MAX_SEARCH_PER_GRAPH}")
    return problems


def _check_metric_fields(fields: Sequence[Any]) -> list[str]:
    if len(fields) < 2 or not all(isinstance(f, str) for f in fields[:2]):
        return [f"metric entry {list(fields)!r} needs a namespace and a metric name"]
    namespace_name, metric_name = fields[0], fields[1]
    namespace = KNOWN_NAMESPACES.get(namespace_name)
    if namespace is None:
        return [f"namespace {namespace_name!r} is not one the library knows"]
    problems: list[str] = []
    if metric_name not in namespace.metrics:
        problems.append(f"metric {metric_name!r} does not exist in {namespace_name}")
    dimension_names = list(fields[2::2])
    unknown = [d for d in dimension_names if d not in namespace.dimensions]
    if unknown:
        problems.append(f"dimension names {unknown} do not exist in {namespace_name}")
    return problems


# ----------------------------------------------------------------------------------------------------- alarms


def check_alarm(properties: Mapping[str, Any]) -> list[str]:  # noqa: C901, PLR0912 - one branch per alarm rule
    """Problems with one ``AWS::CloudWatch::Alarm``'s properties."""
    problems: list[str] = []
    if "SEARCH(" in json.dumps(properties).upper():
        problems.append("references a SEARCH expression; cloudwatch cannot alarm on SEARCH")
    queries = properties.get("Metrics") or []
    ids = [q.get("Id") for q in queries if isinstance(q, dict)]
    for metric_id in ids:
        if not isinstance(metric_id, str) or not ID_PATTERN.match(metric_id):
            problems.append(f"metric id {metric_id!r} does not match {ID_PATTERN.pattern}")
    defined = {i for i in ids if isinstance(i, str)}
    bands = 0
    for query in queries:
        expression = query.get("Expression") if isinstance(query, dict) else None
        if isinstance(expression, str):
            bands += expression.count("ANOMALY_DETECTION_BAND")
            undefined = sorted(referenced_ids(expression) - defined)
            if undefined:
                problems.append(f"expression {expression!r} uses undefined ids {undefined}")
            if len(expression) > MAX_EXPRESSION_LENGTH:
                problems.append(f"expression is longer than {MAX_EXPRESSION_LENGTH} characters")
        stat = query.get("MetricStat", {}).get("Stat") if isinstance(query, dict) else None
        if isinstance(stat, str) and not STATISTIC_PATTERN.match(stat):
            problems.append(f"statistic {stat!r} is not a cloudwatch statistic")
    threshold_id = properties.get("ThresholdMetricId")
    if threshold_id is not None:
        if threshold_id not in defined:
            problems.append(f"ThresholdMetricId {threshold_id!r} is not one of the metric ids {sorted(defined)}")
        if bands != 1:
            problems.append(f"an anomaly alarm needs exactly one ANOMALY_DETECTION_BAND, found {bands}")
        if any("METRICS(" in str(q.get("Expression", "")) for q in queries if isinstance(q, dict)):
            problems.append("an anomaly alarm cannot use the METRICS() function")
        if len(queries) > MAX_ANOMALY_METRICS + 1:
            problems.append(f"an anomaly alarm may use at most {MAX_ANOMALY_METRICS} metrics and expressions")
    problems += _check_alarm_window(properties, queries)
    return problems


def _check_alarm_window(properties: Mapping[str, Any], queries: Sequence[Any]) -> list[str]:
    periods = [properties.get("Period")]
    periods += [q.get("Period") for q in queries if isinstance(q, dict)]
    periods += [q.get("MetricStat", {}).get("Period") for q in queries if isinstance(q, dict)]
    evaluations = properties.get("EvaluationPeriods")
    numbers = [p for p in periods if isinstance(p, int)]
    if not numbers or not isinstance(evaluations, int):
        return []
    period = max(numbers)
    if period < 3600 and period * evaluations > MAX_ALARM_WINDOW_SECONDS:
        return [f"period {period} s × {evaluations} evaluation periods exceeds {MAX_ALARM_WINDOW_SECONDS} s"]
    return []


# --------------------------------------------------------------------------------------------------- template


def validate_template(template: Mapping[str, Any]) -> list[str]:
    """Check every dashboard, alarm and anomaly detector of a CloudFormation template.

    Parameters
    ----------
    template:
        The parsed template (``json.load`` of ``cdk.out/<stack>.template.json``).

    Returns
    -------
    list[str]
        One ``<logical id>: <problem>`` line per problem; empty when every expression is valid.
    """
    problems: list[str] = []
    resources = template.get("Resources", {}) or {}
    for logical_id, resource in resources.items():
        if not isinstance(resource, dict):
            continue
        kind = resource.get("Type")
        properties = resource.get("Properties", {}) or {}
        if kind == "AWS::CloudWatch::Dashboard":
            body = resolve_to_string(properties.get("DashboardBody", ""))
            problems += validate_dashboard_body(body, where=logical_id)
        elif kind == "AWS::CloudWatch::Alarm":
            problems += [f"{logical_id}: {p}" for p in check_alarm(properties)]
        elif kind == "AWS::CloudWatch::AnomalyDetector" and "SEARCH(" in json.dumps(properties).upper():
            problems.append(f"{logical_id}: anomaly detector references SEARCH; anomaly detection cannot use SEARCH")
    return problems
