"""Any bytes in, one clean InferenceConfigError out: encodings, binary, complex keys, alias expansion,
nesting and size are bounded before a value is built (the corpus in tests/corpus covers more)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inference_constructs.config import load_config, parse_config, validate_config
from inference_constructs.config.load import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES
from inference_constructs.errors import InferenceConfigError, Problem

BOMB = "name: acme\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi", strict=True)
)


def _refused(data: str | bytes) -> Problem:
    with pytest.raises(InferenceConfigError) as info:
        parse_config(data)
    assert len(info.value.problems) == 1
    return info.value.problems[0]


@pytest.mark.parametrize(
    ("data", "code", "words"),
    [
        ("name: acme\n".encode("utf-16"), "encoding", "UTF-16"),
        ("name: acme\n".encode("utf-32"), "encoding", "UTF-32"),
        ("name: acme\n".encode("utf-16-le"), "encoding", "NUL byte"),
        (b"name: caf\xe9\n", "encoding", "byte 0xe9 at line 1 is not UTF-8"),
        (b"\x7fELF\x02\x01\x01\x00\x00", "encoding", "NUL byte"),
        ("? {a: 1}\n: x\nname: acme\n", "complex_key", "a mapping or list is used as a key"),
        ("? [a, b]\n: x\nname: acme\n", "complex_key", "a mapping or list is used as a key"),
        ("name: 2020-13-45\n", "yaml", "month must be in 1..12"),
        ("name: acme\nx: !!float abc\n", "yaml", "cannot read the value"),
        ("name: acme\nb: &b {team: a}\ntags: {<<: *b}\n", "yaml", "merge keys"),
        ("name: acme\ntags: &t {a: *t}\n", "alias", "refers to itself"),
        (BOMB, "alias", f"expands to more than {MAX_NODES:,} YAML nodes"),
        ("name: acme\nx: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n", "too_deep", "nests deeper"),
        ("name: acme\nx: " + "[" * 5000 + "]" * 5000 + "\n", "yaml", "maximum nesting depth"),
        ("name: acme\nx: " + "a" * MAX_FILE_BYTES + "\n", "too_large", f"larger than {MAX_FILE_BYTES:,} bytes"),
    ],
    ids=[
        "utf16-bom",
        "utf32-bom",
        "utf16-no-bom",
        "latin1",
        "binary",
        "mapping-key",
        "list-key",
        "bad-timestamp",
        "bad-float-tag",
        "merge-key",
        "recursive-alias",
        "billion-laughs",
        "deep",
        "deeper-than-libyaml",
        "too-large",
    ],
)
def test_fails_cleanly_on_hostile_input(data: str | bytes, code: str, words: str) -> None:
    # GIVEN hostile bytes WHEN parsed THEN one problem of the expected kind, and a bounded message
    problem = _refused(data)
    assert problem.code == code
    assert words in str(problem)
    assert len(str(problem)) < 400


def test_utf8_byte_order_mark_is_accepted() -> None:
    assert parse_config(b"\xef\xbb\xbfname: acme\n").name == "acme"


def test_file_over_the_cap_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    # GIVEN a file of 5x the cap WHEN loaded THEN refused as too large (only cap + 1 bytes are read)
    path = tmp_path / "big.yaml"
    path.write_bytes(b"name: acme\n#" + b"x" * (5 * MAX_FILE_BYTES))
    with pytest.raises(InferenceConfigError) as info:
        load_config(path)
    assert info.value.problems[0].code == "too_large"


def test_directory_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(InferenceConfigError) as info:
        load_config(tmp_path)
    assert info.value.problems[0].code == "unreadable"


def _recursive() -> dict[str, Any]:
    tags: dict[str, Any] = {}
    tags["a"] = tags
    return {"name": "acme", "tags": tags}


def _deep() -> dict[str, Any]:
    value: Any = "x"
    for _ in range(5000):
        value = [value]
    return {"name": "acme", "tags": value}


@pytest.mark.parametrize(
    ("data", "code"),
    [(_recursive(), "invalid"), (_deep(), "too_deep"), ({"name": "acme", "x": [[0] * 1000] * 1000}, "too_large")],
    ids=["recursive", "deep", "shared-list"],
)
def test_python_api_raises_only_config_errors(data: dict[str, Any], code: str) -> None:
    # GIVEN Python data no YAML file could hold WHEN validated THEN an InferenceConfigError, nothing else
    with pytest.raises(InferenceConfigError) as info:
        validate_config(data)
    assert info.value.problems[0].code == code


def test_endpoint_count_cap_is_named() -> None:
    # GIVEN more endpoints than the cap WHEN parsed THEN the list's path and the cap are named
    endpoints = "".join(f"  - {{name: e{i}}}\n" for i in range(1001))
    problem = next(p for p in _all_problems(f"name: acme\nendpoints:\n{endpoints}") if p.path == "endpoints")
    assert problem.code == "too_large"
    assert "1001 entries are too many; use at most 1000" in problem


def _all_problems(text: str) -> tuple[Problem, ...]:
    with pytest.raises(InferenceConfigError) as info:
        parse_config(text)
    return info.value.problems
