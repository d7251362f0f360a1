"""Where classic misère Quarto games between the expert (white) and the plain UCT are decided.

Plays ``--games`` games, the expert as white against the plain UCT (``benchmarks/uct.py``), both
at ``--seconds`` a move (or reads them back with ``--read``, one JSON line a game, as
``--record`` writes them), then solves each game's positions exactly, from the end back while
the rules' exact search settles one within ``--limit`` seconds. A move that changes the exact
value (white's goal under best play: 100, 50 or 0) is a mistake of its mover, in the proven
sense: it prints each game's trace, then how often each side dropped a value at each ply, and
what came of white's first drop. Its figures: docs/computer.md, "Classic Quarto", from the 48
games in ``benchmarks/data/classic_white_48.jsonl`` (the fourteenth session's, played the same
way with other seeds):

    python3 benchmarks/exact_trace.py --read benchmarks/data/classic_white_48.jsonl
    python3 benchmarks/exact_trace.py --games 12 --first 5000 --record /tmp/games.jsonl

Not a test.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.strength import expert_with, search_player, uct_player  # noqa: E402
from games.computer import search  # noqa: E402
from games.rules import get_game  # noqa: E402

SLUG = "quarto-misere-classic"


def play(games: int, first: int, seconds: float, level: search.Level) -> list[dict]:
    game = get_game(SLUG)
    white = search_player(level, seconds)
    black = uct_player(seconds)
    records = []
    for number in range(first, first + 2 * games, 2):
        rng = random.Random(f"trace:{number}")
        state, moves = game.initial_state(), []
        while (role := game.to_move(state)) is not None:
            action = (white if role == "white" else black)(game, state, rng)
            moves.append(action)
            state = game.play(state, role, action)
        records.append({"n": number, "moves": moves, "white": game.goals(state)["white"]})
        print(f"game {number}: white {records[-1]['white']}", file=sys.stderr, flush=True)
    return records


def trace(record: dict, limit: float) -> tuple[int, list[tuple[int, str, int, int]]]:
    """The first ply from which every position was solved, and each value change: (ply of the
    move, its mover, white's value before, after)."""
    game = get_game(SLUG)
    states = [game.initial_state()]
    for action in record["moves"]:
        states.append(game.play(states[-1], game.to_move(states[-1]), action))
    values, table = {}, {}
    for ply in range(len(states) - 1, -1, -1):
        goals = game.exact_goals(states[ply], time.monotonic() + limit, table)
        if goals is None:
            break
        values[ply] = goals["white"]
    changes = [(ply - 1, game.to_move(states[ply - 1]), values[ply - 1], values[ply])
               for ply in sorted(values) if ply - 1 in values and values[ply] != values[ply - 1]]
    return min(values), changes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--first", type=int, default=0, help="the first game's number (its seed)")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--set", dest="changes", default="contempt=25",
                        help="the expert's fields changed, as in strength.py, e.g. contempt=25 (the level's own)")
    parser.add_argument("--record", help="append the games played to this file")
    parser.add_argument("--read", nargs="*", help="trace these files' games instead of playing")
    parser.add_argument("--limit", type=float, default=10.0, help="seconds for each position's exact search")
    args = parser.parse_args()
    if args.read:
        records = [json.loads(line) for name in args.read for line in Path(name).read_text().splitlines() if line]
    else:
        records = play(args.games, args.first, args.seconds, expert_with(args.changes))
        if args.record:
            with open(args.record, "a") as out:
                out.writelines(json.dumps(record) + "\n" for record in records)
    drops, after_first = Counter(), Counter()
    for record in records:
        solved_from, changes = trace(record, args.limit)
        print(f"game {record['n']}: white {record['white']}, solved from ply {solved_from}: "
              + (" ".join(f"ply {ply} {mover} {before}->{after}" for ply, mover, before, after in changes) or "no change"),
              flush=True)
        for ply, mover, before, after in changes:  # a move can only keep or lower its mover's value
            drops[mover, ply, before, after] += 1
        first = next(((before, after) for _, mover, before, after in changes if mover == "white"), None)
        after_first[first, record["white"]] += 1
    print()
    print("| mover | ply | white's value before | after | moves |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for (mover, ply, before, after), count in sorted(drops.items()):
        print(f"| {mover} | {ply} | {before} | {after} | {count} |")
    print()
    print("| white's first drop | games | white won | drawn | lost |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for first in sorted({key[0] for key in after_first}, key=str):
        row = [after_first[first, result] for result in (100, 50, 0)]
        label = "none" if first is None else f"{first[0]} to {first[1]}"
        print(f"| {label} | {sum(row)} | {' | '.join(map(str, row))} |")


if __name__ == "__main__":
    main()
