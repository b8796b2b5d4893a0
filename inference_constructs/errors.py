"""The one exception a user mistake raises, and the structured problems it carries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Problem codes: short, stable kinds a program may branch on (the prose around them may change).
CODES: dict[str, str] = {
    "invalid": "a value a rule refuses (the default kind)",
    "unreadable": "the file cannot be read",
    "encoding": "the file is not UTF-8 text (or is binary)",
    "yaml": "the file is not valid YAML",
    "too_large": "the file, a value or a list is larger than the library accepts",
    "too_deep": "the YAML nests deeper than the library accepts",
    "alias": "YAML aliases expand to more nodes than the library accepts",
    "complex_key": "a mapping or list used as a YAML key",
    "duplicate_key": "a YAML key appears twice in one mapping",
    "not_mapping": "a mapping of keys was expected",
    "unknown_key": "a key the schema does not know",
    "missing": "a required key is missing",
    "type": "a value of the wrong type",
    "range": "a number outside its range",
    "choice": "a value outside a closed set",
    "pattern": "a string in the wrong format",
    "length": "a string or list that is too long or too short",
    "duplicate": "the same entry twice in a list",
    "id_collision": "two names that would give one resource the same identity",
    "conflict": "keys that contradict each other",
    "name": "a resource name AWS refuses once the library's prefixes are added",
    "tag_count": "more tags on a resource than AWS allows",
    "tag_chars": "a tag key or value with characters the service refuses",
    "tag_case": "tag keys that differ only by case",
    "tag_reserved": "a tag key reserved by AWS or by the library",
    "arn_format": "an ARN in the wrong format",
    "arn_region": "an ARN in a region the resource cannot be used from",
    "arn_account": "an ARN in an account the resource cannot be used from",
    "s3_bucket": "an S3 bucket name AWS never allows",
}


class Problem(str):
    """One problem, rendered as ``<path>: <what>; <fix>`` and carrying those parts and a ``code``.

    A :class:`Problem` *is* its rendered line (a ``str``), so code that compares or searches problem
    lines keeps working; programs read :attr:`path`, :attr:`code`, :attr:`what` and :attr:`fix`.

    Parameters
    ----------
    path:
        Key path in the config file (``endpoints[2].serverless.memory_mb``), or the file for a problem
        with the whole file.
    what:
        What is wrong, naming the value (never an unbounded one).
    fix:
        The allowed values or how to fix it. Default: no fix part.
    code:
        A kind from :data:`CODES`. Default: ``invalid``.
    """

    path: str
    what: str
    fix: str
    code: str

    def __new__(cls, path: str, what: str, fix: str | None = None, code: str = "invalid") -> Problem:
        if code not in CODES:
            raise ValueError(f"unknown problem code {code!r}; use one of {', '.join(CODES)}")
        self = super().__new__(cls, f"{path}: {what}" + (f"; {fix}" if fix else ""))
        self.path, self.what, self.fix, self.code = path, what, fix or "", code
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Problem, (self.path, self.what, self.fix, self.code))

    @classmethod
    def of(cls, item: str, code: str = "invalid") -> Problem:
        """``item`` as a :class:`Problem`: itself when it is one, else parsed from ``<path>: <what>; <fix>``."""
        if isinstance(item, Problem):
            return item
        path, sep, rest = item.partition(": ")
        if not sep:
            return cls("", item, None, code)
        what, _, fix = rest.partition("; ")
        return cls(path, what, fix or None, code)

    def to_dict(self) -> dict[str, str]:
        """``{"path", "what", "fix", "code"}`` (the JSON error document's entries)."""
        return {"path": self.path, "what": self.what, "fix": self.fix, "code": self.code}


class InferenceConfigError(ValueError):
    """A configuration or construct-property mistake, reported before any resource exists.

    Every problem is one line ``<key path>: <what is wrong>; <allowed values or how to fix>``;
    all problems found in one validation pass are raised together.

    Parameters
    ----------
    problems:
        One entry per problem: :class:`Problem` objects, or strings in the line format (parsed into
        problems of code ``invalid``). A single string is one problem.
    """

    def __init__(self, problems: str | Iterable[str]) -> None:
        items = [problems] if isinstance(problems, str) else list(problems)
        if not items:
            raise ValueError("InferenceConfigError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(dict.fromkeys(Problem.of(p) for p in items))
        super().__init__(self._render())

    def _render(self) -> str:
        if len(self.problems) == 1:
            return f"invalid inference configuration: {self.problems[0]}"
        lines = "\n".join(f"  - {p}" for p in self.problems)
        return f"invalid inference configuration ({len(self.problems)} problems):\n{lines}"

    def to_json(self) -> dict[str, Any]:
        """The JSON error document: ``{"error": <message>, "problems": [{"path", "what", "fix", "code"}, ...]}``."""
        return {"error": str(self), "problems": [p.to_dict() for p in self.problems]}


class ProblemCollector:
    """Collects problems during validation and raises them together.

    Use ``add(path, what, fix)`` for each problem found, then ``raise_if_any()``.
    """

    def __init__(self) -> None:
        self.problems: list[str] = []  # Problem objects (a Problem is its rendered line)

    def add(self, path: str, what: str, fix: str | None = None, *, code: str = "invalid") -> None:
        """Record ``<path>: <what>; <fix>`` of kind ``code``."""
        self.problems.append(Problem(path, what, fix, code))

    def extend(self, other: Iterable[str]) -> None:
        """Record problems (or lines in the problem format)."""
        self.problems.extend(Problem.of(p) for p in other)

    def __bool__(self) -> bool:
        return bool(self.problems)

    def raise_if_any(self) -> None:
        """Raise one :class:`InferenceConfigError` listing every recorded problem."""
        if self.problems:
            raise InferenceConfigError(self.problems)
