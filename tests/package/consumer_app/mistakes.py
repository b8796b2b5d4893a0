"""The natural mistakes of a new user, each caught as one clean error that names the prop, the value and what is
allowed (never a raw AttributeError from inside the library). Lines mypy must refuse carry ``type: ignore``: with
``--strict`` (``warn_unused_ignores``) the type check fails if mypy stops catching them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aws_cdk import App, Stack

from inference_constructs import (
    Capacity,
    InferenceConfigError,
    ModelSourceKind,
    ModelSpec,
    RealtimeEndpoint,
    ServerlessEndpoint,
)

QWEN = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6)
TABULAR = ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz")
stack = Stack(App(), "Mistakes")


def attempt(name: str, build: Callable[[str], Any]) -> dict[str, str]:
    """Run ``build``; return the error's class names and message."""
    try:
        build(name)
    except InferenceConfigError as error:
        return {"case": name, "types": " ".join(t.__name__ for t in type(error).__mro__), "message": str(error)}
    return {"case": name, "types": "", "message": ""}


cases = [
    attempt("unknown_serving", lambda n: RealtimeEndpoint(stack, n, model=QWEN, serving="vlm")),
    attempt("unknown_accelerator", lambda n: RealtimeEndpoint(stack, n, model=QWEN, accelerator="tpu")),
    attempt("capacity_backwards", lambda n: RealtimeEndpoint(stack, n, model=QWEN, capacity=(3, 1))),
    attempt("capacity_missing_key", lambda n: RealtimeEndpoint(stack, n, model=QWEN, capacity={"minimum": 1})),
    attempt("capacity_a_string", lambda n: RealtimeEndpoint(stack, n, model=QWEN, capacity="big")),  # type: ignore[arg-type]
    attempt("model_a_dict", lambda n: RealtimeEndpoint(stack, n, model={"id": "Qwen/Qwen2.5-7B-Instruct"})),  # type: ignore[arg-type]
    attempt("serving_a_number", lambda n: ServerlessEndpoint(stack, n, model=TABULAR, serving=3)),  # type: ignore[arg-type]
    attempt("memory_off_the_grid", lambda n: ServerlessEndpoint(stack, n, model=TABULAR, memory_size_in_mb=1500)),
]
assert Capacity(1, 2).max == 2
print(json.dumps(cases))
