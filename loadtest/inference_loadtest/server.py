"""A local server that speaks the SageMaker and Bedrock runtime wire protocols, for tests and benchmarks.

It listens on 127.0.0.1 only and answers what boto3 sends when ``endpoint_url`` points at it:

- ``POST /endpoints/{name}/invocations-response-stream`` (``InvokeEndpointWithResponseStream``): an HTTP 200
  ``application/vnd.amazon.eventstream`` body of ``PayloadPart`` events carrying the container's bytes in
  one of the container formats (:mod:`inference_loadtest.formats`), optionally split into
  pieces of ``split_bytes`` so that a JSON line (and a UTF-8 character) crosses events;
- ``POST /endpoints/{name}/invocations`` (``InvokeEndpoint``): one JSON body after the whole generation time;
- ``POST /endpoints/{name}/async-invocations`` (``InvokeEndpointAsync``): 202 with output/failure locations;
- ``POST /model/{id}/converse-stream`` (Bedrock ``ConverseStream``): ``messageStart``,
  ``contentBlockDelta`` ..., ``contentBlockStop``, ``messageStop`` and ``metadata`` (with ``usage``) events.

Timing is injected: the first token leaves ``ttft_ms`` after the request arrived and token ``k`` leaves
``ttft_ms + k * itl_ms`` after it (deadlines, so delays do not accumulate). Errors are injected in the
container's own in-stream shape (``error_kind="format"``) or as the service's exception event
(``"event"``: SageMaker ``ModelStreamError``, Bedrock ``modelStreamErrorException``). Throttling answers
as the services do: SageMaker runtime HTTP 400 ``ThrottlingException`` with ``{"message": null}`` (SageMaker
API reference, "Common errors"), Bedrock runtime HTTP 429 ``ThrottlingException`` (its service model), so
botocore's retry handler sees the real error shape.

Run it in a thread (:class:`LocalServer`, a context manager) or in its own process::

    python -m inference_loadtest.server --ttft-ms 50 --itl-ms 10 --format lmi
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from inference_loadtest import eventstream, responses, timing
from inference_loadtest.responses import SERVER_FORMATS, Behaviour, http_chunks, token_text
from inference_loadtest.timing import TimedStreamReader, start_timed_server

__all__ = [
    "FIRST_FRAMES_PATH",
    "HOST",
    "SERVER_FORMATS",
    "Behaviour",
    "FirstFrame",
    "LocalServer",
    "ServerCounters",
    "ServerProcess",
    "main",
]

HOST = "127.0.0.1"
"""The only address the server binds: it is a test double, never a network service."""

FIRST_FRAMES_PATH = "/local/first-frames"
"""``GET``: the :class:`FirstFrame` records so far as a JSON list (not an AWS operation; the benchmark reads it)."""


@dataclass(frozen=True)
class FirstFrame:
    """When the server wrote a response stream's first content frame, against when it was due.

    Times are the server loop's clock, ``time.monotonic`` (``CLOCK_MONOTONIC`` on Linux: one clock for every
    process on the machine, and the clock of ``time.perf_counter`` the client stamps with), so a client in
    another process can split its TTFT into the request's way in, the server's lateness and the response's
    way out.
    """

    request_id: str
    arrived: float
    """When the request's last byte reached the server process (the injected TTFT counts from here)."""
    due: float
    """``arrived`` + the injected TTFT."""
    written: float
    """When the server wrote the frame (just before the socket write: on loopback the client can have the bytes
    before the write call returns)."""


@dataclass
class ServerCounters:
    requests: int = 0
    in_flight: int = 0
    throttled: int = 0
    paths: list[str] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    first_frames: list[FirstFrame] = field(default_factory=list)
    """One per response stream that wrote a content frame."""


