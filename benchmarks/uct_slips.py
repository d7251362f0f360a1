"""Can the plain UCT's slips in classic misère Quarto be foreseen? At one ply of each traced game
(``benchmarks/data/classic_white_48.jsonl``; ply 17 by default: black places the ninth piece, the
ply where the traced games show black throwing won positions away), every placement is solved
exactly; then the plain UCT of ``benchmarks/uct.py`` chooses six times at 20,000 rounds (its
one second a move, on a fixed number of rounds so the load does not matter), and two cheap
stand-ins for it are asked what it will choose: 300 random playouts after each move (the
likeliest by their mean), and the same UCT run short (2,000 rounds, four times). Prints per
position one line of JSON, then how often each stand-in named the UCT's choice beside a
uniform guess, and how often each kept the best value (the UCT's, a uniform choice's):

    python3 benchmarks/uct_slips.py --ply 17 --part 0 --parts 2 > a.jsonl &
    python3 benchmarks/uct_slips.py --ply 17 --part 1 --parts 2 > b.jsonl
    python3 benchmarks/uct_slips.py --summary a.jsonl b.jsonl

Figures: docs/computer.md, "Classic Quarto", twentieth session. Not a test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.uct import uct_move  # noqa: E402
from games.rules import get_game  # noqa: E402

GAME = get_game("quarto-misere-classic")
TRACES = Path(__file__).resolve().parent / "data" / "classic_white_48.jsonl"
RUNS, SHORT_RUNS, PLAYOUTS = 6, 4, 300


def position(ply: int, number: int, moves: list[str], *, rounds: int = 20_000, short_rounds: int = 2_000,
             playouts: int = PLAYOUTS) -> dict | None:
    """The figures of ply ``ply`` of the traced game ``number`` (``None`` if the game ended first)."""
    state = GAME.initial_state()
    for move in moves[:ply]:
        state = GAME.play(state, GAME.to_move(state), move)
    if GAME.is_terminal(state) or len(moves) <= ply:
        return None
    mover, actions = GAME.to_move(state), GAME.legal_actions(state)
    value, means = {}, {}
    rng = random.Random(number)
    for action in actions:
        after = GAME.play(state, mover, action)
        if GAME.is_terminal(after):
            value[action] = means[action] = GAME.goals(after)[mover]
        else:
            value[action] = GAME.exact_goals(after)[mover]
            means[action] = statistics.fmean(GAME.random_playout(after, rng)[mover] for _ in range(playouts))
    best = max(value.values())
    guess = max(actions, key=means.get)
    chosen = Counter(uct_move(GAME, state, seconds=None, rounds=rounds, rng=random.Random(f"f{number}:{k}"))
                     for k in range(RUNS))
    short = Counter(uct_move(GAME, state, seconds=None, rounds=short_rounds, rng=random.Random(f"s{number}:{k}"))
                    for k in range(SHORT_RUNS))
    return {"game": number, "moves": len(actions), "best": best, "keeping": sum(v == best for v in value.values()),
            "uct_kept": sum(c for a, c in chosen.items() if value[a] == best), "uct_modal": chosen.most_common(1)[0][1],
            "playouts_named": chosen[guess], "playouts_kept": value[guess] == best,
            "short_named": sum(chosen[a] * c for a, c in short.items()) / SHORT_RUNS,
            "short_kept": sum(c for a, c in short.items() if value[a] == best) / SHORT_RUNS}


def summary(paths: list[str]) -> None:
    rows = [json.loads(line) for path in paths for line in Path(path).read_text().splitlines()]
    print("| positions | UCT's own modal choice | named by playouts | by the UCT run short | by a uniform guess "
          "| kept the best: the UCT | uniform | playouts' pick | short UCT |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rs in (rows, [r for r in rows if r["best"] == 100]):
        n = len(rs)
        print(f"| {n} | {sum(r['uct_modal'] for r in rs) / RUNS / n:.1%} | {sum(r['playouts_named'] for r in rs) / RUNS / n:.1%} "
              f"| {sum(r['short_named'] for r in rs) / RUNS / n:.1%} | {sum(1 / r['moves'] for r in rs) / n:.1%} "
              f"| {sum(r['uct_kept'] for r in rs) / RUNS / n:.1%} | {sum(r['keeping'] / r['moves'] for r in rs) / n:.1%} "
              f"| {sum(r['playouts_kept'] for r in rs) / n:.1%} | {sum(r['short_kept'] for r in rs) / n:.1%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ply", type=int, default=17)
    parser.add_argument("--part", type=int, default=0)
    parser.add_argument("--parts", type=int, default=1)
    parser.add_argument("--summary", nargs="*", default=None, help="read these outputs and print the table")
    args = parser.parse_args()
    if args.summary is not None:
        summary(args.summary)
        return
    for number, line in enumerate(TRACES.read_text().splitlines()):
        if number % args.parts == args.part:
            row = position(args.ply, number, json.loads(line)["moves"])
            if row is not None:
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
