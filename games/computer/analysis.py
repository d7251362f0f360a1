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


def evaluate_position(ruleset: str, state_json: Any, ply: int, rounds: int) -> dict[str, Any]:
    """One position's evaluation as stored: ``{"scores": {role: 0..1}, "best": action | None}``."""
    game = get_game(ruleset)
    found = evaluate(ruleset, game.state_from_json(state_json), rounds=rounds, seed=position_seed(ply))
    return {"scores": {role: round(found.scores[role], 4) for role in game.roles}, "best": found.best}


def match_positions(ruleset: str, actions: list[tuple[str, str]]) -> list[Any]:
    """Every position of a match as JSON, from the start to after its last move (0..n)."""
    game = get_game(ruleset)
    state = game.initial_state()
    positions = [game.state_to_json(state)]
    for role, action in actions:
        state = game.play(state, role, action)
        positions.append(game.state_to_json(state))
    return positions
