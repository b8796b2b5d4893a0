"""Each config is synthesized twice per test run (the second time for the determinism gate), once across all
pytest-xdist workers, and shared by every gate test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gates.synth import CONFIGS, Assembly, read_assembly, synth_config
from tests.shared_build import built_once, shared_root, worker_order

_ERROR = "synth-error.txt"


@pytest.fixture(scope="session")
def assemblies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Assembly, Assembly]]:
    """``config file name -> (first synth, second synth)`` for default.yaml and every example."""
    root = shared_root(tmp_path_factory)
    built: dict[tuple[str, str], Assembly] = {}
    for config, copy in worker_order([(c, copy) for c in CONFIGS for copy in ("a", "b")]):
        key = _key(config)

        def build(target: Path, config: Path = config) -> None:
            error = synth_config(config, target / "out").error
            if error is not None:
                (target / _ERROR).write_text(error)

        built[key, copy] = _read(built_once(root, f"gates-{key}-{copy}", build))
    return {_key(c): (built[_key(c), "a"], built[_key(c), "b"]) for c in CONFIGS}


def _read(target: Path) -> Assembly:
    """The assembly a (possibly other) worker synthesized into ``target/out``, as :func:`synth_config` returns it."""
    error = target / _ERROR
    return read_assembly(target / "out", error.read_text() if error.exists() else None)


def _key(config: Path) -> str:
    return config.stem if config.parent.name == "config" else f"examples-{config.stem}"


def config_ids() -> list[str]:
    """Test ids, one per config file."""
    return [_key(c) for c in CONFIGS]
