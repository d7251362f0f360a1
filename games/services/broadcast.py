"""Push committed changes to the channel layer. Only ever after commit: nobody may see a
move that later rolls back. Delivery is at-most-once (channels-redis drops messages over
capacity), so every state message carries the full state and its version.

The send itself runs on the server's event loop, never on the database thread that made the
change: an ``on_commit`` hook hands the message over and returns at once. Messages to one
group leave in the order they were committed.
"""

from __future__ import annotations

import asyncio
import logging
import weakref

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games import selectors
from games.match.errors import ServiceError
from games.runtime import eventloop, outages
from games.selectors import snapshots

LOBBY_GROUP = "lobby"
logger = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def player_group(user_id: int) -> str:
    """Every site page a player has open (``live.consumers.lobby.SiteConsumer``) listens here."""
    return f"player.{user_id}"


def player_notify_on_commit(user_id: int, message: dict) -> None:
    """After commit, send ``message`` to every site page of the player ``user_id``."""
    transaction.on_commit(lambda: send(player_group(user_id), message), robust=True)


def session_group(session_digest: str) -> str:
    """Every socket a browser's session opened while signed in (``live.sockets.Socket``)."""
    return f"session.{session_digest}"


def session_ended_on_commit(session_digest: str) -> None:
    """After commit, close every socket of a session that logged out (``session.ended``)."""
    transaction.on_commit(lambda: send(session_group(session_digest), {"type": "session.ended"}), robust=True)


def mine_changed_on_commit(players) -> None:
    """After commit, tell the home pages of ``players`` (accounts seated in, or kept a seat in,
    a match new to them) to read their list of matches again. The computer has no pages."""
    for player in players:
        if player is not None and not player.is_computer:
            player_notify_on_commit(player.pk, {"type": "site.mine"})


def match_moved_on_commit(*, match, game, state, seats, previous_version: int, moves) -> None:
    """After commit, send the new state of ``match`` built from what the transaction holds:
    the move list remembered at ``previous_version`` plus ``moves``, and ``seats`` with players
    (and, when a bot is to move, where a GGP seat's PLAY stands: ``selectors.ggp_play``, one
    query). Call inside the transaction that recorded ``moves``."""
    prior = snapshots.move_list(match_id=match.pk, version=previous_version, plies=match.plies - len(moves),
                                game=game)
    moves_now = prior + tuple(snapshots.move_json(game, m.ply, m.role, m.action, getattr(m, "replaced", None))
                                 for m in moves)
    snapshot = snapshots.build(match=match, game=game, state=state, seats=seats, moves=moves_now,
                               ggp_play=selectors.ggp_play(match, game, state, seats))
    event = snapshots.state_event(snapshot, moves_now[-1] if moves else None)
    match_id, version = match.pk, match.version

    def after_commit() -> None:
        snapshots.move_lists.put(match_id, version, moves_now)
        send(match_group(match_id), event)

    transaction.on_commit(after_commit, robust=True)


def match_changed_on_commit(match_id: int) -> None:
    """After commit, read the match again and send its full state (seats, status or rematch
    changed: rare, so it may read). A match of rules this site no longer has has no state to
    send (its sockets are closed with ``unknown_rules``): nothing is sent."""
    def after_commit() -> None:
        try:
            snapshot = selectors.match_snapshot_by_id(match_id=match_id)
        except ServiceError as err:
            if err.code != "unknown_rules":
                raise
            return
        send(match_group(match_id), snapshots.state_event(snapshot, None))

    transaction.on_commit(after_commit, robust=True)


def lobby_changed_on_commit() -> None:
    """After commit, tell the lobby pages that their lists are stale. Only a small message
    leaves here: the processes that have lobby pages open read the lists themselves, once per
    process for all their pages (``live.lobby_lists``), so a change nobody is watching costs no
    read at all. On a server, changes that commit close together share one message, and it
    never leaves from the thread that committed."""
    transaction.on_commit(_lobby_changed, robust=True)


