"""The config blocks of an endpoint that hosts several models as inference components (``docs/config.md``,
"Inference components"): ``components`` (each model, with its copies and scaling) and ``adapters`` (LoRA adapters on
a component).

A component's ``model`` and ``scaling`` keys take the endpoint's own blocks: :class:`Component` is generic in them,
and the schema parametrizes it with its ``Model`` and ``Scaling`` (so this module needs nothing of the schema).
The copy bounds default to the request's :class:`~inference_constructs.hosting.request.Capacity` (1..1).
"""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from inference_constructs.hosting.checks import S3_URI_PATTERN
from inference_constructs.hosting.request import MAX_AZ_IMBALANCE, Capacity
from inference_constructs.scaling.decisions import MAX_CAPACITY
from inference_constructs.spec import Serving

__all__ = ["MAX_AZ_IMBALANCE", "Adapter", "Component", "ComponentCopies"]

M = TypeVar("M", bound=BaseModel)
S = TypeVar("S", bound=BaseModel)

_NAME = r"^[a-z][a-z0-9-]{0,39}$"
_CONFIG = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, use_enum_values=False)


class ComponentCopies(BaseModel):
    """A component's copy count bounds: ``min: 0`` lets it scale to zero copies."""

    model_config = _CONFIG

    min: int = Field(default=Capacity().min, ge=0, le=MAX_CAPACITY)
    max: int = Field(default=Capacity().max, ge=1, le=MAX_CAPACITY)


class Component(BaseModel, Generic[M, S]):
    """One model the endpoint hosts as an inference component."""

    model_config = _CONFIG

    name: Annotated[str, StringConstraints(pattern=_NAME)]
    model: M
    serving: Serving = Serving.LMI  # as an endpoint's serving
    copies: ComponentCopies = Field(default_factory=ComponentCopies)
    scaling: S | None = None  # null: the copies stay at copies.min (no policy), with the wake-up at min 0
    accelerators_per_copy: int | None = Field(default=None, ge=1)  # null: what the sizing needs
    memory_mb_per_copy: int | None = Field(default=None, ge=128)  # null: the sizing's host RAM per copy
    environment: dict[str, str | int | float | bool] = Field(default_factory=dict, max_length=100)
    max_lora_rank: int | None = None  # null: the engine's default rank (16); checked against its ranks by the plan


class Adapter(BaseModel):
    """A LoRA adapter on a component (an adapter inference component)."""

    model_config = _CONFIG

    name: Annotated[str, StringConstraints(pattern=_NAME)]
    base: Annotated[str, StringConstraints(pattern=_NAME)]
    s3_uri: Annotated[str, StringConstraints(pattern=S3_URI_PATTERN)]
