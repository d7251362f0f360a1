"""The computer's turns: played off the request path, and never on a web server's interpreter.

When a committed change leaves a computer seat to move, ``computer_turn_on_commit`` asks for
the turn. Where it is thought about (``COMPUTER_WORKERS``):

``pool``     the embedded set-up: a process pool of this server (``COMPUTER_PROCESSES``);
``channel``  the scaled set-up: a message on the Channels channel ``computer``, taken by a
             worker process (``manage.py runworker computer``, see ``games/computer/workers.py``);
``inline``   tests of the service layer: right here, in the calling thread.

Every path reads the position (``selectors.computer_turn``), thinks with no database
connection or lock held, and submits through ``move_submit`` like any player, with the version
it thought about: if the match moved on meanwhile, the stale version is refused and nothing
happens. Across processes and hosts (every worker hears every ask on the publish/subscribe
layer, and web processes ask again) one process at a time thinks about a turn: the one that
holds its lease (``turn_lease``, ``games.runtime.leases``). A restart loses no turn: each
server process asks for every pending one as it starts, its clock sweep asks again for one
that has waited too long (``services.computer_turns_resume``, from
``games/services/flagfall.py``), and opening the match page asks again.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from typing import Protocol

from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from games import selectors
from games.computer import search as computer
from games.match.errors import ServiceError
from games.runtime import eventloop, leases, outages
from games.runtime.dbthreads import db
from games.runtime.handoffs import Handoff

COMPUTER_CHANNEL = "computer"
RETRY_SECONDS, RETRY_FOR_SECONDS = 2.0, 300.0  # a turn that met the database away is tried again
WORKER_ASKS, WORKER_GRACE_SECONDS = 6, 5.0  # asking the workers again when the turn is not played
STALLED_GRACE_SECONDS = 15.0  # past its thinking time, a turn not played yet counts as lost

_tasks: dict[tuple[int, int], asyncio.Task] = {}


class MoveSubmit(Protocol):
    def __call__(self, *, match_id: int, user: AbstractBaseUser, action: str, version: int) -> object: ...


@dataclass(frozen=True)
class BotServices:
    """What the computer's turns call above them (the services that schedule them): a turn ends
    like anyone's, through ``move_submit``."""

    move_submit: MoveSubmit


SERVICES = Handoff(BotServices, needed_by="games.computer.bots (the computer's turns)")


def computer_turn_on_commit(match_id: int, version: int) -> None:
    """After commit, let the computer play its turn at ``version`` of the match (if it has one)."""
    transaction.on_commit(lambda: _request(match_id, version), robust=True)


def _request(match_id: int, version: int) -> None:
    mode = settings.COMPUTER_WORKERS
    if mode == "inline":
        turn = selectors.computer_turn(match_id=match_id, version=version)
        if turn is not None:
            _submit_turn(turn, _think(turn))
    elif mode == "channel":
        eventloop.run_coroutine(_to_worker, match_id, version)
    else:
        eventloop.run_coroutine(play_turn_when_possible, match_id, version, _process_pool())


def stalled_after_seconds() -> float:
    """How long after it began a computer turn counts as lost (its request died with a process,
    or reached no worker): the longest it thinks (``COMPUTER_SECONDS``, counted from the ask,
    waiting for a free process included) plus a grace for a busy machine, past the workers'
    own first ask again (``WORKER_GRACE_SECONDS``)."""
    return settings.COMPUTER_SECONDS + STALLED_GRACE_SECONDS


async def _to_worker(match_id: int, version: int) -> None:
    """Ask the workers, and ask again while the turn is still not played: a message on a channel
    nobody listens to is lost (Redis was away, or a worker had not subscribed again yet after
    it came back). Only the process that holds the turn's lease thinks about it (``turn_lease``);
    a played turn ends the asking."""
    for _ in range(WORKER_ASKS):
        try:
            await get_channel_layer().send(COMPUTER_CHANNEL, {"type": "computer.turn", "match_id": match_id,
                                                              "version": version})
        except outages.SERVICE_DOWN as err:
            outages.report_or_raise("asking a worker for the computer's turn (asked again)", err)
        await asyncio.sleep(settings.COMPUTER_SECONDS + WORKER_GRACE_SECONDS)
        try:
            if await db(selectors.computer_turn)(match_id=match_id, version=version) is None:
                return
        except outages.SERVICE_DOWN as err:
            outages.report_or_raise("checking the computer's turn was played", err)


