"""What a cfn-guard rule file can read and report on, shown from its text: the resource types whose presence
its rules need to run (:func:`guard_rule_triggers`) and the resource types its queries can reach
(:func:`guard_rule_reads`), and a template cut down to those resources with every kept byte where it was
(:func:`reduced_template`).

The analysis accepts only forms whose meaning is plain and answers None for anything else, so a file it cannot
read runs in full on whole templates.
"""

from __future__ import annotations

import functools
import json
import json.decoder
import re
from collections.abc import Mapping
from typing import Any

_LEXEME = re.compile(r"<<.*?>>|#[^\n]*|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|/(?:[^/\\\n]|\\.)*/", re.S)


def _code(text: str) -> str:
    """``text`` with comments and ``<< ... >>`` messages removed and every regex literal replaced by ``/re/``;
    strings are kept."""

    def keep(m: re.Match[str]) -> str:
        lexeme = m.group(0)
        if lexeme.startswith(("<<", "#")):
            return ""
        return "/re/" if lexeme.startswith("/") else lexeme

    return _LEXEME.sub(keep, text)


_STRUCTURE = re.compile(r"[{}\[\]()\n]")


def _statements(code: str) -> list[str] | None:
    """The top-level statements of a rule file's code (each ``let`` or ``rule`` with its block), or None when
    the file holds anything else at the top level (clauses outside a rule form a rule of their own)."""
    statements: list[str] = []
    depth = start = 0
    for m in _STRUCTURE.finditer(code):
        c, i = m.group(), m.start()
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and c == "}" and code[start:i].lstrip().startswith("rule "):
                statements.append(code[start : i + 1].strip())
                start = i + 1
        elif depth == 0:
            chunk = code[start:i].strip()
            if not chunk or chunk.startswith("let "):
                statements += [chunk] if chunk else []
                start = i + 1
    rest = code[start:].strip()
    if depth != 0:
        return None
    statements += [rest] if rest else []
    return statements if all(s.startswith(("let ", "rule ")) for s in statements) else None


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_LET = re.compile(rf"let\s+({_NAME})\s*=\s*(.*)", re.S)
_RULE = re.compile(rf"rule\s+({_NAME})\s*(?:\(([^)]*)\))?\s*(?:when\s+(.*?))?\s*\{{(.*)\}}", re.S)
_STRING = r"(?:\"[^\"\\]*\"|'[^'\\]*')"
_TYPE = rf"(?:%{_NAME}|{_STRING})"
#: ``Resources.*[ Type == X or Type == Y ]``, ``Resources[ Type == X ]``, ``Resources.*[ Type in X ]``
_SELECTION = re.compile(rf"Resources(?:\.\*)?\[\s*(Type\s*(?:==|in|IN)\s*{_TYPE}(?:\s+or\s+Type\s*==\s*{_TYPE})*)\s*\]")
_HOOK_BODY = re.compile(rf"\{{\s*%({_NAME})\.%({_NAME})\.resourceProperties\s+exists\s*\}}")


def guard_rule_triggers(text: str) -> tuple[frozenset[str] | None, tuple[str, ...]]:
    """(trigger types, evaluated rule names) of one cfn-guard rule file.

    The trigger types are shown only from a form whose meaning is plain; anything else gives None (the file
    always runs). Every rule without parameters (the rules cfn-guard evaluates; a rule with parameters only
    runs when one of those calls it) must have a ``when`` condition with, as a conjunct of its own (a line
    joined to no other by ``or``), either

    - ``%v not empty`` where ``v`` is a top-level ``let v = Resources.*[ Type == T ]`` (``Resources[...]``,
      ``Type in [...]`` and ``or`` of such comparisons too; ``T`` a string literal or a top-level string
      constant): false unless a template holds a resource of type ``T``; or
    - ``is_cfn_hook(%doc, %T)`` with ``let doc = this`` and ``is_cfn_hook`` the file's own rule testing
      ``%doc.%T.resourceProperties exists``: false unless a document has a top-level key ``T`` (a
      CloudFormation hook's input, never a template's section name).

    The file's triggers are the union of its rules' types. A variable set from another query, a wildcard, a
    regex or a type computed at run time matches none of these forms, so its file is always run.
    """
    code = _code(text)
    statements = _statements(code)
    rules: list[str] = []
    if statements is None:
        return None, ()
    constants: dict[str, list[str]] = {}
    selections: dict[str, frozenset[str]] = {}
    documents: set[str] = set()
    parsed_rules: list[tuple[str, str | None, str | None, str]] = []
    for statement in statements:
        if let := _LET.fullmatch(statement):
            _read_let(let.group(1), let.group(2).strip(), constants, selections, documents)
        elif rule := _RULE.fullmatch(statement):
            parsed_rules.append((rule.group(1), rule.group(2), rule.group(3), rule.group(4)))
        else:
            return None, ()
    hook_rules = {
        name
        for name, params, _, body in parsed_rules
        if params is not None
        and (m := _HOOK_BODY.fullmatch("{" + body + "}"))
        and [p.strip() for p in params.split(",")] == [m.group(1), m.group(2)]
    }
    triggers: set[str] = set()
    known = True
    for name, params, when, _ in parsed_rules:
        if params is not None and params.strip():
            continue
        rules.append(name)
        types = _gate_types(when or "", selections, constants, documents, hook_rules)
        if types is None:
            known = False
        else:
            triggers |= types
    return (frozenset(triggers) if known else None), tuple(dict.fromkeys(rules))


