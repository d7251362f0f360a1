"""A move played in a seat's place: a random legal move, recorded as such (``ReplacedMove``).

The GGP way (as GGP game managers do): when a GGP player answers PLAY late, with a move
that is not legal, or not at all, the manager plays a random legal move for it and the match
goes on; in a per-move match (``TimeControl.play``) the same happens to a person whose play
clock runs out. Pages and the replay mark the move, with the reason. In a rated match a seat
that does not play at all ends it instead (``games.match.absence``): called off if it never
made a move of its own, lost on time once it stopped making them; and called off if the server
lost too many of its answers.
"""

from __future__ import annotations

import random

from django.db import transaction

from games.match import absence, clocks
from games.match.rulesets import stored_rules
from games.models import Match, Move, Out, ReplacedMove, Seat
from games.selectors import match_seats
from games.services.guards import lock_match
from games.services.lifecycle import call_off, resign_seat
from games.services.records import play_for_resigned, record_locked


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
    recorded with ``reason`` (``snapshots.REPLACED``) and what the player answered. In a rated
    match, a seat that never began or has left, or whose answers the server lost too often, ends
    the match instead (``_ends_for_absence``).
    One transaction; a stale memory of the move path is refused by its conditional write and
    reads again."""
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Match.Status.ACTIVE or match.version != version:
            return None
        game = stored_rules(match.game)
        state = game.state_from_json(match.state)
        if game.is_terminal(state) or game.to_move(state) != role:
            return None
        seats = match_seats(match.pk)
        if match.rated and _ends_for_absence(match, seats, role, reason):
            return match
        ply = match.plies + 1
        action = random.Random(f"{match.random_token}:{ply}:replaced").choice(game.legal_actions(state))
        state = game.play(state, role, action)
        moves = [Move(match=match, ply=ply, role=role, action=action)]
        moves[0].replaced = reason  # for the state message (snapshots.move_json)
        state = play_for_resigned(match, game, state, moves, {s.role for s in seats if s.resigned})
        ReplacedMove.objects.create(match=match, ply=ply, role=role, reason=reason, answer=answer[:200])
        record_locked(match, game, state, moves, seats, at=clocks.now())
    return match


def _ends_for_absence(match: Match, seats: list[Seat], role: str, reason: str) -> bool:
    """Whether ``role``'s ply, about to be played in its place for ``reason``, ends the rated
    ``match`` instead (``absence.verdict`` on the seat's plies and their reasons): called off
    if the seat never made a move of its own or the server lost its answers too often, lost
    on time if it stopped moving. Call holding the row lock."""
    replaced = dict(ReplacedMove.objects.filter(match=match, role=role).values_list("ply", "reason"))
    played = Move.objects.filter(match=match, role=role).order_by("ply").values_list("ply", flat=True)
    plies = [(ply, replaced.get(ply, absence.OWN)) for ply in played]
    verdict = absence.verdict([*plies, (match.plies + 1, reason)])
    if verdict == absence.NEVER_BEGAN:
        call_off(match, reason=f"{role} made no move of its own in its first {absence.FIRST_TURNS} turns",
                 seats=seats)
    elif verdict == absence.SERVER_FAILED:
        call_off(match, reason=f"the server lost {role}'s answers in {absence.SERVER_LOST} turns", seats=seats)
    elif verdict == absence.LEFT:
        resign_seat(match, seats, next(s for s in seats if s.role == role), out=Out.TIME, at=clocks.now(),
                    reason=f"{role} ran out of time: no move of its own in {absence.IN_A_ROW} turns in a row")
    return verdict != absence.PLAY_ON
