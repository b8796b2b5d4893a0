"""Each default is written once: a config key that a decision type also has takes its default from that type
(``config/schema.py`` reads it with ``_default``), and no decision type writes another type's default again."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import textwrap
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

import inference_constructs
from inference_constructs.bedrock.guardrail_plan import ContentFilter, GuardrailSpec, PiiEntity
from inference_constructs.bedrock.inference_profile_plan import ProfileSpec
from inference_constructs.bedrock.invocation_logging_plan import InvocationLoggingSpec
from inference_constructs.bedrock.pricing import Workload
from inference_constructs.config import schema
from inference_constructs.containers.routing import RoutingOptions
from inference_constructs.containers.serving_options import SpeculativeDecoding
from inference_constructs.cost.commitment import recommend_commitment
from inference_constructs.cost.decisions import AnomalySubscriptionPlan, BudgetPlan
from inference_constructs.hosting.request import (
    Capacity,
    DataCaptureOptions,
    DeploymentOptions,
    EndpointRequest,
    MultiModelOptions,
    ServerlessOptions,
)
from inference_constructs.observability.decisions import AlarmSettings, XRaySamplingDecision
from inference_constructs.spec import ModelSpec

SCHEMA_FILE = Path(schema.__file__)

#: Config model -> the decision type (dataclass or function) that owns the defaults of its keys.
OWNERS: dict[type[BaseModel], type[Any] | Callable[..., Any]] = {
    schema.Model: ModelSpec,
    schema.CapacityConfig: Capacity,
    schema.Serverless: ServerlessOptions,
    schema.MultiModel: MultiModelOptions,
    schema.DataCapture: DataCaptureOptions,
    schema.Deployment: DeploymentOptions,
    schema.Endpoint: EndpointRequest,
    schema.GuardrailContentFilter: ContentFilter,
    schema.GuardrailPiiEntity: PiiEntity,
    schema.BedrockGuardrail: GuardrailSpec,
    schema.InvocationLogging: InvocationLoggingSpec,
    schema.BedrockWorkload: Workload,
    schema.BedrockProfile: ProfileSpec,
    schema.SavingsPlan: recommend_commitment,
    schema.Observability: AlarmSettings,
    schema.XRaySampling: XRaySamplingDecision,
    schema.AnomalyMonitor: AnomalySubscriptionPlan,
    schema.SpeculativeDecodingConfig: SpeculativeDecoding,
    schema.RoutingConfig: RoutingOptions,
}

#: (config model, key) whose default differs from the same-named field of a decision type on purpose.
DIFFERENT_ON_PURPOSE: dict[tuple[str, str], str] = {
    ("Endpoint", "instance_type"): "the config spells 'not set' as auto; the request as None",
    ("AsyncInference", "max_concurrent_invocations_per_instance"): (
        "the config's 4 predates the request's None (an LLM server's concurrent sequences); changing either "
        "changes plans or templates"
    ),
}

#: Decision fields that share a config key's name but are another concept (not a second copy of its default).
OTHER_CONCEPTS = {
    "spec.ResolvedArchitecture.source",  # where the architecture came from, not the model's source
    "scaling.types.HostFacts.instance_type",  # the chosen host
    "observability.targets.MonitoredEndpoint.instance_type",  # the chosen host
    "sizing.types.MemoryEstimate.neuron_compiled",  # copied from the model spec by the sizing
    "observability.graph_data.YAxis.min",  # the lowest value a graph axis shows, not a capacity
}


def _owner_default(owner: type[Any] | Callable[..., Any], name: str) -> Any:
    fields = getattr(owner, "__dataclass_fields__", None)
    if fields is not None:
        field = fields.get(name)
        return dataclasses.MISSING if field is None else field.default
    parameter = inspect.signature(owner).parameters.get(name)
    return dataclasses.MISSING if parameter is None else parameter.default


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def _has_value_default(model: type[BaseModel], name: str) -> bool:
    """True when an omitted key means a value (not "not set": None, or an empty list or block)."""
    default = model.model_fields[name].default
    return default is not PydanticUndefined and default is not None


def _shared_keys() -> list[tuple[type[BaseModel], str, str]]:
    """(config model, field name, key) of every config key with a value default whose owner has one too."""
    shared = []
    for model, owner in OWNERS.items():
        for name, info in model.model_fields.items():
            key = info.alias or name
            default = _owner_default(owner, name)
            if (
                _has_value_default(model, name)
                and default not in (dataclasses.MISSING, inspect.Parameter.empty)
                and (model.__name__, key) not in DIFFERENT_ON_PURPOSE
            ):
                shared.append((model, name, key))
    return shared


@pytest.mark.parametrize(("model", "name", "key"), _shared_keys(), ids=lambda v: getattr(v, "__name__", str(v)))
def test_config_default_is_the_decision_types_default(model: type[BaseModel], name: str, key: str) -> None:
    # GIVEN a config key that a decision type also has WHEN the key is omitted THEN it means the type's default
    owner_default = _owner_default(OWNERS[model], name)
    assert _plain(model.model_fields[name].default) == _plain(owner_default), f"{model.__name__}.{key}"


def _written_defaults() -> dict[tuple[str, str], ast.expr]:
    """(class, field) -> the default expression written in ``schema.py`` (the ``default=`` of a ``Field``)."""
    tree = ast.parse(SCHEMA_FILE.read_text(encoding="utf-8"))
    written: dict[tuple[str, str], ast.expr] = {}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for stmt in cls.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value):
                continue
            value = stmt.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "Field":
                value = next((k.value for k in value.keywords if k.arg == "default"), None)  # type: ignore[assignment]
            if value is not None:
                written[(cls.name, stmt.target.id)] = value
    return written


def test_schema_takes_every_shared_default_from_its_decision_type() -> None:
    # GIVEN the schema's source WHEN a key's owner has a default THEN the schema reads it with _default(...)
    # rather than writing the value a second time (a literal here fails, even when it is equal today)
    written = _written_defaults()
    again = [
        f"{model.__name__}.{key} = {ast.unparse(written[(model.__name__, name)])}"
        for model, name, key in _shared_keys()
        if not (
            isinstance(expr := written.get((model.__name__, name)), ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id == "_default"
        )
    ]
    assert again == []


def test_default_reader_refuses_a_field_without_default() -> None:
    # GIVEN a decision field with no default WHEN the schema asks for its default THEN it fails at import time
    with pytest.raises(TypeError, match="model_data_prefix has no default"):
        schema._default(MultiModelOptions, "model_data_prefix")


def _decision_dataclasses() -> dict[str, type[Any]]:
    found: dict[str, type[Any]] = {}
    for info in pkgutil.walk_packages(inference_constructs.__path__, "inference_constructs."):
        if any(part in info.name for part in (".stacks", ".loadtest", "__main__")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__:
                found[f"{module.__name__.removeprefix('inference_constructs.')}.{name}"] = obj
    return found


def _default_expression(cls: type[Any], name: str) -> ast.expr | None:
    """The default of field ``name`` as written in ``cls``'s source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    for stmt in tree.body[0].body:  # type: ignore[attr-defined]
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            return stmt.value
    return None


