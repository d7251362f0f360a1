"""Who has a match page open, kept where it is cheap: this process's memory on the embedded
set-up, Redis when several processes share the matches (``REDIS_URL``). Never database rows:
a spectator opening a page writes nothing to the database.

A page is one open websocket: ``(user id or None, last seen)``, refreshed by the page's pings.
A page that stopped pinging (its server process died) counts as gone since its last ping.
When a seated player's last page closes, the seat's ``away_since`` is stored in the database
(the one write, for players only), so a claim survives a restart.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from datetime import timezone as dt_timezone
from functools import cache
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.runtime import outages

KEY_TTL_SECONDS = 24 * 3600  # a match nobody opened for a day forgets its pages
SITE = 0  # no match has this id: the key of the site pages (one per page a signed-in player has open)
EVENT_STREAMS = "events"  # the key of the bot API's open event streams (one per stream, with its account)
Key = int | str  # a match id, SITE, EVENT_STREAMS, or a tournament's (``tournament_key``)


def tournament_key(tournament_id: int) -> str:
    """The key of a tournament's pages (``/ws/tournaments/<id>/``)."""
    return f"tournament.{tournament_id}"


class MemoryPages:
    """The pages of this process (the embedded set-up has only one)."""

    blocking = False  # its calls never wait on I/O: fine on the event loop

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pages: dict[Key, dict[str, tuple[int | None, float]]] = {}

    def enter(self, match_id: Key, channel: str, user_id: int | None) -> None:
        with self._lock:
            self._pages.setdefault(match_id, {})[channel] = (user_id, time.time())

    def touch(self, match_id: Key, channel: str) -> None:
        with self._lock:
            pages = self._pages.get(match_id, {})
            if channel in pages:
                pages[channel] = (pages[channel][0], time.time())

    def leave(self, match_id: Key, channel: str) -> None:
        with self._lock:
            pages = self._pages.get(match_id, {})
            pages.pop(channel, None)
            if not pages:
                self._pages.pop(match_id, None)

    def pages(self, match_id: Key) -> list[tuple[int | None, float]]:
        with self._lock:
            return list(self._pages.get(match_id, {}).values())

    def forget_all(self) -> None:
        with self._lock:
            self._pages.clear()


class RedisPages:
    """The pages of every process, in one Redis hash per match: channel -> "user id|last seen"."""

    blocking = True  # a round trip to Redis: call it off the event loop

    def __init__(self, url: str, prefix: str) -> None:
        from redis.backoff import NoBackoff  # noqa: PLC0415 (only the scaled set-up needs it)
        from redis.retry import Retry  # noqa: PLC0415

        from games.runtime import redisconn  # noqa: PLC0415

        # Fail fast when Redis is down (the page is told to retry); redis-py would otherwise
        # retry with growing back-off for several seconds.
        self._redis = redisconn.sync_client(url, socket_connect_timeout=2, socket_timeout=2, retry=Retry(NoBackoff(), 1))
        self._prefix = prefix

    def _key(self, match_id: Key) -> str:
        return f"{self._prefix}:pages:{match_id}"

    def enter(self, match_id: Key, channel: str, user_id: int | None) -> None:
        key = self._key(match_id)
        self._redis.pipeline().hset(key, channel, f"{user_id or ''}|{time.time()}").expire(key, KEY_TTL_SECONDS).execute()

    def touch(self, match_id: Key, channel: str) -> None:
        key = self._key(match_id)
        value = self._redis.hget(key, channel)
        if value is not None:
            self._redis.hset(key, channel, f"{value.decode().split('|')[0]}|{time.time()}")

    def leave(self, match_id: Key, channel: str) -> None:
        self._redis.hdel(self._key(match_id), channel)

    def pages(self, match_id: Key) -> list[tuple[int | None, float]]:
        out = []
        for value in self._redis.hgetall(self._key(match_id)).values():
            user, seen = value.decode().split("|")
            out.append((int(user) if user else None, float(seen)))
        return out

    def forget_all(self) -> None:
        """Drop every match's pages (a test's database is emptied; its match ids come back)."""
        keys = list(self._redis.scan_iter(match=f"{self._prefix}:pages:*", count=1000))
        if keys:
            self._redis.delete(*keys)


@cache
def store() -> MemoryPages | RedisPages:
    if settings.REDIS_URL:
        return RedisPages(settings.REDIS_URL, settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"])
    return MemoryPages()


def online_player_ids() -> set[int]:
    """The players with a site page open now (pinged within ``PRESENCE_TIMEOUT_SECONDS``)."""
    fresh_after = time.time() - settings.PRESENCE_TIMEOUT_SECONDS
    try:
        pages = store().pages(SITE)
    except outages.SERVICE_DOWN as err:  # Redis is away: the pages that list them still work
        outages.report_or_raise("reading who is online (listed as nobody)", err)
        return set()
    return {user_id for user_id, seen in pages if user_id is not None and seen >= fresh_after}


def match_presence(*, match_id: int, seats) -> dict[str, Any]:
    """Spectators watching, which seated players have the page open, and for how many whole
    seconds each absent player has been gone (``away``; computer and resigned seats are never
    away). ``claim_after``: the seconds after which the others may claim the match from an
    absent player whose turn it is. ``seats``: the match's seats with their players.

    ``spectators`` counts people, as lichess and Board Game Arena do, not pages: a signed-in
    viewer (a guest is an account too, and so is a bot reading the stream) counts once however
    many tabs and devices they watch from. A visitor who is not signed in has no identity the
    server could tell apart (no session is made for one, and one address may be a whole school
    or a mobile network's), so each of their pages counts on its own, as lichess counts its
    anonymous watchers by connection: two tabs of one such visitor count two."""
    now = timezone.now()
    fresh_after = time.time() - settings.PRESENCE_TIMEOUT_SECONDS
    present: list[int | None] = []
    stale: dict[int | None, float] = {}  # a page that stopped answering: gone since its last ping
    for user_id, seen in store().pages(match_id):
        if seen >= fresh_after:
            present.append(user_id)
        else:
            stale[user_id] = max(seen, stale.get(user_id, seen))
    taken = [s for s in seats if s.player_id is not None]
    by_player = {s.player_id: s.role for s in taken}
    online = {s.role: False for s in taken}
    watchers: set[int] = set()
    anonymous = 0
    for user_id in present:
        if user_id in by_player:
            online[by_player[user_id]] = True
        elif user_id is None:
            anonymous += 1
        else:
            watchers.add(user_id)
    away = {}
    for s in taken:
        if not online[s.role] and not s.resigned and not s.player.is_computer:
            last_ping = stale.get(s.player_id)
            gone = (s.away_since or (datetime.fromtimestamp(last_ping, dt_timezone.utc) if last_ping else None)
                    or s.joined_at or now)
            away[s.role] = max(0, int((now - gone).total_seconds()))
    return {"spectators": len(watchers) + anonymous, "online": online, "away": away,
            "claim_after": settings.ABANDON_SECONDS}
