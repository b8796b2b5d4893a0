"""Expensive test inputs built once per test run, however many pytest-xdist workers ask for them.

A session fixture runs once per worker process: with two workers, every shipped config would be synthesized
twice. :func:`built_once` builds a named directory under the run's shared temporary folder (the parent of every
worker's base temp) behind a file lock: the first worker to take a name builds it, a later one reads what was
built. :func:`worker_order` gives each worker the items in a different order, so two workers build different
items side by side instead of waiting on the same lock.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")
_DONE = ".built"


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run shares (this process's own base temp when not under xdist)."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-once"
    root.mkdir(exist_ok=True)
    return root


def built_once(root: Path, name: str, build: Callable[[Path], None]) -> Path:
    """``root/name`` after ``build(root/name)`` ran exactly once in this run (by whichever worker came first).

    A build that raises leaves nothing marked built: the next caller builds again and sees the error itself.
    """
    target = root / name
    with (root / f"{name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / _DONE).exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            build(target)
            (target / _DONE).write_text("")
    return target


def worker_order(items: Sequence[T]) -> list[T]:
    """``items`` rotated by this worker's number: worker k of n starts k/n of the way along."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0
    start = (len(items) * index) // max(count, 1)
    return [*items[start:], *items[:start]]
