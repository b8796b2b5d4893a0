"""Known models' shapes, and the completion of a model's shape for the sizing and the engine checks.

The data lives in ``models.json`` next to this module: one row per Hugging Face model id with the
fields of its ``config.json`` that serving depends on, and the row's source. A shape is completed
field by field: what the config gives, else the row of the known-model table, else a conservative
estimate that :class:`~inference_constructs.spec.ResolvedArchitecture` names in ``estimated``.

Pure Python: no ``aws_cdk`` import.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Any

from inference_constructs.catalog import read_packaged_json
from inference_constructs.spec import ARCHITECTURE_FIELDS, ModelArchitecture, ModelSpec, ResolvedArchitecture

__all__ = [
    "ESTIMATED_ATTENTION_HEADS",
    "ESTIMATED_LAYERS",
    "ESTIMATED_VOCAB_SIZE",
    "MODELS_FILE",
    "KnownModel",
    "estimated_architecture",
    "known_model",
    "load_known_models",
    "model_family",
    "model_features",
    "resolve_architecture",
    "resolve_model",
]

MODELS_FILE = "models.json"
"""Name of the packaged known-model table."""


@dataclass(frozen=True)
class KnownModel:
    """One row of the known-model table."""

    id: str
    parameters_billion: float
    architecture: ModelArchitecture
    source: str
    features: Mapping[str, str] = field(default_factory=dict)
    """config.json fields an engine must implement, e.g. ``{"rope_scaling": "llama3"}`` (its rope_type)."""


@cache
def load_known_models() -> Mapping[str, KnownModel]:
    """The known-model table keyed by lower-cased Hugging Face id; parsed once per process."""
    doc = read_packaged_json(MODELS_FILE)
    out: dict[str, KnownModel] = {}
    for model_id, row in doc["models"].items():
        arch = ModelArchitecture(**{name: row[name] for name in ARCHITECTURE_FIELDS})
        features = {str(k): str(v) for k, v in row.get("features", {}).items()}
        out[model_id.lower()] = KnownModel(
            model_id, float(row["parameters_billion"]), arch, row["source"], MappingProxyType(features)
        )
    return out


def known_model(model_id: str | None) -> KnownModel | None:
    """The known-model row for a Hugging Face id (case-insensitive), or ``None``."""
    if not model_id:
        return None
    return load_known_models().get(model_id.lower())


# --------------------------------------------------------------------------------------------- estimates

ESTIMATED_LAYERS: tuple[tuple[float, int], ...] = (
    (1.0, 16),  # Llama 3.2 1B
    (3.0, 28),  # Llama 3.2 3B
    (8.0, 32),  # Llama 3.1 8B
    (14.0, 48),  # Qwen 2.5 14B
    (32.0, 64),  # Qwen 2.5 32B
    (70.0, 80),  # Llama 3.1 70B
    (405.0, 126),  # Llama 3.1 405B
)
"""(parameters in billions, layers) of grouped-query models with 8 KV heads x 128 dims, from their
``config.json``: the envelope the estimate follows when the shape is unknown."""

ESTIMATED_KV_HEADS = 8
"""KV heads assumed: the widest common grouped-query shape (Llama 3, Mistral, Qwen 2.5 14B+)."""

ESTIMATED_HEAD_DIM = 128
"""Head dimension assumed."""

ESTIMATED_ATTENTION_HEADS = 64
"""Attention heads assumed: a multiple of every GPU tensor parallel degree (1-8), so an unknown head
count never rules a degree out; flagged in the plan, give ``attention_heads`` to have it checked."""

ESTIMATED_VOCAB_SIZE = 152064
"""Vocabulary assumed: Qwen 2.5's 152064, the largest of the common families (Llama 3 has 128256):
sizes the 16-bit embeddings of a quantized checkpoint from above."""


def _estimated_layers(parameters_billion: float) -> int:
    p = max(parameters_billion, 1e-6)
    points = ESTIMATED_LAYERS
    if p <= points[0][0]:
        return points[0][1]
    lo, hi = points[-2], points[-1]
    for left, right in itertools.pairwise(points):
        if p <= right[0]:
            lo, hi = left, right
            break
    t = (math.log(p) - math.log(lo[0])) / (math.log(hi[0]) - math.log(lo[0]))
    return max(1, math.ceil(lo[1] + t * (hi[1] - lo[1]) - 1e-9))


def estimated_architecture(parameters_billion: float) -> ResolvedArchitecture:
    """The conservative shape assumed for a model of ``parameters_billion`` whose shape is unknown.

    Grouped-query attention with 8 KV heads of 128 dims and the layer count of
    :data:`ESTIMATED_LAYERS` (interpolated in log(parameters), rounded up; 16 below 1B, extrapolated
    above 405B); hidden size from parameters ~ 12 x layers x hidden^2, rounded up to 128; a 152064
    vocabulary with untied embeddings; :data:`ESTIMATED_ATTENTION_HEADS` heads. Multi-head-attention
    models (e.g. Llama 2 7B/13B) have 4-5x larger KV caches: give their shape.
    """
    layers = _estimated_layers(parameters_billion)
    hidden = math.sqrt(max(parameters_billion, 1e-6) * 1e9 / (12.0 * layers))
    return ResolvedArchitecture(
        layers=layers,
        attention_heads=ESTIMATED_ATTENTION_HEADS,
        kv_heads=ESTIMATED_KV_HEADS,
        head_dim=ESTIMATED_HEAD_DIM,
        hidden_size=max(128, 128 * math.ceil(hidden / 128)),
        vocab_size=ESTIMATED_VOCAB_SIZE,
        tie_word_embeddings=False,
        family=None,
        estimated=tuple(f for f in ARCHITECTURE_FIELDS if f != "family"),
        source="estimate",
    )


# --------------------------------------------------------------------------------------------- resolution


def resolve_model(model: ModelSpec) -> ModelSpec:
    """``model`` with ``parameters_billion`` taken from the known-model table when the config omits it."""
    if model.parameters_billion is not None:
        return model
    row = known_model(model.id)
    return replace(model, parameters_billion=row.parameters_billion) if row else model


def model_family(model: ModelSpec) -> str | None:
    """The model's family (Hugging Face ``model_type``): given, else from the known-model table, else ``None``."""
    given = model.architecture.family if model.architecture else None
    if given:
        return given
    row = known_model(model.id)
    return row.architecture.family if row else None


