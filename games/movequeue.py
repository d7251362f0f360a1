"""Where a socket's move waits for the database: the step between the consumer and the move
service.

With one database thread (``games.dbthreads``; SQLite's default, one writer at a time) a
commit costs as much as the move's own statements. So the moves that arrive while a batch is
on that thread wait together and go as the next one, ``services.move_submit_many``: one
transaction, one commit, each move a savepoint of its own (group commit). A move that finds
the line idle leaves at once, alone: a batch forms only when moves would wait anyway. With
several threads (PostgreSQL's default) each move is its own call: there a move is one
statement that commits on its own, and the threads overlap their round trips
(``MOVE_BATCHES`` in the settings).
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field

from django.conf import settings

from games import services
from games.dbthreads import db

BATCH_LIMIT = 32  # moves in one transaction at most: the first of them waits for the rest


async def submit(*, match_id: int, user, action: str, version: int):
    """Play a move as ``services.move_submit`` does (the same result, the same refusals)."""
    if not settings.MOVE_BATCHES:
        return await db(services.move_submit)(match_id=match_id, user=user, action=action, version=version)
    loop = asyncio.get_running_loop()
    line = _lines.get(loop)
    if line is None:
        line = _lines[loop] = _Line()
    waiter = loop.create_future()
    line.waiting.append(({"match_id": match_id, "user": user, "action": action, "version": version}, waiter))
    if not line.running:
        line.running = True
        loop.create_task(_drain(line))
    return await waiter


@dataclass
class _Line:
    waiting: list = field(default_factory=list)
    running: bool = False


_lines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Line] = weakref.WeakKeyDictionary()


async def _drain(line: _Line) -> None:
    """Send the waiting moves to the database thread, up to ``BATCH_LIMIT`` a call, until none
    wait; each waiter gets its own move's result or refusal. If the call itself fails (the
    database is down, the commit failed), every move of it gets that failure."""
    try:
        while line.waiting:
            batch, line.waiting = line.waiting[:BATCH_LIMIT], line.waiting[BATCH_LIMIT:]
            try:
                results = await db(services.move_submit_many)([call for call, _ in batch])
            except Exception as err:  # noqa: BLE001 - handed to each waiting socket
                results = [err] * len(batch)
            for (_, waiter), result in zip(batch, results, strict=True):
                if waiter.done():  # the socket went away meanwhile; its move stands
                    continue
                if isinstance(result, Exception):
                    waiter.set_exception(result)
                else:
                    waiter.set_result(result)
    finally:
        line.running = False
