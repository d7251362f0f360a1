"""Berserk (an arena's choice, as on lichess): a player halves their own clock before their
first move. The match's clock keeps who did (``berserk``); the arena that offers it records it
for its score (``tournaments.arena``), in the same transaction."""

from __future__ import annotations

from games.match import clocks
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.services import broadcast
from games.services.guards import lock_playing_seat


def clock_berserk(*, match_id: int, user) -> str:
    """Halve ``user``'s own time in the real-time match ``match_id`` before their first move,
    once; returns their role. Call inside ``transaction.atomic()`` (the caller may hold other
    rows that must change with it). The match's version grows and its pages get the new
    clock after commit."""
    match, _, seat = lock_playing_seat(match_id, user)
    clock = match.clock
    if TimeControl.of(match).kind != "real_time" or not clock:
        raise ServiceError("no_berserk", "Berserk halves a real-time clock: this match has none.")
    if seat.role in clock.get("berserk", ()):
        raise ServiceError("already_berserk", "You have already gone berserk in this game.")
    if seat.role not in clock.get("first", ()):
        raise ServiceError("berserk_too_late", "Berserk is only before your first move.")
    remaining = {**clock["remaining"], seat.role: clock["remaining"][seat.role] // 2}
    match.clock = {**clock, "remaining": remaining, "berserk": [*clock.get("berserk", ()), seat.role]}
    match.deadline = clocks.deadline(match.clock)
    match.version += 1
    match.save(update_fields=["clock", "deadline", "version"])
    broadcast.match_changed_on_commit(match.pk)
    return seat.role
