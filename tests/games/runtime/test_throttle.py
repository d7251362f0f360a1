"""Client limits (games/runtime/throttle.py): open sockets and a message budget per client, held across
the client's sockets, and with Redis across server processes."""

import asyncio
import time

import pytest
from django.conf import settings as live

from games.runtime import throttle
from tests.support.hung import hung_redis


@pytest.fixture
async def processes(request):
    """Two processes' limits on the test's Redis, under a prefix of this test, removed after."""
    if not live.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    prefix = f"{live.CHANNEL_LAYERS['default']['CONFIG']['prefix']}-{request.node.name}"
    one, two = throttle.RedisLimits(live.REDIS_URL, prefix), throttle.RedisLimits(live.REDIS_URL, prefix)
    yield one, two
    client = one._redis()
    keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
    if keys:
        await client.delete(*keys)


async def test_a_clients_sockets_share_one_cap_and_one_bucket(settings):
    settings.WS_MAX_SOCKETS, settings.WS_RATE_BURST, settings.WS_RATE_PER_SECOND = 2, 3, 0.001
    limits = throttle.MemoryLimits()
    assert await limits.open("u1", "a") and await limits.open("u1", "b")
    assert not await limits.open("u1", "c") and await limits.open("u2", "c")
    await limits.close("u1", "a")
    assert await limits.open("u1", "c")
    assert [await limits.take("u1") for _ in range(4)] == [True, True, True, False]
    assert await limits.take("u2")


@pytest.mark.services
async def test_two_processes_share_the_counts_in_redis(settings, processes):
    settings.WS_MAX_SOCKETS, settings.WS_RATE_BURST, settings.WS_RATE_PER_SECOND = 2, 3, 0.1
    one, two = processes
    assert await one.open("u1", "a") and await two.open("u1", "b")
    assert not await one.open("u1", "c")  # the other process's socket counts
    await two.close("u1", "b")
    assert await one.open("u1", "c")
    budget = settings.WS_RATE_BURST + int(settings.WS_RATE_PER_SECOND * throttle.WINDOW_SECONDS)  # 4
    takes = [await one.take("u9") for _ in range(3)] + [await two.take("u9") for _ in range(3)]
    assert takes.count(True) <= budget and takes[-1] is False  # each process's bucket allows 3


@pytest.mark.services
async def test_processes_lease_the_shared_budget_and_never_exceed_it(settings, processes):
    settings.WS_RATE_BURST, settings.WS_RATE_PER_SECOND = 40, 0.001  # budget 40: leases of 5
    one, two = processes
    window = int(time.time() // throttle.WINDOW_SECONDS)
    assert [await one.take("u5") for _ in range(3)] == [True] * 3
    key = one._key(f"window{window}", "u5")
    if int(time.time() // throttle.WINDOW_SECONDS) == window:  # not across a window's end
        assert int(await one._redis().get(key)) == 5  # one round trip for the three
    takes = [await process.take("u5") for _ in range(40) for process in (one, two)]
    allowed = 3 + takes.count(True)
    assert 40 - 2 * 4 <= allowed <= 40  # a process's unused lease at most is lost
    assert takes[-2:] == [False, False]


@pytest.mark.services
async def test_many_sockets_closing_at_once_wait_for_a_connection_instead_of_failing(processes):
    limits, _ = processes
    await asyncio.gather(*(limits.open("u1", f"c{n}") for n in range(3 * throttle.POOL_CONNECTIONS)))
    await asyncio.gather(*(limits.close("u1", f"c{n}") for n in range(3 * throttle.POOL_CONNECTIONS)))
    assert await limits._redis().zcard(limits._key("sockets", "u1")) == 0


@pytest.mark.services
async def test_sockets_opening_together_on_two_processes_never_pass_the_cap(settings, processes):
    settings.WS_MAX_SOCKETS = 5
    one, _ = processes
    admitted = await asyncio.gather(*(process.open("u3", f"c{n}-{i}") for n in range(10)
                                      for i, process in enumerate(processes)))
    assert admitted.count(True) == 5
    assert await one._redis().zcard(one._key("sockets", "u3")) == 5


@pytest.mark.services
async def test_a_socket_that_stopped_pinging_gives_its_place_back(settings, processes):
    settings.WS_MAX_SOCKETS = 1
    one, two = processes
    key = one._key("sockets", "u4")
    await one._redis().zadd(key, {"dead": time.time() - throttle.SOCKET_FRESH_SECONDS - 1})
    assert await two.open("u4", "alive")
    assert not await one.open("u4", "another")
    assert await one._redis().ttl(key) > 0


async def test_a_redis_that_stopped_answering_fails_each_call_in_time(monkeypatch):
    """The connections have no timeout of their own: each call is bounded by one timer."""
    monkeypatch.setattr(throttle, "CALL_SECONDS", 0.3)
    loop = asyncio.get_running_loop()
    async with hung_redis() as (url, heard):
        limits = throttle.RedisLimits(url, "silent")
        for call in (lambda: limits.open("u1", "c1"), lambda: limits.close("u1", "c1"),
                     lambda: limits.touch("u1", "c1")):
            started = loop.time()
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(call(), 5)
            assert loop.time() - started < 2
        assert heard  # the calls did reach the server


@pytest.mark.services
async def test_a_call_to_redis_runs_no_timing_task_of_its_own(settings, processes, monkeypatch):
    """redis-py times a command with a socket timeout by running it under ``asyncio.wait_for``
    (a task per command); the limits' connections have none, so no such task is made."""
    limits, _ = processes
    timed = []
    real = asyncio.wait_for

    def counting(*args, **kwargs):
        timed.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(asyncio, "wait_for", counting)
    assert await limits.open("u9", "c1")
    assert await limits.take("u9")
    await limits.touch("u9", "c1")
    await limits.close("u9", "c1")
    assert timed == []


@pytest.mark.pure
def test_a_days_count_outlives_the_minutes_forgotten_around_it(clock, monkeypatch):
    """In memory, full counts of past windows are forgotten: each by its own window's length,
    so a day's count stays while the minutes around it come and go."""
    monkeypatch.setattr(throttle, "MAX_REMEMBERED", 2)
    assert throttle.action_allowed("guest-day", "a1", 1, seconds=throttle.DAY_SECONDS)
    assert throttle.action_allowed("guest", "a1", 1)
    clock[0] += 120  # two minutes on: the minute's count is past, the day's is not
    assert throttle.action_allowed("guest", "a2", 1)  # full: forgets what is past
    assert ("guest", "a1", 60, int((clock[0] - 120) // 60)) not in throttle.action_counts
    assert not throttle.action_allowed("guest-day", "a1", 1, seconds=throttle.DAY_SECONDS)
