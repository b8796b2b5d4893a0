"""Arrival times come from when the bytes reached the process, not from when a task read them."""

from __future__ import annotations

import asyncio
import socket

import pytest

from inference_loadtest import timing
from inference_loadtest.timing import TimedStreamReader


@pytest.mark.parametrize(
    ("read", "arrived"),
    [
        (3, 1.0),  # inside the first piece
        (5, 1.0),  # exactly the first piece
        (6, 2.0),  # one byte of the second piece
        (12, 3.0),  # everything
    ],
)
def test_arrival_is_when_the_last_byte_read_arrived(read: int, arrived: float) -> None:
    async def scenario() -> float:
        # GIVEN three pieces of data that arrived at t=1, 2 and 3, read later (the clock now says 9)
        clock = iter([1.0, 2.0, 3.0, 9.0])
        reader = TimedStreamReader(clock=lambda: next(clock))
        for piece in (b"aaaaa", b"bbbb", b"ccc"):
            reader.feed_data(piece)
        # WHEN some bytes are read
        await reader.readexactly(read)
        # THEN the arrival time is that of the piece holding the last byte read, not the time of reading
        return reader.arrival()

    assert asyncio.run(scenario()) == arrived


def test_arrival_moves_forward_as_reading_goes_on() -> None:
    async def scenario() -> list[float]:
        # GIVEN two pieces that arrived at t=1 and t=2
        clock = iter([1.0, 2.0])
        reader = TimedStreamReader(clock=lambda: next(clock))
        reader.feed_data(b"line one\n")
        reader.feed_data(b"line two\n")
        # WHEN the lines are read one after the other
        times = []
        for _ in range(2):
            await reader.readline()
            times.append(reader.arrival())
        return times

    # THEN each line has its own arrival time
    assert asyncio.run(scenario()) == [1.0, 2.0]


def test_ready_sockets_are_read_before_work_queued_before_the_poll() -> None:
    # GIVEN the load generator's loop with a callback queued and a socket that has become readable
    loop = timing.new_event_loop()
    a, b = socket.socketpair()
    order: list[str] = []
    try:
        a.setblocking(False)
        loop.add_reader(a, lambda: order.append(f"read {a.recv(8)!r}"))
        b.send(b"x")
        loop.call_soon(order.append, "queued")
        loop.call_soon(loop.stop)
        # WHEN the loop runs one pass
        loop.run_forever()
    finally:
        loop.remove_reader(a)
        loop.close()
        a.close()
        b.close()
    # THEN the socket was read (and its arrival stamped) before the work queued earlier ran
    assert order == ["read b'x'", "queued"]
