"""The worker-side job of a post-game analysis: evaluate a match's positions one by one with
the engine's fixed budget and seed, so the same match gives the same numbers every time.

Plain values in and out (a rule set's slug, positions as JSON): the calls are picklable, so they
run in a process pool as the computer's turns do, and import nothing of Django.
"""

from __future__ import annotations

from typing import Any

from games.computer.engine import evaluate
from games.rules import get_game


def position_seed(ply: int) -> str:
    """The search's seed for position ``ply``: fixed, so a repeated analysis repeats its numbers."""
    return f"analysis.{ply}"


def evaluate_position(ruleset: str, state_json: Any, ply: int, rounds: int, played: str | None = None) -> dict[str, Any]:
    """One position's evaluation as stored: ``{"scores": {role: 0..1}, "best": action | None,
    "line": [action, ...]}`` (the line the search expects, from the best move on; empty at the
    end), and with ``played`` (the move made there) ``"played": {role: 0..1}``, each role's
    expected score after it, judged in the same search as the best move's (``engine.evaluate``)."""
    game = get_game(ruleset)
    found = evaluate(ruleset, game.state_from_json(state_json), rounds=rounds, seed=position_seed(ply), played=played)
    stored = {"scores": _rounded(game, found.scores), "best": found.best, "line": list(found.line)}
    if found.played is not None:
        stored["played"] = _rounded(game, found.played)
    return stored


def _rounded(game, scores: dict[str, float]) -> dict[str, float]:
    return {role: round(scores[role], 4) for role in game.roles}
