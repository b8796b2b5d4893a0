"""The asyncio engine signs exactly as boto3 does and handles every stream the threaded path handles."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any
from unittest import mock

import pytest

from inference_constructs.loadtest.aio import AsyncEngine
from inference_constructs.loadtest.formats import StreamFormat
from inference_constructs.loadtest.prompts import Prompt
from inference_constructs.loadtest.runner import make_client

AT = dt.datetime(2026, 12, 1, 12, 0, 0)


@pytest.mark.parametrize(
    ("service", "operation", "identifier"),
    [
        ("sagemaker-runtime", "InvokeEndpointWithResponseStream", "acme-genai-chat"),
        ("bedrock-runtime", "ConverseStream", "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/a"),
    ],
)
def test_fast_signing_matches_the_full_boto3_request(service: str, operation: str, identifier: str) -> None:
    # GIVEN an engine that already built one request through the whole client
    client: Any = make_client(service, pool=1, region="us-east-1")
    engine = AsyncEngine(client, operation, identifier, StreamFormat.LMI)
    engine.sign(Prompt("warm up", 4))
    prompt = Prompt("what is deep learning? é", 64)
    # WHEN the next prompt is signed the fast way and the full way at the same instant
    same_id = uuid.UUID("12345678-1234-5678-1234-567812345678")
    with (
        mock.patch("botocore.auth.get_current_datetime", return_value=AT),
        mock.patch("uuid.uuid4", return_value=same_id),
    ):
        fast = engine.sign(prompt)
        full = engine._sign(prompt)
    # THEN URL, body and every header, the SigV4 Authorization included, are identical
    assert (fast.url, fast.method, fast.body) == (full.url, full.method, full.body)
    assert {k.lower(): v for k, v in fast.headers.items()} == {k.lower(): v for k, v in full.headers.items()}
    assert "Signature=" in fast.headers["Authorization"]
