"""The one exception a user mistake raises."""

from __future__ import annotations

from collections.abc import Iterable


class InferenceConfigError(ValueError):
    """A configuration or construct-property mistake, reported before any resource exists.

    Every problem is one line ``<key path>: <what is wrong>; <allowed values or how to fix>``;
    all problems found in one validation pass are raised together.

    Parameters
    ----------
    problems:
        One message per problem. A single string is one problem.
    """

    def __init__(self, problems: str | Iterable[str]) -> None:
        items = [problems] if isinstance(problems, str) else list(problems)
        if not items:
            raise ValueError("InferenceConfigError needs at least one problem")
        self.problems: tuple[str, ...] = tuple(items)
        super().__init__(self._render())

    def _render(self) -> str:
        if len(self.problems) == 1:
            return f"invalid inference configuration: {self.problems[0]}"
        lines = "\n".join(f"  - {p}" for p in self.problems)
        return f"invalid inference configuration ({len(self.problems)} problems):\n{lines}"


class ProblemCollector:
    """Collects problems during validation and raises them together.

    Use ``add(path, what, fix)`` for each problem found, then ``raise_if_any()``.
    """

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: str, what: str, fix: str | None = None) -> None:
        """Record ``<path>: <what>; <fix>``."""
        self.problems.append(f"{path}: {what}" + (f"; {fix}" if fix else ""))

    def extend(self, other: Iterable[str]) -> None:
        """Record problems already rendered as strings."""
        self.problems.extend(other)

    def __bool__(self) -> bool:
        return bool(self.problems)

    def raise_if_any(self) -> None:
        """Raise one :class:`InferenceConfigError` listing every recorded problem."""
        if self.problems:
            raise InferenceConfigError(self.problems)
