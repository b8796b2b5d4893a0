"""Clients on two botocore service models: the installed (newest) one and the SDK floor's
(``requirements-sdk-floor.txt``, installed by ``scripts/bootstrap.sh`` into ``.venv/botocore-<version>``).

Stubber validates every stubbed call's parameters against the model of the client it wraps, so a handler test run
on both clients shows the handler sends nothing the oldest supported SDK would reject before sending."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.config import Config

ROOT = Path(__file__).resolve().parents[2]
FLOOR_PIN = ROOT / "requirements-sdk-floor.txt"
MODELS = ("newest", "floor")


def floor_version() -> str:
    """The pinned botocore version of the SDK floor."""
    match = re.search(r"^botocore==(\S+)$", FLOOR_PIN.read_text(), re.MULTILINE)
    assert match, f"{FLOOR_PIN} pins no botocore==<version>"
    return match.group(1)


def floor_data() -> Path:
    """The floor's ``botocore/data`` folder; fails (never skips) when bootstrap has not installed it."""
    data = ROOT / ".venv" / f"botocore-{floor_version()}" / "botocore" / "data"
    if not (data / "bedrock").is_dir():
        pytest.fail(f"{data} is missing: run scripts/bootstrap.sh (it installs botocore {floor_version()})")
    return data


def client(service: str, model: str, *, region: str = "us-east-1", config: Config | None = None) -> Any:
    """A ``service`` client on the ``newest`` (installed) or ``floor`` service model, with dummy credentials."""
    session = botocore.session.get_session()
    if model == "floor":
        loader = session.get_component("data_loader")
        loader.search_paths.insert(0, str(floor_data()))
    return session.create_client(
        service,
        region_name=region,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=config or Config(retries={"total_max_attempts": 1}),
    )


def members(client_: Any, shape: str) -> set[str]:
    """Members of ``shape`` in the client's model."""
    return set(client_.meta.service_model.shape_for(shape).members)
