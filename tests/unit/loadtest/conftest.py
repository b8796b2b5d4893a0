"""A local wire-protocol server per test module, and boto3 clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from inference_loadtest.runner import make_client
from inference_loadtest.server import Behaviour, LocalServer


@pytest.fixture(scope="module")
def local_server() -> Iterator[LocalServer]:
    with LocalServer(Behaviour(ttft_ms=20, itl_ms=2, output_tokens=8)) as server:
        yield server


@pytest.fixture
def server(local_server: LocalServer) -> LocalServer:
    local_server.configure(**Behaviour(ttft_ms=20, itl_ms=2, output_tokens=8).__dict__)
    return local_server


@pytest.fixture
def sagemaker_runtime(server: LocalServer) -> Any:
    return make_client("sagemaker-runtime", pool=16, max_attempts=4, endpoint_url=server.url)


@pytest.fixture
def bedrock_runtime(server: LocalServer) -> Any:
    return make_client("bedrock-runtime", pool=16, max_attempts=4, endpoint_url=server.url)
