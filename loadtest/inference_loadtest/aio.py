"""The asyncio engine: hundreds of concurrent response streams from one thread.

A thread per stream costs a GIL hand-off per event, which caps a threaded boto3 generator at a few
thousand events per second on two cores. This engine keeps boto3 for everything that makes a request an
AWS request and does only the byte transport itself:

- the boto3 client validates and serializes the parameters, resolves the endpoint (``endpoint_url``,
  ``AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME``, regions, FIPS/dual-stack settings) and signs with SigV4 from the
  standard credential chain; the signed request is taken at botocore's ``before-send`` event instead of
  being sent by urllib3;
- this module writes it on a kept-alive asyncio connection (TLS for https) and parses the chunked response
  as its bytes arrive, event stream messages included (:class:`EventMessages`: prelude and message CRCs,
  length limits and headers checked as botocore's ``EventStreamBuffer`` checks them, and tested against it),
  all streams' new bytes in one callback per poll of the sockets (:class:`_ParseQueue`);
- an error response is parsed by botocore's protocol parser, and retried (or not) by botocore's standard
  retry conditions and exponential backoff with jitter, so throttling is handled as boto3 handles it.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import struct
import threading
import time
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from inference_loadtest.arrivals import SCHEDULE_EPSILON_S
from inference_loadtest.eventstream import PRELUDE_LENGTH, STRING_HEADER_TYPE
from inference_loadtest.formats import (
    LineStreamDecoder,
    StreamFormat,
    bedrock_observation,
    converse_messages,
    request_body,
)
from inference_loadtest.measure import Record, StreamTimes, Take
from inference_loadtest.prompts import Prompt
from inference_loadtest.stats import RequestResult
from inference_loadtest.timing import TimedStreamReader, open_timed_connection

_FRESH_HEADERS = frozenset(
    {"authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "content-length"}
)
"""Headers SigV4 and the body set anew for each request."""


_PRELUDE = struct.Struct(">III")
_CRC = struct.Struct(">I")


class _Captured(Exception):  # noqa: N818 - control flow, not an error
    """Raised from ``before-send`` to stop botocore from sending the request it just signed."""


_CAPTURE = threading.local()
"""Set ``active`` while :meth:`AsyncEngine._sign` runs: only then does ``before-send`` hand the request over."""


def _capture(request: Any, **_: Any) -> None:
    if not getattr(_CAPTURE, "active", False):
        return  # the client used normally: let botocore send
    body = request.body if isinstance(request.body, bytes) else (request.body or b"")
    if isinstance(body, str):
        body = body.encode()
    headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()}
    _CAPTURE.request = _Signed(request.url, request.method, headers, body)
    raise _Captured


@dataclass
class _Signed:
    url: str
    method: str
    headers: dict[str, str]
    body: bytes


class _Connections:
    """Kept-alive HTTP/1.1 connections to one endpoint."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.https else 80)
        self.netloc = parts.netloc
        self._idle: list[tuple[TimedStreamReader, asyncio.StreamWriter]] = []
        self._ssl: ssl.SSLContext | None = None
        if self.https:
            from botocore.httpsession import get_cert_path

            self._ssl = ssl.create_default_context(cafile=get_cert_path(True))

    async def get(self) -> tuple[TimedStreamReader, asyncio.StreamWriter]:
        while self._idle:
            reader, writer = self._idle.pop()
            if not writer.is_closing() and not reader.at_eof():
                return reader, writer
        return await open_timed_connection(
            self.host, self.port, ssl_context=self._ssl, server_hostname=self.host if self.https else None
        )

    def put(self, conn: tuple[TimedStreamReader, asyncio.StreamWriter]) -> None:
        self._idle.append(conn)

    def close(self) -> None:
        for _, writer in self._idle:
            writer.close()
        self._idle.clear()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("connection closed before the response")
    status = int(status_line.split(b" ", 2)[1])
    headers: dict[str, str] = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            return status, headers
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()


