"""The streaming formats of the library's LLM containers, decoded incrementally.

Every format is a sequence of lines, each one JSON object, optionally behind a server-sent-events
``data:`` prefix. SageMaker relays the container's bytes in ``PayloadPart`` events that may split a line
anywhere (even inside a UTF-8 character), so the decoder buffers bytes until a newline.

- ``tgi`` (TGI 3.x, server-sent events): ``data:{"index":1,"token":{"id":..,"text":..,"special":false},..}``;
  the last event carries ``details.generated_tokens``, the server's own count.
- ``lmi`` (LMI JSON lines, the default with ``stream: true``): ``{"token":{"id":..,"text":..,"log_prob":..}}``;
  the last line carries ``generated_text`` and ``details.generated_tokens``. In SSE mode
  (``option.output_formatter=sse`` or ``tgi_compat``) the same objects come behind ``data:``.
- ``openai`` (OpenAI-compatible chat completion chunks): ``{"object":"chat.completion.chunk","choices":
  [{"delta":{"content":..}}]}``. vLLM sends them as server-sent events ending ``data: [DONE]``, with a last
  chunk carrying ``usage.completion_tokens`` when asked (``stream_options.include_usage``); LMI's chat route
  (a request with ``messages``) sends them as JSON lines.

Errors inside an HTTP 200 stream, counted as failed requests:

- LMI: a token with ``id`` -1 and ``details.finish_reason`` ``"error"`` (LMI "input/output schema", error
  responses during generation).
- TGI: a line ``{"error": .., "error_type": ..}`` (TGI router, ``InferError`` as an SSE event).
- OpenAI-compatible: ``{"error": {..}}`` or ``{"object": "error", ..}`` (vLLM's streaming error response).
- SageMaker ``ModelStreamError`` / ``InternalStreamFailure`` and Bedrock ``modelStreamErrorException`` and
  the other exception events: botocore raises them while iterating the stream.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class StreamFormat(StrEnum):
    """A response format. ``AUTO`` detects it from the first line of the stream."""

    AUTO = "auto"
    TGI = "tgi"
    LMI = "lmi"
    OPENAI = "openai"


#: Plan image key prefix -> the format its container streams (``container.image`` in the plan JSON).
IMAGE_FORMATS: Mapping[str, StreamFormat] = {
    "lmi-": StreamFormat.LMI,
    "tgi-": StreamFormat.TGI,
    "vllm-": StreamFormat.OPENAI,
}


def format_for_image(image_key: str | None) -> StreamFormat | None:
    """The streaming format of a plan image key (``lmi-gpu`` -> lmi), or None for a non-LLM image."""
    for prefix, fmt in IMAGE_FORMATS.items():
        if image_key and image_key.startswith(prefix):
            return fmt
    return None


@dataclass
class Observation:
    """What one slice of a response stream showed."""

    content_events: int = 0
    """Events that carried generated output (one per token for TGI/LMI; a chunk for OpenAI and Bedrock)."""
    server_output_tokens: int | None = None
    """The server's own count of output tokens, when this slice carried it."""
    error: str | None = None
    done: bool = False
    text: str = ""
    """The generated text this slice carried (special tokens left out), for scoring a response's quality."""

    def merge(self, other: Observation) -> None:
        """Fold ``other`` (a later slice) into this one."""
        self.content_events += other.content_events
        self.text += other.text
        if other.server_output_tokens is not None:
            self.server_output_tokens = other.server_output_tokens
        self.error = self.error or other.error
        self.done = self.done or other.done


class LineStreamDecoder:
    """Incremental decoder of a TGI / LMI / OpenAI-compatible byte stream."""

    def __init__(self, fmt: StreamFormat = StreamFormat.AUTO) -> None:
        self.format = fmt
        self._buffer = b""

    def feed(self, data: bytes) -> Observation:
        """Decode every complete line in ``data`` plus what earlier calls left over."""
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        if len(lines) == 1:  # the common case: one line per event
            return self._line(lines[0])
        obs = Observation()
        for raw in lines:
            obs.merge(self._line(raw))
        return obs

    def close(self) -> Observation:
        """End of stream: decode a last line that had no newline."""
        rest, self._buffer = self._buffer, b""
        return self._line(rest) if rest.strip() else Observation()

    def _line(self, raw: bytes) -> Observation:
        line = raw.strip()
        if not line or line.startswith(b":"):
            return Observation()  # blank separator or SSE comment
        sse = line.startswith(b"data:")
        if sse:
            line = line[5:].strip()
        elif line.startswith((b"event:", b"id:", b"retry:")):
            return Observation()
        if line == b"[DONE]":
            return Observation(done=True)
        try:
            obj = json.loads(line)
        except ValueError:
            return Observation(error=f"unparseable stream line: {line[:80]!r}")
        if not isinstance(obj, dict):
            return Observation(error=f"stream line is not a JSON object: {line[:80]!r}")
        if self.format is StreamFormat.AUTO:
            self.format = _detect(obj, sse)
        if self.format is StreamFormat.OPENAI:
            return _openai(obj)
        return _token_line(obj)


