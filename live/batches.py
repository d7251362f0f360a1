"""Calls that wait together: while one batch of them is under way, the ones asked for
meanwhile queue, and go as the next batch, in the order asked. One that finds nothing under
way goes at once, alone. Used where each call has a fixed cost worth sharing: a commit
(``live.movequeue``), a round trip to Redis (``live.layers``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable


def first(limit: int) -> Callable[[deque], list]:
    """Take up to ``limit`` of the waiting calls, from the front."""
    return lambda waiting: [waiting.popleft() for _ in range(min(limit, len(waiting)))]


class Batches:
    """``await put(item)``: ``item`` goes to ``send`` in a list with the items ``take`` picks
    from the front of the queue (under ``lock``, if given). ``send`` returns one result per
    item (an exception is raised to that item's caller alone) or None (every caller gets
    None); if ``send`` itself fails, every caller of that batch gets its failure."""

    def __init__(self, send: Callable[[list], Awaitable[list | None]], take: Callable[[deque], list],
                 lock: asyncio.Lock | None = None) -> None:
        self.send, self.take, self.lock = send, take, lock
        self.waiting: deque[tuple[object, asyncio.Future]] = deque()
        self.task: asyncio.Task | None = None

    async def put(self, item):
        done = asyncio.get_running_loop().create_future()
        self.waiting.append((item, done))
        if self.task is None:
            self.task = asyncio.ensure_future(self._run())
        return await done

    async def _run(self) -> None:
        try:
            async with self.lock or contextlib.nullcontext():
                while self.waiting:
                    batch = self.take(self.waiting)
                    try:
                        results = await self.send([item for item, _ in batch])
                    except asyncio.CancelledError:
                        for _, done in batch:
                            done.cancel()
                        raise
                    except Exception as err:  # each caller gets it
                        results = [err] * len(batch)
                    for (_, done), result in zip(batch, results or [None] * len(batch), strict=True):
                        if done.done():  # its caller went away meanwhile; its item was sent
                            continue
                        if isinstance(result, Exception):
                            done.set_exception(result)
                        else:
                            done.set_result(result)
        finally:
            self.task = None
            if self.waiting:  # asked for while this task was being cancelled: start again
                self.task = asyncio.ensure_future(self._run())
