"""Seats of a waiting match taken after its creation: a player takes one (``seat_join``), or its
creator gives one to the computer (``seat_give_to_computer``); the last seat taken starts it."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.labels import role_label
from games.match.rulesets import stored_rules
from games.models import Match, Seat
from games.selectors import match_seats
from games.services import broadcast
from games.services.guards import lock_match, require_player
from games.services.lifecycle import start
from games.services.matches import (
    computer_user,
    require_computer_may_play,
    require_ggp_seats_ratable,
    require_room_for_the_computer,
)
from games.services.playing import is_real_time, lock_players, require_not_playing, start_guard
from games.services.ratings import is_ratable, seat_rating


def seat_join(*, match_id: int, user, role: str | None = None) -> Match:
    """Take a free seat (the first free one when ``role`` is None). The match starts when full.

    Who may join a private match is decided by the caller (it holds the invite link).
    The players' rows are locked before the match's (``playing``): their set is read first,
    and the join starts over if someone took or left a seat between that read and the lock.
    """
    require_player(user)
    return _retry_if_seats_changed(lambda: _seat_join(match_id, user, role))


def seat_give_to_computer(*, match_id: int, user, role: str, level: int) -> Match:
    """The creator of a waiting match gives its free seat ``role`` to the computer at ``level``
    (1 to 4), e.g. the third seat of a three-player match with two people. The seat is taken as
    by a join (``seat_join``): the match starts when it was the last one free, and the computer
    plays if its turn comes. Only in a casual match: the computer does not play rated."""
    require_player(user)
    return _retry_if_seats_changed(lambda: _seat_give_to_computer(match_id, user, role, level))


JOIN_TRIES = 5


class _SeatsChanged(Exception):
    """Someone took or left a seat between reading the players and locking their rows."""


def _retry_if_seats_changed(attempt: Callable[[], Match]) -> Match:
    for _ in range(JOIN_TRIES):
        try:
            return attempt()
        except _SeatsChanged:
            continue
    raise ServiceError("busy", "Players are joining and leaving this match right now: try again.")


def _lock_waiting(match_id: int, user) -> tuple[Match, list[Seat]]:
    """The waiting match and its seats, locked after the rows of ``user`` and its players
    (``_SeatsChanged`` if its players changed between reading and locking them)."""
    players = set(Seat.objects.filter(match_id=match_id, player__isnull=False).values_list("player_id", flat=True))
    lock_players({user.pk, *players})
    match = lock_match(match_id)
    if match.status != Match.Status.WAITING:
        raise ServiceError("match_started", "This match is no longer waiting for players.")
    seats = list(match.seats.select_for_update())
    if {s.player_id for s in seats if s.player_id is not None} != players:
        raise _SeatsChanged
    return match, seats


def _seat_join(match_id: int, user, role: str | None) -> Match:
    with transaction.atomic():
        match, seats = _lock_waiting(match_id, user)
        if any(s.player_id == user.pk for s in seats):
            raise ServiceError("already_seated", "You already have a seat in this match.")
        free = [s for s in seats if s.player_id is None and s.reserved_for_id in (None, user.pk)]
        if role is not None:
            free = [s for s in free if s.role == role]
            if not free:
                raise ServiceError("seat_taken", f"The seat {role_label(role)} is not free.")
        if not free:
            raise ServiceError("seat_taken", "There is no free seat in this match.")
        if match.rated and not is_ratable(user):
            raise ServiceError("rated_needs_accounts", "This match is rated: only signed-up players can join it. "
                                                       "Sign up to keep your name, or join a casual match.")
        if match.rated:
            require_ggp_seats_ratable(seated=[s.player_id for s in seats if s.player_id], people=[user],
                                      online_now=False)
        _take_seat(match, seats, free[0], user, by=user)
    return match


def _seat_give_to_computer(match_id: int, user, role: str, level: int) -> Match:
    with transaction.atomic():
        match, seats = _lock_waiting(match_id, user)
        if match.created_by_id != user.pk:
            raise ServiceError("not_creator", "Only the player who created this match can give a seat to the computer.")
        game = stored_rules(match.game)
        if role not in game.roles:
            raise ServiceError("unknown_role", f"{game.name} has no seat {role!r}; pick one of {', '.join(game.roles)}.")
        seat = next(s for s in seats if s.role == role)
        if seat.player_id is not None or seat.reserved_for_id is not None:
            raise ServiceError("seat_taken", f"The seat {role_label(role)} is not free.")
        require_computer_may_play(level=level, rated=match.rated,
                                   advice="this rated match waits for signed-up players.")
        require_room_for_the_computer(user)
        seated = {s.player_id for s in seats}
        number = 1
        while (player := computer_user(number, level)).pk in seated:  # one account per seat (computer_user)
            number += 1
        _take_seat(match, seats, seat, player, by=user)
    return match


def _take_seat(match: Match, seats: list[Seat], seat: Seat, player, *, by) -> None:
    """Seat ``player`` in the free ``seat`` of the waiting ``match`` (locked, with all its
    ``seats``), at ``by``'s request; the match starts if that was the last free seat."""
    starts = sum(s.player_id is None for s in seats) == 1
    real_time = is_real_time(TimeControl.of(match))
    if real_time and not starts:
        require_not_playing([player], user=by)
    seat.player, seat.joined_at = player, timezone.now()
    # A person is away until its page opens (match_create); the computer never is.
    seat.away_since = None if starts or player.is_computer else seat.joined_at
    seat.rating_before, seat.rating_provisional = seat_rating(user=player, game=match.game)
    seat.save(update_fields=["player", "joined_at", "away_since", "rating_before", "rating_provisional"])
    if starts:
        seats = match_seats(match.pk)
        if real_time:
            start_guard(match, [s.player for s in seats], user=by)
        start(match, stored_rules(match.game), seats, seat.joined_at)
        if match.rematch_of_id is not None:  # its offer on the finished match's pages is answered
            broadcast.match_changed_on_commit(match.rematch_of_id)
        # The players who were waiting, on whatever page of the site they are, go to the game
        # (as after a pairing): an invitation's creator need not keep its page open.
        for other in {s.player_id for s in seats if s.player is not None and not s.player.is_computer} - {by.pk}:
            broadcast.player_notify_on_commit(other, {"type": "site.started", "match": match.pk})
    broadcast.match_changed_on_commit(match.pk)
    broadcast.lobby_changed_on_commit()
    broadcast.mine_changed_on_commit([by])