def _detect(obj: Mapping[str, Any], sse: bool) -> StreamFormat:
    if "choices" in obj or obj.get("object") in ("chat.completion.chunk", "error"):
        return StreamFormat.OPENAI
    if "token" in obj:
        return StreamFormat.TGI if sse else StreamFormat.LMI
    return StreamFormat.AUTO


def _error_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return str(value.get("message") or value)
    return str(value)


def _token_line(obj: Mapping[str, Any]) -> Observation:
    if "error" in obj:
        return Observation(error=_error_text(obj["error"]), done=True)
    details = obj.get("details")
    details = details if isinstance(details, Mapping) else {}
    if details.get("finish_reason") == "error":
        return Observation(error="finish_reason error (error token in the stream)", done=True)
    token = obj.get("token")
    if not isinstance(token, Mapping):
        return Observation(error=f"unknown stream line: {json.dumps(obj)[:80]}")
    count = details.get("generated_tokens")
    text = token.get("text")
    return Observation(
        content_events=1,
        server_output_tokens=count if isinstance(count, int) else None,
        done=obj.get("generated_text") is not None,
        text=text if isinstance(text, str) and not token.get("special") else "",
    )


def _openai(obj: Mapping[str, Any]) -> Observation:
    if "error" in obj or obj.get("object") == "error":
        return Observation(error=_error_text(obj.get("error", obj.get("message"))), done=True)
    obs = Observation()
    for choice in obj.get("choices") or ():
        delta = choice.get("delta") or {}
        if delta.get("content"):
            obs.content_events += 1
            obs.text += str(delta["content"])
        if choice.get("finish_reason") == "error":
            obs.error = "finish_reason error"
    usage = obj.get("usage")
    if isinstance(usage, Mapping) and isinstance(usage.get("completion_tokens"), int):
        obs.server_output_tokens = usage["completion_tokens"]
    return obs


def bedrock_observation(event: Mapping[str, Any]) -> Observation:
    """One parsed ConverseStream event (botocore yields ``{"contentBlockDelta": {...}}`` and so on)."""
    if "contentBlockDelta" in event:
        delta = event["contentBlockDelta"].get("delta") or {}
        text = delta.get("text")
        return Observation(content_events=1 if text else 0, text=text if isinstance(text, str) else "")
    if "metadata" in event:
        usage = event["metadata"].get("usage") or {}
        count = usage.get("outputTokens")
        return Observation(server_output_tokens=count if isinstance(count, int) else None, done=True)
    if "messageStop" in event:
        return Observation()
    return Observation()


def request_body(
    fmt: StreamFormat,
    prompt: str,
    max_tokens: int,
    *,
    stream: bool = True,
    history: Sequence[tuple[str, str]] = (),
) -> bytes:
    """The JSON request a container of ``fmt`` expects. ``AUTO`` sends the TGI/LMI shape both accept.

    ``history``: earlier turns as (role, text); OpenAI-compatible servers get them as ``messages``, TGI/LMI
    ``inputs`` as the turns' texts joined by blank lines before ``prompt`` (no chat template: the text is the
    history, word for word). Default: none.
    """
    body: dict[str, Any]
    if fmt is StreamFormat.OPENAI:
        messages = [{"role": role, "content": text} for role, text in (*history, ("user", prompt))]
        body = {"messages": messages, "max_tokens": max_tokens, "stream": stream}
        if stream:
            body["stream_options"] = {"include_usage": True}
    else:
        inputs = "\n\n".join([*(text for _, text in history), prompt])
        body = {"inputs": inputs, "parameters": {"max_new_tokens": max_tokens, "details": True}}
        if stream:
            body["stream"] = True
    return json.dumps(body).encode()


def converse_messages(history: Sequence[tuple[str, str]], prompt: str) -> list[dict[str, Any]]:
    """Bedrock ``Converse`` ``messages``: the history's turns, then ``prompt`` as the user's."""
    return [{"role": role, "content": [{"text": text}]} for role, text in (*history, ("user", prompt))]


def response_output_tokens(body: bytes) -> int | None:
    """The server's output-token count in a non-streaming JSON response (LMI, TGI, OpenAI shapes)."""
    try:
        obj = json.loads(body)
    except ValueError:
        return None
    if isinstance(obj, list) and obj and isinstance(obj[0], Mapping):
        obj = obj[0]  # TGI and LMI tgi_compat wrap the object in a list
    if not isinstance(obj, Mapping):
        return None
    usage = obj.get("usage")
    if isinstance(usage, Mapping) and isinstance(usage.get("completion_tokens"), int):
        return int(usage["completion_tokens"])
    details = obj.get("details")
    if isinstance(details, Mapping) and isinstance(details.get("generated_tokens"), int):
        return int(details["generated_tokens"])
    return None


def response_text(body: bytes) -> str | None:
    """The generated text of a non-streaming JSON response (TGI/LMI ``generated_text``, OpenAI
    ``choices[0].message.content``); None when the body has none."""
    try:
        obj = json.loads(body)
    except ValueError:
        return None
    if isinstance(obj, list) and obj and isinstance(obj[0], Mapping):
        obj = obj[0]
    if not isinstance(obj, Mapping):
        return None
    if isinstance(obj.get("generated_text"), str):
        return str(obj["generated_text"])
    choices = obj.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message") or {}
        if isinstance(message, Mapping) and isinstance(message.get("content"), str):
            return str(message["content"])
    return None
