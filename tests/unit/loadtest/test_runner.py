"""The load generator through boto3 against the local wire-protocol server: timing, formats, errors, retries."""

from __future__ import annotations

import io
import os
import signal
import threading
from typing import Any

import pytest
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.formats import StreamFormat
from inference_loadtest.prompts import Lengths, synthetic_prompts
from inference_loadtest.runner import LoadOptions, LoadTest, make_client
from inference_loadtest.server import Behaviour, LocalServer, ServerProcess
from inference_loadtest.stats import Pricing
from inference_loadtest.target import Api, Target

PROMPTS = synthetic_prompts(8, input_tokens=Lengths(4), output_tokens=Lengths(8))


def _target(api: Api = Api.STREAM, fmt: StreamFormat = StreamFormat.AUTO) -> Target:
    ident = (
        "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc"
        if api is Api.CONVERSE_STREAM
        else "e"
    )
    return Target(api=api, identifier=ident, format=fmt, pricing=Pricing(None, None, "none"))


ENGINES = pytest.mark.parametrize("engine", ["async", "threads"])


def _run(client: Any, target: Target, engine: str = "auto", **options: Any) -> tuple[LoadTest, list[dict[str, Any]]]:
    test = LoadTest(target, LoadOptions(prompts=PROMPTS, **options), client=client, engine=engine)
    return test, test.run()


def _within(measured: float, injected: float) -> bool:
    return abs(measured - injected) <= max(2.0, 0.05 * injected)


@pytest.mark.parametrize(
    "case",
    [
        ("tgi", StreamFormat.TGI, True),
        ("lmi", StreamFormat.LMI, True),
        ("lmi-sse", StreamFormat.TGI, True),
        ("openai", StreamFormat.OPENAI, True),
        ("openai-jsonl", StreamFormat.OPENAI, False),
    ],
    ids=lambda c: c[0],
)
@pytest.mark.parametrize("split_bytes", [0, 1, 7], ids=lambda n: f"split{n}")
@ENGINES
def test_every_format_and_split_counts_every_token(
    engine: str, server: LocalServer, sagemaker_runtime: Any, case: tuple[str, StreamFormat, bool], split_bytes: int
) -> None:
    server_format, detected, from_server = case
    # GIVEN a server streaming `server_format`, each line cut into PayloadParts of `split_bytes` (0: whole)
    server.configure(format=server_format, split_bytes=split_bytes, ttft_ms=1, itl_ms=0)
    # WHEN 2 requests of 8 tokens run through InvokeEndpointWithResponseStream
    test, [level] = _run(sagemaker_runtime, _target(), engine, concurrency=(1,), requests=2)
    # THEN both succeed with 8 tokens each, counted by the server where the format carries a count
    assert (level["requests"], level["errors"], level["output_tokens"]) == (2, 0, 16)
    assert level["output_tokens_from_server"] is from_server
    assert test.detected_format is detected


def _measure(api: Api, engine: str) -> list[dict[str, Any]]:
    """Up to 3 runs of 4 requests at concurrency 2 against 300 ms TTFT / 60 ms ITL, stopping at the first
    within tolerance: other processes on a busy machine can only make a token late, never early."""
    runs: list[dict[str, Any]] = []
    with ServerProcess(Behaviour(ttft_ms=300, itl_ms=60, format="lmi")) as server:
        service = "bedrock-runtime" if api is Api.CONVERSE_STREAM else "sagemaker-runtime"
        client = make_client(service, pool=2, endpoint_url=server.url)
        for _ in range(3):
            runs.append(_run(client, _target(api), engine, concurrency=(2,), requests=4)[1][0])
            if _within(runs[-1]["ttft_ms"]["p50"], 300) and _within(runs[-1]["itl_ms"]["p50"], 60):
                break
    return runs


