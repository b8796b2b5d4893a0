"""Load and validate the platform config file into :class:`PlatformConfig`.

Every problem in a file is reported at once, in one :class:`InferenceConfigError` whose lines read
``<key path>: <what is wrong>; <allowed values or how to fix>``.
"""

from __future__ import annotations

import difflib
import os
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import annotated_types as at
import yaml
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from inference_constructs.config.rules import cross_field_problems
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.errors import InferenceConfigError

DEFAULT_CONFIG = Path("config/default.yaml")
ENV_VAR = "INFERENCE_CONFIG"

# What to write instead of a regular expression when a string does not match its pattern.
_PATTERN_HINTS: dict[tuple[str, str], str] = {
    ("PlatformConfig", "name"): "use 2-20 characters: a lowercase letter, then lowercase letters, digits or '-'",
    ("Endpoint", "name"): "use 1-40 characters: a lowercase letter, then lowercase letters, digits or '-'",
    ("Endpoint", "instance_type"): "use auto or a SageMaker instance type such as ml.g5.xlarge",
    ("Endpoint", "kms_key_arn"): "use a KMS key ARN arn:aws:kms:<region>:<account>:key/<id>",
    ("BedrockProfile", "name"): "use 1-64 letters, digits, and single ' ', '_' or '-' between them",
    ("BedrockRouter", "name"): "use 1-55 letters, digits, and single ' ', '_' or '-' between them",
    ("PlatformConfig", "account"): "use a 12-digit AWS account id, or null for environment-agnostic templates",
    ("PlatformConfig", "region"): "use an AWS region such as us-east-1, or null for region-agnostic templates",
}
_PREFIX_HINTS: dict[str, str] = {
    "^s3://": "use s3://bucket/key or s3://bucket/prefix/ (bucket names have 3-63 lowercase characters)",
    "^arn:aws[a-z-]*:iam::": "use an IAM role ARN arn:aws:iam::<12-digit account>:role/<name>",
    "^[0-9]{12}$": "use a 12-digit AWS account id",
    "^subnet-": "use a subnet id such as subnet-0123456789abcdef0",
    "^sg-": "use a security group id such as sg-0123456789abcdef0",
    "^cron": "use an Application Auto Scaling cron expression such as cron(0 7 ? * MON-FRI *)",
    "^[^@": "use an email address",
}


def resolve_config_path(context_value: object | None = None, *, environ: Mapping[str, str] | None = None) -> Path:
    """Which config file to read: ``-c config=PATH`` (CDK context), else ``$INFERENCE_CONFIG``, else
    ``config/default.yaml`` relative to the working directory."""
    env = os.environ if environ is None else environ
    if isinstance(context_value, str) and context_value:
        return Path(context_value)
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR])
    return DEFAULT_CONFIG


def load_config(path: str | os.PathLike[str]) -> PlatformConfig:
    """Read, parse and validate a platform config file.

    Raises
    ------
    InferenceConfigError
        If the file is missing, is not YAML, or breaks any rule; every problem is listed.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InferenceConfigError(
            f"{p}: cannot read the config file ({exc.strerror}); pass an existing file"
        ) from None
    return parse_config(text, source=str(p))


def parse_config(text: str, *, source: str = "<config>") -> PlatformConfig:
    """Parse YAML text and validate it (see :func:`load_config`)."""
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InferenceConfigError(f"{source}: not valid YAML{where}: {exc.problem}; fix the syntax") from None
    except yaml.YAMLError as exc:
        raise InferenceConfigError(f"{source}: not valid YAML: {exc}; fix the syntax") from None
    return validate_config(data, source=source)


def validate_config(data: object, *, source: str = "<config>") -> PlatformConfig:
    """Validate already-parsed data (a mapping) into :class:`PlatformConfig`."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InferenceConfigError(f"{source}: the file must be a mapping of keys, got {type(data).__name__}")
    problems: list[str] = []
    duplicates = data.pop(_DUPLICATES, [])
    problems.extend(f"{path}: key appears more than once; keep one" for path in duplicates)
    config: PlatformConfig | None = None
    try:
        config = PlatformConfig.model_validate(data)
    except ValidationError as exc:
        problems.extend(_render(err) for err in exc.errors(include_url=False))
    problems.extend(cross_field_problems(data))
    if problems:
        raise InferenceConfigError(_dedupe(problems))
    assert config is not None
    return config


