"""The computer's turns, played off the request path.

When a committed change leaves a computer seat to move, ``computer_turn_on_commit`` starts a task
on the server's event loop: it reads the position (``selectors.computer_turn``), thinks in a worker
thread (the search holds no database connection and no lock), then submits its action through
``services.move_submit`` like any player, with the version it thought about. If the match moved
on meanwhile (a resignation, or another process that played the same turn first), the stale
version is refused and nothing happens. A restart loses no turn: opening the match page asks again.
"""

from __future__ import annotations

import asyncio
import contextvars
import random
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction

from games import computer, selectors

# One thinking thread per process: the search is CPU-bound, so more threads would only share the GIL.
_thinker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="computer")
_tasks: dict[tuple[int, int], asyncio.Task] = {}


def computer_turn_on_commit(match_id: int, version: int) -> None:
    """After commit, let the computer play its turn at ``version`` of the match (if it has one)."""
    transaction.on_commit(lambda: _start(match_id, version))


def _start(match_id: int, version: int) -> None:
    if settings.COMPUTER_INLINE:
        # Tests of the service layer run without an event loop: play the turn right here.
        turn = selectors.computer_turn(match_id=match_id, version=version)
        if turn is not None:
            _submit(turn, _think(turn))
        return
    async_to_sync(_spawn)(match_id, version)


async def _spawn(match_id: int, version: int) -> None:
    key = (match_id, version)
    if key in _tasks:
        return
    # A fresh context: the task outlives the async_to_sync call that spawned it, and must not
    # inherit that call's thread-sensitive executor, which quits when the call returns.
    task = asyncio.get_running_loop().create_task(_play(match_id, version), context=contextvars.Context())
    _tasks[key] = task
    task.add_done_callback(lambda _: _tasks.pop(key, None))


async def _play(match_id: int, version: int) -> None:
    turn = await database_sync_to_async(selectors.computer_turn)(match_id=match_id, version=version)
    if turn is None:
        return
    action = await asyncio.get_running_loop().run_in_executor(_thinker, partial(_think, turn))
    await database_sync_to_async(_submit)(turn, action)


def _think(turn: selectors.ComputerTurn) -> str:
    _, rounds = computer.LEVELS[(turn.user.computer_level or computer.STRONGEST) - 1]
    return computer.choose_action(turn.game, turn.state, rng=random.Random(turn.seed),
                                  iterations=min(rounds, settings.COMPUTER_ITERATIONS),
                                  seconds=settings.COMPUTER_SECONDS)


def _submit(turn: selectors.ComputerTurn, action: str) -> None:
    from games import services  # services schedules turns through this module

    try:
        services.move_submit(match_id=turn.match_id, user=turn.user, action=action, version=turn.version)
    except services.ServiceError as err:
        if err.code not in {"stale_version", "match_over"}:
            raise
