"""Incremental decoding of every container stream format, split anywhere."""

from __future__ import annotations

import json

import pytest

from inference_loadtest.formats import (
    LineStreamDecoder,
    Observation,
    StreamFormat,
    bedrock_observation,
    format_for_image,
    request_body,
    response_output_tokens,
)

# The documented shapes (TGI router SSE; LMI rolling-batch JSON lines and SSE; vLLM / LMI chat chunks).
TGI = (
    b'data:{"index":1,"token":{"id":304,"text":" Deep","logprob":-0.05,"special":false},'
    b'"generated_text":null,"details":null}\n\n'
    b'data:{"index":2,"token":{"id":305,"text":" n\xc3\xa9","logprob":-0.1,"special":false},'
    b'"generated_text":" Deep n\xc3\xa9","details":{"finish_reason":"length","generated_tokens":2,"seed":null}}\n\n'
)
LMI_JSONL = (
    b'{"token": {"id": 304, "text": "Deep ", "log_prob": -0.05}}\n'
    b'{"token": {"id": 11157, "text": " Learning", "log_prob": -1.28}}\n'
    b'{"token": {"id": 278, "text": " is", "log_prob": -0.007}, "generated_text": "Deep Learning is", '
    b'"details": {"finish_reason": "length", "generated_tokens": 3, "inputs": "What is Deep Learning?"}}\n'
)
LMI_SSE = b"".join(b"data:" + line + b"\n\n" for line in LMI_JSONL.splitlines())
VLLM = (
    b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant",'
    b'"content":""},"finish_reason":null}]}\n\n'
    b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" Oh hi"},'
    b'"finish_reason":null}]}\n\n'
    b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" there"},'
    b'"finish_reason":"length"}]}\n\n'
    b'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,'
    b'"completion_tokens":4,"total_tokens":9}}\n\n'
    b"data: [DONE]\n\n"
)
LMI_CHAT = (
    b'{"id": "chatcmpl-0", "object": "chat.completion.chunk", "created": 1, "choices": [{"index": 0, '
    b'"delta": {"content": " Oh", "role": "assistant"}, "logprobs": null, "finish_reason": null}]}\n'
    b'{"id": "chatcmpl-0", "object": "chat.completion.chunk", "created": 1, "choices": [{"index": 0, '
    b'"delta": {"content": " assist"}, "logprobs": null, "finish_reason": "length"}]}\n'
)


