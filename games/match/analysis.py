"""Post-game analysis, the judging part (pure): how much each move cost its mover, and the mark
it earns, from the evaluations of the positions before and after it; and the positions a match
passed through (what the worker evaluates, and what the fair-play rule compares with live matches).

An evaluation of a position gives every role's expected score (0 to 1) under the search's best
play, the best move found for the role in control, and each role's expected score after the move
that was played there, judged in the same search (``"played"``). A move's **loss** is its mover's
expected score with the best move minus with the move played, never below 0 (0 when it is the best
move). Both numbers come from one search, each resting on at least a quarter of its rounds, so a
move as good as the best loses about nothing; an evaluation stored before ``"played"`` existed is
judged against the next position's evaluation instead, with the search's own move losing
nothing. As on lichess, a loss over a threshold marks the move::

    >>> classify(0.35)
    'blunder'
    >>> classify(0.05) is None
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.rules import get_game

# The marks, worst first, and the loss (of the mover's expected score, 0 to 1) from which each applies.
THRESHOLDS = (("blunder", 0.30), ("mistake", 0.20), ("inaccuracy", 0.10))
MARKS = tuple(name for name, _ in reversed(THRESHOLDS))  # mildest first, as the summary lists them


def classify(loss: float) -> str | None:
    """The mark a move losing ``loss`` earns, or None."""
    for name, threshold in THRESHOLDS:
        if loss >= threshold - 1e-9:
            return name
    return None


def judge_moves(moves: Sequence[tuple[str, str]], evaluations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per move (``moves[n]`` = (mover, action) played from position ``n``), given the
    evaluations of positions 0..len(moves) (``{"scores": {role: 0..1}, "best": action | None}``):
    the ply (1-based), mover, action, loss, mark, and the better move when the move is marked
    and the search preferred another."""
    judged = []
    for index, (role, action) in enumerate(moves):
        before, after = evaluations[index], evaluations[index + 1]
        best = before.get("best")
        if action == best:
            loss = 0.0
        elif "played" in before:
            loss = max(0.0, before["scores"][role] - before["played"][role])
        else:  # an evaluation stored before the played move was judged in the same search
            loss = max(0.0, before["scores"][role] - after["scores"][role])
        mark = classify(loss)
        judged.append({"ply": index + 1, "role": role, "action": action, "loss": round(loss, 4),
                       "mark": mark, "better": best if mark else None})
    return judged


def summarise(roles: Sequence[str], judged: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per role, in turn order: its moves, average loss (0 to 1) and the count of each mark."""
    out = []
    for role in roles:
        own = [move for move in judged if move["role"] == role]
        counts = {name: sum(1 for move in own if move["mark"] == name) for name in MARKS}
        average = sum(move["loss"] for move in own) / len(own) if own else 0.0
        out.append({"role": role, "moves": len(own), "average_loss": round(average, 4), **counts})
    return out


def match_positions(ruleset: str, actions: list[tuple[str, str]]) -> list[Any]:
    """Every position of a match as JSON, from the start to after its last move (0..n)."""
    game = get_game(ruleset)
    state = game.initial_state()
    positions = [game.state_to_json(state)]
    for role, action in actions:
        state = game.play(state, role, action)
        positions.append(game.state_to_json(state))
    return positions
