"""Load and validate the platform config file into :class:`PlatformConfig`.

Every problem in a file is reported at once, in one :class:`InferenceConfigError` whose lines read
``<key path>: <what is wrong>; <allowed values or how to fix>``.
"""

from __future__ import annotations

import codecs
import difflib
import os
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import annotated_types as at
import yaml
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from inference_constructs.config.constraints import platform_problems
from inference_constructs.config.rules import cross_field_problems
from inference_constructs.config.schema import PlatformConfig
from inference_constructs.errors import InferenceConfigError, Problem

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
        If the file is missing, larger than :data:`MAX_FILE_BYTES`, not UTF-8 text, not YAML, or breaks any
        rule; every problem is listed. Never any other exception for what the file holds.
    """
    p = Path(path)
    try:
        with p.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InferenceConfigError(
            Problem(str(p), f"cannot read the config file ({exc.strerror})", "pass an existing file", "unreadable")
        ) from None
    return parse_config(data, source=str(p))


def parse_config(text: str | bytes, *, source: str = "<config>") -> PlatformConfig:
    """Parse YAML text (or the bytes of a file) and validate it (see :func:`load_config`).

    Bounded on any input: at most :data:`MAX_FILE_BYTES` bytes, :data:`MAX_NODES` YAML nodes after alias
    expansion and :data:`MAX_DEPTH` levels of nesting; past a bound it refuses without building the value.
    """
    if isinstance(text, bytes):
        text = _decode(text, source)
    elif len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise InferenceConfigError(_too_large(source))
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_bounds(node, _node_children, source, yaml_nodes=True)
        data = None if node is None else loader.construct_document(node)
    except _BoundExceededError as exc:
        raise InferenceConfigError(exc.problem) from None
    except yaml.MarkedYAMLError as exc:
        raise InferenceConfigError(_yaml_problem(exc, source)) from None
    except yaml.YAMLError as exc:
        raise InferenceConfigError(
            Problem(source, f"not valid YAML: {_clip(str(exc))}", "fix the syntax", "yaml")
        ) from None
    finally:
        loader.dispose()
    return _validate(data, source, loader.duplicate_keys)


def validate_config(data: object, *, source: str = "<config>") -> PlatformConfig:
    """Validate already-parsed data (a mapping) into :class:`PlatformConfig`.

    Raises
    ------
    InferenceConfigError
        For any value, including data nested deeper than :data:`MAX_DEPTH`, larger than :data:`MAX_NODES`
        or recursive.
    """
    try:
        _check_bounds(data, _data_children, source, yaml_nodes=False)
    except _BoundExceededError as exc:
        raise InferenceConfigError(exc.problem) from None
    return _validate(data, source, [])


def _validate(data: object, source: str, duplicates: Sequence[str]) -> PlatformConfig:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InferenceConfigError(
            Problem(source, f"the file must be a mapping of keys, got {type(data).__name__}", None, "not_mapping")
        )
    problems: list[Problem] = [
        Problem(path, "key appears more than once", "keep one", "duplicate_key") for path in duplicates
    ]
    config: PlatformConfig | None = None
    try:
        config = PlatformConfig.model_validate(data)
    except ValidationError as exc:
        problems.extend(_render(err) for err in exc.errors(include_url=False))
    problems.extend(cross_field_problems(data))
    if config is not None and not problems:
        problems.extend(platform_problems(config))
    if problems:
        raise InferenceConfigError(problems)
    assert config is not None
    return config


# --- bounds: size, encoding, nesting, alias expansion ----------------------------------------------

#: Largest config file accepted, in bytes (a 1000-endpoint platform written out in full is about 600 kB).
MAX_FILE_BYTES = 1_000_000
#: Most YAML nodes accepted after expanding aliases (a billion-laughs file expands to 10^9 and is refused).
MAX_NODES = 200_000
#: Deepest nesting of mappings and lists accepted (the schema nests 5 levels).
MAX_DEPTH = 32


class _BoundExceededError(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def _too_large(source: str) -> Problem:
    return Problem(
        source,
        f"the file is larger than {MAX_FILE_BYTES:,} bytes",
        "split the platform into several config files (one per deployment)",
        "too_large",
    )


def _decode(data: bytes, source: str) -> str:
    """UTF-8 text of ``data`` (a UTF-8 byte-order mark is dropped), or one clean problem."""
    if len(data) > MAX_FILE_BYTES:
        raise InferenceConfigError(_too_large(source))
    for bom, name in ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
                      (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16")):  # fmt: skip
        if data.startswith(bom):
            raise InferenceConfigError(
                Problem(source, f"the file is {name} text", "save it as UTF-8 (without a byte-order mark)", "encoding")
            )
    data = data.removeprefix(codecs.BOM_UTF8)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InferenceConfigError(
            Problem(
                source,
                f"the file holds a NUL byte at line {line} (binary data, or UTF-16/32 without a byte-order mark)",
                "pass a UTF-8 YAML text file",
                "encoding",
            )
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InferenceConfigError(
            Problem(
                source,
                f"byte 0x{data[exc.start]:02x} at line {line} is not UTF-8",
                "save the file as UTF-8",
                "encoding",
            )
        ) from None


_LEAF = (1, 1)


def _is_leaf(item: object) -> bool:
    """A scalar (YAML scalar node or Python value): never pushed, counted as one value one level deep."""
    return isinstance(item, yaml.ScalarNode) or not isinstance(
        item, yaml.CollectionNode | dict | list | tuple | set | frozenset
    )


def _node_children(node: object) -> list[object]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _data_children(value: object) -> list[object]:
    if isinstance(value, dict):
        return [part for pair in value.items() for part in pair]
    if isinstance(value, list | tuple | set | frozenset):
        return list(value)
    return []


def _check_bounds(root: object, children: Callable[[object], list[object]], source: str, *, yaml_nodes: bool) -> None:
    """Refuse ``root`` when it nests deeper than MAX_DEPTH, refers to itself, or expands (aliases or shared
    objects counted every time they are used) to more than MAX_NODES values.

    Iterative and memoized per object, so a few hundred bytes of nested aliases cost a few hundred steps."""
    what = "YAML nodes" if yaml_nodes else "values"
    measured: dict[int, tuple[int, int]] = {}  # id -> (expanded size capped at MAX_NODES + 1, depth)
    open_ids: set[int] = set()
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        item, finished = stack.pop()
        key = id(item)
        if finished:
            open_ids.discard(key)
            kids = [measured.get(id(k), _LEAF) for k in children(item)]
            size = min(1 + sum(s for s, _ in kids), MAX_NODES + 1)
            depth = 1 + max((d for _, d in kids), default=0)
            if depth > MAX_DEPTH:
                raise _BoundExceededError(
                    Problem(
                        _where(item, source),
                        f"nests deeper than {MAX_DEPTH} levels",
                        "flatten the structure (the schema nests 5 levels)",
                        "too_deep",
                    )
                )
            if size > MAX_NODES:
                raise _BoundExceededError(
                    Problem(
                        _where(item, source),
                        f"expands to more than {MAX_NODES:,} {what} (aliases count each time they are used)",
                        "write the values out, or use fewer aliases",
                        "alias" if yaml_nodes else "too_large",
                    )
                )
            measured[key] = (size, depth)
            continue
        if key in measured:
            continue
        if key in open_ids:
            raise _BoundExceededError(
                Problem(
                    _where(item, source),
                    "refers to itself (a recursive alias)",
                    "write the value out without the alias",
                    "alias" if yaml_nodes else "invalid",
                )
            )
        open_ids.add(key)
        stack.append((item, True))
        stack.extend((kid, False) for kid in children(item) if id(kid) not in measured and not _is_leaf(kid))


def _where(item: object, source: str) -> str:
    mark = getattr(item, "start_mark", None)
    return f"{source} line {mark.line + 1}" if mark is not None else source


def _yaml_problem(exc: yaml.MarkedYAMLError, source: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    if isinstance(exc, _ComplexKeyError):
        return Problem(
            f"{source}{where.replace(' at', '')}",
            "a mapping or list is used as a key",
            "use a string key",
            "complex_key",
        )
    if "tag:yaml.org,2002:merge" in str(exc.problem):
        return Problem(source, f"YAML merge keys (<<){where} are not supported", "write the keys out", "yaml")
    return Problem(source, f"not valid YAML{where}: {_clip(str(exc.problem))}", "fix the syntax", "yaml")


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- YAML: reject duplicate and complex keys instead of silently keeping the last one ----------------


# libyaml's C parser when PyYAML was built with it (about 5x faster on large platform files).
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ComplexKeyError(yaml.constructor.ConstructorError):
    """A mapping or sequence used as a mapping key."""


class _StrictLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """Safe loader that records duplicate mapping keys (PyYAML keeps the last one silently), refuses
    complex keys, and turns a value no constructor can build (``2020-13-45``, ``!!float x``) into a YAML
    error at its line."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicate_keys: list[str] = []

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read the value ({_clip(str(exc), 80)})", node.start_mark
            ) from None


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise _ComplexKeyError(None, None, "a mapping or list is used as a key", key_node.start_mark)
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            loader.duplicate_keys.append(f"line {key_node.start_mark.line + 1}: {_clip(str(key), 60)}")
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# --- pydantic error -> one line -------------------------------------------------------------------


