"""Construct ids derived from resource names, distinct for distinct names (pure Python, no ``aws_cdk``)."""

from __future__ import annotations

import hashlib
import re

_CANONICAL = re.compile(r"^[a-z][a-z0-9]*(-[a-z][a-z0-9]*)*$")


def pascal(name: str) -> str:
    """``team-a_sonnet`` -> ``TeamASonnet``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part) or "Unnamed"


def construct_id(name: str) -> str:
    """A stable construct id for the resource ``name``: distinct names always give distinct ids.

    A name of lowercase words that start with a letter, joined by single hyphens (``acme-chat``,
    ``team-a-sonnet``) gives its PascalCase form (``AcmeChat``), which maps back to exactly that name. Any
    other name (``a--b``, ``a-1b``, ``Team A``, ``team_a``) could share that form with another name, so it
    gets the form plus the first 8 hex digits of the name's SHA-256 (``TeamA-1f2e3d4c``); the ``-`` never
    appears in a PascalCase form, so the two kinds never meet.
    """
    base = pascal(name)
    if _CANONICAL.match(name):
        return base
    return f"{base}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"
