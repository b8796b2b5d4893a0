"""Each config is synthesized twice per test session (the second time for the determinism gate)
and shared by every gate test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gates.synth import CONFIGS, Assembly, synth_config


@pytest.fixture(scope="session")
def assemblies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Assembly, Assembly]]:
    """``config file name -> (first synth, second synth)`` for default.yaml and every example."""
    out: dict[str, tuple[Assembly, Assembly]] = {}
    for config in CONFIGS:
        key = _key(config)
        first = synth_config(config, tmp_path_factory.mktemp(f"{key}-a"))
        second = synth_config(config, tmp_path_factory.mktemp(f"{key}-b"))
        out[key] = (first, second)
    return out


def _key(config: Path) -> str:
    return config.stem if config.parent.name == "config" else f"examples-{config.stem}"


def config_ids() -> list[str]:
    """Test ids, one per config file."""
    return [_key(c) for c in CONFIGS]