async def _chunks(reader: asyncio.StreamReader) -> Any:
    """The data of a ``Transfer-Encoding: chunked`` body, one HTTP chunk at a time."""
    while True:
        size = int((await reader.readline()).split(b";", 1)[0], 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            return
        data = await reader.readexactly(size + 2)
        yield data[:-2]


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if headers.get("transfer-encoding", "").lower() == "chunked":
        return b"".join([c async for c in _chunks(reader)])
    return await reader.readexactly(int(headers.get("content-length", "0")))


class EventMessages:
    """Event stream messages out of the bytes of a stream, checked as botocore's ``EventStreamBuffer`` checks
    them (prelude CRC, header and payload length limits, message CRC, duplicate headers; its exceptions), in
    about a fifth of its time: string-valued headers (all the SageMaker and Bedrock runtimes send) are read
    in one pass, and a message with any other header type is handed to botocore's header parser."""

    def __init__(self) -> None:
        from botocore import eventstream as botocore_eventstream

        self._es = botocore_eventstream
        self._data = b""

    def feed(self, data: bytes) -> list[tuple[dict[str, Any], bytes]]:
        """The messages ``data`` completes, in order, as (headers, payload)."""
        es = self._es
        buf = self._data + data if self._data else data
        out = []
        pos = 0
        while len(buf) - pos >= PRELUDE_LENGTH:
            total, headers_length, prelude_crc = _PRELUDE.unpack_from(buf, pos)
            if zlib.crc32(buf[pos : pos + 8]) != prelude_crc:
                raise es.ChecksumMismatch(prelude_crc, zlib.crc32(buf[pos : pos + 8]))
            if headers_length > es._MAX_HEADERS_LENGTH:  # botocore's own limits
                raise es.InvalidHeadersLength(headers_length)
            payload_length = total - headers_length - PRELUDE_LENGTH - 4
            if payload_length > es._MAX_PAYLOAD_LENGTH:
                raise es.InvalidPayloadLength(payload_length)
            if len(buf) - pos < total:
                break
            end = pos + total - 4
            (message_crc,) = _CRC.unpack_from(buf, end)
            if zlib.crc32(buf[pos:end]) != message_crc:
                raise es.ChecksumMismatch(message_crc, zlib.crc32(buf[pos:end]))
            headers_end = pos + PRELUDE_LENGTH + headers_length
            out.append((self._headers(buf[pos + PRELUDE_LENGTH : headers_end]), buf[headers_end:end]))
            pos += total
        self._data = buf[pos:]
        return out

    def _headers(self, block: bytes) -> dict[str, Any]:
        headers: dict[str, Any] = {}
        i, n = 0, len(block)
        while i < n:
            start = i + 1 + block[i]
            name = block[i + 1 : start].decode()
            if start + 3 > n or block[start] != STRING_HEADER_TYPE:
                return self._es.EventStreamHeaderParser().parse(block)
            i = start + 3 + ((block[start + 1] << 8) | block[start + 2])
            if name in headers:
                raise self._es.DuplicateHeader(name)
            headers[name] = block[start + 3 : i].decode()
        if i != n:
            raise self._es.ParserError("event stream headers overrun their length")
        return headers


class _StreamBody:
    """A streaming response's body parsed as its pieces arrive: HTTP/1.1 chunked transfer coding, then the
    event stream messages in the chunks (:class:`EventMessages`), each handed to ``on_message`` as (headers,
    payload, arrival time of the piece that completed it).

    ``done`` gets its result after the last chunk, or the exception that stopped the parse (a malformed chunk
    size, a CRC mismatch, the connection closing first).
    """

    def __init__(self, on_message: Callable[[dict[str, Any], bytes, float], None], done: asyncio.Future[None]) -> None:
        self._on_message = on_message
        self.done = done
        self._buffer = bytearray()
        self._size: int | None = None
        """Bytes of the current chunk's data still to come; None while a size (or trailer) line is due."""
        self._trailer = False
        """After the zero-size last chunk: trailer lines up to an empty one."""
        self._events = EventMessages()

    def feed(self, data: bytes, arrival: float) -> None:
        if self.done.done():
            return
        try:
            self._parse(data, arrival)
        except Exception as exc:
            self.done.set_exception(exc)

    def end(self, exc: BaseException | None) -> None:
        if not self.done.done():
            self.done.set_exception(exc or asyncio.IncompleteReadError(b"", None))

    def _parse(self, data: bytes, arrival: float) -> None:
        buf = self._buffer
        buf += data
        pos = 0
        while not self.done.done():
            if self._size is None:
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    break
                line = bytes(buf[pos:eol])
                pos = eol + 2
                if self._trailer:
                    if not line:
                        self.done.set_result(None)
                    continue
                size = int(line.split(b";", 1)[0], 16)
                self._size, self._trailer = (None, True) if size == 0 else (size, False)
                continue
            if len(buf) - pos < self._size + 2:
                break
            chunk = bytes(buf[pos : pos + self._size])
            pos += self._size + 2
            self._size = None
            for headers, payload in self._events.feed(chunk):
                self._on_message(headers, payload, arrival)
        del buf[:pos]


class _ParseQueue:
    """Parses the pieces the streams received, in one loop callback per poll, after every ready socket was read.

    A stream's reader hands each piece over from the transport's callback, stamped there; parsing it there
    would make the next ready socket's stamp wait for this one's parse. Queued here instead, the parse runs
    once every socket of the poll has been read and stamped, for all the streams at once (one callback, no
    task switch per stream).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._items: list[tuple[_StreamBody, bytes | None, float, BaseException | None]] = []

    def put(self, body: _StreamBody, data: bytes | None, arrival: float, exc: BaseException | None = None) -> None:
        if not self._items:
            self.loop.call_soon(self._run)
        self._items.append((body, data, arrival, exc))

    def _run(self) -> None:
        items, self._items = self._items, []
        for body, data, arrival, exc in items:
            if data is None:
                body.end(exc)
            else:
                body.feed(data, arrival)


@dataclass
class _Diverted:
    """The :class:`~inference_loadtest.timing.Sink` of one response: its pieces go to the queue."""

    body: _StreamBody
    queue: _ParseQueue

    def data(self, data: bytes, arrival: float) -> None:
        self.queue.put(self.body, data, arrival)

    def end(self, exc: BaseException | None) -> None:
        self.queue.put(self.body, None, 0.0, exc)


class AsyncEngine:
    """Streams requests of one operation concurrently on an asyncio loop, with a boto3 client's signing.

    Parameters
    ----------
    client
        A ``sagemaker-runtime`` or ``bedrock-runtime`` boto3 client.
    operation
        ``InvokeEndpointWithResponseStream`` or ``ConverseStream``.
    identifier
        The endpoint name or the Bedrock ``modelId``.
    fmt
        The stream format (SageMaker only).
    max_attempts
        Attempts per request under botocore's standard retry conditions. Default: 4.
    """

    def __init__(self, client: Any, operation: str, identifier: str, fmt: StreamFormat, max_attempts: int = 4) -> None:
        from botocore.parsers import create_parser
        from botocore.retries import standard

        self.client = client
        self.operation = operation
        self.identifier = identifier
        self.format = fmt
        self.detected_format: StreamFormat | None = None
        self._op = client.meta.service_model.operation_model(operation)
        self._parser = create_parser(client.meta.service_model.protocol)
        self._conditions = standard.StandardRetryConditions(max_attempts=max_attempts)
        self._backoff = standard.ExponentialBackoff(
            throttling_detector=standard.ThrottlingErrorDetector(standard.RetryEventAdapter())
        )
        self._throttled = standard.ThrottledRetryableChecker()
        self._template: _Signed | None = None
        self._pools: dict[str, _Connections] = {}
        self._parse_queue: _ParseQueue | None = None
        service_id = client.meta.service_model.service_id.hyphenize()
        client.meta.events.register_first(
            f"before-send.{service_id}.{operation}", _capture, unique_id=f"inference-constructs-capture-{operation}"
        )

    def sign(self, prompt: Prompt) -> _Signed:
        """The signed HTTP request of ``prompt``.

        The first one goes through the whole boto3 client (validation, serialization, endpoint resolution,
        SigV4); later ones reuse its URL and headers with the new body and are signed again by the same
        client's request signer (credentials refresh, region, signing name), about 5x cheaper.
        """
        signer = getattr(self.client, "_request_signer", None)
        if self._template is None or signer is None:
            self._template = self._sign(prompt)
            return self._template
        from botocore.awsrequest import AWSRequest

        t = self._template
        auth = next((v for k, v in t.headers.items() if k.lower() == "authorization"), "")
        signed_names = set(auth.partition("SignedHeaders=")[2].partition(",")[0].split(";"))
        kept = {k: v for k, v in t.headers.items() if k.lower() not in _FRESH_HEADERS}
        to_sign = {k: v for k, v in kept.items() if k.lower() in signed_names}
        request = AWSRequest(method=t.method, url=t.url, headers=to_sign, data=self._body(prompt))
        signer.sign(self.operation, request)
        prepared = request.prepare()
        headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in prepared.headers.items()}
        for name, value in kept.items():  # what botocore adds after signing (user agent, amz-sdk-*)
            if name.lower() not in signed_names:
                headers[name] = str(uuid.uuid4()) if name.lower() == "amz-sdk-invocation-id" else value
        body = prepared.body if isinstance(prepared.body, bytes) else b""
        return _Signed(prepared.url, prepared.method, headers, body)

    def _body(self, prompt: Prompt) -> bytes:
        if self.operation == "ConverseStream":
            params = {
                "messages": converse_messages(prompt.history, prompt.text),
                "inferenceConfig": {"maxTokens": prompt.max_tokens},
            }
            return json.dumps(params).encode()
        return request_body(self.format, prompt.text, prompt.max_tokens, history=prompt.history)

    def _sign(self, prompt: Prompt) -> _Signed:
        _CAPTURE.request = None
        _CAPTURE.active = True
        try:
            if self.operation == "ConverseStream":
                self.client.converse_stream(
                    modelId=self.identifier,
                    messages=converse_messages(prompt.history, prompt.text),
                    inferenceConfig={"maxTokens": prompt.max_tokens},
                )
            else:
                self.client.invoke_endpoint_with_response_stream(
                    EndpointName=self.identifier, Body=self._body(prompt), ContentType="application/json"
                )
        except _Captured:
            assert _CAPTURE.request is not None
            return _CAPTURE.request  # type: ignore[no-any-return]
        finally:
            _CAPTURE.active = False
        raise RuntimeError("botocore sent the request instead of handing it over")  # pragma: no cover

    def _retry_context(self, attempt: int, status: int, headers: dict[str, str], body: bytes) -> Any:
        from botocore.awsrequest import AWSResponse
        from botocore.compat import HTTPHeaders
        from botocore.retries import standard

        hdrs = HTTPHeaders()
        for name, value in headers.items():
            hdrs[name] = value
        parsed = self._parser.parse({"status_code": status, "headers": hdrs, "body": body}, self._op.output_shape)
        http = AWSResponse(self._template.url if self._template else "", status, hdrs, None)
        return standard.RetryContext(
            attempt_number=attempt, operation_model=self._op, parsed_response=parsed, http_response=http
        )

    async def invoke(self, prompt: Prompt, signed: _Signed | None = None) -> RequestResult:
        """One request, retried as botocore's standard mode would; never raises for a service error.

        ``signed``: the first attempt's request, signed ahead of time (retries are signed again).
        """
        from botocore.eventstream import ParserError

        first_sent: float | None = None
        retries = 0
        attempt = 1
        while True:
            signed = signed if attempt == 1 and signed is not None else self.sign(prompt)
            pool = self._pools.get(signed.url.split("/", 3)[2])
            if pool is None:
                pool = self._pools[signed.url.split("/", 3)[2]] = _Connections(signed.url)
            try:
                conn = await pool.get()
            except OSError as exc:
                now = time.perf_counter()
                return RequestResult(ok=False, e2e_s=0.0, error=type(exc).__name__, started=now, ended=now)
            reader, writer = conn
            parts = urlsplit(signed.url)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            head = [f"{signed.method} {path} HTTP/1.1", f"Host: {pool.netloc}"]
            head += [f"{k}: {v}" for k, v in signed.headers.items() if k.lower() != "host"]
            if not any(k.lower() == "content-length" for k in signed.headers):
                head.append(f"Content-Length: {len(signed.body)}")
            sent = time.perf_counter()
            first_sent = first_sent or sent
            try:
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + signed.body)
                status, headers = await _read_head(reader)
                if status == 200:
                    result = await self._stream(reader, headers, first_sent)
                    result.retries = retries
                    result.request_id = headers.get("x-amzn-requestid")
                    if result.error is None:
                        pool.put(conn)
                    else:
                        writer.close()
                    return result
                body = await _body(reader, headers)
                pool.put(conn)
            except (OSError, asyncio.IncompleteReadError, ValueError, ParserError) as exc:
                writer.close()
                end = time.perf_counter()
                return RequestResult(
                    ok=False,
                    e2e_s=end - first_sent,
                    error=type(exc).__name__,
                    retries=retries,
                    started=first_sent,
                    ended=end,
                )
            context = self._retry_context(attempt, status, headers, body)
            if not self._conditions.is_retryable(context):
                end = time.perf_counter()
                code = str(context.parsed_response.get("Error", {}).get("Code") or status)
                return RequestResult(
                    ok=False,
                    e2e_s=end - first_sent,
                    error=code,
                    throttled=self._throttled.is_retryable(context),
                    retries=retries,
                    started=first_sent,
                    ended=end,
                )
            await asyncio.sleep(self._backoff.delay_amount(context))
            retries += 1
            attempt += 1

    def _queue(self) -> _ParseQueue:
        loop = asyncio.get_running_loop()
        if self._parse_queue is None or self._parse_queue.loop is not loop:  # one loop per level
            self._parse_queue = _ParseQueue(loop)
        return self._parse_queue

    async def _stream(self, reader: TimedStreamReader, headers: dict[str, str], start: float) -> RequestResult:
        """Each event is timed by when its bytes reached the process (:mod:`~inference_loadtest.timing`),
        not by when the body was parsed behind the other streams; the body is parsed as it arrives, without a
        task switch per event (:class:`_StreamBody`)."""
        state = StreamTimes(start=start)
        decoder = LineStreamDecoder(self.format)
        bedrock = self.operation == "ConverseStream"

        def on_message(h: dict[str, Any], payload: bytes, now: float) -> None:
            if h.get(":message-type") != "event":
                state.error = state.error or str(h.get(":exception-type") or h.get(":error-code") or "error")
            elif bedrock:
                event = {str(h.get(":event-type")): json.loads(payload or b"{}")}
                state.observe(bedrock_observation(event), now)
            elif h.get(":event-type") == "PayloadPart":
                state.observe(decoder.feed(payload), now)

        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        reader.divert(_Diverted(_StreamBody(on_message, done), self._queue()))
        try:
            await done
        finally:
            reader.undivert()
        if not bedrock:
            state.observe(decoder.close(), time.perf_counter())
            self.detected_format = decoder.format
        return state.result(time.perf_counter(), 0)

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()


PRESIGNED_MAX_AGE_S = 60.0
"""A request signed ahead is sent within this age or signed again (SigV4 allows 5 minutes of clock skew)."""


async def run_fixed(engine: AsyncEngine, concurrency: int, take: Take, record: Record) -> None:
    """``concurrency`` workers, each sending the next prompt ``take()`` gives until it gives None.

    A signer task keeps ``concurrency`` requests signed ahead, one at a time between I/O callbacks, so a
    burst of completing streams sends its next requests at once instead of blocking the loop (and the
    streams still reading) while boto3 builds and signs each (about 0.3 ms of CPU apiece).
    """
    queue: asyncio.Queue[tuple[int, Prompt, _Signed, float] | None] = asyncio.Queue(maxsize=concurrency)

    async def signer() -> None:
        while (item := take()) is not None:
            await queue.put((item[0], item[1], engine.sign(item[1]), time.monotonic()))
            await asyncio.sleep(0)
        for _ in range(concurrency):
            await queue.put(None)

    async def worker() -> None:
        while (job := await queue.get()) is not None:
            index, prompt, signed, at = job
            fresh = time.monotonic() - at < PRESIGNED_MAX_AGE_S
            record(index, await engine.invoke(prompt, signed if fresh else None))

    try:
        while queue.qsize() < concurrency and (item := take()) is not None:  # sign the first wave before timing
            queue.put_nowait((item[0], item[1], engine.sign(item[1]), time.monotonic()))
        await asyncio.gather(signer(), *(worker() for _ in range(concurrency)))
    finally:
        engine.close()


async def run_open_loop(
    engine: AsyncEngine,
    arrivals: Callable[[], float | None],
    take: Take,
    record: Record,
    max_in_flight: int,
    *,
    duration_s: float | None = None,
) -> None:
    """Start a request at each arrival time (``arrivals()``: seconds after the previous one, None to stop).

    Each result's ``scheduled`` is its arrival time on the ``time.perf_counter`` clock, so a request that waited
    for one of the ``max_in_flight`` slots (or for a late loop) is measured from when it was due. No request is
    scheduled ``duration_s`` or more after the first.
    """
    slots = asyncio.Semaphore(max_in_flight)
    loop = asyncio.get_running_loop()

    async def one(index: int, prompt: Prompt, scheduled: float) -> None:
        async with slots:
            result = await engine.invoke(prompt)
        result.scheduled = scheduled
        record(index, result)

    tasks = []
    start, start_perf = loop.time(), time.perf_counter()
    offset = 0.0
    try:
        while duration_s is None or offset < duration_s - SCHEDULE_EPSILON_S:
            item = take()
            if item is None:
                break
            await asyncio.sleep(max(0.0, start + offset - loop.time()))
            tasks.append(asyncio.create_task(one(item[0], item[1], start_perf + offset)))
            gap = arrivals()
            if gap is None:
                break
            offset += gap
        await asyncio.gather(*tasks)
    finally:
        engine.close()
