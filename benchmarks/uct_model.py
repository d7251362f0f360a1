"""The three-player game's model of a plain UCT's moves (``Game.others_model``): record the
baseline's moves, then fit the weights of ``MODEL_FEATURES`` to them.

``collect`` plays whole games of three plain UCTs (``benchmarks/uct.py``, a fixed number of
rounds a move, so the record does not depend on the machine's load; the first one or two marks
of a game at random half the time, for variety) and appends one line of JSON a move to
``--out``: the position's masks and ply, and the cell chosen. ``fit`` reads such files and fits
a softmax over each position's empty cells (``ThreePlayerTicTacToe.model_features`` times the
weights) by gradient ascent on the log-likelihood, four fifths of the moves to fit and the rest
to test; it prints the test moves' log-likelihood per move and how often the model's likeliest
cell was the one played, beside a uniform choice's, and the weights for ``MODEL_WEIGHTS``.
Standard library only, no database:

    python3 benchmarks/uct_model.py collect --games 200 --rounds 10000 --seed 1 --out moves1.jsonl
    python3 benchmarks/uct_model.py fit moves1.jsonl moves2.jsonl

Not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.uct import uct_move
from games.rules import get_game
from games.rules.three_player import MODEL_FEATURES, ThreePlayerState

GAME = get_game("tictactoe-3player")


def collect(games: int, rounds: int, seed: int, out: str) -> None:
    rng = random.Random(seed)
    with open(out, "a") as record:
        for _ in range(games):
            state = GAME.initial_state()
            for _ in range(rng.choice((0, 0, 1, 2))):
                state = GAME.play(state, GAME.to_move(state), rng.choice(GAME.legal_actions(state)))
            while (role := GAME.to_move(state)) is not None:
                action = uct_move(GAME, state, seconds=None, rounds=rounds, rng=rng)
                record.write(json.dumps({"masks": list(state.masks), "ply": state.ply, "cell": GAME.parse(action)}) + "\n")
                record.flush()
                state = GAME.play(state, role, action)


def _moves(paths: list[str]) -> list[tuple[list[list[float]], int]]:
    """Each recorded move as its position's feature rows and the index of the row played."""
    moves = []
    for path in paths:
        for line in Path(path).read_text().splitlines():
            move = json.loads(line)
            state = ThreePlayerState(tuple(move["masks"]), move["ply"])
            rows = [[float(value) for value in row] for row in GAME.model_features(state)]
            if len(rows) > 1:
                cells = [GAME.parse(action) for action in GAME.legal_actions(state)]
                moves.append((rows, cells.index(move["cell"])))
    return moves


def _scores(rows: list[list[float]], weights: list[float]) -> list[float]:
    return [sum(w * v for w, v in zip(weights, row)) for row in rows]


def likelihood(moves: list[tuple[list[list[float]], int]], weights: list[float]) -> tuple[float, float]:
    """The mean log-likelihood of the moves played, and how often the likeliest cell was played."""
    total = hits = 0.0
    for rows, played in moves:
        scores = _scores(rows, weights)
        top = max(scores)
        total += scores[played] - top - math.log(sum(math.exp(s - top) for s in scores))
        hits += scores[played] == top
    return total / len(moves), hits / len(moves)


def fit(paths: list[str], steps: int, rate: float) -> None:
    moves = _moves(paths)
    random.Random(0).shuffle(moves)
    split = len(moves) * 4 // 5
    train, test = moves[:split], moves[split:]
    weights = [0.0] * len(MODEL_FEATURES)
    for step in range(steps):
        gradient = [0.0] * len(weights)
        for rows, played in train:
            scores = _scores(rows, weights)
            top = max(scores)
            odds = [math.exp(s - top) for s in scores]
            total = sum(odds)
            for row, odd in zip(rows, odds):
                for k, value in enumerate(row):
                    gradient[k] -= odd / total * value
            for k, value in enumerate(rows[played]):
                gradient[k] += value
        weights = [w + rate * g / len(train) - 1e-3 * w for w, g in zip(weights, gradient)]
        if (step + 1) % 100 == 0:
            print(f"step {step + 1}: fitted moves {likelihood(train, weights)}, test moves {likelihood(test, weights)}",
                  file=sys.stderr, flush=True)
    uniform = sum(-math.log(len(rows)) for rows, _ in test) / len(test)
    ll, hits = likelihood(test, weights)
    print(f"{len(moves)} moves ({len(train)} fitted, {len(test)} tested): test log-likelihood {ll:.3f} a move "
          f"(uniform {uniform:.3f}); the likeliest cell played {hits:.1%} (uniform {sum(1 / len(r) for r, _ in test) / len(test):.1%})")
    print("MODEL_WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    print("  # " + ", ".join(MODEL_FEATURES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    record = sub.add_parser("collect")
    record.add_argument("--games", type=int, default=100)
    record.add_argument("--rounds", type=int, default=10_000)
    record.add_argument("--seed", type=int, default=1)
    record.add_argument("--out", required=True)
    fitting = sub.add_parser("fit")
    fitting.add_argument("paths", nargs="+")
    fitting.add_argument("--steps", type=int, default=600)
    fitting.add_argument("--rate", type=float, default=2.0)
    args = parser.parse_args()
    if args.mode == "collect":
        collect(args.games, args.rounds, args.seed, args.out)
    else:
        fit(args.paths, args.steps, args.rate)


if __name__ == "__main__":
    main()
