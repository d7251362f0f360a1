"""One Swiss round's pairing (the pure FIDE Dutch pairing, ``tournaments.swiss_pairing.swiss_pairs``,
py4swiss underneath) for 100, 1,000 and 5,000 players: the median, minimum and maximum of --runs
pairings each.

The round timed is round ``--round`` of a tournament of ``--rounds``: the rounds before it are
paired quickly in score order (not timed) and given random results (a fixed seed: a win for
either side or a draw, one in five games drawn), so score groups, colour histories and players
met stand as in a tournament under way. The database work of a round (reading the history, creating the matches)
is not measured here.

    .venv/bin/python benchmarks/swiss_rounds.py [--runs 3] [--sizes 100 1000 5000] [--round 4] [--rounds 7]

Not a test: it prints figures for docs/tournaments.md ("Swiss").
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.swiss_pairing import Kind, Slot, swiss_pairs


def history_before(size: int, round_number: int, rng: random.Random) -> dict[int, list[Slot]]:
    """The history of ``size`` players after ``round_number - 1`` rounds, paired quickly rather
    than by the Dutch rules (only the round timed is): each round the players in score order,
    each one with the next one below not met yet, the one who moved first less often first; the
    last one left over gets the bye, once."""
    history: dict[int, list[Slot]] = {p: [] for p in range(size)}
    for _ in range(round_number - 1):
        order = sorted(history, key=lambda p: (-sum(s.points for s in history[p]), p))
        had_bye = {p for p in order if any(s.kind == Kind.BYE for s in history[p])}
        if len(order) % 2:
            bye = next(p for p in reversed(order) if p not in had_bye)
            order.remove(bye)
            history[bye].append(Slot(Kind.BYE, 1.0))
        while order:
            one = order.pop(0)
            met = {s.opponent for s in history[one]}
            other = next((p for p in order if p not in met), order[0])
            order.remove(other)
            firsts = {p: sum(1 if s.first else -1 for s in history[p] if s.opponent is not None) for p in (one, other)}
            first, second = (one, other) if firsts[one] <= firsts[other] else (other, one)
            points = rng.choice([1.0, 1.0, 0.0, 0.0, 0.5])
            history[first].append(Slot(Kind.GAME, points, second, True))
            history[second].append(Slot(Kind.GAME, 1.0 - points, first, False))
    return history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--round", type=int, default=4, help="the round timed (the ones before it are played)")
    parser.add_argument("--rounds", type=int, default=7, help="the tournament's number of rounds")
    options = parser.parse_args()
    if not 1 <= options.round <= options.rounds:
        parser.error("--round must be between 1 and --rounds")
    print(f"round {options.round} of {options.rounds}")
    print("| players | games | median s | min s | max s | median CPU s |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in options.sizes:
        history = history_before(size, options.round, random.Random(size))
        players = list(range(size))
        times, cpu, games = [], [], 0
        for _ in range(options.runs):
            start, start_cpu = time.perf_counter(), time.process_time()
            games = len(swiss_pairs(players=players, history=history, rounds=options.rounds).pairs)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        print(f"| {size:,} | {games:,} | {statistics.median(times):.3f} | {min(times):.3f} | {max(times):.3f} "
              f"| {statistics.median(cpu):.3f} |", flush=True)


if __name__ == "__main__":
    main()
