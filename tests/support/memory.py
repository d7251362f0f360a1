"""What a process remembers between tests, and forgetting it.

The database is emptied after each test, and its ids come back (SQLite gives the next row the
largest id plus one): a process that remembers match 1 at version 4 from one test would serve
that memory for the next test's match 1. The test process forgets after each test
(``tests/conftest.py``); a live Daphne child forgets when told (``LiveServer.forget``)."""

from __future__ import annotations

FORGOT = "boardhall-test: forgot"  # what a live server's log says each time it has forgotten


def forget_process_memory() -> None:
    """Forget the pages open on a match, move lists, the matches moved in, timers, caches, the
    throttle's counts, the matches of unknown rules already warned about and whether the clock
    sweep looked for them."""
    from django.core.cache import cache

    from botapi.limits import limits as api_limits
    from games.match import clocks, rulesets
    from games.runtime import outages, presence, throttle
    from games.selectors import snapshots
    from games.services import clocks as clock_services
    from games.services import flagfall, moves
    from live.consumers import match as match_sockets

    try:
        presence.store().forget_all()
    except Exception:  # a test pointed REDIS_URL where nothing listens: nothing of it to forget
        pass
    finally:
        presence.store.cache_clear()  # never keep a store made under one test's settings
    snapshots.move_lists.clear()
    moves.known.clear()
    match_sockets.resent.clear()
    rulesets.forget()
    clock_services.forget()
    flagfall.reset()
    outages.forget()
    clocks.use_time(None)
    cache.clear()
    import redis

    try:
        limits = throttle.limits()
        if isinstance(limits, throttle.RedisLimits):
            client = redis.Redis.from_url(limits.url)
            keys = list(client.scan_iter(match=f"{limits.prefix}:limit:*", count=1000))
            if keys:
                client.delete(*keys)
    except (redis.exceptions.ConnectionError, KeyError):  # a test's REDIS_URL with no Redis there
        pass
    finally:
        throttle.limits.cache_clear()
    throttle.action_counts.clear()
    api_limits.clear()
