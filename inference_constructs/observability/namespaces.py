"""What exists in each CloudWatch namespace the library graphs: its dimension names and metric names.

Pure data (no ``aws_cdk`` import), read from the one metric table
(:mod:`~inference_constructs.observability.metric_table`). The template validator
(:mod:`inference_constructs.observability.validate`) reports a namespace outside this table, and a metric or
dimension name a namespace does not have, so a typo cannot slip through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from inference_constructs.observability.metric_table import NAMESPACE_DIMENSIONS, names_in

__all__ = ["KNOWN_NAMESPACES", "Namespace"]


@dataclass(frozen=True)
class Namespace:
    """What exists in one CloudWatch namespace: dimension names and metric names."""

    dimensions: frozenset[str]
    metrics: frozenset[str]


KNOWN_NAMESPACES: Mapping[str, Namespace] = {
    namespace: Namespace(dimensions=dimensions, metrics=names_in(namespace))
    for namespace, dimensions in NAMESPACE_DIMENSIONS.items()
}
"""Namespaces the library graphs, with their dimension and metric names. A namespace outside this table is
reported, so a typo cannot slip through."""
