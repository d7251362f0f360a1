"""Random playouts per second for every rule set, through ``Game.random_playout`` (the computer
player's interface). Prints the median and spread of several timed runs; not a test.

    python3 benchmarks/rules.py [--runs 7] [--seconds 2]

Also prints, side by side in the same run, the rate of full random games played through the
public GDL-text surface (``legal_actions`` + ``play``), which is what the server uses per move.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.rules import GAMES, get_game

TARGETS = {"nine-board": 20_000, "three-player": 10_000, "quarto": 15_000}


def rate(step, seconds: float) -> float:
    """Calls of ``step`` per second over about ``seconds``."""
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            step()
        count += 50
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def text_game(game, rng: random.Random) -> None:
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {args.runs} runs of {args.seconds:g} s each")
    print(f"{'rule set':28} {'playouts/s median':>18} {'min':>9} {'max':>9} {'target':>8}  {'text-API games/s':>16}")
    for info in GAMES:
        game = get_game(info.slug)
        rng = random.Random(1)
        start = game.initial_state()
        fast = [rate(lambda: game.random_playout(start, rng), args.seconds) for _ in range(args.runs)]
        slow = [rate(lambda: text_game(game, rng), args.seconds / 2) for _ in range(3)]
        target = TARGETS[info.family]
        verdict = "ok" if statistics.median(fast) >= target else "BELOW"
        print(f"{info.slug:28} {statistics.median(fast):18,.0f} {min(fast):9,.0f} {max(fast):9,.0f} "
              f"{target:8,} {verdict:5} {statistics.median(slow):10,.0f}")


if __name__ == "__main__":
    main()
