"""Every key of a config endpoint has a Python counterpart on the endpoint constructs.

The walk goes through the pydantic schema of one endpoint (``config.schema.Endpoint``) and, beside it, through what
the constructs take: the keywords of :class:`RealtimeEndpoint`, :class:`ServerlessEndpoint` and
:class:`MultiModelEndpoint` (their typed ``**props`` included) and, for a nested block, the fields of the value type
the keyword takes (``model`` is a :class:`ModelSpec`, ``model.hf_token`` an :class:`HfTokenSecret`, ``vpc`` a
:class:`VpcOptions`, ...). A key is matched by its own name unless a table below says otherwise, with a reason:
:data:`RENAMED` (the Python name differs), :data:`FLATTENED` (a block whose keys are one construct's own keywords),
:data:`METHODS` (the Python side is a method) and :data:`CONFIG_ONLY` (deliberately not a Python prop).
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any, Union, Unpack, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from pydantic import BaseModel

from inference_constructs.config.schema import Endpoint
from inference_constructs.hosting.kinds import (
    InferenceComponentsEndpoint,
    MultiModelEndpoint,
    RealtimeEndpoint,
    ServerlessEndpoint,
)
from inference_constructs.hosting.request import EndpointRequest
from inference_constructs.scaling.autoscaling import EndpointScaling
from inference_constructs.spec import EndpointKind

KINDS: tuple[type[Any], ...] = (RealtimeEndpoint, ServerlessEndpoint, MultiModelEndpoint, InferenceComponentsEndpoint)

KIND_CLASS: dict[EndpointKind, type[Any]] = {
    EndpointKind.REALTIME: RealtimeEndpoint,
    EndpointKind.ASYNC: RealtimeEndpoint,  # with async_inference=AsyncOptions(...)
    EndpointKind.SERVERLESS: ServerlessEndpoint,
    EndpointKind.MULTI_MODEL: MultiModelEndpoint,
}
"""``type``: in Python the endpoint's kind is the class chosen."""

RENAMED: dict[str, tuple[str, str]] = {
    "name": (
        "construct_id",
        "the endpoint's name is its construct id (the plan's key); the physical name is endpoint_name",
    ),
    "type": ("<class>", "the kind is the class chosen (KIND_CLASS); async is RealtimeEndpoint with async_inference"),
    "async": ("async_inference", "async is a python keyword"),
    "kms_key_arn": (
        "kms_key",
        "a construct takes a kms.IKey (kms.Key.from_key_arn for an arn); a file holds only the arn",
    ),
    "serverless.memory_mb": (
        "memory_size_in_mb",
        "the construct puts the unit in the name, as aws-cdk's memorySizeInMB",
    ),
}
"""Config key -> (Python name, reason)."""

FLATTENED: dict[str, tuple[type[Any], str]] = {
    "serverless": (ServerlessEndpoint, "the serverless options are ServerlessEndpoint's own keywords"),
    "multi_model": (MultiModelEndpoint, "the multi-model options are MultiModelEndpoint's own keywords"),
}
"""Config block -> (the construct whose keywords hold its keys, reason)."""

METHODS: dict[str, tuple[str, str]] = {
    "scaling": (
        "auto_scale",
        "scaling is added after construction, on the endpoint (auto_scale / auto_scale_from_plan)",
    ),
    "scaling.concurrency_per_instance": ("EndpointScaling.scale_on_concurrency", "one policy per method call"),
    "scaling.invocations_per_instance_per_minute": (
        "EndpointScaling.scale_on_invocations",
        "one policy per method call",
    ),
    "scaling.gpu_memory_percent": ("EndpointScaling.scale_on_gpu_memory", "one policy per method call"),
    "scaling.backlog_per_instance": ("EndpointScaling.scale_on_backlog", "one policy per method call"),
    "scaling.schedule": ("EndpointScaling.scale_on_schedule", "one scheduled action per method call"),
}
"""Config key -> (the method that does it from Python, reason)."""

CONFIG_ONLY: dict[str, str] = {
    "stack": "which hosting stack of the platform holds the endpoint; in python the scope passed is the stack",
}
"""Config keys deliberately without a Python prop -> why."""

