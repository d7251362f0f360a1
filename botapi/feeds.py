"""The bot API's streams: newline-delimited JSON fed from the same channel-layer groups as the
pages (a match's group, a player's group), with an empty line first (Daphne sends the answer's
head only with the first line of its body) and every ``BOT_API_KEEPALIVE_SECONDS`` after, so
that a client and every proxy between know it is alive.

Each stream listens before it reads (a change committed between the read and the listening
would be lost otherwise) and then skips what its read already covered (by version). Delivery
on the channel layer is at most once, so every state line carries the full state: a client
that missed one, or reconnects, is whole again with the next (a reconnecting match stream
starts with ``gameFull``; the event stream with every open challenge and unfinished match).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from botapi import services
from botapi.limits import StreamSlot, limits

# Every games.* name this module uses, in one place (the games/ regroup re-points them).
from games import services as game_services
from games.models import Match
from games.runtime import presence
from games.runtime.presence import match_presence
from games.selectors import challenges_open, match_snapshot, matches_of_player
from games.selectors.rows import match_by_id
from games.selectors.snapshots import encode, state_event, viewer_message
from games.services.broadcast import match_group, player_group

OVER = (Match.Status.FINISHED, Match.Status.ABORTED)
REVOKED = "token.revoked"  # the stream's token was revoked (``services.token_revoke``): it ends at once
CHALLENGE_EVENTS = {"pending": "challenge", "declined": "challengeDeclined", "cancelled": "challengeCanceled",
                    "expired": "challengeCanceled"}


def line(content: dict[str, Any]) -> bytes:
    return encode(content).encode() + b"\n"


def _as(kind: str, message_text: str) -> dict[str, Any]:
    content = json.loads(message_text)
    content["type"] = kind
    return content


def viewer_state(*, match: Match, user_id: int | None) -> dict[str, Any]:
    """The match as the match stream's ``gameState`` line gives it to this viewer: ``version``,
    ``match`` (the full public state), ``last_move`` and ``you`` (roles held, the mover's legal
    actions)."""
    return _as("gameState", viewer_message(state_event(match_snapshot(match=match), None), user_id))


class Listener:
    """One channel of the layer, in some groups, with the keep-alive tick: ``next()`` returns the
    next group message, or None when ``BOT_API_KEEPALIVE_SECONDS`` passed without one. The
    layer's receive is never cancelled while it may hold a message (a cancelled receive could
    drop one): one receive stays pending across ticks."""

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.groups: set[str] = set()
        self._pending: asyncio.Future | None = None

    async def start(self, *groups: str) -> None:
        self.channel = await self.layer.new_channel()
        for group in groups:
            await self.join(group)

    async def join(self, group: str) -> None:
        if group not in self.groups:
            self.groups.add(group)
            await self.layer.group_add(group, self.channel)

    async def leave(self, group: str) -> None:
        if group in self.groups:
            self.groups.discard(group)
            await self.layer.group_discard(group, self.channel)

    async def next(self) -> dict[str, Any] | None:
        if self._pending is None:
            self._pending = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _ = await asyncio.wait({self._pending}, timeout=settings.BOT_API_KEEPALIVE_SECONDS)
        if not done:
            return None
        pending, self._pending = self._pending, None
        return pending.result()

    async def stop(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
        for group in list(self.groups):
            await self.leave(group)


# -- the match stream -----------------------------------------------------------------------------

def _match_open(match_id: int, user, channel: str):
    """The match's viewer state and the presence, read now that the stream listens (a change
    committed before would be lost from the read of the call that asked for the stream); the
    stream counts as a page on the match (a seated bot with its stream open is not away). That
    call decided that ``user`` may watch the match: it is not asked again."""
    match = match_by_id(match_id)
    if match is None:
        return None
    seats = game_services.presence_enter(match_id=match_id, channel_name=channel, user=user)
    game_services.move_memory_prime(match=match, seats=seats)
    state = json.loads(viewer_message(state_event(match_snapshot(match=match, seats=seats), None), user.pk))
    return state, match_presence(match_id=match_id, seats=seats)


def _match_close(match_id: int, user, channel: str) -> dict[str, Any]:
    seats = game_services.presence_leave(match_id=match_id, channel_name=channel, user=user)
    return match_presence(match_id=match_id, seats=seats)


async def match_lines(*, token, match_id: int, slot: StreamSlot) -> AsyncIterator[bytes]:
    """The match stream's lines for a viewer the call found may watch the match (not asked
    again). ``slot`` is the stream's,
    reserved by the call (``limits.stream_reserve``). What the stream holds (the slot, its
    listener, its page on the match) it takes once its lines run and gives back when they end:
    if they never run, nothing is held (botapi/limits.py says when that happens)."""
    limits.stream_begin(slot)
    user = token.user
    listener = Listener()
    on_page = False
    try:
        yield b"\n"  # the head at once (see above)
        await listener.start(services.token_group(token.pk), match_group(match_id))
        if not await database_sync_to_async(services.token_live)(token_id=token.pk):
            return  # revoked before the stream listened: its message went by
        # Set before the call: cancelled, the call still runs to its end on its thread, and the
        # page must be closed after it.
        on_page = True
        opened = await database_sync_to_async(_match_open)(match_id, user, listener.channel)
        if opened is None:
            return
        state, present = opened
        version = state["version"]
        roles = set(state["you"]["roles"])
        gone: dict[str, bool] = {}
        await listener.layer.group_send(match_group(match_id), {"type": "match.presence", "presence": present})
        yield line({**state, "type": "gameFull"})
        over = state["match"]["status"] in OVER
        while not over:
            message = await listener.next()
            if message is None:
                if not await database_sync_to_async(services.token_live)(token_id=token.pk):
                    return
                await database_sync_to_async(game_services.presence_touch)(match_id=match_id,
                                                                            channel_name=listener.channel)
                yield b"\n"
                continue
            kind = message["type"]
            if kind == REVOKED:
                return
            if kind == "match.state" and message["version"] >= version:
                version = message["version"]
                content = _as("gameState", viewer_message(message, user.pk))
                over = content["match"]["status"] in OVER
                yield line(content)
            elif kind == "match.chat":
                yield line({"type": "chatLine", **message["line"]})
            elif kind == "match.notice":
                yield line({"type": "notice", "text": message["text"]})
            elif kind == "match.presence":
                for role, online in message["presence"]["online"].items():
                    if role in roles or gone.get(role, False) == (not online):
                        continue
                    gone[role] = not online
                    yield line({"type": "opponentGone", "role": role, "gone": not online,
                                "claim_after": message["presence"]["claim_after"]})
    finally:
        limits.stream_release(slot)
        await listener.stop()
        if on_page:
            present = await database_sync_to_async(_match_close)(match_id, user, listener.channel)
            await listener.layer.group_send(match_group(match_id), {"type": "match.presence", "presence": present})


# -- the account's event stream ------------------------------------------------------------------

def _game_json(entry: dict[str, Any], user_id: int) -> dict[str, Any]:
    """A match as gameStart and gameFinish name it (from a list entry or a full state)."""
    return {"id": entry["id"], "game": entry["game"], "status": entry["status"],
            "roles": [s["role"] for s in entry["seats"] if s["player"] and s["player"]["id"] == user_id],
            "seats": [{"role": s["role"], "player": s["player"]} for s in entry["seats"]]}


def _match_entry(match_id: int) -> dict[str, Any] | None:
    match = match_by_id(match_id)
    return None if match is None else match_snapshot(match=match)


async def event_lines(*, token, slot: StreamSlot) -> AsyncIterator[bytes]:
    """The event stream's lines. Like ``match_lines``, it takes the slot and its listener once
    its lines run and gives them back when they end. While it is open, it counts its account
    as at the arenas it plays (``presence.EVENT_STREAMS``, touched with each keep-alive)."""
    limits.stream_begin(slot)
    user = token.user
    listener = Listener()
    started: set[int] = set()
    told: set[tuple[int, str]] = set()
    finished: set[int] = set()

    def challenge_line(challenge: dict[str, Any]) -> bytes | None:
        kind = CHALLENGE_EVENTS.get(challenge["status"])
        if kind is None or (challenge["id"], kind) in told:
            return None
        told.add((challenge["id"], kind))
        return line({"type": kind, "challenge": challenge})

    def start_line(entry: dict[str, Any]) -> bytes | None:
        if entry["status"] != Match.Status.ACTIVE or entry["id"] in started:
            return None
        started.add(entry["id"])
        return line({"type": "gameStart", "game": _game_json(entry, user.pk)})

    async def follow(match_id: int) -> list[bytes]:
        """A match new to the stream: listen to it, then read it (a start is told once)."""
        await listener.join(match_group(match_id))
        entry = await database_sync_to_async(_match_entry)(match_id)
        out = start_line(entry) if entry is not None else None
        return [out] if out else []

    streaming = False
    try:
        yield b"\n"  # the head at once (see above): an account with nothing open has no line for a while
        await listener.start(services.token_group(token.pk), player_group(user.pk))
        if not await database_sync_to_async(services.token_live)(token_id=token.pk):
            return  # revoked before the stream listened: its message went by
        # Set before the call, as the match stream's page: the entry is dropped however it ends.
        streaming = True
        await database_sync_to_async(presence.store().enter)(presence.EVENT_STREAMS, listener.channel, user.pk)
        # What the stream reads first, it listens to first: a match started or a challenge made
        # meanwhile is in both, and told once.
        challenges = await database_sync_to_async(challenges_open)(user=user)
        unfinished = await database_sync_to_async(matches_of_player)(user=user)
        for entry in unfinished:
            await listener.join(match_group(entry["id"]))
        for out in [challenge_line(c) for c in challenges] + [start_line(e) for e in unfinished]:
            if out:
                yield out
        while True:
            message = await listener.next()
            if message is None:
                if not await database_sync_to_async(services.token_live)(token_id=token.pk):
                    return
                await database_sync_to_async(presence.store().touch)(presence.EVENT_STREAMS, listener.channel)
                yield b"\n"
                continue
            kind = message["type"]
            if kind == REVOKED:
                return
            if kind == "site.challenge":
                challenge = message["challenge"]
                out = challenge_line(challenge)
                if out:
                    yield out
                if challenge["status"] == "accepted" and challenge["match"]:
                    for out in await follow(challenge["match"]):
                        yield out
            elif kind == "site.mine":
                for entry in await database_sync_to_async(matches_of_player)(user=user):
                    if match_group(entry["id"]) not in listener.groups:
                        await listener.join(match_group(entry["id"]))
                    out = start_line(entry)
                    if out:
                        yield out
            elif kind == "match.state":
                snapshot = json.loads(message["text"])
                out = start_line(snapshot)
                if out:
                    yield out
                if snapshot["status"] in OVER and snapshot["id"] not in finished:
                    finished.add(snapshot["id"])
                    await listener.leave(match_group(snapshot["id"]))
                    yield line({"type": "gameFinish", "game": {**_game_json(snapshot, user.pk),
                                                              "result": snapshot["result"]}})
    finally:
        limits.stream_release(slot)
        await listener.stop()
        if streaming:
            await database_sync_to_async(presence.store().leave)(presence.EVENT_STREAMS, listener.channel)


# -- a seek in the quick-game pool ----------------------------------------------------------------

SEEK_RETRY_SECONDS = (1.5, 2.5)  # as a waiting lobby page: look again every 2 s, give or take, so
# seeks that entered together do not keep looking together (each holding its own entry's lock)


def seek_channel(token_id: int) -> str:
    """The pool entry's channel name for a token's seek (one seek per token, as one per page)."""
    return f"api.seek.{token_id}"


def _seek_enter(user, settings, channel: str) -> tuple[set[int], Match | None]:
    """The player's unfinished matches before the seek, then the seek (``pool_enter``)."""
    before = {entry["id"] for entry in matches_of_player(user=user)}
    return before, game_services.pool_enter(user=user, settings=settings, channel_name=channel)


