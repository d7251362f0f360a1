"""The computer's levels against each other: are the stronger levels stronger, and how long do they think?

For each game and each pair of levels, plays ``--games`` games (the sides alternate seats) with
``games.computer.search.choose_action`` at each level's search rounds (no time cap), and prints the
stronger side's wins, draws and losses with its mean score, and the median and p95 thinking
time per move of each level. Standard library only, no database:

    python3 benchmarks/computer.py [--games 20] [--slugs nine-board-tictactoe,quarto-misere]

Not a test: it prints figures for docs/benchmarks.md ("The computer player").
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.computer.search import LEVELS, choose_action  # noqa: E402
from games.rules import get_game  # noqa: E402


def play(game, levels_by_role: dict[str, int], rng: random.Random, think_times: dict[int, list[float]]) -> dict:
    state = game.initial_state()
    while not game.is_terminal(state):
        role = game.to_move(state)
        level = levels_by_role[role]
        started = time.perf_counter()
        action = choose_action(game, state, rng=rng, iterations=LEVELS[level - 1][1])
        think_times[level].append(time.perf_counter() - started)
        state = game.play(state, role, action)
    return game.goals(state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--slugs", default="nine-board-tictactoe,quarto-misere")
    args = parser.parse_args()
    print(f"{args.games} games per pair, Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}; "
          f"levels: {', '.join(f'{n} = {name} ({rounds} rounds)' for n, (name, rounds) in enumerate(LEVELS, 1))}")
    print("| game | stronger | weaker | won | drawn | lost | stronger's mean score |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    think_times: dict[int, list[float]] = {level: [] for level in range(1, len(LEVELS) + 1)}
    for slug in args.slugs.split(","):
        game = get_game(slug)
        for weak, strong in combinations(range(1, len(LEVELS) + 1), 2):
            won = drawn = lost = 0
            scores = []
            for n in range(args.games):
                roles = game.roles if n % 2 == 0 else game.roles[::-1]
                levels = {roles[0]: strong, roles[1]: weak}
                goals = play(game, levels, random.Random(f"{slug}:{weak}:{strong}:{n}"), think_times)
                mine, theirs = goals[roles[0]], goals[roles[1]]
                scores.append(mine)
                won += mine > theirs
                drawn += mine == theirs
                lost += mine < theirs
            print(f"| {slug} | {LEVELS[strong - 1][0]} | {LEVELS[weak - 1][0]} | {won} | {drawn} | {lost} "
                  f"| {statistics.mean(scores):.1f} |")
    print()
    print("| level | moves | median ms | p95 ms |")
    print("| --- | ---: | ---: | ---: |")
    for level, times in think_times.items():
        p95 = statistics.quantiles(times, n=100, method="inclusive")[94]
        print(f"| {LEVELS[level - 1][0]} | {len(times)} | {statistics.median(times) * 1000:.1f} | {p95 * 1000:.1f} |")


if __name__ == "__main__":
    main()
