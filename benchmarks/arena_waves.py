"""One arena pairing wave (the pure matching, ``tournaments.arena_pairing.pair``) for 100, 1,000
and 5,000 free players: the median, minimum and maximum of --runs waves each.

The players stand as in an arena under way: distinct ranks, ratings spread over 1,000 to 2,200,
each with a last opponent among the others and a first-move balance of -2 to 2 (a fixed seed, so
every run pairs the same pools). The database work of a wave (reading the table, creating the
matches) is not measured here.

    .venv/bin/python benchmarks/arena_waves.py [--runs 5] [--sizes 100 1000 5000]

Not a test: it prints figures for docs/tournaments.md ("Arena").
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.arena_pairing import Free, pair


def pool(size: int, rng: random.Random) -> list[Free]:
    ranks = list(range(1, size + 1))
    rng.shuffle(ranks)
    return [Free(i, rank=ranks[i], rating=rng.randint(1000, 2200), last_opponent=rng.randrange(size),
                 first_balance=rng.randint(-2, 2), last_first=rng.choice([True, False])) for i in range(size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    options = parser.parse_args()
    print("| free players | games | median s | min s | max s |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for size in options.sizes:
        players = pool(size, random.Random(size))
        times, games = [], 0
        for _ in range(options.runs):
            start = time.perf_counter()
            games = len(pair(players))
            times.append(time.perf_counter() - start)
        print(f"| {size:,} | {games:,} | {statistics.median(times):.3f} | {min(times):.3f} | {max(times):.3f} |")


if __name__ == "__main__":
    main()