async def seek_enter(*, token, settings) -> tuple[set[int], Match | None]:
    """Enter the pool as the lobby's "Quick game" does (its refusals raise ``ServiceError``):
    the ids of the player's unfinished matches before, and the match if partners were waiting."""
    return await database_sync_to_async(_seek_enter)(token.user, settings, seek_channel(token.pk))


def _seek_look(user, channel: str, before: set[int]) -> tuple[str, dict[str, Any] | None]:
    """Look again (``pool_pair``): ``("waiting", None)``, ``("paired", the match's entry)`` or,
    once the entry is gone, ``("paired", ...)`` when the player sits in a match that was not
    there before the seek (another's arrival paired it), else ``("canceled", None)``."""
    try:
        match = game_services.pool_pair(user=user, channel_name=channel)
    except game_services.ServiceError as err:
        if err.code != "not_waiting":
            raise
        new = [entry for entry in matches_of_player(user=user) if entry["id"] not in before]
        return ("paired", new[0]) if new else ("canceled", None)
    return ("waiting", None) if match is None else ("paired", _match_entry(match.pk))


def _seek_leave(user, channel: str) -> None:
    game_services.pool_leave(user=user, channel_name=channel)


async def seek_lines(*, token, before: set[int], paired: Match | None, slot: StreamSlot) -> AsyncIterator[bytes]:
    """The seek stream's lines: an empty line at once and at every look, then ``gameStart``
    once paired, or ``seekCanceled`` once the seek is gone otherwise (cancelled, replaced by a
    new seek, a revoked token); the stream then ends. A stream that ends, or whose client goes
    away, leaves the pool (``pool_leave``)."""
    limits.stream_begin(slot)
    user, channel = token.user, seek_channel(token.pk)
    try:
        yield b"\n"
        entry = await database_sync_to_async(_match_entry)(paired.pk) if paired is not None else None
        while entry is None:
            await asyncio.sleep(random.uniform(*SEEK_RETRY_SECONDS))
            if not await database_sync_to_async(services.token_live)(token_id=token.pk):
                return
            status, entry = await database_sync_to_async(_seek_look)(user, channel, before)
            if status == "canceled":
                yield line({"type": "seekCanceled"})
                return
            if entry is None:
                yield b"\n"
        yield line({"type": "gameStart", "game": _game_json(entry, user.pk)})
    finally:
        limits.stream_release(slot)
        await database_sync_to_async(_seek_leave)(user, channel)