@pytest.mark.parametrize("api", [Api.STREAM, Api.CONVERSE_STREAM])
def test_measured_ttft_and_itl_match_the_injected_values(api: Api) -> None:
    # GIVEN a server in its own process: 300 ms to the first token, 60 ms between tokens
    # WHEN the default engine for 2 streams (threads) measures 4 requests at concurrency 2
    runs = _measure(api, "auto")
    level = runs[-1]
    # THEN p50 TTFT and ITL are the injected values within max(2 ms, 5%)
    assert level["errors"] == 0
    assert _within(level["ttft_ms"]["p50"], 300), [lv["ttft_ms"] for lv in runs]
    assert _within(level["itl_ms"]["p50"], 60), [lv["itl_ms"] for lv in runs]
    assert level["e2e_ms"]["p50"] == pytest.approx(300 + 7 * 60, rel=0.05)  # the prompts ask for 8 tokens


@pytest.mark.parametrize("api", [Api.STREAM, Api.CONVERSE_STREAM])
def test_asyncio_engine_measures_the_injected_ttft_and_itl(api: Api) -> None:
    # GIVEN the same server WHEN the asyncio engine measures it
    runs = _measure(api, "async")
    level = runs[-1]
    # THEN p50 TTFT and ITL are the injected values within max(2 ms, 5%), and TTFT is never below what the
    # server injected (its start is the socket write, so load on a shared machine can only add to it)
    assert level["errors"] == 0
    assert _within(level["ttft_ms"]["p50"], 300), [lv["ttft_ms"] for lv in runs]
    assert _within(level["itl_ms"]["p50"], 60), [lv["itl_ms"] for lv in runs]
    assert level["ttft_ms"]["p50"] >= 300


@pytest.mark.parametrize("server_format", ["tgi", "lmi", "lmi-sse", "openai", "openai-jsonl"])
@pytest.mark.parametrize("kind", ["format", "event"])
@ENGINES
def test_mid_stream_errors_count_as_errors(
    engine: str, server: LocalServer, sagemaker_runtime: Any, server_format: str, kind: str
) -> None:
    # GIVEN a 200 stream that fails after 3 tokens (the container's error line, or SageMaker's ModelStreamError)
    server.configure(format=server_format, error_after=3, error_kind=kind, ttft_ms=1, itl_ms=0)
    # WHEN 2 requests run
    _, [level] = _run(sagemaker_runtime, _target(), engine, concurrency=(1,), requests=2)
    # THEN both are errors, not successes
    assert (level["requests"], level["errors"], level["error_rate"]) == (2, 2, 1.0)
    if kind == "event":
        assert level["error_kinds"] == {"ModelStreamError": 2}


@pytest.mark.parametrize("api", [Api.STREAM, Api.CONVERSE_STREAM])
@pytest.mark.parametrize("http_chunk_bytes", [1, 5, 13])
@ENGINES
def test_event_stream_frames_split_across_http_chunks(
    engine: str, server: LocalServer, api: Api, http_chunk_bytes: int
) -> None:
    # GIVEN frames cut into HTTP chunks of a few bytes (prelude, headers and CRCs across chunk boundaries)
    server.configure(http_chunk_bytes=http_chunk_bytes, ttft_ms=1, itl_ms=0)
    service = "bedrock-runtime" if api is Api.CONVERSE_STREAM else "sagemaker-runtime"
    client = make_client(service, pool=1, endpoint_url=server.url)
    # WHEN 2 requests run
    _, [level] = _run(client, _target(api), engine, concurrency=(1,), requests=2)
    # THEN every frame is reassembled: 8 tokens a request, counted by the server
    assert (level["errors"], level["output_tokens"], level["output_tokens_from_server"]) == (0, 16, True)


@ENGINES
def test_bedrock_mid_stream_exception_counts_as_error(engine: str, server: LocalServer, bedrock_runtime: Any) -> None:
    server.configure(error_after=2, ttft_ms=1, itl_ms=0)
    _, [level] = _run(bedrock_runtime, _target(Api.CONVERSE_STREAM), engine, concurrency=(1,), requests=2)
    assert level["error_kinds"] == {"modelStreamErrorException": 2}


@ENGINES
def test_bedrock_counts_tokens_from_metadata_usage(engine: str, server: LocalServer, bedrock_runtime: Any) -> None:
    # GIVEN 4 tokens per contentBlockDelta chunk (so chunks != tokens)
    server.configure(tokens_per_chunk=4, ttft_ms=1, itl_ms=0)
    _, [level] = _run(bedrock_runtime, _target(Api.CONVERSE_STREAM), engine, concurrency=(1,), requests=2)
    # THEN the token count is metadata.usage.outputTokens (8 a request), not the 2 chunks
    assert (level["output_tokens"], level["output_tokens_from_server"]) == (16, True)


