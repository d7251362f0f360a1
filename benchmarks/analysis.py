"""How long a whole-match post-game analysis takes, per rule set.

For each rule set, plays ``--matches`` seeded matches between two easy computers (30 search
rounds a move: quick, and matches of a natural length), then analyses each one as the worker
does (``games.computer.analysis.evaluate_position`` on every position, ``--rounds`` search
rounds each, the analysis seeds, the move played there judged in the same search), and prints
per rule set the positions, the whole-match time (median and the longest) and the time per
position (median, p95); beside them, measured in the same run, the same evaluations without the
played move (the best move alone, as before the move was judged in the same search). Standard
library only, no database, one core:

    python3 benchmarks/analysis.py [--matches 3] [--rounds 3000] [--slugs nine-board-tictactoe,...]

Not a test: it prints figures for docs/benchmarks.md ("Post-game analysis").
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.computer.analysis import evaluate_position
from games.computer.search import LEVELS, choose_action
from games.match.analysis import match_positions
from games.rules import GAMES, get_game

EASY_ROUNDS = LEVELS[0].rounds


def a_match(slug: str, seed: int) -> list[tuple[str, str]]:
    game = get_game(slug)
    rng = random.Random(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        role = game.to_move(state)
        action = choose_action(game, state, rng=rng, iterations=EASY_ROUNDS)
        moves.append((role, action))
        state = game.play(state, role, action)
    return moves


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--slugs", default=",".join(info.slug for info in GAMES))
    args = parser.parse_args()
    print(f"{args.matches} matches per rule set (easy against easy), {args.rounds} rounds a position, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    print("| rule set | positions per match (median) | whole match s (median) | longest s | per position ms (median) "
          "| p95 ms | without the played move: whole match s (median) | per position ms (median) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for slug in args.slugs.split(","):
        timed: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
        lengths = []
        for seed in range(args.matches):
            moves = a_match(slug, seed)
            positions = match_positions(slug, moves)
            lengths.append(len(positions))
            for judged in (True, False):  # as the worker runs it, then the evaluation alone, side by side
                totals, per_position = timed[judged]
                started = time.perf_counter()
                for ply, state in enumerate(positions):
                    before = time.perf_counter()
                    evaluate_position(slug, state, ply, args.rounds, moves[ply][1] if judged and ply < len(moves) else None)
                    per_position.append(time.perf_counter() - before)
                totals.append(time.perf_counter() - started)
        (totals, per_position), (alone, alone_each) = timed[True], timed[False]
        print(f"| {slug} | {statistics.median(lengths):.0f} | {statistics.median(totals):.1f} | {max(totals):.1f} "
              f"| {statistics.median(per_position) * 1000:.0f} | {p95(per_position) * 1000:.0f} "
              f"| {statistics.median(alone):.1f} | {statistics.median(alone_each) * 1000:.0f} |", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
