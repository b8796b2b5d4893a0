"""The bytes the local server (:mod:`inference_loadtest.server`) answers with, and the :class:`Behaviour` that
shapes them: each container format's stream (:func:`token_lines`), cut into ``PayloadPart`` event stream frames
and HTTP/1.1 chunks (:func:`payload_frames`, :func:`http_chunks`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from inference_loadtest import eventstream

SERVER_FORMATS = ("tgi", "lmi", "lmi-sse", "openai", "openai-jsonl")
"""``lmi-sse``: LMI with ``option.output_formatter=sse``; ``openai-jsonl``: LMI's chat route (JSON lines)."""


@dataclass(frozen=True)
class Behaviour:
    """What the server does with each request."""

    ttft_ms: float = 50.0
    itl_ms: float = 10.0
    output_tokens: int = 16
    """Tokens generated when the request names no maximum (``max_new_tokens``, ``max_tokens``, ``maxTokens``)."""
    format: str = "lmi"
    split_bytes: int = 0
    """0: one PayloadPart per line; n: pieces of n bytes, each its own PayloadPart event."""
    http_chunk_bytes: int = 0
    """0: one HTTP chunk per event stream frame; n: chunks of n bytes, so frames (prelude, headers, CRCs) cross
    chunk boundaries as they cross TCP segments."""
    tokens_per_chunk: int = 1
    """OpenAI and Bedrock: tokens per content chunk (the server's count then differs from the chunk count)."""
    error_after: int | None = None
    """Fail in the middle of the stream after this many chunks (None: never)."""
    error_kind: str = "format"
    """``format``: the container's error line in a 200 stream; ``event``: the service's exception event."""
    throttle_first: int = 0
    """Answer the first N requests with ThrottlingException."""
    throttle_every: int = 0
    """Answer every Nth request (after ``throttle_first``) with ThrottlingException; 0: never."""
    ttft_ms_per_in_flight: float = 0.0
    """Added to ``ttft_ms`` per other request in flight when one arrives: a batching server's queueing."""
    itl_ms_per_in_flight: float = 0.0
    """Added to ``itl_ms`` per other request in flight when one arrives: a larger batch decodes slower."""
    stall_request: int = 0
    """The Nth request the server receives (1-based; 0: none) waits ``stall_ms`` more before its first token: a
    stall, to show that an open-loop test measures the requests scheduled during it from their due time."""
    stall_ms: float = 0.0


def max_tokens(body: dict[str, Any], default: int) -> int:
    for value in (
        (body.get("parameters") or {}).get("max_new_tokens"),
        body.get("max_tokens"),
        (body.get("inferenceConfig") or {}).get("maxTokens"),
    ):
        if isinstance(value, int) and value > 0:
            return value
    return default


def token_text(i: int) -> str:
    return " né" if i % 7 == 3 else f" t{i}"  # a two-byte character now and then, for splits inside one


def token_lines(b: Behaviour, n: int, chunks: int) -> Iterator[bytes]:
    """The container's stream for ``b.format``: one item per chunk (a chunk of 1..tokens_per_chunk tokens)."""
    fmt = b.format
    sse = fmt in ("tgi", "lmi-sse")
    openai_sse = fmt == "openai"

    def frame(obj: dict[str, Any]) -> bytes:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        if sse:
            return f"data:{text}\n\n".encode()
        if openai_sse:
            return f"data: {text}\n\n".encode()
        return (text + "\n").encode()

    for i in range(chunks):
        if b.error_after is not None and i == b.error_after and b.error_kind == "format":
            if fmt in ("openai", "openai-jsonl"):
                err = {"error": {"message": "injected error", "type": "InternalServerError", "code": 500}}
                yield frame(err) + (b"data: [DONE]\n\n" if openai_sse else b"")
            elif fmt == "tgi":
                yield frame({"error": "Request failed during generation: injected error", "error_type": "generation"})
            else:  # LMI's error token (rolling batch, streaming)
                yield frame(
                    {
                        "token": {"id": -1, "text": "", "log_prob": -1, "special_token": True},
                        "generated_text": "",
                        "details": {"finish_reason": "error", "generated_tokens": None, "inputs": None},
                    }
                )
            return
        last = i == chunks - 1
        if fmt in ("openai", "openai-jsonl"):
            take = min(b.tokens_per_chunk, n - i * b.tokens_per_chunk)
            chunk: dict[str, Any] = {
                "id": "chatcmpl-local",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "local",
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": "".join(token_text(i * b.tokens_per_chunk + k) for k in range(take))},
                        "logprobs": None,
                        "finish_reason": "length" if last else None,
                    }
                ],
            }
            out = frame(chunk)
            if last and openai_sse:
                usage = {"prompt_tokens": 8, "completion_tokens": n, "total_tokens": n + 8}
                out += frame({"id": "chatcmpl-local", "object": "chat.completion.chunk", "choices": [], "usage": usage})
                out += b"data: [DONE]\n\n"
            yield out
        else:
            token: dict[str, Any] = {"id": 1000 + i, "text": token_text(i)}
            token.update({"logprob": -0.1, "special": False} if fmt == "tgi" else {"log_prob": -0.1})
            line: dict[str, Any] = {"token": token}
            if fmt == "tgi":
                line.update({"index": i + 1, "generated_text": None, "details": None})
            if last:
                details = {"finish_reason": "length", "generated_tokens": n}
                line.update({"generated_text": "".join(token_text(k) for k in range(n)), "details": details})
            yield frame(line)


def http_chunks(data: bytes, size: int = 0) -> bytes:
    """``data`` as HTTP/1.1 chunks: one, or pieces of ``size`` bytes (an event stream frame across chunks)."""
    pieces = [data[i : i + size] for i in range(0, len(data), size)] if size else [data]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces)


_FRAME_CACHE: dict[tuple[Any, ...], tuple[bytes, ...]] = {}
_FRAME_CACHE_SIZE = 256


def payload_frames(b: Behaviour, n: int) -> tuple[bytes, ...]:
    """The HTTP body pieces of an ``n``-token response stream, one per content chunk: PayloadPart event
    stream frames in HTTP chunks. The same for every request of the same length, so they are encoded once:
    the server's CPU per token then goes to timing and writing, as a real endpoint's front end would."""
    key = (b.format, b.split_bytes, b.http_chunk_bytes, b.tokens_per_chunk, b.error_after, b.error_kind, n)
    frames = _FRAME_CACHE.get(key)
    if frames is None:
        per_chunk = b.tokens_per_chunk if b.format.startswith("openai") else 1
        out = []
        for data in token_lines(b, n, -(-n // per_chunk)):
            step = b.split_bytes or max(1, len(data))
            parts = [data[start : start + step] for start in range(0, len(data), step)]
            out.append(b"".join(http_chunks(eventstream.payload_part(p), b.http_chunk_bytes) for p in parts))
        if len(_FRAME_CACHE) >= _FRAME_CACHE_SIZE:
            _FRAME_CACHE.clear()
        frames = _FRAME_CACHE[key] = tuple(out)
    return frames
