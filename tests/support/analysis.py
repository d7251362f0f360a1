"""Matches built to contain a blunder, for the analysis tests: found with the rules alone."""

from __future__ import annotations

import random

from games import services
from games.models import Match
from games.rules import get_game


def _winning_action(game, state, role) -> str | None:
    for action in game.legal_actions(state):
        after = game.play(state, role, action)
        if game.is_terminal(after) and game.goals(after)[role] == 100:
            return action
    return None


def blunder_line(game_slug: str = "nine-board-tictactoe", seed: int = 0) -> tuple[list[tuple[str, str]], int]:
    """A whole match of random moves (from ``seed`` on) in which a player who could win at once
    plays another move, and the opponent then wins at once: its moves (role, action) and the
    blunder's ply (1-based). Nobody misses an immediate win before that."""
    game = get_game(game_slug)
    for attempt in range(seed, seed + 500):
        rng = random.Random(attempt)
        state, moves = game.initial_state(), []
        while not game.is_terminal(state):
            role = game.to_move(state)
            win = _winning_action(game, state, role)
            if win is None:
                action = rng.choice(game.legal_actions(state))
            else:
                others = [a for a in game.legal_actions(state) if a != win]
                action = next((a for a in others if _punished(game, game.play(state, role, a))), None)
                if action is None:
                    break
            state = game.play(state, role, action)
            moves.append((role, action))
            if win is not None:
                reply_role = game.to_move(state)
                reply = _winning_action(game, state, reply_role)
                moves.append((reply_role, reply))
                return moves, len(moves) - 1
    raise AssertionError(f"no blunder line found for {game_slug}")


def _punished(game, state) -> bool:
    role = game.to_move(state)
    return role is not None and _winning_action(game, state, role) is not None


def play_line(match: Match, players: list, moves: list[tuple[str, str]]) -> Match:
    """Play ``moves`` (role, action) through ``move_submit`` with ``players`` in role order."""
    by_role = dict(zip(get_game(match.game).roles, players))
    for role, action in moves:
        match = services.move_submit(match_id=match.pk, user=by_role[role], action=action, version=match.version)
    match.refresh_from_db()
    return match
