"""How often the expert finds a forced win in classic misère Quarto positions where it missed one.

Six positions after 15 plies (white to place, 9 pieces left), from 48 games the expert played
as white against the plain UCT at one second a move (the expert with contempt 25, before
``win_share``, as at commit e314f52):
white had a forced win in each, and played a losing move in four. The winning placements are
found here by the rules' exact search, not written down. For each position and seed the
expert (with ``--set`` changes, as in ``strength.py``) chooses a move in ``--seconds`` of
wall-clock time; a move counts when it keeps the win. Run several at once to share the
machine as ``strength.py``'s series do (its figures: docs/computer.md, "The search, part by part").

    python3 benchmarks/forced_wins.py --set win_share=0.7 --seeds 4 --first-seed 4

Not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.strength import expert_with
from games.computer import search
from games.rules import get_game

SLUG = "quarto-misere-classic"
# game number (strength.py's seeds were not used: a recording run's), then its first 15 plies' pieces and cells
POSITIONS = {
    5012: "1000 44 1100 24 0000 33 1011 14 1010 12 1101 41 1111 43 1110",
    5014: "1011 14 0011 42 0101 41 0100 31 1000 23 1010 24 1110 34 0110",
    5100: "1111 31 1100 34 0011 22 1010 23 0101 14 0010 21 1001 44 1101",
    5200: "1100 43 0111 24 0011 32 1001 12 1111 22 1011 14 0001 34 0101",
    5202: "0011 43 1001 14 1101 12 1110 34 0010 44 0100 31 1010 22 0110",
    5214: "0000 22 1000 11 0101 44 1100 21 1010 14 1001 12 1101 24 0001",
}


def moves(compact: str) -> list[str]:
    """``"1000 44 1100 ..."`` -> ``["(select p1000)", "(place p1000 4 4)", "(select p1100)", ...]``."""
    words = compact.split()
    actions = []
    for index, piece in enumerate(words[::2]):
        actions.append(f"(select p{piece})")
        if 2 * index + 1 < len(words):
            x, y = words[2 * index + 1]
            actions.append(f"(place p{piece} {x} {y})")
    return actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="changes", default="", help="the expert's fields changed, as in strength.py")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=4, help="moves chosen per position")
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()
    game = get_game(SLUG)
    level = expert_with(args.changes)
    print(f"{args.seconds} s a move, {args.changes or 'the expert as it is'}; "
          f"load average at start {os.getloadavg()[0]:.2f}")
    found = tried = 0
    for number, compact in POSITIONS.items():
        state = game.replay(moves(compact))
        winning = {action for action in game.legal_actions(state)
                   if game.exact_win(game.play(state, "white", action), "white")}
        assert winning, f"game {number}: no forced win"
        here = 0
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            action = search.choose_action(game, state, rng=random.Random(seed), iterations=level.rounds,
                                          seconds=args.seconds, level=level)
            here += action in winning
        print(f"game {number}: {len(winning)} winning of {len(game.legal_actions(state))}; found {here} of {args.seeds}",
              flush=True)
        found, tried = found + here, tried + args.seeds
    print(f"found {found} of {tried}; load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
