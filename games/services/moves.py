"""A move: the hot path. One transaction of four statements (lock the match, read its seats,
insert the move, update the match); the state message is built from what it already holds."""

from __future__ import annotations

from django.db import transaction

from games.errors import ServiceError
from games.models import Match, Move
from games.rules import RulesError, get_game
from games.selectors import match_seats
from games.services.common import (
    computer_turn_after_commit,
    lock_match,
    play_for_resigned,
    record,
    require_active,
    seat_of,
)


def move_submit(*, match_id: int, user, action: str, version: int) -> Match:
    """Play ``action`` for the seat ``user`` holds, if the match is still at ``version``."""
    with transaction.atomic():
        match = lock_match(match_id)
        seats = match_seats(match.pk)
        seat = seat_of(match, user, seats)
        require_active(match)
        if version != match.version:
            raise ServiceError("stale_version",
                               f"The match has moved on (you saw version {version}, it is at {match.version}).",
                               {"version": match.version})
        game = get_game(match.game)
        state = game.state_from_json(match.state)
        mover = game.to_move(state)
        if seat.role != mover:
            raise ServiceError("not_your_turn", f"It is {mover}'s turn, not yours.")
        try:
            state = game.play(state, seat.role, action)
        except RulesError as err:
            raise ServiceError("illegal_action", str(err), {"detail": err.code}) from None
        moves = [Move(match=match, ply=match.version + 1, role=seat.role, action=action)]
        state = play_for_resigned(match, game, state, moves, {s.role for s in seats if s.resigned})
        record(match, game, state, moves, seats)
    return match


def computer_turn_resume(*, match: Match, seats) -> None:
    """Ask again for the computer's turn of an active ``match`` (``seats`` with their players):
    after a restart the first visitor of the match page does this; a turn already being
    played is not started twice."""
    if match.status == Match.Status.ACTIVE:
        game = get_game(match.game)
        computer_turn_after_commit(match, game, game.state_from_json(match.state), seats)
