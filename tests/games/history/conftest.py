"""Finished matches for the history tests: real ones played through the services, and
quick ones written straight to the tables (lists and records need no moves)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match, Outcome, Seat
from games.rules import get_game
from tests.support.players import make_players, play_out, start_match

FIVE_GAMES = ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player", "quarto-misere"]


def finished_match(game_slug: str, players: list, outcomes: list[str], *, scores: list[int] | None = None,
                   private: bool = False, minutes_ago: int = 0, length: int = 9) -> Match:
    """A finished match row with seats and results but no moves (``version`` and ``plies`` = ``length``)."""
    game = get_game(game_slug)
    scores = scores or [{"won": 100, "drawn": 50, "lost": 0}[o] for o in outcomes]
    winners = [r for r, o in zip(game.roles, outcomes) if o == Outcome.WON]
    finished_at = timezone.now() - timedelta(minutes=minutes_ago)
    match = Match.objects.create(
        game=game_slug, status=Match.Status.FINISHED, is_private=private, created_by=players[0],
        state=game.state_to_json(game.initial_state()), version=length, plies=length,
        started_at=finished_at - timedelta(minutes=5), finished_at=finished_at,
        result={"scores": dict(zip(game.roles, scores)), "winners": winners, "draw": not winners,
                "reason": "test", "line": []})
    Seat.objects.bulk_create([
        Seat(match=match, role=role, order=i, player=player, score=score, outcome=outcome)
        for i, (role, player, score, outcome) in enumerate(zip(game.roles, players, scores, outcomes))
    ])
    return match


@pytest.fixture
def players():
    return make_players(4)


@pytest.fixture
def played():
    """A real finished match of ``game_slug``, played with random legal moves."""
    def make(game_slug: str, seed: int = 0, private: bool = False):
        roles = get_game(game_slug).roles
        people = make_players(len(roles), prefix=game_slug)
        match = start_match(game_slug, people, is_private=private)
        return play_out(match, people, seed=seed), people
    return make