def format_path(loc: Sequence[int | str]) -> str:
    """``('endpoints', 2, 'serverless', 'memory_mb')`` -> ``endpoints[2].serverless.memory_mb``.

    A mapping key of another type (``on:`` is the boolean True in YAML) is written as its value, and a key
    longer than 60 characters is cut, so a path stays short whatever the input."""
    out = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        elif part != "[key]":
            out += ("." if out else "") + _clip(str(part), 60)
    return out


def _render(err: Mapping[str, Any]) -> Problem:
    loc: tuple[int | str, ...] = tuple(err["loc"])
    kind: str = err["type"]
    value = err.get("input")
    path = format_path(loc) or "<file>"
    if len(loc) >= 2 and loc[-1] == "[key]":  # the key itself is wrong, not its value
        path = ".".join(p for p in (format_path(loc[:-2]), _clip(str(loc[-2]), 60)) if p)
        return Problem(path, f"key {_show(loc[-2])} is not allowed", _key_fix(err), _key_code(kind))
    owner, field = _field_at(loc)
    if kind == "extra_forbidden":
        allowed = sorted(_keys_of(owner)) if owner else []
        key = _clip(str(loc[-1]), 60)
        guess = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        fix = f"did you mean '{guess[0]}'?" if guess else f"allowed keys: {', '.join(allowed)}"
        return Problem(path, "unknown key", fix, "unknown_key")
    if kind == "missing":
        return Problem(path, "required key is missing", "add it", "missing")
    shown = _show(value)
    ctx = err.get("ctx", {})
    if kind in ("enum", "literal_error"):
        expected = str(ctx.get("expected", ""))
        return Problem(path, f"{shown} is not allowed", f"use one of {expected.replace(' or ', ', ')}", "choice")
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than", "multiple_of", "finite_number"):
        return Problem(path, f"{shown} is not allowed", f"use {_range_text(field)}", "range")
    if kind == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern", ""))
        hint = _PATTERN_HINTS.get((owner.__name__ if owner else "", str(loc[-1]))) or next(
            (h for prefix, h in _PREFIX_HINTS.items() if pattern.startswith(prefix)), None
        )
        return Problem(path, f"{shown} is not allowed", hint or f"it must match {pattern}", "pattern")
    if kind == "too_long" and isinstance(value, list | dict | tuple | set):
        return Problem(
            path,
            f"{ctx.get('actual_length', len(value))} entries are too many",
            f"use at most {ctx.get('max_length')}",
            "too_large",
        )
    if kind in ("string_too_long", "string_too_short", "too_long", "too_short"):
        return Problem(path, f"{shown}: {err['msg'].lower()}", "shorten or lengthen it accordingly", "length")
    if kind in ("string_type", "int_type", "int_parsing", "float_type", "float_parsing", "bool_type", "bool_parsing"):
        want = {"string": "a string", "int": "a whole number", "float": "a number", "bool": "true or false"}
        return Problem(path, f"{shown} is not allowed", f"use {want[kind.split('_', maxsplit=1)[0]]}", "type")
    if kind in ("int_from_float",):
        return Problem(path, f"{shown} is not allowed", "use a whole number", "type")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return Problem(path, f"expected a mapping of keys, got {shown}", "write it as key: value lines", "not_mapping")
    if kind == "list_type":
        return Problem(path, f"expected a list, got {shown}", "write it as a YAML list", "type")
    return Problem(path, _clip(str(err["msg"]).lower()), f"check the value {shown}", "invalid")


def _key_fix(err: Mapping[str, Any]) -> str:
    if err["type"] == "string_too_long":
        return f"use at most {err.get('ctx', {}).get('max_length')} characters"
    if err["type"] == "string_type":
        return "write the key as a string (quote it: 'on', 'yes' and 'no' are booleans in YAML)"
    return "use letters, digits, spaces and _ . : / = + - @"


def _key_code(kind: str) -> str:
    return {"string_too_long": "length", "string_too_short": "length", "string_type": "type"}.get(kind, "pattern")


def _show(value: object) -> str:
    """A bounded rendering of a value for a message (never more than 60 characters)."""
    if isinstance(value, dict | list | tuple | set) and len(value) > 20:
        return f"a {type(value).__name__} of {len(value)} entries"
    text = repr(value) if isinstance(value, str | dict | list | tuple | set) else str(value)
    return _clip(text, 60)


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