async def play_turn_when_possible(match_id: int, version: int, executor: Executor) -> None:
    """``play_turn``, tried again every ``RETRY_SECONDS`` while the database is away (for at
    most ``RETRY_FOR_SECONDS``): the computer's turn catches up once it is back."""
    for _ in range(int(RETRY_FOR_SECONDS / RETRY_SECONDS)):
        try:
            return await play_turn(match_id, version, executor)
        except outages.SERVICE_DOWN as err:
            outages.report_or_raise("the computer's turn (retried)", err)
            await asyncio.sleep(RETRY_SECONDS)
    await play_turn(match_id, version, executor)


async def play_turn(match_id: int, version: int, executor: Executor) -> None:
    """Play the computer's turn at ``version``, thinking on ``executor``: once per process, and
    once across processes and hosts while its lease holds (``turn_lease``; a turn another
    process holds is left to it)."""
    key = (match_id, version)
    if key in _tasks:
        return
    _tasks[key] = asyncio.current_task()
    lease, token, submitted = "", None, False
    try:
        turn = await db(selectors.computer_turn)(match_id=match_id, version=version)
        if turn is None:
            return
        lease = turn_lease(turn)
        token = await asyncio.to_thread(leases.lease_take, lease, seconds=stalled_after_seconds())
        if token is None:
            return
        action = await asyncio.get_running_loop().run_in_executor(executor, _think_args(turn))
        await db(_submit_turn)(turn, action)
        submitted = True
    finally:
        _tasks.pop(key, None)
        if token is not None and not submitted:  # not played: another process may try at once
            await asyncio.to_thread(leases.lease_release, lease, token)


def turn_lease(turn: selectors.ComputerTurn) -> str:
    """The lease of the computer's ``turn`` (its match and version, and the match's own random
    token: ids come back after a database is emptied, a match's token does not). It lasts as
    long as a turn may take before it counts as lost (``stalled_after_seconds``): a holder that
    died loses it then, and the next ask (the asking web process's, or a clock sweep's) is
    taken by a process that runs. Once the move is submitted the lease is kept until it runs
    out, not given back: a process that read the turn just before the move committed must not
    take it then. A holder slower than the lease (a machine overloaded for seconds) may see a
    second process think about the same turn: its move is still played once, the later one
    refused as stale."""
    return f"computer-turn:{turn.match_id}:{turn.seed}"


def _think_args(turn: selectors.ComputerTurn):
    """The search for ``turn`` as a picklable call (plain values only), to be answered within
    ``turn.seconds`` from now (``COMPUTER_SECONDS``, less when the match's clock is short): the
    time it waits for a free process comes off its thinking."""
    return partial(computer.choose_action_from_json, turn.game.slug, turn.game.state_to_json(turn.state),
                   seed=turn.seed, level=turn.user.computer_level or computer.STRONGEST,
                   seconds=turn.seconds, most_rounds=settings.COMPUTER_ITERATIONS,
                   answer_by=time.time() + turn.seconds)


def _think(turn: selectors.ComputerTurn) -> str:
    return _think_args(turn)()


def _submit_turn(turn: selectors.ComputerTurn, action: str) -> None:
    try:
        SERVICES.get().move_submit(match_id=turn.match_id, user=turn.user, action=action, version=turn.version)
    except ServiceError as err:
        if err.code not in {"stale_version", "match_over"}:
            raise


@cache
def _process_pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=settings.COMPUTER_PROCESSES,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=computer.get_ready, initargs=(settings.COMPUTER_NICE,))


@cache
def thinking_thread() -> ThreadPoolExecutor:
    """For a worker process, whose interpreter serves no web page: think in a thread of it."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="computer",
                              initializer=computer.get_ready, initargs=(settings.COMPUTER_NICE,))
