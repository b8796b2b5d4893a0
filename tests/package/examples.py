"""The runnable Python examples of the README and docs/*.md: each ```python block right after a
``<!-- runnable -->`` line. A file's runnable blocks run in order in one namespace (later blocks use the names
earlier ones made), so a page reads as one program."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- runnable -->"
_BLOCK = re.compile(re.escape(MARKER) + r"\n```python\n(.*?)```", flags=re.S)


def documents() -> list[Path]:
    """The README and every page of docs/ that has a runnable block."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [p for p in pages if MARKER in p.read_text()]


def runnable_blocks(page: Path) -> list[str]:
    """The runnable Python blocks of ``page``, in order."""
    return _BLOCK.findall(page.read_text())


def program(page: Path) -> str:
    """The runnable blocks of ``page`` as one program."""
    return "\n".join(runnable_blocks(page))
