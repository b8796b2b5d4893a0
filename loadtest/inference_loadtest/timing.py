"""When bytes reached the process: arrival times kept by the stream reader, not by the task that parses them.

With hundreds of streams on one event loop, the loop reads every readable socket in one pass and only then
runs the tasks that parse what was read. A task that takes its timestamp after parsing measures the loop's
queue as well as the network: the 200th stream of a burst is stamped after the 199 before it were parsed.
:class:`TimedStreamReader` stamps each piece of data as the transport hands it over (``data_received``,
right after ``recv``), and :meth:`TimedStreamReader.arrival` gives the time the last byte consumed so far
arrived. Both sides use it: the client for time to first token and between tokens, the local server for
"the request arrived", from which it counts its injected delays.

:func:`new_event_loop` makes the loop both sides run on, with two changes to when things happen (not to what
happens):

- sockets the selector reports readable are read before the callbacks already queued (the parse steps of
  the data read in the previous pass), so a stamp waits for one ``recv`` per ready socket, not for the
  parsing of the whole previous burst;
- timers fire to the microsecond: ``epoll_wait`` takes whole milliseconds and Python rounds a timeout up, so
  a timer due 0.2 ms from now fired up to 1 ms late (the server's injected delays are timers). The loop
  waits with ``select`` on the epoll descriptor itself (microsecond timeout, one descriptor), then collects
  the events without waiting.
"""

from __future__ import annotations

import asyncio
import collections
import select
import selectors
import ssl
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Protocol, SupportsIndex, TypeVar

T = TypeVar("T")

STREAM_LIMIT = 1 << 20
"""Buffer limit of a reader (bytes) before the transport is paused."""


class Sink(Protocol):
    """Where a diverted :class:`TimedStreamReader` hands its data (:meth:`TimedStreamReader.divert`)."""

    def data(self, data: bytes, arrival: float) -> None:
        """A piece of data and when it reached the process."""

    def end(self, exc: BaseException | None) -> None:
        """The connection ended: cleanly (None) or with ``exc``."""


class TimedStreamReader(asyncio.StreamReader):
    """An :class:`asyncio.StreamReader` that remembers when each piece of data arrived.

    Parameters
    ----------
    clock
        The clock of the arrival times. Default: ``time.perf_counter``.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter, limit: int = STREAM_LIMIT) -> None:
        super().__init__(limit=limit)
        self._clock = clock
        self._fed = 0
        self._times: collections.deque[tuple[int, float]] = collections.deque()
        self._sink: Sink | None = None

    def feed_data(self, data: Iterable[SupportsIndex]) -> None:
        if self._sink is not None:
            if data:
                self._sink.data(bytes(data), self._clock())
            return
        if data:
            self._fed += len(data)  # type: ignore[arg-type]  # the transport hands over bytes
            self._times.append((self._fed, self._clock()))
        super().feed_data(data)

    def feed_eof(self) -> None:
        if self._sink is not None:
            self._sink.end(None)
        super().feed_eof()

    def set_exception(self, exc: Exception) -> None:
        if self._sink is not None:
            self._sink.end(exc)
        super().set_exception(exc)

    def divert(self, sink: Sink) -> None:
        """Hand every piece of data to ``sink`` as it arrives, with its arrival time, instead of buffering it
        for ``read*``; what is buffered already goes first, piece by piece with its own arrival time."""
        buffer: bytearray = self._buffer  # type: ignore[attr-defined]  # the reader's own buffer
        start = self._fed - len(buffer)
        offset = start
        pieces = []
        for end, at in self._times:
            if end > offset:
                pieces.append((bytes(buffer[offset - start : end - start]), at))
                offset = end
        buffer.clear()
        self._times.clear()
        self._sink = sink
        transport: Any = getattr(self, "_transport", None)
        if getattr(self, "_paused", False) and transport is not None:  # buffered past the limit: read again
            self._paused = False
            transport.resume_reading()
        for data, at in pieces:
            sink.data(data, at)

    def undivert(self) -> None:
        """Back to buffering for ``read*`` (the connection's next response)."""
        self._sink = None

    def arrival(self) -> float:
        """When the last byte read so far reached the process (now if nothing was read yet)."""
        consumed = self._fed - len(self._buffer)  # type: ignore[attr-defined]  # the reader's own buffer
        times = self._times
        while len(times) > 1 and times[0][0] < consumed:
            times.popleft()  # data read entirely: no later byte arrived with it
        if times and times[0][0] >= consumed > 0:
            return times[0][1]
        return self._clock()


async def open_timed_connection(
    host: str, port: int, *, ssl_context: ssl.SSLContext | None = None, server_hostname: str | None = None
) -> tuple[TimedStreamReader, asyncio.StreamWriter]:
    """:func:`asyncio.open_connection` with a :class:`TimedStreamReader`."""
    loop = asyncio.get_running_loop()
    reader = TimedStreamReader()
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport, _ = await loop.create_connection(
        lambda: protocol, host, port, ssl=ssl_context, server_hostname=server_hostname
    )
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


Handler = Callable[[TimedStreamReader, asyncio.StreamWriter], Awaitable[None]]


async def start_timed_server(handler: Handler, host: str, port: int, *, backlog: int) -> asyncio.base_events.Server:
    """:func:`asyncio.start_server` whose readers are :class:`TimedStreamReader` on the loop's clock."""
    loop = asyncio.get_running_loop()

    def factory() -> asyncio.StreamReaderProtocol:
        return asyncio.StreamReaderProtocol(TimedStreamReader(loop.time), handler, loop=loop)  # type: ignore[arg-type]

    return await loop.create_server(factory, host, port, backlog=backlog)


if sys.platform == "linux":

    class PreciseEpollSelector(selectors.EpollSelector):
        """An epoll selector whose timeout has microsecond resolution instead of epoll's millisecond."""

        def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            if timeout is not None and timeout > 0:
                try:  # the epoll descriptor is readable once any descriptor registered with it is ready
                    select.select([self.fileno()], [], [], timeout)
                    timeout = 0
                except (ValueError, OSError):  # pragma: no cover - a descriptor number select cannot take
                    pass
            return super().select(timeout)


class _ReadFirstLoop(asyncio.SelectorEventLoop):
    """Runs the callbacks of the sockets a poll found ready before the callbacks queued before that poll."""

    def _process_events(self, event_list: list[tuple[selectors.SelectorKey, int]]) -> None:
        ready: collections.deque[asyncio.Handle] = self._ready  # type: ignore[attr-defined]
        before = len(ready)
        super()._process_events(event_list)  # type: ignore[misc]  # appends each ready socket's callback
        ready.rotate(len(ready) - before)  # ... and this moves them to the front, in their order


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The event loop of the load generator and the local server (see the module's docstring); the standard
    loop where the selector event loop's internals differ (not CPython on Linux)."""
    if sys.platform != "linux" or not hasattr(asyncio.SelectorEventLoop, "_process_events"):
        return asyncio.new_event_loop()  # pragma: no cover
    loop = _ReadFirstLoop(PreciseEpollSelector())
    if not isinstance(getattr(loop, "_ready", None), collections.deque):  # pragma: no cover
        loop.close()
        return asyncio.new_event_loop()
    return loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """:func:`asyncio.run` on :func:`new_event_loop`."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(coro)