def model_features(model: ModelSpec) -> Mapping[str, str]:
    """The model's features an engine must implement (``features`` of its known-model row), or none when the id is
    not in the table."""
    row = known_model(model.id)
    return row.features if row else MappingProxyType({})


@lru_cache(maxsize=4096)
def resolve_architecture(model: ModelSpec) -> ResolvedArchitecture | None:
    """The complete shape of ``model``: given fields, else the known-model row, else estimates.

    ``None`` when fields are missing, the id is not in the table and ``parameters_billion`` is
    unknown (nothing to estimate from).
    """
    given = model.architecture or ModelArchitecture()
    row = known_model(model.id)
    known = row.architecture if row else ModelArchitecture()
    values: dict[str, Any] = {}
    estimated: list[str] = []
    sources: list[str] = []
    fallback: ResolvedArchitecture | None = None
    for name in ARCHITECTURE_FIELDS:
        for origin, source in ((given, "config"), (known, row.source if row else "")):
            value = getattr(origin, name)
            if value is not None:
                values[name] = value
                if source not in sources:
                    sources.append(source)
                break
        else:
            if name == "family":
                values[name] = None
                continue
            params = model.parameters_billion if model.parameters_billion is not None else None
            if params is None and row is not None:
                params = row.parameters_billion
            if params is None:
                return None
            fallback = fallback or estimated_architecture(params)
            values[name] = getattr(fallback, name)
            estimated.append(name)
    if estimated:
        sources.append("estimate")
    return ResolvedArchitecture(**values, estimated=tuple(estimated), source="; ".join(sources))
