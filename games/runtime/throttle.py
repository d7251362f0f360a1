"""Limits that hold across a client's sockets (and, with Redis, across server processes).

A client is a signed-in player (guests included) or, for anonymous visitors, an address. Per
client:

- **open sockets**: at most ``WS_MAX_SOCKETS`` match and lobby sockets at once; one more is told
  ``too_many_sockets`` and closed (close code 4429);
- **messages**: a token bucket of ``WS_RATE_BURST`` refilled at ``WS_RATE_PER_SECOND``, shared by
  the client's sockets on this process, and with Redis also a budget per ``WINDOW_SECONDS``
  (``WS_RATE_BURST + WS_RATE_PER_SECOND * WINDOW_SECONDS``) counted across every process. Over
  either, the message is refused with ``rate_limited`` and changes nothing.

So one person cannot slow everyone else's matches by opening sockets. Embedded, the counts live
in this process; with ``REDIS_URL``, open sockets are a sorted set per client (a socket is
counted while it pings; a crashed process's sockets age out) and the window a counter.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from functools import cache

from django.conf import settings

from games.runtime import outages

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 10
POOL_CONNECTIONS = 50  # a process's connections to Redis for the limits
# Each call to Redis for the limits, waiting for a pooled connection included, is bounded by one
# timer: a Redis that stopped answering fails it. The connections have no timeout of their own:
# redis-py would run every command as a task of its own to time it (as in live.layers).
CALL_SECONDS = 5.0
MAX_LEASE = 16  # messages of a client's shared budget a process takes from Redis at once
SOCKET_FRESH_SECONDS = 90  # a socket that has not pinged for this long no longer counts
MAX_REMEMBERED = 50_000  # buckets kept per process; full ones are forgotten first


# Forget the client's sockets that stopped pinging, then count this one if there is room.
# KEYS[1]: the client's sorted set; ARGV: now, stale before, the cap, the channel, the TTL.
OPEN_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


def client_key(scope) -> str:
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return f"u{user.pk}"
    client = scope.get("client") or ("unknown", 0)
    return f"a{client[0]}"


class TokenBucket:
    """At most ``burst`` messages at once, refilled at ``rate`` per second."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = float(burst), time.monotonic()
        self.lease_window, self.lease_left = -1, 0  # of the shared budget (RedisLimits)

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        return self.take_or_wait() == 0.0

    def take_or_wait(self) -> float:
        """Take one: 0.0 when taken, else the seconds until there is one (nothing taken)."""
        self._refill(time.monotonic())
        if self.tokens < 1:
            return (1 - self.tokens) / self.rate
        self.tokens -= 1
        return 0.0

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst


class MemoryLimits:
    """The embedded set-up's limits: this process sees every socket."""

    def __init__(self) -> None:
        self.buckets: dict[str, TokenBucket] = {}
        self.sockets: dict[str, set[str]] = {}

    async def open(self, client: str, channel: str) -> bool:
        mine = self.sockets.setdefault(client, set())
        if len(mine) >= settings.WS_MAX_SOCKETS:
            return False
        mine.add(channel)
        return True

    async def touch(self, client: str, channel: str) -> None:
        return None

    async def close(self, client: str, channel: str) -> None:
        mine = self.sockets.get(client)
        if mine is not None:
            mine.discard(channel)
            if not mine:
                del self.sockets[client]

    async def take(self, client: str) -> bool:
        return self._bucket(client).take()

    def _bucket(self, client: str) -> TokenBucket:
        found = self.buckets.get(client)
        if found is None:
            if len(self.buckets) >= MAX_REMEMBERED:
                now = time.monotonic()
                for key in [k for k, b in self.buckets.items() if b.full(now)]:
                    del self.buckets[key]
            found = self.buckets[client] = TokenBucket(settings.WS_RATE_PER_SECOND, settings.WS_RATE_BURST)
        return found


