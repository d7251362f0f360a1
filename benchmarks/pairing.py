"""Quick pairing with 1,000 players waiting: pairings per second and the cost of each attempt.

Builds a throw-away database (SQLite in a temporary folder, or the PostgreSQL database named
by --database-url, which it migrates and empties), puts --waiting players in the pools (the
seven rule sets, rated and casual, ratings spread so that nobody waiting fits anybody else),
then:

- arrivals: players enter one by one, each with a rating close to one waiting player's, so
  each entry is a pairing (the match is created in the same transaction); a new waiting
  player replaces each one paired, so the pool stays at --waiting. With --threads > 1 the
  arrivals come from that many threads at once (row locks, SKIP LOCKED on PostgreSQL).
- retries: waiting players ask again with no partner in range (what each waiting page does
  every 2 s): the cost of an attempt that finds nobody.

The messages sent after commit are handed to an event loop that is not there (on a server
they leave from its event loop, off the thread that paired): only the hand-over is measured.

Prints pairings per second and the median, p95 and p99 latency of each kind of call.

    .venv/bin/python benchmarks/pairing.py [--waiting 1000] [--arrivals 400] [--threads 1]
        [--database-url postgres://postgres@127.0.0.1:5432/boardhall_bench]

Not a test: it prints figures for docs/benchmarks.md ("Quick pairing").
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import threading
import time

from throwaway import django_on_throwaway_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiting", type=int, default=1000)
    parser.add_argument("--arrivals", type=int, default=400)
    parser.add_argument("--retries", type=int, default=400)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()

    os.environ.pop("REDIS_URL", None)  # no pages listen: the on-commit messages go to the in-memory layer
    django_on_throwaway_database("pairing", args.database_url)
    from django.core.management import call_command
    from django.db import connection

    from games.runtime import eventloop

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    # On a server, what a pairing sends after commit (the pages' "paired", the lobby refresh)
    # leaves from the event loop, not from the thread that paired: here nothing listens, so
    # that hand-over is all it costs.
    eventloop.call_soon = lambda callback, *args: True
    # The clock stands still for the pool, so a waiting player's range does not grow while the
    # benchmark runs: what is measured is the cost of each attempt, at the ranges of the start.
    from types import SimpleNamespace

    from django.utils import timezone

    from games.services import pairing

    frozen = timezone.now()
    pairing.timezone = SimpleNamespace(now=lambda: frozen)
    bench = Bench(args.waiting)
    print(f"{args.waiting} players waiting in {len(bench.pools)} pools; {connection.vendor}; "
          f"{args.threads} thread(s)")
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; {platform.platform()}")

    arrivals = bench.run(args.arrivals, args.threads, bench.arrive)
    retries = bench.run(args.retries, args.threads, bench.retry)
    print(f"{'call':38} {'per second':>10} {'median ms':>10} {'p95 ms':>8} {'p99 ms':>8}")
    for name, (rate, times) in (("arrival that pairs (pool_enter)", arrivals),
                                ("retry that finds nobody (pool_pair)", retries)):
        q = statistics.quantiles(times, n=100)
        print(f"{name:38} {rate:10.0f} {statistics.median(times):10.2f} {q[94]:8.2f} {q[98]:8.2f}")
    print(f"matches made: {bench.matches()}, still waiting: {bench.waiting()}, "
          f"arrivals that found their group held by another arrival (they would retry): {bench.missed}")


class Bench:
    """The pools and the players; ``arrive`` and ``retry`` are the timed calls."""

    def __init__(self, waiting: int) -> None:
        from games.match.settings import MatchSettings
        from games.models import PoolEntry
        from games.rules import GAMES, get_game
        from games.services import pairing
        from lobby.models import User

        self.rng = random.Random(7)
        self.lock = threading.Lock()
        self.pools = [MatchSettings(info.slug, rated) for info in GAMES for rated in (False, True)]
        self.users = iter(User.objects.bulk_create(
            [User(username=f"bench-{i}", display_name=f"Bench {i}", name_key=f"bench {i}", password="!")
             for i in range(waiting * 4)], batch_size=1000))
        self.now = pairing.timezone.now()  # the pool's clock, frozen (main)
        # Within a pool, waiting players stand in groups 250 points apart, one player a group
        # (two for the three-player game, 30 points apart): no group can be paired by itself,
        # and a newcomer near a group completes it.
        self.need = {s.pool_key(): len(get_game(s.game).roles) - 1 for s in self.pools}
        self.slots = {key: [500 + 250 * (k // need) + 30 * (k % need) for k in range(waiting)]
                      for key, need in self.need.items()}
        PoolEntry.objects.bulk_create([self._entry(settings) for settings, count in zip(self.pools, self._counts(waiting))
                                       for _ in range(count)], batch_size=1000)
        self.missed = 0

    def _counts(self, waiting: int) -> list[int]:
        """Players waiting per pool: ``waiting`` in all, whole groups in each pool."""
        counts = [waiting // len(self.pools) + (i < waiting % len(self.pools)) for i in range(len(self.pools))]
        need = [self.need[s.pool_key()] for s in self.pools]
        for i, n in enumerate(need):
            while counts[i] % n:
                donor = next(j for j, m in enumerate(need) if m == 1 and counts[j] > 1)
                counts[i], counts[donor] = counts[i] + 1, counts[donor] - 1
        return counts

    def _entry(self, settings):
        from games.models import PoolEntry

        with self.lock:
            user, rating = next(self.users), self.slots[settings.pool_key()].pop(0)
        return PoolEntry(player=user, key=settings.pool_key(), settings=settings.to_json(), rating=rating,
                         channel_name=f"bench-{user.pk}", created_at=self.now, seen_at=self.now)

    def arrive(self) -> float:
        """A newcomer a few points from a waiting group enters (timed: ``pool_enter``, which
        pairs them and creates the match); the players paired are replaced by new waiting ones."""
        from games.match import ratings
        from games.models import PoolEntry, Rating
        from games.services import pool_enter, pool_leave

        with self.lock:
            settings = self.rng.choice(self.pools)
            newcomer, offset = next(self.users), self.rng.randint(-20, 20)
        target = PoolEntry.objects.filter(key=settings.pool_key()).order_by("?").values_list("rating", flat=True)[0]
        group = 500 + 250 * ((target - 500) // 250)
        mu = ratings.MODEL.mu + (group + 15 + offset - ratings.SHOWN_BASE) / ratings.SHOWN_PER_MU
        Rating.objects.create(player=newcomer, game=settings.game, mu=mu, sigma=2.0, games=20)
        start = time.perf_counter()
        match = pool_enter(user=newcomer, settings=settings, channel_name=f"bench-{newcomer.pk}")
        elapsed = (time.perf_counter() - start) * 1000
        if match is None:  # another thread's arrival holds that group (SKIP LOCKED): it would retry
            with self.lock:
                self.missed += 1
            pool_leave(user=newcomer, channel_name=f"bench-{newcomer.pk}")
        else:
            PoolEntry.objects.bulk_create([self._entry(settings) for _ in range(self.need[settings.pool_key()])])
        return elapsed

    def retry(self) -> float:
        """A waiting player asks again and finds nobody in range (timed: ``pool_pair``). On a
        server a page retries every 2 s and its entry's ``seen_at`` is written every 5 s: here
        one retry in three writes it."""
        from datetime import timedelta

        from games.models import PoolEntry
        from games.services import pairing, pool_pair

        entry = PoolEntry.objects.order_by("?").select_related("player").first()
        with self.lock:
            writes = self.rng.random() < 1 / 3
        if writes:
            PoolEntry.objects.filter(pk=entry.pk).update(seen_at=self.now - timedelta(seconds=pairing.STALE_SECONDS))
        start = time.perf_counter()
        assert pool_pair(user=entry.player, channel_name=entry.channel_name) is None
        return (time.perf_counter() - start) * 1000

    def run(self, count: int, threads: int, call) -> tuple[float, list[float]]:
        """Run ``call`` ``count`` times over ``threads`` threads: (calls per second of wall
        time, set-up of each call included, so a lower bound; each call's own milliseconds)."""
        from django.db import connection

        times: list[float] = []
        per_thread = count // threads

        def worker() -> None:
            mine = [call() for _ in range(per_thread)]
            with self.lock:
                times.extend(mine)
            connection.close()

        start = time.perf_counter()
        workers = [threading.Thread(target=worker) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return len(times) / (time.perf_counter() - start), times

    def matches(self) -> int:
        from games.models import Match

        return Match.objects.count()

    def waiting(self) -> int:
        from games.models import PoolEntry

        return PoolEntry.objects.count()


if __name__ == "__main__":
    main()