@pytest.mark.parametrize("api", [Api.STREAM, Api.CONVERSE_STREAM])
@ENGINES
def test_throttling_is_retried_with_backoff_and_reported(engine: str, server: LocalServer, api: Api) -> None:
    # GIVEN the first 2 requests are throttled the way each service answers (400 / 429 ThrottlingException)
    server.configure(throttle_first=2, ttft_ms=1, itl_ms=0)
    service = "bedrock-runtime" if api is Api.CONVERSE_STREAM else "sagemaker-runtime"
    client = make_client(service, pool=1, max_attempts=4, endpoint_url=server.url)
    # WHEN one request runs
    _, [level] = _run(client, _target(api), engine, concurrency=(1,), requests=1)
    # THEN botocore retried twice and the request succeeded; the retries are reported apart
    assert (level["errors"], level["retries"], server.counters.throttled) == (0, 2, 2)


@ENGINES
def test_throttled_after_all_attempts_is_a_throttled_error(engine: str, server: LocalServer) -> None:
    server.configure(throttle_every=1, ttft_ms=1, itl_ms=0)
    client = make_client("sagemaker-runtime", pool=1, max_attempts=2, endpoint_url=server.url)
    _, [level] = _run(client, _target(), engine, concurrency=(1,), requests=2)
    assert (level["errors"], level["throttled"], level["retries"]) == (2, 2, 2)
    assert level["error_kinds"] == {"ThrottlingException": 2}


def test_invoke_endpoint_without_streaming(server: LocalServer, sagemaker_runtime: Any) -> None:
    # GIVEN a non-streaming endpoint taking 20 + 7 x 2 ms for 8 tokens
    server.configure(format="tgi")
    _, [level] = _run(sagemaker_runtime, _target(Api.INVOKE, StreamFormat.TGI), concurrency=(1,), requests=2)
    # THEN tokens come from the response's details and TTFT equals e2e (no ITL)
    assert (level["errors"], level["output_tokens"], level["output_tokens_from_server"]) == (0, 16, True)
    assert level["ttft_ms"] == level["e2e_ms"]
    assert level["itl_ms"]["p50"] is None


def test_warmup_requests_are_sent_but_excluded(server: LocalServer, sagemaker_runtime: Any) -> None:
    _, [level] = _run(sagemaker_runtime, _target(), concurrency=(2,), requests=3, warmup=2)
    assert (level["requests"], level["warmup_excluded"], server.counters.requests) == (3, 2, 5)


@ENGINES
def test_duration_bound_stops_starting_requests(engine: str, server: LocalServer, sagemaker_runtime: Any) -> None:
    # GIVEN requests of about 34 ms and a 0.2 s level
    _, [level] = _run(sagemaker_runtime, _target(), engine, concurrency=(1,), duration_s=0.2)
    # THEN a handful ran, then the level stopped
    assert 2 <= level["requests"] <= 8


@ENGINES
def test_open_loop_poisson_arrivals(engine: str, server: LocalServer, sagemaker_runtime: Any) -> None:
    _, [level] = _run(sagemaker_runtime, _target(), engine, rates_rps=(100.0,), requests=6)
    assert (level["concurrency"], level["rate_rps"], level["requests"], level["errors"]) == (None, 100.0, 6, 0)


@ENGINES
def test_ctrl_c_leaves_a_partial_report(engine: str, server: LocalServer, sagemaker_runtime: Any) -> None:
    # GIVEN requests of about 0.1 s and a sweep that would take seconds
    server.configure(ttft_ms=50, itl_ms=5)
    # (Ctrl-C raises KeyboardInterrupt, as in a terminal, whatever SIGINT handler an earlier test in this
    # process left behind)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = threading.Event()

    def ctrl_c_after_two_requests() -> None:
        # the third request reaching the server means two finished at concurrency 1: a point in the run, not
        # in wall time, so a busy machine cannot move it before the first level starts
        while not done.is_set() and server.counters.requests < 3:
            done.wait(0.01)
        if not done.is_set():
            os.kill(os.getpid(), signal.SIGINT)

    watcher = threading.Thread(target=ctrl_c_after_two_requests, daemon=True)
    watcher.start()
    try:
        # WHEN Ctrl-C arrives during the first level, after two requests finished
        test, levels = _run(sagemaker_runtime, _target(), engine, concurrency=(1, 2), requests=40)
    finally:
        done.set()
        watcher.join()
        signal.signal(signal.SIGINT, previous)
    # THEN the run stops, and the report holds the requests finished so far, marked partial
    assert test.interrupted
    assert len(levels) == 1
    assert levels[0]["interrupted"] is True
    assert 2 <= levels[0]["requests"] < 40


