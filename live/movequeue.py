"""Where a socket's move waits for the database: the step between the consumer and the move
service.

With one database thread (``games.runtime.dbthreads``; SQLite's default, one writer at a time) a
commit costs as much as the move's own statements. So the moves that arrive while a batch is
on that thread wait together and go as the next one, ``services.move_submit_many``: one
transaction, one commit, each move a savepoint of its own (group commit). A move that finds
the line idle leaves at once, alone: a batch forms only when moves would wait anyway. With
several threads (PostgreSQL's default) each move is its own call: there a move is one
statement that commits on its own, and the threads overlap their round trips
(``MOVE_BATCHES`` in the settings).

Either way the call first reads, in the same trip to the database, that each mover's account
may still act (``selectors.players_active``: one query per call): a move from the page of a
guest that logged out is refused with ``signed_out``, with no trip of its own.
"""

from __future__ import annotations

import asyncio
import weakref

from django.conf import settings
from django.utils.translation import gettext as _

from games import selectors, services
from games.match.errors import ServiceError
from games.runtime.dbthreads import db
from live.batches import Batches, first

BATCH_LIMIT = 32  # moves in one transaction at most: the first of them waits for the rest


async def submit(*, match_id: int, user, action: str, version: int):
    """Play a move as ``services.move_submit`` does (the same result, the same refusals)."""
    if not settings.MOVE_BATCHES:
        return await db(_submit_one)({"match_id": match_id, "user": user, "action": action, "version": version})
    loop = asyncio.get_running_loop()
    line = _lines.get(loop)
    if line is None:
        line = _lines[loop] = Batches(_send, first(BATCH_LIMIT))
    return await line.put({"match_id": match_id, "user": user, "action": action, "version": version})


_lines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Batches] = weakref.WeakKeyDictionary()


async def _send(calls: list[dict]) -> list:
    """One batch on the database thread: each move's result or refusal, in order. If the call
    itself fails (the database is down, the commit failed), every move of it gets that failure."""
    return await db(_submit_many)(calls)


def _submit_one(call: dict):
    """``services.move_submit``, if the mover may still act."""
    if not _active(call, selectors.players_active(user_ids=_movers([call]))):
        raise _signed_out()
    return services.move_submit(**call)


def _submit_many(calls: list[dict]) -> list:
    """``services.move_submit_many`` for the calls whose movers may still act; the others are
    refused (one query for them all)."""
    active = selectors.players_active(user_ids=_movers(calls))
    allowed = [i for i, call in enumerate(calls) if _active(call, active)]
    played = dict(zip(allowed, services.move_submit_many([calls[i] for i in allowed]))) if allowed else {}
    return [played[i] if i in played else _signed_out() for i in range(len(calls))]


def _movers(calls: list[dict]) -> set[int]:
    return {call["user"].pk for call in calls if call["user"].is_authenticated}


def _active(call: dict, active: set[int]) -> bool:
    """A visitor's move is the move service's to refuse (``not_seated``)."""
    return not call["user"].is_authenticated or call["user"].pk in active


def _signed_out() -> ServiceError:
    return ServiceError("signed_out", _("You have logged out: this move was not played."))
