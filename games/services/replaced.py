"""A move played in a seat's place: a random legal move, recorded as such (``ReplacedMove``).

The GGP way (as GGP game managers do): when a GGP player answers PLAY late, with a move
that is not legal, or not at all, the manager plays a random legal move for it and the match
goes on; in a per-move match (``TimeControl.play``) the same happens to a person whose play
clock runs out. Pages and the replay mark the move, with the reason.
"""

from __future__ import annotations

import random

from django.db import transaction

from games.match import clocks
from games.models import Match, Move, ReplacedMove
from games.rules import get_game
from games.selectors import match_seats
from games.services.common import call_off, lock_match, play_for_resigned, record_locked



def ggp_match_call_off(*, match_id: int, reason: str) -> Match | None:
    """Call off a match a GGP player cannot play (it answered START ``busy``: it is in another
    match; or, in a rated match, gave START no valid answer in time), if it is still on: it
    never really began with that seat."""
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status not in {Match.Status.WAITING, Match.Status.ACTIVE}:
            return None
        call_off(match, reason=reason)
    return match


def move_replace(*, match_id: int, version: int, role: str, reason: str, answer: str = "") -> Match | None:
    """Play a random legal move for ``role`` if the match is still active at ``version`` with
    ``role`` to move (else nothing, None): reproducible from the match's token and the ply,
    recorded with ``reason`` (``snapshots.REPLACED``) and what the player answered. One transaction; a
    stale memory of the move path is refused by its conditional write and reads again."""
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Match.Status.ACTIVE or match.version != version:
            return None
        game = get_game(match.game)
        state = game.state_from_json(match.state)
        if game.is_terminal(state) or game.to_move(state) != role:
            return None
        ply = match.plies + 1
        action = random.Random(f"{match.random_token}:{ply}:replaced").choice(game.legal_actions(state))
        state = game.play(state, role, action)
        moves = [Move(match=match, ply=ply, role=role, action=action)]
        moves[0].replaced = reason  # for the state message (snapshots.move_json)
        seats = match_seats(match.pk)
        state = play_for_resigned(match, game, state, moves, {s.role for s in seats if s.resigned})
        ReplacedMove.objects.create(match=match, ply=ply, role=role, reason=reason, answer=answer[:200])
        record_locked(match, game, state, moves, seats, at=clocks.now())
    return match