def _read_let(
    name: str,
    value: str,
    constants: dict[str, list[str]],
    selections: dict[str, frozenset[str]],
    documents: set[str],
) -> None:
    """Record a top-level ``let``: the document itself, a string constant (or list of them), or a selection of
    resources by type; any other value is ignored (it cannot serve as a gate)."""
    if value == "this":
        documents.add(name)
    elif re.fullmatch(_STRING, value):
        constants[name] = [value[1:-1]]
    elif re.fullmatch(rf"\[\s*{_STRING}(?:\s*,\s*{_STRING})*\s*,?\s*\]", value):
        constants[name] = [v[1:-1] for v in re.findall(_STRING, value)]
    elif (selection := _SELECTION.fullmatch(value)) and (types := _selection_types(selection.group(1), constants)):
        selections[name] = types


def _selection_types(filter_text: str, constants: Mapping[str, list[str]]) -> frozenset[str] | None:
    types: set[str] = set()
    for operand in re.findall(_TYPE, filter_text):
        if operand.startswith("%"):
            if operand[1:] not in constants:
                return None
            types |= set(constants[operand[1:]])
        else:
            types.add(operand[1:-1])
    return frozenset(types)


def _gate_types(
    when: str,
    selections: Mapping[str, frozenset[str]],
    constants: Mapping[str, list[str]],
    documents: set[str],
    hook_rules: set[str],
) -> frozenset[str] | None:
    """The types one of the conjuncts of a ``when`` condition needs (see :func:`guard_rule_triggers`)."""
    lines = [line.strip() for line in when.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        joined = (
            re.search(r"\b(or|OR)$", line)
            or (k + 1 < len(lines) and re.match(r"(or|OR)\b", lines[k + 1]))
            or (k > 0 and re.search(r"\b(or|OR)$", lines[k - 1]))
            or re.match(r"(or|OR)\b", line)
        )
        if joined:
            continue
        if (m := re.fullmatch(rf"%({_NAME})\s+not\s+empty", line)) and m.group(1) in selections:
            return selections[m.group(1)]
        hook = re.fullmatch(rf"({_NAME})\(\s*%({_NAME})\s*,\s*%({_NAME})\s*\)", line)
        if hook and hook.group(1) in hook_rules and hook.group(2) in documents and hook.group(3) in constants:
            return frozenset(constants[hook.group(3)])
    return None


# --------------------------------------------------------------------------------------------- what a file reads

_CALL = re.compile(rf"\b({_NAME})\(([^()]*)\)")
_ALIAS = re.compile(rf"\blet\s+({_NAME})\s*=\s*%({_NAME})\s*$", re.M)
_ONLY_EXISTS = re.compile(rf"(?:\s*(?:or|OR)?\s*{_NAME}\s+exists)*\s*")


def _documents(code: str, statements: list[str]) -> set[str]:
    """Names that can hold the whole input document: ``let v = this``, a ``let`` alias of one, and every rule
    parameter some call passes one of them to (names are taken file-wide, which can only add names)."""
    params: dict[str, list[str]] = {}
    docs: set[str] = set()
    for statement in statements:
        if (let := _LET.fullmatch(statement)) and let.group(2).strip() == "this":
            docs.add(let.group(1))
        elif (rule := _RULE.fullmatch(statement)) and rule.group(2):
            params[rule.group(1)] = [p.strip() for p in rule.group(2).split(",")]
    changed = True
    while changed:
        changed = False
        found = {m.group(1) for m in _ALIAS.finditer(code) if m.group(2) in docs}
        for m in _CALL.finditer(code):
            names = params.get(m.group(1), [])
            for k, arg in enumerate(a.strip() for a in m.group(2).split(",")):
                if k < len(names) and arg.startswith("%") and arg[1:] in docs:
                    found.add(names[k])
        if found - docs:
            docs |= found
            changed = True
    return docs


def _document_use_is_plain(code: str, end: int) -> bool:
    """Whether the text after a document variable ending at ``end`` only passes it on, reads a hook document's
    key, reads ``Resources`` (checked on its own) or tests top-level keys for existence."""
    after = code[end : end + 2000]
    return bool(
        re.match(r"\s*[,)]", after)
        or re.match(rf"\.%{_NAME}\.resourceProperties\b", after)
        or re.match(r"\.Resources\b", after)
        or ((block := re.match(r"\s*\{([^{}]*)\}", after)) and _ONLY_EXISTS.fullmatch(block.group(1)))
    )


_OPEN = re.compile(r"[{}\[\]]|\bthis\b")


def _this_is_plain(bare: str) -> bool:
    """Whether every ``this`` that means the whole document (outside any value block or filter: in a rule body
    or a ``when`` block) reads a hook document's key (``this.%T.resourceProperties``); a ``this`` inside a
    block on a value or a filter is that value."""
    stack: list[bool] = []  # per open brace or bracket: does it enter a value
    for m in _OPEN.finditer(bare):
        token = m.group(0)
        if token in "{[":
            line = bare[bare.rfind("\n", 0, m.start()) + 1 : m.start()].strip()
            transparent = token == "{" and (not stack or line.startswith(("rule ", "when ")) or line == "")
            stack.append(not transparent)
        elif token in "}]":
            if stack:
                stack.pop()
        elif not any(stack):
            hook_key = re.match(rf"this\.%{_NAME}\.resourceProperties\b", bare[m.start() : m.start() + 200])
            definition = re.search(rf"\blet\s+{_NAME}\s*=\s*$", bare[max(0, m.start() - 200) : m.start()])
            if not (hook_key or definition):
                return False
    return True


def guard_rule_reads(text: str) -> frozenset[str] | None:
    """The resource types whose resources a cfn-guard rule file's queries can reach in a template, or None
    when that cannot be shown (then the file is run on whole templates).

    Shown only when every way the file reaches into a document is one of these (anything else gives None):

    - ``Resources.*[ Type == T ]`` (the forms :func:`guard_rule_triggers` reads; ``T`` a string literal or a
      top-level string constant): resources of type ``T``, the types returned;
    - ``Resources[ keys == %k ]``: the resource a key names; the key is read from a resource the file already
      reached (``Ref`` or ``Fn::GetAtt``), which :func:`reduced_template` keeps with every resource it
      references;
    - ``Resources exists`` and ``%doc { K exists or ... }``: a test of top-level keys;
    - ``%doc.%T.resourceProperties``: a CloudFormation hook's document, never a template's;
    - a document variable passed on to a rule.

    A wildcard on the document (``*``, ``%doc.*``, ``this.X``), a selection by a type computed at run time, a
    regex or a filter with further clauses is none of these.
    """
    code = _code(text)
    statements = _statements(code)
    if statements is None:
        return None
    constants: dict[str, list[str]] = {}
    for statement in statements:
        if let := _LET.fullmatch(statement):
            _read_let(let.group(1), let.group(2).strip(), constants, {}, set())
    docs = _documents(code, statements)
    # the code with every string's characters masked (offsets kept), so that no string reads as syntax
    bare = re.sub(_STRING, lambda m: m.group(0)[0] + "x" * (len(m.group(0)) - 2) + m.group(0)[-1], code)
    if re.search(r"(?<![.\[])\*", bare) or not _this_is_plain(bare):
        return None
    for m in re.finditer(rf"%({_NAME})\b", bare):
        if m.group(1) in docs and not _document_use_is_plain(bare, m.end()):
            return None
    types: set[str] = set()
    for m in re.finditer(r"(?<![A-Za-z0-9_%])Resources\b", bare):
        prefix = re.search(rf"(%?){_NAME}(?:\[[^\]]*\])?\.$", bare[max(0, m.start() - 200) : m.start()])
        if prefix and not (prefix.group(1) and prefix.group(0)[1:-1] in docs):
            continue  # a property named Resources inside a value (``EncryptionConfig[*].Resources``)
        after = bare[m.end() : m.end() + 2000]
        if re.match(r"\s+exists\b", after) or re.match(rf"\[\s*keys\s*==\s*%{_NAME}\s*\]", after):
            continue
        selection = _SELECTION.match(code, m.start())
        if selection is None or (selected := _selection_types(selection.group(1), constants)) is None:
            return None
        types |= selected
    return frozenset(types)


# --------------------------------------------------------------------------------------------- reduced templates

_WS = re.compile(r"[ \t\n\r]*")


def _members(text: str, start: int, decoder: json.JSONDecoder) -> tuple[list[tuple[str, int, int, int | None]], int]:
    """The members of the JSON object whose ``{`` is at ``start``: (key, start of the key, end of the value,
    index of the comma after it or None), and the index after the closing ``}``."""
    members: list[tuple[str, int, int, int | None]] = []
    i = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
    if text[i] == "}":
        return members, i + 1
    while True:
        if text[i] != '"':
            raise ValueError(f"expected a key at {i}")
        key, j = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        j = _WS.match(text, j).end()  # type: ignore[union-attr]
        if text[j] != ":":
            raise ValueError(f"expected ':' at {j}")
        j = _WS.match(text, j + 1).end()  # type: ignore[union-attr]
        _, end = decoder.raw_decode(text, j)
        k = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text[k] == ",":
            members.append((key, i, end, k))
            i = _WS.match(text, k + 1).end()  # type: ignore[union-attr]
        elif text[k] == "}":
            members.append((key, i, end, None))
            return members, k + 1
        else:
            raise ValueError(f"expected ',' or '}}' at {k}")


@functools.lru_cache(maxsize=64)
def _resources_span(text: str) -> tuple[list[tuple[str, int, int, int | None]], int] | None:
    """The members of a JSON template's top-level ``Resources`` object and the index of its ``{``."""
    decoder = json.JSONDecoder()
    start = _WS.match(text).end()  # type: ignore[union-attr]
    if text[start : start + 1] != "{":
        return None
    i = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
    while i < len(text) and text[i] == '"':
        key, j = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        j = _WS.match(text, j).end()  # type: ignore[union-attr]
        j = _WS.match(text, j + 1).end()  # type: ignore[union-attr]
        if key == "Resources" and text[j] == "{":
            return _members(text, j, decoder)[0], j
        _, end = decoder.raw_decode(text, j)
        i = _WS.match(text, end).end()  # type: ignore[union-attr]
        i = _WS.match(text, i + 1).end() if text[i : i + 1] == "," else i  # type: ignore[union-attr]
    return None


def _references(value: Any, into: set[str]) -> None:
    """Every logical id ``value`` names through ``Ref``, ``Fn::GetAtt``, ``Fn::Sub`` or ``DependsOn``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "Ref" and isinstance(item, str):
                into.add(item)
            elif key == "Fn::GetAtt":
                first = item[0] if isinstance(item, list) and item else item
                if isinstance(first, str):
                    into.add(first.split(".")[0])
            elif key == "Fn::Sub":
                source = item[0] if isinstance(item, list) and item else item
                if isinstance(source, str):
                    into.update(n.split(".")[0] for n in re.findall(r"\$\{([^}!]+)\}", source))
            elif key == "DependsOn":
                into.update([item] if isinstance(item, str) else [i for i in item if isinstance(i, str)])
            _references(item, into)
    elif isinstance(value, list):
        for item in value:
            _references(item, into)


def guard_rule_looks_up(text: str) -> bool:
    """Whether a rule file reaches a resource by its key (``Resources[ keys == %k ]``, the key read from a
    ``Ref`` or ``Fn::GetAtt``): then what it can read includes what the resources it selects reference."""
    return bool(re.search(r"Resources\s*\[\s*keys\b", _code(text)))


def kept_resources(template: Mapping[str, Any], reads: frozenset[str], *, references: bool = True) -> set[str]:
    """Logical ids of ``template``'s resources of a type in ``reads``, with (``references``) every resource they
    reference, directly or through others."""
    resources: Mapping[str, Any] = template.get("Resources", {})
    kept = {lid for lid, r in resources.items() if isinstance(r, dict) and r.get("Type") in reads}
    todo = list(kept) if references else []
    while todo:
        named: set[str] = set()
        _references(resources[todo.pop()], named)
        for lid in named & resources.keys() - kept:
            kept.add(lid)
            todo.append(lid)
    return kept


def reduced_template(text: str, keep: set[str]) -> str | None:
    """``text`` (a JSON template) with every resource but ``keep`` replaced by blanks, every kept byte at its
    line and column (cfn-guard's messages quote them), or None when ``text`` cannot be read so.

    A removed member becomes its line breaks and, on its last line, one space per character (so what follows on
    that line keeps its column), and so does the comma that joined it."""
    try:
        found = _resources_span(text)
    except (ValueError, IndexError):
        return None
    if found is None:
        return None
    members, _ = found
    cut: list[tuple[int, int]] = []  # spans to blank, in reverse order
    later_kept = False
    for key, start, end, comma in reversed(members):
        kept = key in keep
        if comma is not None and not (kept and later_kept):
            cut.append((comma, comma + 1))
        if not kept:
            cut.append((start, end))
        later_kept = later_kept or kept
    pieces: list[str] = []
    at = 0
    for start, end in sorted(cut):
        span = text[start:end]
        breaks = span.count("\n")
        pieces += [text[at:start], "\n" * breaks + " " * (len(span) - span.rfind("\n") - 1 if breaks else len(span))]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)
