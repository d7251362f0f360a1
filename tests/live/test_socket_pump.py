"""The sockets' loop (live/sockets.pump): messages from the client and the channel layer are
handled one at a time, in the order they came; a failing source or handler ends it."""

import asyncio

import pytest

from live.sockets import pump
from tests.support.waits import EVENT_SECONDS, until


def source(queue: asyncio.Queue):
    return queue.get


async def test_messages_of_both_sources_are_handled_one_at_a_time_in_order():
    client, layer = asyncio.Queue(), asyncio.Queue()
    handled, running = [], []

    async def dispatch(message):
        running.append(message)
        assert len(running) == 1, "two messages handled at once"
        await asyncio.sleep(0.01)  # a handler that waits (a database call)
        handled.append(message)
        running.pop()
        if message == "stop":
            raise asyncio.CancelledError

    loop = asyncio.ensure_future(pump([source(client), source(layer)], dispatch))
    client.put_nowait("c1")
    await asyncio.sleep(0)
    layer.put_nowait("l1")
    await asyncio.sleep(0)
    client.put_nowait("c2")
    layer.put_nowait("l2")
    await until(lambda: len(handled) == 4, "the first four messages handled")
    client.put_nowait("stop")
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(loop, EVENT_SECONDS)
    assert handled == ["c1", "l1", "c2", "l2", "stop"]


async def test_a_failing_source_ends_the_loop_with_its_error_and_stops_the_other():
    other_cancelled = asyncio.Event()

    async def failing():
        await asyncio.sleep(0)
        raise RuntimeError("layer gone")

    async def waiting():
        try:
            await asyncio.sleep(10)
        finally:
            other_cancelled.set()

    async def dispatch(message):
        raise AssertionError("nothing to handle")

    with pytest.raises(RuntimeError, match="layer gone"):
        await asyncio.wait_for(pump([failing, waiting], dispatch), EVENT_SECONDS)
    assert other_cancelled.is_set()


async def test_a_failing_handler_ends_the_loop_with_its_error():
    client = asyncio.Queue()
    client.put_nowait("boom")

    async def dispatch(message):
        raise ValueError(message)

    async def idle():
        await asyncio.sleep(10)

    with pytest.raises(ValueError, match="boom"):
        await asyncio.wait_for(pump([source(client), idle], dispatch), EVENT_SECONDS)
