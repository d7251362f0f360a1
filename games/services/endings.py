"""A player ends their part in a match: resign (``match_resign``), or claim it from a player who
left, the win (``match_claim``) or a draw (``match_claim_draw``). Aborts and agreed draws are
``conduct``; running out of time, ``clocks``."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.labels import role_label
from games.match.rulesets import stored_rules
from games.models import Match, Out, Seat
from games.runtime import presence
from games.services.guards import lock_playing_seat
from games.services.lifecycle import every_seat_moved, finish_drawn, resign_seat
from games.services.moves import forget


def match_resign(*, match_id: int, user) -> Match:
    """Resign ``user``'s seat: it scores 0. With two players the other wins at once; with
    three, the game goes on and the resigned seat's turns get random legal actions."""
    with transaction.atomic():
        match, seats, seat = lock_playing_seat(match_id, user)
        resign_seat(match, seats, seat)
    return match


def match_claim(*, match_id: int, user) -> Match:
    """Claim the match from a player who left: allowed to the other players once the player
    whose turn it is has had no page open on the match for ``ABANDON_SECONDS``. The absent
    seat then counts as resigned (two players: the claimant wins; three: the game goes on)."""
    with transaction.atomic():
        match, seats, mover = _abandoned_mover(match_id, user)
        resign_seat(match, seats, mover, reason=f"{mover.role} left the match and the win was claimed",
                    out=Out.ABANDONED)
    return match


def match_claim_draw(*, match_id: int, user) -> Match:
    """Call it a draw instead of claiming the win from a player who left (as lichess offers):
    allowed when ``match_claim`` is, with only the claimant and the absent player still
    playing (with three, the third has not agreed to a draw). Before every seat has moved the
    match is aborted instead, as by ``match_claim``."""
    with transaction.atomic():
        match, seats, mover = _abandoned_mover(match_id, user)
        if not every_seat_moved(match):  # a match that never began is aborted, not drawn
            resign_seat(match, seats, mover, out=Out.ABANDONED)
            return match
        if sum(not s.resigned for s in seats) > 2:
            raise ServiceError("draw_needs_two", "A third player still plays: the match can only be claimed "
                                                 "(play on without the player who left), or offer a draw.")
        finish_drawn(match, seats, f"{mover.role} left the match and it was called a draw")
        transaction.on_commit(lambda: forget(match.pk))
    return match


def _abandoned_mover(match_id: int, user) -> tuple[Match, list[Seat], Seat]:
    """The locked match, its seats and the seat to move, if ``user`` may claim against it:
    an untimed match whose mover is another player, gone from it for ``ABANDON_SECONDS``."""
    match, seats, seat = lock_playing_seat(match_id, user)
    game = stored_rules(match.game)
    if TimeControl.of(match).timed:
        raise ServiceError("timed_match", "This match has a clock: when a player's time runs out, "
                                          "the match ends by itself.")
    mover = game.to_move(game.state_from_json(match.state))
    if mover == seat.role:
        raise ServiceError("not_abandoned", "It is your own turn: play, or resign.")
    wait = settings.ABANDON_SECONDS
    away = presence.match_presence(match_id=match.pk, seats=seats)["away"].get(mover)
    if away is None or away < wait:
        raise ServiceError("not_abandoned", f"{role_label(mover)} is still here, or left less than {wait} seconds ago: "
                                            "you can claim the match once they have been gone that long.")
    return match, seats, next(s for s in seats if s.role == mover)