def _decode(data: bytes, pieces: int, fmt: StreamFormat = StreamFormat.AUTO) -> tuple[Observation, StreamFormat]:
    decoder = LineStreamDecoder(fmt)
    total = Observation()
    step = max(1, -(-len(data) // pieces))
    for start in range(0, len(data), step):
        total.merge(decoder.feed(data[start : start + step]))
    total.merge(decoder.close())
    return total, decoder.format


@pytest.mark.parametrize(
    ("stream", "fmt", "events", "server_count"),
    [
        (TGI, StreamFormat.TGI, 2, 2),
        (LMI_JSONL, StreamFormat.LMI, 3, 3),
        (LMI_SSE, StreamFormat.TGI, 3, 3),  # same objects behind data: -> decoded alike
        (VLLM, StreamFormat.OPENAI, 2, 4),
        (LMI_CHAT, StreamFormat.OPENAI, 2, None),
    ],
    ids=["tgi", "lmi-jsonl", "lmi-sse", "vllm-openai", "lmi-chat-jsonl"],
)
@pytest.mark.parametrize("pieces", [1, 2, 3, 17, 10_000], ids=lambda n: f"split{n}")
def test_counts_events_and_server_tokens_however_the_bytes_are_split(
    stream: bytes, fmt: StreamFormat, events: int, server_count: int | None, pieces: int
) -> None:
    # GIVEN a documented stream cut into `pieces` slices (10_000: one byte each, inside UTF-8 characters too)
    # WHEN decoded slice by slice with format detection
    obs, detected = _decode(stream, pieces)
    # THEN every content event is seen once, the server's own count wins, and the format is detected
    assert obs.error is None
    assert obs.content_events == events
    assert obs.server_output_tokens == server_count
    assert detected is fmt


@pytest.mark.parametrize(
    "line",
    [
        # LMI's error token in a 200 stream
        b'{"token": {"id": -1, "text": "", "log_prob": -1, "special_token": true}, "generated_text": "", '
        b'"details": {"finish_reason": "error", "generated_tokens": null, "inputs": null}}\n',
        # TGI's InferError as an SSE event
        b'data:{"error":"Request failed during generation: Server error: CUDA out of memory",'
        b'"error_type":"generation"}\n\n',
        # vLLM's streaming error chunk
        b'data: {"error": {"message": "boom", "type": "InternalServerError", "code": 500}}\n\n',
        b'data: {"object": "error", "message": "boom", "type": "BadRequestError", "code": 400}\n\n',
    ],
    ids=["lmi-error-token", "tgi-error", "openai-error", "openai-error-object"],
)
def test_error_inside_a_200_stream_is_an_error(line: bytes) -> None:
    # GIVEN one good token then the server's in-stream error
    good = b'{"token": {"id": 1, "text": "a", "log_prob": -1}}\n' if line.startswith(b"{") else b""
    # WHEN decoded
    obs, _ = _decode(good + line, 3)
    # THEN the error is reported and the stream counts as finished
    assert obs.error
    assert obs.done


def test_unparseable_line_is_an_error() -> None:
    obs, _ = _decode(b"<html>502 Bad Gateway</html>\n", 1)
    assert obs.error is not None
    assert "unparseable" in obs.error


def test_sse_comments_and_event_fields_are_skipped() -> None:
    obs, _ = _decode(b": keep-alive\nevent: message\n" + TGI, 1)
    assert (obs.content_events, obs.error) == (2, None)


@pytest.mark.parametrize(
    ("event", "events", "count"),
    [
        ({"contentBlockDelta": {"delta": {"text": "hi"}, "contentBlockIndex": 0}}, 1, None),
        ({"contentBlockDelta": {"delta": {"toolUse": {"input": "{"}}, "contentBlockIndex": 0}}, 0, None),
        ({"metadata": {"usage": {"inputTokens": 3, "outputTokens": 42, "totalTokens": 45}}}, 0, 42),
        ({"messageStop": {"stopReason": "end_turn"}}, 0, None),
    ],
)
def test_bedrock_converse_stream_events(event: dict[str, object], events: int, count: int | None) -> None:
    obs = bedrock_observation(event)
    assert (obs.content_events, obs.server_output_tokens) == (events, count)


@pytest.mark.parametrize(
    ("image", "fmt"),
    [
        ("lmi-gpu", StreamFormat.LMI),
        ("lmi-neuron", StreamFormat.LMI),
        ("tgi-gpu", StreamFormat.TGI),
        ("vllm-gpu", StreamFormat.OPENAI),
        ("sklearn-cpu", None),
        (None, None),
    ],
)
def test_plan_image_selects_the_format(image: str | None, fmt: StreamFormat | None) -> None:
    assert format_for_image(image) is fmt


def test_request_bodies_follow_each_container_schema() -> None:
    openai = json.loads(request_body(StreamFormat.OPENAI, "hi", 7))
    lmi = json.loads(request_body(StreamFormat.LMI, "hi", 7))
    assert openai["messages"] == [{"role": "user", "content": "hi"}]
    assert (openai["max_tokens"], openai["stream"], openai["stream_options"]) == (7, True, {"include_usage": True})
    assert lmi == {"inputs": "hi", "parameters": {"max_new_tokens": 7, "details": True}, "stream": True}
    assert "stream" not in json.loads(request_body(StreamFormat.TGI, "hi", 7, stream=False))


@pytest.mark.parametrize(
    ("body", "count"),
    [
        (b'{"generated_text": "x", "details": {"generated_tokens": 9}}', 9),
        (b'[{"generated_text": "x", "details": {"generated_tokens": 5}}]', 5),
        (b'{"choices": [], "usage": {"completion_tokens": 11}}', 11),
        (b'{"generated_text": "x"}', None),
        (b"not json", None),
    ],
)
def test_non_streaming_response_token_count(body: bytes, count: int | None) -> None:
    assert response_output_tokens(body) == count
