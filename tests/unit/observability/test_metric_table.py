"""The metric table is the one place a CloudWatch metric is named: every name is written once in the library, and
every named row is read by the code that builds or checks metrics."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from inference_constructs.observability import metric_table
from inference_constructs.observability.metric_table import METRICS, MetricDefinition

LIBRARY = Path(metric_table.__file__).resolve().parents[1]
TABLE = Path(metric_table.__file__).resolve()

#: Metric-name literals still written in modules that do not read the table yet (the scaling decisions), by name:
#: how many more times than once each may appear. Remove an entry when its module reads the row.
NOT_YET_FROM_THE_TABLE: dict[str, int] = {}


def _library_sources() -> dict[Path, str]:
    """Every module of the library but the load tester (a separate distribution)."""
    return {
        path: path.read_text(encoding="utf-8")
        for path in sorted(LIBRARY.rglob("*.py"))
        if "loadtest" not in path.relative_to(LIBRARY).parts
    }


def _string_literals(source: str) -> list[str]:
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


@pytest.fixture(scope="module")
def literal_counts() -> Counter[str]:
    counts: Counter[str] = Counter()
    for source in _library_sources().values():
        counts.update(_string_literals(source))
    return counts


@pytest.mark.parametrize("name", sorted({row.name for row in METRICS}))
def test_each_metric_name_is_written_once_in_the_library(name: str, literal_counts: Counter[str]) -> None:
    # GIVEN a metric name of the table
    # WHEN the library's string literals are counted
    # THEN the name is written once (in the table), apart from the known leftovers
    assert literal_counts[name] == 1 + NOT_YET_FROM_THE_TABLE.get(name, 0)


def test_the_leftover_list_names_only_table_metrics() -> None:
    # GIVEN the leftovers WHEN compared with the table THEN each is a metric of the table
    assert set(NOT_YET_FROM_THE_TABLE) <= {row.name for row in METRICS}


def _named_rows() -> list[str]:
    return sorted(
        name
        for name, value in vars(metric_table).items()
        if isinstance(value, MetricDefinition) and re.fullmatch(r"[A-Z][A-Z0-9_]*", name)
    )


@pytest.mark.parametrize("row", _named_rows())
def test_each_named_row_is_read_outside_the_table(row: str) -> None:
    # GIVEN a named row of the table
    # WHEN the other modules of the library are read
    users = [
        path.relative_to(LIBRARY).as_posix()
        for path, source in _library_sources().items()
        if path != TABLE and re.search(rf"\b{row}\b", source)
    ]
    # THEN some module builds, alarms on or graphs that metric
    assert users, f"{row} is read by no module"


def test_rows_are_unique_per_namespace_and_name() -> None:
    # GIVEN every row WHEN keyed by namespace and metric name THEN no metric is defined twice
    keys = [(row.namespace, row.name) for row in METRICS]
    assert len(keys) == len(set(keys))


def test_every_row_cites_its_aws_page() -> None:
    # GIVEN every row WHEN its source is read THEN it is an AWS documentation page
    assert all(row.source.startswith("https://docs.aws.amazon.com/") for row in METRICS)