_SERVERLESS_ONLY = "only applies to type: serverless (refused elsewhere); its keys are ServerlessEndpoint's own"
_MULTI_MODEL_ONLY = "only applies to type: multi-model (refused elsewhere); its keys are MultiModelEndpoint's own"
_NO_INSTANCES = "serverless endpoints have no instances"
_NO_LLM_OPTIONS = "serving options are for llm engines on instances (refused for this endpoint type's engines)"
_COMPONENTS = "an endpoint with components is an InferenceComponentsEndpoint, whose own keywords these are"
_COMPONENT_KEYS = dict.fromkeys(("components", "adapters", "placement", "max_az_imbalance", "data_cache"), _COMPONENTS)
NOT_ON_KIND: dict[EndpointKind, dict[str, str]] = {
    EndpointKind.REALTIME: {"serverless": _SERVERLESS_ONLY, "multi_model": _MULTI_MODEL_ONLY, **_COMPONENT_KEYS},
    EndpointKind.ASYNC: {"serverless": _SERVERLESS_ONLY, "multi_model": _MULTI_MODEL_ONLY, **_COMPONENT_KEYS},
    EndpointKind.SERVERLESS: {
        "accelerator": "serverless endpoints run on cpu only (any other accelerator is refused)",
        "instance_type": _NO_INSTANCES + " to choose",
        "host_ami": _NO_INSTANCES + ", so no host ami",
        "capacity": _NO_INSTANCES + " to count: memory_size_in_mb and the concurrencies size them",
        "async": "only applies to type: async (RealtimeEndpoint's async_inference)",
        "multi_model": "serverless endpoints cannot host multiple models",
        "vpc": "serverless endpoints do not support vpc configuration",
        "network_isolation": "serverless endpoints run without network isolation (ServerlessEndpoint's docstring)",
        "data_capture": "serverless endpoints offer no data capture (ServerlessEndpoint's docstring)",
        "instance_pools": _NO_INSTANCES + " to pool",
        "instance_provision_timeout_seconds": _NO_INSTANCES + " to provision",
        "capacity_reservation": _NO_INSTANCES + " to reserve",
        "metrics": "no source documents MetricsConfig for serverless endpoints (refused by the plan)",
        "serving_options": _NO_LLM_OPTIONS,
        **_COMPONENT_KEYS,
    },
    EndpointKind.MULTI_MODEL: {
        **_COMPONENT_KEYS,
        "serving_options": _NO_LLM_OPTIONS,
        "serverless": _SERVERLESS_ONLY,
        "async": "only applies to type: async; a multi-model endpoint is real-time",
    },
}
"""Per endpoint type, the top-level config keys its construct class deliberately does not take -> why."""

_OWNERS = {"EndpointScaling": EndpointScaling, "RealtimeEndpoint": RealtimeEndpoint}


def _members(annotation: Any) -> tuple[Any, ...]:
    """The types of a union annotation (``X | None`` -> ``(X, NoneType)``), or the annotation alone."""
    if get_origin(annotation) in (Union, types.UnionType):
        return get_args(annotation)
    return (annotation,)


def _keywords(cls: type[Any]) -> dict[str, Any]:
    """Name -> annotation of what a construct's ``__init__`` takes, its ``**props: Unpack[TypedDict]`` expanded."""
    hints = get_type_hints(cls.__init__)
    out: dict[str, Any] = {}
    for name, annotation in hints.items():
        if get_origin(annotation) is Unpack and is_typeddict(get_args(annotation)[0]):
            out.update(get_type_hints(get_args(annotation)[0]))
        elif name != "return":
            out[name] = annotation
    return out


def _fields(annotations: list[Any]) -> dict[str, list[Any]]:
    """Name -> annotations of the fields of every dataclass among ``annotations`` (a nested block's namespace)."""
    out: dict[str, list[Any]] = {}
    for annotation in annotations:
        for member in _members(annotation):
            if dataclasses.is_dataclass(member) and isinstance(member, type):
                for name, hint in get_type_hints(member).items():
                    out.setdefault(name, []).append(hint)
    return out