def test_fails_for_the_async_engine_without_streaming(sagemaker_runtime: Any) -> None:
    with pytest.raises(InferenceConfigError, match="--engine: 'async' is not allowed"):
        LoadTest(_target(Api.INVOKE), LoadOptions(prompts=PROMPTS), client=sagemaker_runtime, engine="async")


def test_async_endpoint_uploads_input_invokes_and_polls_the_output(server: LocalServer) -> None:
    # GIVEN an async endpoint whose output appears in S3 at the second poll
    sagemaker = make_client("sagemaker-runtime", pool=1, endpoint_url=server.url)
    s3 = make_client("s3", pool=1)
    stub = Stubber(s3)
    stub.add_response("put_object", {}, {"Bucket": "in", "Key": ANY, "Body": ANY, "ContentType": "application/json"})
    missing = {"service_error_code": "NoSuchKey", "http_status_code": 404}
    stub.add_client_error("get_object", expected_params={"Bucket": "local-async", "Key": ANY}, **missing)
    stub.add_client_error("get_object", expected_params={"Bucket": "local-async", "Key": ANY}, **missing)
    output = b'{"generated_text": "x", "details": {"generated_tokens": 7}}'
    stub.add_response("get_object", {"Body": StreamingBody(io.BytesIO(output), len(output))}, None)
    target = Target(api=Api.ASYNC, identifier="batch", format=StreamFormat.LMI, pricing=Pricing(None, None, ""))
    test = LoadTest(
        target,
        LoadOptions(prompts=PROMPTS[:1], concurrency=(1,), requests=1),
        client=sagemaker,
        s3=s3,
        async_input_s3_uri="s3://in/prefix/",
        async_poll_s=0.01,
    )
    # WHEN one request runs
    with stub:
        [level] = test.run()
        stub.assert_no_pending_responses()
    # THEN it went through InvokeEndpointAsync, and the output's token count is the server's
    assert server.counters.paths == ["/endpoints/batch/async-invocations"]
    assert (level["errors"], level["output_tokens"], level["output_tokens_from_server"]) == (0, 7, True)


def test_fails_for_an_async_endpoint_without_an_input_location(server: LocalServer) -> None:
    sagemaker = make_client("sagemaker-runtime", pool=1, endpoint_url=server.url)
    target = Target(api=Api.ASYNC, identifier="batch", format=StreamFormat.LMI, pricing=Pricing(None, None, ""))
    with pytest.raises(InferenceConfigError, match="--async-input: required for an async endpoint"):
        LoadTest(target, LoadOptions(prompts=PROMPTS, concurrency=(1,), requests=1), client=sagemaker)


@ENGINES
def test_server_records_each_first_frame_against_its_deadline(
    engine: str, server: LocalServer, sagemaker_runtime: Any
) -> None:
    # GIVEN a server with 20 ms to the first token
    # WHEN 2 requests stream
    test, [level] = _run(sagemaker_runtime, _target(), engine, concurrency=(1,), requests=2)
    # THEN it recorded each stream's first frame under the request id the client saw, written no earlier than
    # due, due 20 ms after the request arrived, and the client's first token no earlier than the write
    frames = {f.request_id: f for f in server.counters.first_frames}
    results = test.results[0]
    assert level["errors"] == 0
    assert sorted(frames) == sorted(r.request_id for r in results)
    for r in results:
        f = frames[r.request_id or ""]
        assert f.due == pytest.approx(f.arrived + 0.020)
        assert f.written >= f.due
        assert r.ttft_s is not None
        assert r.started + r.ttft_s >= f.written