class RedisLimits(MemoryLimits):
    """The scaled set-up's limits: this process's bucket first (cheap, catches a flood), then
    the counts every process shares in Redis."""

    def __init__(self, url: str, prefix: str) -> None:
        super().__init__()
        self.url, self.prefix = url, prefix
        self._loops: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # event loop -> (client, open script)

    def _connection(self) -> tuple:
        """This event loop's Redis client and its registered ``OPEN_SCRIPT``."""
        from redis.asyncio.retry import Retry  # noqa: PLC0415 (only the scaled set-up needs it)
        from redis.backoff import NoBackoff  # noqa: PLC0415

        from games.runtime import redisconn  # noqa: PLC0415

        loop = asyncio.get_running_loop()
        connection = self._loops.get(loop)
        if connection is None:
            # Fail fast when Redis is down, as presence does; but when many sockets open or close
            # at once, wait for a connection of the pool rather than fail (redis-py's default
            # pool raises "Too many connections" past 100, and 800 closing sockets met it).
            client = redisconn.async_client(self.url, max_connections=POOL_CONNECTIONS, timeout=CALL_SECONDS,
                                            socket_connect_timeout=2, socket_timeout=None, retry=Retry(NoBackoff(), 1))
            connection = self._loops[loop] = (client, client.register_script(OPEN_SCRIPT))
        return connection

    def _redis(self):
        return self._connection()[0]

    def _key(self, kind: str, client: str) -> str:
        return f"{self.prefix}:limit:{kind}:{client}"

    async def open(self, client: str, channel: str) -> bool:
        """One round trip, and atomic: two sockets opening together on two processes cannot
        both take the client's last place."""
        script = self._connection()[1]
        now = time.time()
        async with asyncio.timeout(CALL_SECONDS):
            return bool(await script(keys=[self._key("sockets", client)],
                                     args=[now, now - SOCKET_FRESH_SECONDS, settings.WS_MAX_SOCKETS, channel,
                                           SOCKET_FRESH_SECONDS]))

    async def touch(self, client: str, channel: str) -> None:
        key = self._key("sockets", client)
        async with asyncio.timeout(CALL_SECONDS):
            await self._redis().pipeline().zadd(key, {channel: time.time()}, xx=True).expire(
                key, SOCKET_FRESH_SECONDS).execute()

    async def close(self, client: str, channel: str) -> None:
        async with asyncio.timeout(CALL_SECONDS):
            await self._redis().zrem(self._key("sockets", client), channel)

    async def take(self, client: str) -> bool:
        bucket = self._bucket(client)
        if not bucket.take():
            return False
        window = int(time.time() // WINDOW_SECONDS)
        if bucket.lease_window == window:
            if bucket.lease_left > 0:
                bucket.lease_left -= 1
                return True
            if bucket.lease_left < 0:  # the budget is spent for this window, on every process
                return False
        budget = int(settings.WS_RATE_BURST + settings.WS_RATE_PER_SECOND * WINDOW_SECONDS)
        lease = max(1, min(MAX_LEASE, budget // 8))
        key = self._key(f"window{window}", client)
        async with asyncio.timeout(CALL_SECONDS):
            count, _ = await self._redis().pipeline().incrby(key, lease).expire(key, 2 * WINDOW_SECONDS).execute()
        granted = max(0, min(lease, budget - (count - lease)))
        bucket.lease_window, bucket.lease_left = window, granted - 1
        return granted > 0


@cache
def limits() -> MemoryLimits:
    if settings.REDIS_URL:
        return RedisLimits(settings.REDIS_URL, settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"])
    return MemoryLimits()


# -- actions a client may take only so often (match and guest creation) ----------------------
# A count per client and window (a minute unless told; windows start at whole multiples of their
# length, so a day is a UTC day), in this process or, with Redis, shared by every process. Views
# ask (``action_allowed``) before calling the service; a refusal changes nothing.
ACTION_WINDOW_SECONDS = 60
DAY_SECONDS = 24 * 3600
action_counts: dict[tuple[str, str, int, int], int] = {}  # (action, client, window length, window) -> count


def action_allowed(action: str, client: str, limit: int, *, seconds: int = ACTION_WINDOW_SECONDS) -> bool:
    """Count one ``action`` by ``client`` (``u<id>``, ``a<address>``): False once it has been
    taken ``limit`` times in this window of ``seconds`` (the count goes on, so a flood stays
    refused)."""
    now = time.time()
    window = int(now // seconds)
    if settings.REDIS_URL:
        try:
            return _redis_count(f"{action}:{client}:{seconds}:{window}", seconds) <= limit
        except Exception as error:  # Redis is down: the database's own limits (waiting matches) still hold
            outages.report_or_log(f"counting {action} (allowed)", error, logger)
            return True
    if len(action_counts) >= MAX_REMEMBERED:
        for key in [k for k in action_counts if k[3] != int(now // k[2])]:
            del action_counts[key]
    key = (action, client, seconds, window)
    action_counts[key] = action_counts.get(key, 0) + 1
    return action_counts[key] <= limit


def _redis_count(name: str, seconds: int) -> int:
    key = f"{settings.CHANNEL_LAYERS['default']['CONFIG']['prefix']}:limit:action:{name}"
    count, _ = _sync_redis().pipeline().incr(key).expire(key, 2 * seconds).execute()
    return count


@cache
def _sync_redis():
    from games.runtime import redisconn  # noqa: PLC0415 (only the scaled set-up needs it)

    return redisconn.sync_client(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=CALL_SECONDS)
