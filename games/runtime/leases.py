"""Leases: one process at a time, across hosts, on a piece of work that is not a database row
of its own (the computer's turn at one version of a match).

A lease is a Redis key set only if absent (``SET NX PX``), holding a token of its holder, that
expires by itself after its stated time: a holder that dies (its host gone) loses the work
when the time is up, and the next process asked for it takes it. A holder that was a process
of this host that no longer runs (a restart: ``games.runtime.holders``) loses it at once to the
next process of the host that asks. Its holder gives it back when done (deleted only if the
token is still its own, so a late release never frees a lease another took after expiry). The
keys carry ``CHANNEL_LAYER_PREFIX``, as every Redis key of the site does.

Without ``REDIS_URL`` (the embedded set-up: one process) every lease is granted. With Redis
away, a lease is granted too, and a warning logged: a lease here only saves work done twice
(the work's own write refuses a second result, e.g. a stale version), so the work goes on
rather than wait for Redis. A Redis failover that loses a fresh key can likewise let a second
holder in, with the same outcome.
"""

from __future__ import annotations

import secrets
from functools import cache

from django.conf import settings

from games.runtime import outages
from games.runtime.holders import holder_gone, holder_here

CALL_SECONDS = 2.0  # a lease call that gets no answer from Redis within this counts as Redis away

# Delete KEYS[1] if it still holds ARGV[1] (this holder's token).
RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Set KEYS[1] to ARGV[1] for ARGV[2] ms if it still holds ARGV[3] (a token whose holder is gone).
TAKE_OVER_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[3] then return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return false
"""


def lease_key(name: str) -> str:
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "boardhall")
    return f"{prefix}:lease:{name}"


def lease_take(name: str, *, seconds: float) -> str | None:
    """Take the lease ``name`` for ``seconds``: its token when this process now holds it, None
    when another holder has it. Blocking (one round trip to Redis): call it off the event loop."""
    token = f"{secrets.token_hex(8)} {holder_here()}"
    if not settings.REDIS_URL:
        return token
    key, ms = lease_key(name), max(1, int(seconds * 1000))
    try:
        if _redis().set(key, token, nx=True, px=ms):
            return token
        held = _redis().get(key)
        if held is not None and holder_gone(held.decode().partition(" ")[2]):
            return token if _redis().eval(TAKE_OVER_SCRIPT, 1, key, token, ms, held) else None
    except outages.SERVICE_DOWN as err:
        outages.report("taking a lease (the work goes on without one)", err)
        return token
    return None


def lease_release(name: str, token: str) -> None:
    """Give back the lease ``name`` if ``token`` still holds it (else it expired and may be
    another's: left alone). Blocking, as ``lease_take``."""
    if not settings.REDIS_URL:
        return
    try:
        _redis().eval(RELEASE_SCRIPT, 1, lease_key(name), token)
    except outages.SERVICE_DOWN as err:
        outages.report("giving back a lease (it expires by itself)", err)


def lease_holder(name: str) -> str | None:
    """The token holding ``name`` now (None: free, or no Redis)."""
    if not settings.REDIS_URL:
        return None
    value = _redis().get(lease_key(name))
    return value.decode() if value is not None else None


@cache
def _redis():
    """A blocking client of the Redis primary (Sentinel's, with ``REDIS_SENTINELS``)."""
    from games.runtime import redisconn  # noqa: PLC0415 (only the scaled set-up needs it)

    return redisconn.sync_client(settings.REDIS_URL, socket_connect_timeout=CALL_SECONDS, socket_timeout=CALL_SECONDS)
