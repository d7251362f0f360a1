"""The checks a match service makes before it writes: who may act (``require_player``,
``seat_of``), on what (``lock_match``, ``lock_playing_seat``: the row lock, taken first), and
whether the match still stands where the request saw it (``require_active``,
``require_version``). Each runs inside the caller's transaction and refuses with a
``ServiceError``, writing nothing."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from games.match.errors import ServiceError
from games.models import Match, Seat
from games.selectors import match_seats


def lock_player(user) -> None:
    """Take ``user``'s row lock for the rest of the transaction, so that the same player's
    requests that check what they already have before adding to it (a pool entry, pending
    challenges) run one at a time: a check finds no row to lock in what is not there yet.
    (SQLite: one writer at a time already.) ``FOR NO KEY UPDATE``: rows that point at the
    player (a challenge to them, a seat in a match pairing them) may still be written meanwhile;
    ``FOR UPDATE`` blocked those, so two players challenging each other at once deadlocked."""
    list(get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk", flat=True))


def lock_match(match_id: int) -> Match:
    """Fetch the match row for writing. Call inside ``transaction.atomic()``.

    PostgreSQL takes the row lock (``SELECT ... FOR UPDATE``). SQLite ignores that clause; there
    the settings open every transaction with ``BEGIN IMMEDIATE`` (one writer at a time), and in
    any case the version check plus the unique (match, ply) constraint refuse a second
    submission at the same version.
    """
    try:
        return Match.objects.select_for_update().get(pk=match_id)
    except Match.DoesNotExist:
        raise ServiceError("not_found", "There is no such match.") from None


def require_player(user) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("not_signed_in", "Choose a name (play as a guest) or log in first.")


def seat_of(match: Match, user, seats: list[Seat] | None = None) -> Seat:
    """``user``'s seat in ``match`` (looked up in ``seats`` when the caller has them all)."""
    if user is None or not user.is_authenticated:
        raise ServiceError("not_seated", "Only the players of this match can do that; you are watching.")
    if seats is None:
        seats = list(match.seats.filter(player=user))
    seat = next((s for s in seats if s.player_id == user.pk), None)
    if seat is None:
        raise ServiceError("not_seated", "Only the players of this match can do that; you are watching.")
    return seat


def lock_playing_seat(match_id: int, user):
    """The locked match, its seats, and ``user``'s seat, which must still be playing in an
    active match. Call inside ``transaction.atomic()``."""
    match = lock_match(match_id)
    seats = match_seats(match.pk)
    seat = seat_of(match, user, seats)
    require_active(match)
    if seat.resigned:
        raise ServiceError("already_resigned", "You have already resigned this match.")
    return match, seats, seat


def require_active(match: Match) -> None:
    if match.status == Match.Status.WAITING:
        raise ServiceError("match_not_started", "The match starts when every seat is taken.")
    if match.status != Match.Status.ACTIVE:
        raise ServiceError("match_over", "This match is over.")


def require_version(match: Match, version: int) -> None:
    """Refuse an action taken at ``version`` when the match is no longer there: the page that
    sent it has not seen the last move or takeback."""
    if version != match.version:
        raise ServiceError("stale_version",
                           f"The match has moved on (you saw version {version}, it is at {match.version}).",
                           {"version": match.version})
