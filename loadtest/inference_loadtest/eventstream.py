"""Encoder for the AWS event stream framing (``application/vnd.amazon.eventstream``).

The SageMaker runtime (``InvokeEndpointWithResponseStream``) and the Bedrock runtime (``ConverseStream``)
frame every streamed event the same way; botocore's ``botocore.eventstream`` parses it on the client side.
The local test server writes frames with this encoder so that the client path under test is botocore's
own parser, byte for byte the one that reads a real endpoint.

A message is (AWS "Event stream encoding", Transcribe streaming developer guide; botocore
``eventstream.py``)::

    total length (uint32 BE) | headers length (uint32 BE) | prelude CRC32 (of the first 8 bytes)
    headers: name length (uint8) | name (UTF-8) | value type (uint8; 7 = string) | value length (uint16 BE) | value
    payload
    message CRC32 (of every byte before it)
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from typing import Any

PRELUDE_LENGTH = 12
"""Total length, headers length and prelude CRC: 3 x 4 bytes."""
STRING_HEADER_TYPE = 7
"""Header value type of a UTF-8 string."""
CONTENT_TYPE = "application/vnd.amazon.eventstream"


def encode_headers(headers: Mapping[str, str]) -> bytes:
    """The header block of a message: string-valued headers only (all the services here send)."""
    out = bytearray()
    for name, value in headers.items():
        raw_name = name.encode()
        raw_value = value.encode()
        out += struct.pack(">B", len(raw_name)) + raw_name
        out += struct.pack(">BH", STRING_HEADER_TYPE, len(raw_value)) + raw_value
    return bytes(out)


def encode_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One complete event stream message: prelude, prelude CRC, headers, payload, message CRC."""
    header_block = encode_headers(headers)
    total = PRELUDE_LENGTH + len(header_block) + len(payload) + 4
    prelude = struct.pack(">II", total, len(header_block))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + header_block + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event(event_type: str, payload: bytes, content_type: str = "application/octet-stream") -> bytes:
    """An ``event`` message (``:message-type: event``) of ``event_type``."""
    return encode_message(
        {":event-type": event_type, ":content-type": content_type, ":message-type": "event"},
        payload,
    )


def json_event(event_type: str, body: Mapping[str, Any]) -> bytes:
    """An ``event`` message whose payload is a JSON object (Bedrock ConverseStream events)."""
    return event(event_type, json.dumps(body, separators=(",", ":")).encode(), "application/json")


def exception(exception_type: str, body: Mapping[str, Any]) -> bytes:
    """An ``exception`` message (``:message-type: exception``): a modeled error inside a 200 stream."""
    return encode_message(
        {":exception-type": exception_type, ":content-type": "application/json", ":message-type": "exception"},
        json.dumps(body, separators=(",", ":")).encode(),
    )


def payload_part(data: bytes) -> bytes:
    """A SageMaker runtime ``PayloadPart`` event carrying ``data`` (any slice of the container's output)."""
    return event("PayloadPart", data)
