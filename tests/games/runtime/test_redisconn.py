"""Connections to Redis beside the channel layer: straight to REDIS_URL, or through Sentinel."""

import pytest
import redis.asyncio.sentinel
import redis.sentinel

from games.runtime import redisconn

pytestmark = pytest.mark.pure


def test_a_url_gives_its_database_number_and_password():
    assert redisconn.url_options("redis://:p%40ss@sentinel:6379/4") == {"db": 4, "password": "p@ss"}
    assert redisconn.url_options("redis://sentinel") == {"db": 0}


def test_without_sentinels_the_clients_go_to_the_url(settings):
    settings.REDIS_SENTINELS = []
    client = redisconn.sync_client("redis://10.0.0.7:6380/2", socket_timeout=1)
    assert client.connection_pool.connection_kwargs["host"] == "10.0.0.7"
    assert client.connection_pool.connection_kwargs["db"] == 2


def test_with_sentinels_the_clients_ask_them_for_the_primary(settings):
    settings.REDIS_SENTINELS = [("10.0.0.5", 26379)]
    settings.REDIS_SENTINEL_MASTER = "site"
    client = redisconn.sync_client("redis://:pw@sentinel/3", socket_timeout=1)
    pool = client.connection_pool
    assert isinstance(pool, redis.sentinel.SentinelConnectionPool) and pool.service_name == "site"
    assert (pool.connection_kwargs["db"], pool.connection_kwargs["password"]) == (3, "pw")
    waiting = redisconn.async_client("redis://sentinel/1", max_connections=7, timeout=2.5).connection_pool
    assert isinstance(waiting, redis.asyncio.sentinel.SentinelConnectionPool)
    assert isinstance(waiting, redis.asyncio.BlockingConnectionPool)  # waits for a free connection
    assert (waiting.max_connections, waiting.timeout, waiting.service_name) == (7, 2.5, "site")
