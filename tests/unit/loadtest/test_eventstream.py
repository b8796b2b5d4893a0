"""The event stream encoder writes frames botocore's own parser reads back, CRCs included."""

from __future__ import annotations

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer

from inference_loadtest import eventstream


def _parse(data: bytes) -> list[tuple[dict[str, object], bytes]]:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return [(m.headers, m.payload) for m in buffer]


def test_payload_part_round_trips_through_botocore() -> None:
    # GIVEN a PayloadPart frame with a JSON fragment
    frame = eventstream.payload_part(b'{"token": {"id": 1')
    # WHEN botocore's buffer parses it
    [(headers, payload)] = _parse(frame)
    # THEN the headers name the event and the payload is the bytes unchanged
    assert headers == {
        ":event-type": "PayloadPart",
        ":content-type": "application/octet-stream",
        ":message-type": "event",
    }
    assert payload == b'{"token": {"id": 1'


def test_exception_frame_carries_exception_type() -> None:
    # GIVEN a ModelStreamError exception frame
    frame = eventstream.exception("ModelStreamError", {"Message": "boom"})
    # WHEN parsed
    [(headers, payload)] = _parse(frame)
    # THEN it is an exception message with a JSON body
    assert headers[":message-type"] == "exception"
    assert headers[":exception-type"] == "ModelStreamError"
    assert payload == b'{"Message":"boom"}'


def test_total_length_counts_prelude_headers_payload_and_crc() -> None:
    # GIVEN a frame with a 5-byte payload
    frame = eventstream.encode_message({"a": "b"}, b"hello")
    # THEN the first 4 bytes hold the whole frame's length
    assert int.from_bytes(frame[:4], "big") == len(frame) == 12 + (1 + 1 + 1 + 2 + 1) + 5 + 4


@pytest.mark.parametrize("position", [20, -2])
def test_fails_botocore_checksum_when_a_byte_changes(position: int) -> None:
    # GIVEN a valid frame with one payload (or message CRC) byte flipped
    frame = bytearray(eventstream.payload_part(b"0123456789abcdef"))
    frame[position] ^= 0xFF
    # WHEN botocore parses it THEN the message CRC no longer matches
    with pytest.raises(ChecksumMismatch):
        _parse(bytes(frame))