LOBBY_COALESCE_SECONDS = 0.2
LOBBY_STALE = {"type": "lobby.stale"}
_lobby_stale_pending: weakref.WeakSet = weakref.WeakSet()  # event loops with a message to come


def _lobby_changed() -> None:
    if not eventloop.call_soon(_lobby_stale_soon):
        send(LOBBY_GROUP, LOBBY_STALE)


def _lobby_stale_soon() -> None:
    loop = asyncio.get_running_loop()
    if loop not in _lobby_stale_pending:
        _lobby_stale_pending.add(loop)
        loop.call_later(LOBBY_COALESCE_SECONDS, _lobby_stale_now, loop)


def _lobby_stale_now(loop: asyncio.AbstractEventLoop) -> None:
    _lobby_stale_pending.discard(loop)  # later changes send another message
    _enqueue(LOBBY_GROUP, LOBBY_STALE)


def chat_posted_on_commit(message) -> None:
    """After commit, send one new chat line to everyone on the match's page."""
    line = selectors.chat_json(message)
    transaction.on_commit(lambda: send(match_group(message.match_id), {"type": "match.chat", "line": line}),
                          robust=True)


def match_notice_on_commit(match_id: int, text: str) -> None:
    """After commit, tell everyone on the match's page something the state does not show
    (an offer declined)."""
    transaction.on_commit(lambda: send(match_group(match_id), {"type": "match.notice", "text": text}), robust=True)


# -- delivery ----------------------------------------------------------------------------------

RESEND_SECONDS = 1.0
RESEND_FOR_SECONDS = 60.0  # then a page still waiting catches up only when it reconnects
_tails: dict[str, asyncio.Future] = {}  # per group, the last send still under way (event loop only)


def send(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` from the server's event loop without waiting for it; with
    no event loop behind this thread (a management command, a test), send and wait."""
    if not eventloop.call_soon(_enqueue, group, message):
        async_to_sync(_send_logged)(group, message)


def send_on_loop(group: str, message: dict) -> None:
    """``send`` from code that runs on the event loop (a socket's handler), behind the group's
    sends already under way."""
    _enqueue(group, message)


def _enqueue(group: str, message: dict) -> None:
    previous = _tails.get(group)
    if previous is not None and previous.get_loop() is not asyncio.get_running_loop():
        # A send of an event loop that has closed (a process that ran several: the tests, one
        # per test) may stay pending for good, and waiting on it would hold this group's
        # messages for good: there is nothing of that loop to keep order with.
        previous = None
    task = asyncio.ensure_future(_send_after(previous, group, message))
    _tails[group] = task
    task.add_done_callback(lambda done: _tails.pop(group, None) if _tails.get(group) is done else None)


async def _send_after(previous: asyncio.Future | None, group: str, message: dict) -> None:
    """A versioned state whose send failed because Redis could not be reached is sent again
    every ``RESEND_SECONDS`` for up to ``RESEND_FOR_SECONDS`` (the group's later messages wait
    behind it, in order). A process cut off from Redis while its own connections stay open
    (a network partition: no reset, nothing fails but the send) never learns that Redis was
    away, so its pages are not told to resync, and the other processes' pages, waiting for
    this move, have nothing to resync for: without the second send they would wait for good.
    A page drops a version it has, so a state that arrives twice changes nothing."""
    if previous is not None:
        await asyncio.wait([previous])
    deadline = asyncio.get_running_loop().time() + RESEND_FOR_SECONDS
    while not await _send_logged(group, message) and "version" in message \
            and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(RESEND_SECONDS)


async def _send_logged(group: str, message: dict) -> bool:
    """A committed change stays committed: a failed send is logged, and pages catch up by
    version. False when it failed because a service is away (a send that may be tried again)."""
    try:
        await get_channel_layer().group_send(group, message)
    except Exception as err:
        outages.report_or_log(f"sending {message.get('type')} (pages resync by version)", err, logger)
        return not outages.down(err)
    return True