def _namespace(classes: tuple[type[Any], ...]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for cls in classes:
        for name, annotation in _keywords(cls).items():
            out.setdefault(name, []).append(annotation)
    return out


def _block(annotation: Any) -> type[BaseModel] | None:
    """The nested pydantic model of a config field (``Model | None`` -> ``Model``), or None for a leaf."""
    return next((m for m in _members(annotation) if isinstance(m, type) and issubclass(m, BaseModel)), None)


def _config_keys(model: type[BaseModel], prefix: str = "") -> list[tuple[str, type[BaseModel] | None]]:
    return [(f"{prefix}{info.alias or name}", _block(info.annotation)) for name, info in model.model_fields.items()]


def _resolve_method(target: str) -> bool:
    owner, _, method = target.rpartition(".")
    return callable(getattr(_OWNERS.get(owner or "RealtimeEndpoint"), method, None))


def missing(drop: frozenset[str] = frozenset()) -> list[str]:
    """The config keys with no Python counterpart; ``drop`` hides Python names, as if the library lacked them."""
    found: list[str] = []

    def walk(model: type[BaseModel], prefix: str, names: dict[str, list[Any]]) -> None:
        names = {k: v for k, v in names.items() if k not in drop}
        for path, block in _config_keys(model, prefix):
            key = path.rpartition(".")[2]
            if path in CONFIG_ONLY:
                continue
            if path in METHODS:
                if not _resolve_method(METHODS[path][0]):
                    found.append(path)
                continue
            if path in FLATTENED:
                walk(block, f"{path}.", _namespace((FLATTENED[path][0],)))  # type: ignore[arg-type]
                continue
            python = RENAMED.get(path, (key, ""))[0]
            if python == "<class>":
                continue
            if python not in names:
                found.append(path)
                continue
            if block is not None:
                walk(block, f"{path}.", _fields(names[python]))

    walk(Endpoint, "", _namespace(KINDS))
    return found


def _all_config_paths() -> set[str]:
    paths: set[str] = set()

    def walk(model: type[BaseModel], prefix: str) -> None:
        for path, block in _config_keys(model, prefix):
            paths.add(path)
            if block is not None:
                walk(block, f"{path}.")

    walk(Endpoint, "")
    return paths


def test_every_config_endpoint_key_has_a_python_counterpart() -> None:
    # GIVEN the schema of one config endpoint and the endpoint constructs' keywords and value types
    # THEN every key is matched by name or by a table row with its reason
    assert missing() == []


def test_the_check_fails_on_a_config_key_without_a_python_counterpart() -> None:
    # GIVEN the library as if no construct or value type took a token (no hf_token keyword or ModelSpec field)
    # THEN the check names the config key that Python users could not express
    assert missing(drop=frozenset({"hf_token"})) == ["model.hf_token"]


@pytest.mark.parametrize(
    "table", [RENAMED, FLATTENED, METHODS, CONFIG_ONLY], ids=["renamed", "flattened", "methods", "config_only"]
)
def test_every_table_row_names_a_config_key_and_gives_a_reason(table: dict[str, Any]) -> None:
    # THEN no row is stale (its key is still in the schema) and each says why
    paths = _all_config_paths()
    for path, row in table.items():
        assert path in paths, path
        reason = row if isinstance(row, str) else row[-1]
        assert reason.strip(), path


def test_every_endpoint_type_is_a_construct_class() -> None:
    # THEN the config's type key has a class for every kind
    assert set(KIND_CLASS) == set(EndpointKind)


@pytest.mark.parametrize("construct", [RealtimeEndpoint, ServerlessEndpoint])
def test_every_kind_that_downloads_from_the_hub_takes_hf_token_as_a_secret_name_or_construct(
    construct: type[Any],
) -> None:
    # GIVEN a kind whose container can download a gated hub model (multi-model loads archives from s3 only)
    annotation = _keywords(construct)["hf_token"]
    # THEN it takes the token secret as an HfTokenSecret, a secretsmanager.ISecret or a secret name/arn string
    names = {getattr(m, "__name__", str(m)) for m in _members(annotation)}
    assert {"HfTokenSecret", "ISecret", "str", "NoneType"} <= names, names


def test_the_request_keeps_the_token_of_the_config_key() -> None:
    # THEN model.hf_token's python counterpart on the request is the same HfTokenSecret type
    assert "HfTokenSecret" in str(get_type_hints(EndpointRequest)["hf_token"])


def _top_level_python_name(path: str, cls: type[Any]) -> bool:
    """True when ``cls`` takes top-level config key ``path`` (by name, renamed, flattened or as a method)."""
    if path in METHODS:
        return callable(getattr(cls, METHODS[path][0], None))
    if path in FLATTENED:
        return FLATTENED[path][0] is cls
    return RENAMED.get(path, (path, ""))[0] in _keywords(cls)


@pytest.mark.parametrize("kind", list(EndpointKind), ids=str)
def test_every_key_an_endpoint_type_reads_is_on_its_construct_class(kind: EndpointKind) -> None:
    # GIVEN the construct class of one endpoint type and the top-level config keys that type reads
    cls = KIND_CLASS[kind]
    skipped = NOT_ON_KIND[kind].keys() | CONFIG_ONLY.keys() | {"type"}
    keys = [path for path, _ in _config_keys(Endpoint) if path not in skipped]
    # THEN the class takes each of them, and each key it deliberately leaves out is still left out (no stale row)
    assert [k for k in keys if not _top_level_python_name(k, cls)] == []
    assert [k for k in NOT_ON_KIND[kind] if _top_level_python_name(k, cls)] == []