def test_no_other_decision_type_writes_a_config_default_again() -> None:
    # GIVEN every dataclass of the package WHEN one has a field named like a config key with a value default
    # THEN it is the key's owner (the one place), or it reads the owner's field (``ModelSpec.dtype``)
    owners = {id(o) for o in OWNERS.values()}
    owner_names = {getattr(o, "__name__", "") for o in OWNERS.values()}
    copies = []
    for path, cls in _decision_dataclasses().items():
        if id(cls) in owners:
            continue
        for field in dataclasses.fields(cls):
            if field.default in (dataclasses.MISSING, None) or f"{path}.{field.name}" in OTHER_CONCEPTS:
                continue
            if not any(field.name in m.model_fields and _has_value_default(m, field.name) for m in OWNERS):
                continue
            expr = _default_expression(cls, field.name)
            reads_owner = (
                isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in owner_names
            )
            if not reads_owner:
                copies.append(f"{path}.{field.name} = {ast.unparse(expr) if expr else field.default!r}")
    assert copies == []


def test_budget_deny_percent_is_the_budget_plans_default() -> None:
    # GIVEN the config key and the plan field that differ in name WHEN the key is omitted
    # THEN it means the plan's default, read from it rather than written again
    assert schema.Budget().deny_new_endpoints_at_percent == BudgetPlan.deny_at_percent
    written = _written_defaults()[("Budget", "deny_new_endpoints_at_percent")]
    assert isinstance(written, ast.Call) and ast.unparse(written).startswith("_default(BudgetPlan")


def test_constructs_take_their_defaults_from_the_decision_types() -> None:
    # GIVEN the constructs a user builds without a config WHEN a keyword is omitted
    # THEN it means what the config's default means (one value, read from the decision type)
    from inference_constructs.cost.anomaly import CostAnomalyMonitor
    from inference_constructs.cost.budget import BudgetGuardrail
    from inference_constructs.observability.tracing import XRaySamplingRule

    rule = inspect.signature(XRaySamplingRule.__init__).parameters
    assert {n: rule[n].default for n in ("url_path", "fixed_rate", "priority", "reservoir_size")} == {
        n: getattr(XRaySamplingDecision, n) for n in ("url_path", "fixed_rate", "priority", "reservoir_size")
    }
    assert inspect.signature(BudgetGuardrail.__init__).parameters["deny_at_percent"].default == 100
    assert inspect.signature(CostAnomalyMonitor.__init__).parameters["threshold_usd"].default == 100
    assert schema.AnomalyMonitor().threshold_usd == AnomalySubscriptionPlan.threshold_usd == 100