def _dedupe(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


# --- YAML: reject duplicate keys instead of silently keeping the last one ---------------------------

_DUPLICATES = "__inference_constructs_duplicate_keys__"


# libyaml's C parser when PyYAML was built with it (about 5x faster on large platform files).
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """Safe loader that records duplicate mapping keys (PyYAML keeps the last one silently)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicate_keys: list[str] = []

    def get_single_data(self) -> Any:
        data = super().get_single_data()
        if self.duplicate_keys and isinstance(data, dict):
            data[_DUPLICATES] = list(self.duplicate_keys)
        return data


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            loader.duplicate_keys.append(f"line {key_node.start_mark.line + 1}: {key}")
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# --- pydantic error -> one line -------------------------------------------------------------------


def format_path(loc: Sequence[int | str]) -> str:
    """``('endpoints', 2, 'serverless', 'memory_mb')`` -> ``endpoints[2].serverless.memory_mb``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _render(err: Mapping[str, Any]) -> str:
    loc: tuple[int | str, ...] = tuple(err["loc"])
    kind: str = err["type"]
    value = err.get("input")
    path = format_path(loc) or "<file>"
    owner, field = _field_at(loc)
    if kind == "extra_forbidden":
        allowed = sorted(_keys_of(owner)) if owner else []
        key = str(loc[-1])
        guess = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        fix = f"did you mean '{guess[0]}'?" if guess else f"allowed keys: {', '.join(allowed)}"
        return f"{path}: unknown key; {fix}"
    if kind == "missing":
        return f"{path}: required key is missing; add it"
    shown = _show(value)
    if kind in ("enum", "literal_error"):
        expected = err.get("ctx", {}).get("expected", "")
        return f"{path}: {shown} is not allowed; use one of {expected.replace(' or ', ', ')}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than", "multiple_of"):
        return f"{path}: {shown} is not allowed; use {_range_text(field)}"
    if kind == "string_pattern_mismatch":
        pattern = err.get("ctx", {}).get("pattern", "")
        hint = _PATTERN_HINTS.get((owner.__name__ if owner else "", str(loc[-1]))) or next(
            (h for prefix, h in _PREFIX_HINTS.items() if pattern.startswith(prefix)), None
        )
        return f"{path}: {shown} is not allowed; {hint or f'it must match {pattern}'}"
    if kind in ("too_long", "too_short"):
        return f"{path}: {err['msg'].lower()}; shorten or lengthen it accordingly"
    if kind in ("string_type", "int_type", "int_parsing", "float_type", "float_parsing", "bool_type", "bool_parsing"):
        want = {"string": "a string", "int": "a whole number", "float": "a number", "bool": "true or false"}
        return f"{path}: {shown} is not allowed; use {want[kind.split('_', maxsplit=1)[0]]}"
    if kind in ("int_from_float",):
        return f"{path}: {shown} is not allowed; use a whole number"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{path}: expected a mapping of keys, got {shown}; write it as key: value lines"
    if kind == "list_type":
        return f"{path}: expected a list, got {shown}; write it as a YAML list"
    return f"{path}: {err['msg'].lower()}; check the value {shown}"


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict | list):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return str(value)


def _range_text(field: FieldInfo | None) -> str:
    lo: object = None
    hi: object = None
    step: object = None
    lo_open = hi_open = False
    for meta in field.metadata if field else []:
        if isinstance(meta, at.Ge):
            lo = meta.ge
        elif isinstance(meta, at.Gt):
            lo, lo_open = meta.gt, True
        elif isinstance(meta, at.Le):
            hi = meta.le
        elif isinstance(meta, at.Lt):
            hi, hi_open = meta.lt, True
        elif isinstance(meta, at.MultipleOf):
            step = meta.multiple_of
    if lo is not None and hi is not None and not lo_open and not hi_open:
        text = f"{lo}..{hi}"
    elif lo is not None and hi is not None:
        text = f"a number {'>' if lo_open else '>='} {lo} and {'<' if hi_open else '<='} {hi}"
    elif lo is not None:
        text = f"a number {'>' if lo_open else '>='} {lo}"
    elif hi is not None:
        text = f"a number {'<' if hi_open else '<='} {hi}"
    else:
        text = "a valid number"
    return text + (f" in steps of {step}" if step else "")


def _keys_of(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def _field_at(loc: Sequence[int | str]) -> tuple[type[BaseModel] | None, FieldInfo | None]:
    """The model owning the last key of ``loc`` and that key's FieldInfo (None where unknown)."""
    model: type[BaseModel] | None = PlatformConfig
    field: FieldInfo | None = None
    owner: type[BaseModel] | None = PlatformConfig
    for part in loc:
        if isinstance(part, int) or model is None:
            continue
        owner = model
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        model = _nested_model(field.annotation) if field else None
    return owner, field


def _nested_model(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, list, tuple, typing.Annotated) or origin is not None:
        for arg in typing.get_args(annotation):
            found = _nested_model(arg)
            if found is not None:
                return found
    return None
