"""Matches built to contain a blunder, for the analysis tests: found with the rules alone;
made-up analyses with blunders where a test wants them; an import that passes through a live
match's position (fair play)."""

from __future__ import annotations

import json
import random

from django.utils import timezone

from games import services
from games.history import selectors
from games.history.services import match_import
from games.models import Analysis, Match
from games.rules import get_game
from tests.support.players import make_players, play_first_moves, start_match


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


def another_move(match: Match, ply: int) -> str:
    """A legal move, other than the one played, at the position before move ``ply`` of ``match``."""
    game = get_game(match.game)
    actions = list(match.moves.values_list("action", flat=True))
    return next(a for a in game.legal_actions(game.replay(actions[:ply - 1])) if a != actions[ply - 1])


def store_analysis(match: Match, marked: dict[int, list[str]], *, lines: bool = True) -> Analysis:
    """A done analysis of ``match``, made up as the worker would store it: every position even
    (each role 0.5) with the move played there as the search's own, but each move ``ply`` in
    ``marked`` losing 40 points (a blunder) to the line given for it (its first action the better
    move). Without ``lines``, no position has a line, as in an analysis stored before lines were."""
    game = get_game(match.game)
    moves = list(match.moves.values_list("role", "action"))
    even = {role: 0.5 for role in game.roles}
    evaluations = []
    for ply in range(len(moves) + 1):
        line = (marked.get(ply + 1) or [moves[ply][1]]) if ply < len(moves) else []
        evaluation = {"scores": even, "best": line[0] if line else None, "line": line}
        if ply + 1 in marked:
            evaluation["played"] = {**even, moves[ply][0]: 0.1}
        if not lines:
            del evaluation["line"]
        evaluations.append(evaluation)
    return Analysis.objects.create(match=match, status=Analysis.Status.DONE, rounds=100, positions=len(evaluations),
                                   evaluations=evaluations, finished_at=timezone.now())


def live_and_its_uploaded_copy():
    """A player's own live match, exported, made to look finished and uploaded: its analysis
    would be the search's verdict on the game in play. The players, the live match, the copy."""
    players = make_players(2, prefix="uploader")
    live = play_first_moves(start_match("nine-board-tictactoe", players), players)
    data = selectors.match_export(match=live)
    data.update(isCompleted=True, resigned=["oPlayer"], goalValues=[100, 0], matchId="not.the.live.one")
    data.pop("states", None)
    copy = match_import(user=players[0], content=json.dumps(data).encode())
    assert copy.status == Match.Status.FINISHED and copy.plies == live.plies
    return players, live, copy


def move_on(live: Match, players: list) -> Match:
    """Play the next move of ``live`` (players in role order): it leaves the position it stood at."""
    game = get_game(live.game)
    state = game.state_from_json(live.state)
    by_role = dict(zip(game.roles, players))
    return services.move_submit(match_id=live.pk, user=by_role[game.to_move(state)],
                                action=game.legal_actions(state)[0], version=live.version)
