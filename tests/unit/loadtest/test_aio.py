"""The asyncio engine signs exactly as boto3 does and handles every stream the threaded path handles."""

from __future__ import annotations

import asyncio
import datetime as dt
import struct
import uuid
import zlib
from typing import Any
from unittest import mock

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer

from inference_loadtest import eventstream
from inference_loadtest.aio import AsyncEngine, EventMessages, _StreamBody
from inference_loadtest.formats import StreamFormat
from inference_loadtest.prompts import Prompt
from inference_loadtest.runner import make_client
from inference_loadtest.timing import TimedStreamReader

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


def _body(frames: list[bytes]) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(f), f) for f in frames) + b"0\r\n\r\n"


@pytest.mark.parametrize("piece", [1, 5, 1000], ids=lambda n: f"pieces of {n} bytes")
def test_stream_body_parses_chunks_and_messages_cut_anywhere(piece: int) -> None:
    async def scenario() -> tuple[list[tuple[bytes, float]], bool]:
        # GIVEN a chunked body of two PayloadPart events, arriving in pieces of `piece` bytes at t = 0, 1, 2, ...
        body = _body([eventstream.payload_part(b'{"token": 1}\n'), eventstream.payload_part(b'{"token": 2}\n')])
        seen: list[tuple[bytes, float]] = []
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        parser = _StreamBody(lambda h, payload, at: seen.append((payload, at)), done)
        # WHEN the pieces are fed one by one
        for t, start in enumerate(range(0, len(body), piece)):
            parser.feed(body[start : start + piece], float(t))
        return seen, done.done() and done.exception() is None

    seen, finished = asyncio.run(scenario())
    # THEN both payloads come out, each timed by the piece that completed its chunk, and the body is complete
    n = len(_body([eventstream.payload_part(b'{"token": 1}\n')])) - 5  # bytes up to the end of the first chunk
    assert [p for p, _ in seen] == [b'{"token": 1}\n', b'{"token": 2}\n']
    assert seen[0][1] == float((n - 1) // piece)
    assert finished


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"zz\r\n", ValueError),  # not a hexadecimal chunk size
        (_body([eventstream.payload_part(b"x")])[:-5], asyncio.IncompleteReadError),  # closed before the last chunk
    ],
    ids=["bad size", "cut short"],
)
def test_stream_body_fails_the_request_on_a_bad_or_cut_body(body: bytes, error: type[Exception]) -> None:
    async def scenario() -> BaseException | None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        parser = _StreamBody(lambda h, payload, at: None, done)
        parser.feed(body, 0.0)
        parser.end(None)  # the connection closes
        return done.exception()

    assert isinstance(asyncio.run(scenario()), error)


def test_diverted_reader_hands_over_buffered_data_with_its_arrival_times_first() -> None:
    async def scenario() -> list[tuple[bytes, float]]:
        # GIVEN a reader that buffered a head and the start of a body (arrived at t=1 and t=2), head read
        clock = iter([1.0, 2.0, 3.0])
        reader = TimedStreamReader(clock=lambda: next(clock))
        reader.feed_data(b"HEAD\r\nbo")
        reader.feed_data(b"dy")
        await reader.readline()
        seen: list[tuple[bytes, float]] = []
        sink = mock.Mock(data=lambda d, at: seen.append((d, at)))
        # WHEN it is diverted and more data arrives (t=3)
        reader.divert(sink)
        reader.feed_data(b"more")
        return seen

    # THEN the sink gets the unread bytes piece by piece with their own times, then the new piece
    assert asyncio.run(scenario()) == [(b"bo", 1.0), (b"dy", 2.0), (b"more", 3.0)]


def _botocore(data: bytes) -> list[tuple[dict[str, Any], bytes]]:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return [(dict(m.headers), m.payload) for m in buffer]  # type: ignore[call-overload]  # the stubs say int


def _with_bool_header() -> bytes:
    """A message with a boolean-true header (type 0, no value bytes) after the string ones."""
    block = eventstream.encode_headers({":message-type": "event", ":event-type": "chunk"}) + b"\x05flag!\x00"
    payload = b'{"bytes": "eyJ9"}'
    total = eventstream.PRELUDE_LENGTH + len(block) + len(payload) + 4
    prelude = struct.pack(">II", total, len(block))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + block + payload
    return body + struct.pack(">I", zlib.crc32(body))


STREAM = (
    eventstream.payload_part(b'{"token": {"text": " n\xc3\xa9"}}\n')
    + eventstream.json_event("contentBlockDelta", {"delta": {"text": "hi"}})
    + eventstream.exception("ModelStreamError", {"Message": "boom"})
    + _with_bool_header()
)


@pytest.mark.parametrize("cut", range(0, len(STREAM), 7))
def test_event_messages_read_what_botocore_reads_cut_anywhere(cut: int) -> None:
    # GIVEN events of every kind the runtimes send (and a non-string header), cut in two at `cut`
    reader = EventMessages()
    # WHEN both halves are fed
    messages = reader.feed(STREAM[:cut]) + reader.feed(STREAM[cut:])
    # THEN the messages are botocore's, headers and payloads
    assert messages == _botocore(STREAM)
    assert messages[-1][0]["flag!"] is True


@pytest.mark.parametrize("where", [5, -2], ids=["prelude", "message"])
def test_event_messages_reject_a_bad_crc_as_botocore_does(where: int) -> None:
    frame = bytearray(eventstream.payload_part(b"x"))
    frame[where] ^= 0xFF
    with pytest.raises(ChecksumMismatch):
        EventMessages().feed(bytes(frame))
