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

from django.conf import settings

from games import services
from games.batches import Batches, first
from games.dbthreads import db

BATCH_LIMIT = 32  # moves in one transaction at most: the first of them waits for the rest


async def submit(*, match_id: int, user, action: str, version: int):
    """Play a move as ``services.move_submit`` does (the same result, the same refusals)."""
    if not settings.MOVE_BATCHES:
        return await db(services.move_submit)(match_id=match_id, user=user, action=action, version=version)
    loop = asyncio.get_running_loop()
    line = _lines.get(loop)
    if line is None:
        line = _lines[loop] = Batches(_send, first(BATCH_LIMIT))
    return await line.put({"match_id": match_id, "user": user, "action": action, "version": version})


_lines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Batches] = weakref.WeakKeyDictionary()


async def _send(calls: list[dict]) -> list:
    """One batch on the database thread: each move's result or refusal, in order. If the call
    itself fails (the database is down, the commit failed), every move of it gets that failure."""
    return await db(services.move_submit_many)(calls)