class _Handler:
    def __init__(self, server: LocalServer) -> None:
        self.server = server

    async def connection(self, reader: TimedStreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")  # one read of the whole head, not one per line
                request_line, *lines = head[:-4].decode("latin-1").split("\r\n")
                method, path, _ = request_line.split(" ", 2)
                headers: dict[str, str] = {}
                for h in lines:
                    name, _, value = h.partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                arrived = reader.arrival()  # when its last byte reached the process, on the loop's clock
                await self.request(method, path, body, arrived, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass  # client went away (or sent a head over the reader's limit), or the server is stopping
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def request(self, method: str, path: str, raw: bytes, arrived: float, w: asyncio.StreamWriter) -> None:
        b = self.server.behaviour
        counters = self.server.counters
        if method == "GET" and path == FIRST_FRAMES_PATH:
            payload = json.dumps([asdict(f) for f in counters.first_frames]).encode()
            w.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(payload))
            w.write(payload)
            await w.drain()
            return
        counters.requests += 1
        counters.paths.append(path)
        counters.bodies.append(raw)
        number = counters.requests
        parts = path.split("?", maxsplit=1)[0].split("/")
        bedrock = len(parts) == 4 and parts[1] == "model" and parts[3] == "converse-stream"
        sagemaker = len(parts) == 4 and parts[1] == "endpoints"
        if method != "POST" or not (bedrock or sagemaker):
            await self.error(w, 404, "UnknownOperationException", "unknown operation")
            return
        after_first = number - b.throttle_first
        if after_first <= 0 or (b.throttle_every and after_first % b.throttle_every == 0):
            counters.throttled += 1
            if bedrock:
                await self.error(w, 429, "ThrottlingException", "Too many requests, please wait before trying again.")
            else:
                await self.error(w, 400, "ThrottlingException", None)
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        n = responses.max_tokens(body, b.output_tokens)
        if b.stall_request and number == b.stall_request:
            b = replace(b, ttft_ms=b.ttft_ms + b.stall_ms)
        others = counters.in_flight
        if others and (b.ttft_ms_per_in_flight or b.itl_ms_per_in_flight):
            b = replace(
                b,
                ttft_ms=b.ttft_ms + others * b.ttft_ms_per_in_flight,
                itl_ms=b.itl_ms + others * b.itl_ms_per_in_flight,
            )
        counters.in_flight += 1
        try:
            await self._dispatch(w, b, n, arrived, operation=parts[3])
        finally:
            counters.in_flight -= 1

    async def _dispatch(self, w: asyncio.StreamWriter, b: Behaviour, n: int, arrived: float, *, operation: str) -> None:
        if operation == "converse-stream":
            await self.converse_stream(w, b, n, arrived)
        elif operation == "invocations-response-stream":
            await self.response_stream(w, b, n, arrived)
        elif operation == "invocations":
            await self.invoke(w, b, n, arrived)
        elif operation == "async-invocations":
            await self.invoke_async(w)
        else:
            await self.error(w, 404, "UnknownOperationException", "unknown operation")

    async def error(self, w: asyncio.StreamWriter, status: int, code: str, message: str | None) -> None:
        payload = json.dumps({"message": message}).encode()
        head = (
            f"HTTP/1.1 {status} Error\r\nx-amzn-RequestId: {uuid.uuid4()}\r\nx-amzn-ErrorType: {code}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        w.write(head.encode() + payload)
        await w.drain()

    @staticmethod
    def _stream_head(request_id: str, extra: str = "") -> bytes:
        return (
            f"HTTP/1.1 200 OK\r\nx-amzn-RequestId: {request_id}\r\n"
            f"Content-Type: {eventstream.CONTENT_TYPE}\r\nTransfer-Encoding: chunked\r\n{extra}\r\n"
        ).encode()

    async def _at(self, deadline: float) -> None:
        delay = deadline - asyncio.get_running_loop().time()
        if delay > 0:
            await asyncio.sleep(delay)

    async def _send_at(
        self,
        w: asyncio.StreamWriter,
        frames: Sequence[bytes],
        *,
        request_id: str,
        arrived: float,
        ttft: float,
        itl: float,
    ) -> None:
        """Write ``frames[k]`` at ``arrived + ttft + k * itl`` (deadlines: delays do not accumulate).

        Each write is a timer callback on the loop, not a task waking from a sleep: at the instant hundreds of
        streams are due, the loop runs one small callback per stream (a socket write and the next timer), which
        is what keeps the last stream of a burst close to its deadline. The first frame's write is recorded
        (:class:`FirstFrame`).
        """
        if not frames:
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        transport = w.transport
        first_frames = self.server.counters.first_frames

        def send(k: int) -> None:
            if done.done():
                return  # the connection's task was cancelled: the server is stopping
            if transport.is_closing():
                done.set_result(None)  # the client went away
                return
            if k == 0:  # stamped before the write: the client can read the bytes before the write call returns
                first_frames.append(FirstFrame(request_id, arrived, arrived + ttft, loop.time()))
            transport.write(frames[k])
            if k + 1 < len(frames):
                loop.call_at(arrived + ttft + (k + 1) * itl, send, k + 1)
            else:
                done.set_result(None)

        loop.call_at(arrived + ttft, send, 0)
        await done
        await w.drain()

    async def response_stream(self, w: asyncio.StreamWriter, b: Behaviour, n: int, arrived: float) -> None:
        content_type = "text/event-stream" if b.format in ("tgi", "lmi-sse", "openai") else "application/jsonlines"
        request_id = str(uuid.uuid4())
        w.write(
            self._stream_head(
                request_id,
                f"X-Amzn-Invoked-Production-Variant: AllTraffic\r\nX-Amzn-SageMaker-Content-Type: {content_type}\r\n",
            )
        )
        frames = responses.payload_frames(b, n)
        ttft, itl = b.ttft_ms / 1000, b.itl_ms / 1000
        await self._send_at(w, frames, request_id=request_id, arrived=arrived, ttft=ttft, itl=itl)
        chunks = len(frames)
        if b.error_after is not None and b.error_after < chunks and b.error_kind == "event":
            await self._at(arrived + ttft + b.error_after * itl)
            body = {"Message": "injected model stream error", "ErrorCode": "ModelStreamError"}
            w.write(http_chunks(eventstream.exception("ModelStreamError", body), b.http_chunk_bytes))
        w.write(b"0\r\n\r\n")
        await w.drain()

    async def invoke(self, w: asyncio.StreamWriter, b: Behaviour, n: int, arrived: float) -> None:
        await self._at(arrived + (b.ttft_ms + (n - 1) * b.itl_ms) / 1000)
        text = "".join(token_text(k) for k in range(n))
        obj: Any
        if b.format.startswith("openai"):
            obj = {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}],
                "usage": {"prompt_tokens": 8, "completion_tokens": n, "total_tokens": n + 8},
            }
        else:
            obj = {"generated_text": text, "details": {"finish_reason": "length", "generated_tokens": n}}
            obj = [obj] if b.format == "tgi" else obj
        payload = json.dumps(obj).encode()
        head = (
            f"HTTP/1.1 200 OK\r\nx-amzn-RequestId: {uuid.uuid4()}\r\nContent-Type: application/json\r\n"
            f"X-Amzn-Invoked-Production-Variant: AllTraffic\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        w.write(head.encode() + payload)
        await w.drain()

    async def invoke_async(self, w: asyncio.StreamWriter) -> None:
        """``InvokeEndpointAsync``: 202 with the output and failure locations in headers (the output itself
        is the caller's S3 to serve; tests stub it)."""
        inference_id = str(uuid.uuid4())
        payload = json.dumps({"InferenceId": inference_id}).encode()
        head = (
            f"HTTP/1.1 202 Accepted\r\nx-amzn-RequestId: {uuid.uuid4()}\r\nContent-Type: application/json\r\n"
            f"X-Amzn-SageMaker-OutputLocation: s3://local-async/output/{inference_id}.out\r\n"
            f"X-Amzn-SageMaker-FailureLocation: s3://local-async/failure/{inference_id}-error.out\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        )
        w.write(head.encode() + payload)
        await w.drain()

    async def converse_stream(self, w: asyncio.StreamWriter, b: Behaviour, n: int, arrived: float) -> None:
        request_id = str(uuid.uuid4())
        w.write(self._stream_head(request_id))
        w.write(http_chunks(eventstream.json_event("messageStart", {"role": "assistant"}), b.http_chunk_bytes))
        chunks = -(-n // b.tokens_per_chunk)
        frames = []
        for i in range(chunks):
            if b.error_after is not None and i == b.error_after:
                body = {"message": "injected model stream error", "originalStatusCode": 500}
                error = eventstream.exception("modelStreamErrorException", body)
                frames.append(http_chunks(error, b.http_chunk_bytes) + b"0\r\n\r\n")
                break
            take = min(b.tokens_per_chunk, n - i * b.tokens_per_chunk)
            text = "".join(token_text(i * b.tokens_per_chunk + k) for k in range(take))
            delta = {"contentBlockIndex": 0, "delta": {"text": text}}
            frames.append(http_chunks(eventstream.json_event("contentBlockDelta", delta), b.http_chunk_bytes))
        await self._send_at(
            w, frames, request_id=request_id, arrived=arrived, ttft=b.ttft_ms / 1000, itl=b.itl_ms / 1000
        )
        if b.error_after is not None and b.error_after < chunks:
            return
        tail = (
            eventstream.json_event("contentBlockStop", {"contentBlockIndex": 0})
            + eventstream.json_event("messageStop", {"stopReason": "max_tokens"})
            + eventstream.json_event(
                "metadata",
                {
                    "usage": {"inputTokens": 8, "outputTokens": n, "totalTokens": n + 8},
                    "metrics": {"latencyMs": int(b.ttft_ms + (chunks - 1) * b.itl_ms)},
                },
            )
        )
        w.write(http_chunks(tail, b.http_chunk_bytes) + b"0\r\n\r\n")
        await w.drain()


class LocalServer:
    """The wire-protocol server on 127.0.0.1 in a background thread; ``with LocalServer(b) as s: s.url``.

    Parameters
    ----------
    behaviour
        Timing, format, errors and throttling. Default: ``Behaviour()`` (LMI JSON lines, 50 ms to the first
        token, 10 ms between tokens, 16 tokens, no errors). Assign ``server.behaviour`` to change it between
        requests.
    port
        Default: 0, an ephemeral port the kernel picks (read it back from ``port``).
    """

    def __init__(self, behaviour: Behaviour | None = None, *, port: int = 0) -> None:
        self.behaviour = behaviour or Behaviour()
        self.counters = ServerCounters()
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def configure(self, **changes: Any) -> None:
        """Replace some behaviour fields and reset the counters."""
        self.behaviour = replace(self.behaviour, **changes)
        self.counters = ServerCounters()

    def start(self) -> LocalServer:
        ready = threading.Event()
        loop = timing.new_event_loop()
        self._loop = loop

        def run() -> None:
            asyncio.set_event_loop(loop)
            self._server = loop.run_until_complete(
                start_timed_server(_Handler(self).connection, HOST, self.port, backlog=1024)
            )
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

        self._thread = threading.Thread(target=run, name="loadtest-local-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop and self._thread:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        self._thread = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ServerProcess:
    """The same server in its own Python process (no GIL shared with the client): ``with ServerProcess(b) as s``.

    The child prints its port and serves until its stdin closes, so it never outlives the parent's ``with``.
    """

    def __init__(self, behaviour: Behaviour | None = None) -> None:
        self.behaviour = behaviour or Behaviour()
        self.port = 0
        self._proc: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> ServerProcess:
        cmd = [
            sys.executable,
            "-m",
            "inference_loadtest.server",
            "--behaviour",
            json.dumps(asdict(self.behaviour)),
            "--until-stdin-closes",
        ]
        # the child imports this copy of the package, wherever this process found it
        package_parent = str(Path(__file__).resolve().parents[1])
        paths = [package_parent, *filter(None, [os.environ.get("PYTHONPATH")])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        self.port = int(line.rsplit(":", 1)[1])
        return self

    def first_frames(self) -> list[FirstFrame]:
        """What the server recorded of each response stream's first frame so far."""
        import urllib.request

        with urllib.request.urlopen(self.url + FIRST_FRAMES_PATH, timeout=30) as resp:
            return [FirstFrame(**f) for f in json.loads(resp.read())]

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)
            if self._proc.stdout is not None:
                self._proc.stdout.close()
            self._proc = None


async def _serve_forever(behaviour: Behaviour, port: int, *, until_stdin_closes: bool) -> None:
    server = LocalServer(behaviour)
    srv = await start_timed_server(_Handler(server).connection, HOST, port, backlog=4096)
    print(f"listening on {HOST}:{srv.sockets[0].getsockname()[1]}", flush=True)
    async with srv:
        if until_stdin_closes:  # a parent process holds the pipe: the server never outlives it
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        else:
            await srv.serve_forever()


def main(argv: list[str] | None = None) -> int:
    """Run the server in this process until Ctrl-C (``python -m inference_loadtest.server``)."""
    p = argparse.ArgumentParser(prog="python -m inference_loadtest.server", description=__doc__)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--ttft-ms", type=float, default=50.0)
    p.add_argument("--itl-ms", type=float, default=10.0)
    p.add_argument("--output-tokens", type=int, default=16)
    p.add_argument("--format", choices=SERVER_FORMATS, default="lmi")
    p.add_argument("--split-bytes", type=int, default=0)
    p.add_argument("--ttft-ms-per-in-flight", type=float, default=0.0)
    p.add_argument("--itl-ms-per-in-flight", type=float, default=0.0)
    p.add_argument("--behaviour", help="every Behaviour field as a JSON object (overrides the options above)")
    p.add_argument("--until-stdin-closes", action="store_true", help="stop when stdin closes, not at Ctrl-C")
    a = p.parse_args(argv)
    if a.behaviour:
        timing.run(
            _serve_forever(Behaviour(**json.loads(a.behaviour)), a.port, until_stdin_closes=a.until_stdin_closes)
        )
        return 0
    b = Behaviour(
        ttft_ms=a.ttft_ms,
        itl_ms=a.itl_ms,
        output_tokens=a.output_tokens,
        format=a.format,
        split_bytes=a.split_bytes,
        ttft_ms_per_in_flight=a.ttft_ms_per_in_flight,
        itl_ms_per_in_flight=a.itl_ms_per_in_flight,
    )
    if a.behaviour:
        b = Behaviour(**json.loads(a.behaviour))
    with contextlib.suppress(KeyboardInterrupt):
        timing.run(_serve_forever(b, a.port, until_stdin_closes=a.until_stdin_closes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
