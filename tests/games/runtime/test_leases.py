"""Leases across processes (``games.runtime.leases``): one holder at a time while it lasts,
given back only by its holder, free again once its time is up; every lease granted without
Redis (one process) and while Redis is away (the work goes on, a warning said once); one of a
gone process of this host taken at once."""

import logging
import subprocess

import pytest

from games.runtime import holders, leases, outages
from tests.support.live import free_port
from tests.support.waits import until_here


@pytest.fixture
def fresh_client():
    leases._redis.cache_clear()
    yield
    leases._redis.cache_clear()


def needs_redis(settings) -> None:
    if not settings.REDIS_URL:
        pytest.skip("leases are kept in Redis (REDIS_URL): bin/test stage 2")


@pytest.mark.services
def test_one_holder_at_a_time_and_only_the_holder_gives_it_back(settings, fresh_client):
    needs_redis(settings)
    first = leases.lease_take("test-one-holder", seconds=30)
    assert first is not None and leases.lease_holder("test-one-holder") == first
    assert leases.lease_take("test-one-holder", seconds=30) is None
    leases.lease_release("test-one-holder", "not-the-holders-token")
    assert leases.lease_holder("test-one-holder") == first
    leases.lease_release("test-one-holder", first)
    second = leases.lease_take("test-one-holder", seconds=30)
    assert second is not None and second != first
    leases.lease_release("test-one-holder", second)


@pytest.mark.services
def test_a_lease_whose_holder_died_is_free_once_its_time_is_up(settings, fresh_client):
    needs_redis(settings)
    dead = leases.lease_take("test-expiry", seconds=0.2)  # its holder never gives it back
    assert dead is not None and leases.lease_take("test-expiry", seconds=30) is None
    taken = until_here(lambda: leases.lease_take("test-expiry", seconds=30), "the lease free again")
    leases.lease_release("test-expiry", dead)  # the dead holder's late release frees nothing
    assert leases.lease_holder("test-expiry") == taken
    leases.lease_release("test-expiry", taken)


@pytest.mark.services
def test_a_lease_of_a_gone_process_of_this_host_is_taken_at_once_one_elsewhere_is_not(settings, fresh_client):
    """A restart: the process that held the lease on this host no longer runs, so the next one
    need not wait for the lease to run out. A holder on another host cannot be judged from here."""
    needs_redis(settings)
    gone = subprocess.Popen(["true"])
    gone.wait()
    leases._redis().set(leases.lease_key("test-gone"), f"abc {holders.HOST}:{gone.pid}:0000", px=30_000)
    leases._redis().set(leases.lease_key("test-elsewhere"), "abc another-host:1:0000", px=30_000)
    taken = leases.lease_take("test-gone", seconds=30)
    assert taken is not None and leases.lease_holder("test-gone") == taken
    assert leases.lease_take("test-elsewhere", seconds=30) is None
    for name in ("test-gone", "test-elsewhere"):
        leases._redis().delete(leases.lease_key(name))


def test_without_redis_every_lease_is_granted(settings, fresh_client):
    settings.REDIS_URL = ""
    assert leases.lease_take("test-no-redis", seconds=30) and leases.lease_take("test-no-redis", seconds=30)
    leases.lease_release("test-no-redis", "any")


def test_with_redis_away_the_lease_is_granted_and_said_once(settings, fresh_client, caplog):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    outages.forget()
    with caplog.at_level(logging.WARNING):
        assert leases.lease_take("test-away", seconds=30) and leases.lease_take("test-away", seconds=30)
        leases.lease_release("test-away", "any")
    said = [r.getMessage() for r in caplog.records if "lease" in r.getMessage()]
    assert len(said) == 2 and "the work goes on without one" in said[0] and "expires by itself" in said[1]
