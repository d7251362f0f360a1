"""Connections to Redis for the parts that talk to it beside the channel layer (presence, the
limits): straight to ``REDIS_URL``, or, with ``REDIS_SENTINELS``, to the primary that Redis
Sentinel names, asked again after a failover. The channel layer's own entry is made in
``config/settings.py`` (``redis_host_entry``), from the same settings.

With Sentinel, ``REDIS_URL`` still gives the database number and the password; its host and
port are not used."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

import redis
import redis.asyncio
import redis.asyncio.sentinel
import redis.sentinel
from django.conf import settings

SENTINEL_SECONDS = 2.0  # a sentinel that does not answer in this long is passed over for the next


def url_options(url: str) -> dict:
    """The database number and password of a ``redis://`` URL, as connection options."""
    parts = urlsplit(url)
    options: dict = {"db": int(parts.path.strip("/") or 0)}
    if parts.password:
        options["password"] = unquote(parts.password)
    return options


def _sentinel_options() -> dict:
    return {"socket_connect_timeout": SENTINEL_SECONDS, "socket_timeout": SENTINEL_SECONDS}


def sync_client(url: str, **options) -> redis.Redis:
    """A blocking client of ``url``'s Redis (of the primary Sentinel names, when
    ``REDIS_SENTINELS`` is set), with these connection ``options``."""
    if not settings.REDIS_SENTINELS:
        return redis.Redis.from_url(url, **options)
    sentinel = redis.sentinel.Sentinel(settings.REDIS_SENTINELS, sentinel_kwargs=_sentinel_options())
    return sentinel.master_for(settings.REDIS_SENTINEL_MASTER, **url_options(url), **options)


class _BlockingSentinelPool(redis.asyncio.sentinel.SentinelConnectionPool, redis.asyncio.BlockingConnectionPool):
    """Sentinel's pool that waits for a free connection rather than refusing one past its size,
    as ``BlockingConnectionPool`` does for a plain URL."""


def async_client(url: str, *, max_connections: int, timeout: float, **options) -> redis.asyncio.Redis:
    """An asyncio client, as ``sync_client``, whose pool holds ``max_connections`` and waits up
    to ``timeout`` for a free one."""
    if not settings.REDIS_SENTINELS:
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=timeout, **options)
        return redis.asyncio.Redis(connection_pool=pool)
    sentinel = redis.asyncio.sentinel.Sentinel(settings.REDIS_SENTINELS, sentinel_kwargs=_sentinel_options())
    return sentinel.master_for(settings.REDIS_SENTINEL_MASTER, connection_pool_class=_BlockingSentinelPool,
                               max_connections=max_connections, timeout=timeout,
                               **url_options(url), **options)
