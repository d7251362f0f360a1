"""A match's life outside its moves: create, join, resign, claim, abort, rematch."""

from __future__ import annotations

import random

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import broadcast, computer, presence
from games.errors import ServiceError
from games.models import Match, Move, Seat
from games.rules import get_game
from games.selectors import match_seats
from games.services.common import (
    computer_turn_after_commit,
    finish,
    lock_match,
    play_for_resigned,
    record,
    require_active,
    require_player,
    seat_of,
    set_winners,
)


def match_create(*, user, game_slug: str, is_private: bool = False, role: str | None = None,
                 against_computer: bool = False, computer_level: int = computer.STRONGEST,
                 rng: random.Random | None = None) -> Match:
    """Create a match and seat its creator (``role=None`` picks a random seat).

    It waits for players, unless ``against_computer``: then the computer, at ``computer_level``
    (1 to 3, ``games.computer.LEVELS``), takes every other seat and the match starts at once.
    """
    require_player(user)
    if against_computer and computer_level not in range(1, computer.STRONGEST + 1):
        raise ServiceError("unknown_level", f"The computer's level runs from 1 to {computer.STRONGEST}.")
    try:
        game = get_game(game_slug)
    except KeyError:
        raise ServiceError("unknown_game", f"There is no game called {game_slug!r}.") from None
    if role is None:
        role = (rng or random).choice(game.roles)
    elif role not in game.roles:
        raise ServiceError("unknown_role", f"{game.name} has no seat {role!r}; pick one of {', '.join(game.roles)}.")
    with transaction.atomic():
        now = timezone.now()
        match = Match.objects.create(game=game.slug, is_private=is_private, created_by=user,
                                     state=game.state_to_json(game.initial_state()))
        others = [r for r in game.roles if r != role]
        computers = ({r: computer_user(n, computer_level) for n, r in enumerate(others, start=1)}
                     if against_computer else {})
        seats = [Seat(match=match, role=r, order=i, player=user if r == role else computers.get(r),
                      joined_at=now if r == role or r in computers else None)
                 for i, r in enumerate(game.roles)]
        Seat.objects.bulk_create(seats)
        if against_computer:
            match.status, match.started_at = Match.Status.ACTIVE, now
            match.save(update_fields=["status", "started_at"])
            computer_turn_after_commit(match, game, game.initial_state(), seats)
        broadcast.lobby_changed_on_commit()
    return match


def computer_user(number: int = 1, level: int = computer.STRONGEST):
    """The computer player's account at ``level`` for its ``number``-th seat in a match (made on
    first use), e.g. "Computer 2 (easy)".

    One account per seat and level, since a player holds one seat of a match and the level
    belongs to the player (as on other sites: "level 3"); none of them can log in.
    """
    name = computer.LEVELS[level - 1][0]
    user, created = get_user_model().objects.get_or_create(
        username=f"computer-{name}-{number}",
        defaults={"display_name": f"Computer ({name})" if number == 1 else f"Computer {number} ({name})",
                  "is_computer": True, "computer_level": level})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def seat_join(*, match_id: int, user, role: str | None = None) -> Match:
    """Take a free seat (the first free one when ``role`` is None). The match starts when full.

    Who may join a private match is decided by the caller (it holds the invite link).
    """
    require_player(user)
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Match.Status.WAITING:
            raise ServiceError("match_started", "This match is no longer waiting for players.")
        seats = list(match.seats.select_for_update())
        if any(s.player_id == user.pk for s in seats):
            raise ServiceError("already_seated", "You already have a seat in this match.")
        free = [s for s in seats if s.player_id is None and s.reserved_for_id in (None, user.pk)]
        if role is not None:
            free = [s for s in free if s.role == role]
            if not free:
                raise ServiceError("seat_taken", f"The seat {role} is not free.")
        if not free:
            raise ServiceError("seat_taken", "There is no free seat in this match.")
        seat = free[0]
        seat.player, seat.joined_at = user, timezone.now()
        seat.save(update_fields=["player", "joined_at"])
        if all(s.player_id is not None for s in seats):
            match.status, match.started_at = Match.Status.ACTIVE, timezone.now()
            match.save(update_fields=["status", "started_at"])
        broadcast.match_changed_on_commit(match.pk)
        broadcast.lobby_changed_on_commit()
    return match


def match_resign(*, match_id: int, user) -> Match:
    """Resign ``user``'s seat: it scores 0. With two players the other wins at once; with
    three, the game goes on and the resigned seat's turns get random legal actions."""
    with transaction.atomic():
        match, seats, seat = _lock_playing_seat(match_id, user)
        _resign_seat(match, seats, seat)
    return match


def match_claim(*, match_id: int, user) -> Match:
    """Claim the match from a player who left: allowed to the other players once the player
    whose turn it is has had no page open on the match for ``ABANDON_SECONDS``. The absent
    seat then counts as resigned (two players: the claimant wins; three: the game goes on)."""
    with transaction.atomic():
        match, seats, seat = _lock_playing_seat(match_id, user)
        game = get_game(match.game)
        mover = game.to_move(game.state_from_json(match.state))
        if mover == seat.role:
            raise ServiceError("not_abandoned", "It is your own turn: play, or resign.")
        wait = settings.ABANDON_SECONDS
        away = presence.match_presence(match_id=match.pk, seats=seats)["away"].get(mover)
        if away is None or away < wait:
            raise ServiceError("not_abandoned", f"{mover} is still here, or left less than {wait} seconds ago: "
                                                "you can claim the match once they have been gone that long.")
        _resign_seat(match, seats, next(s for s in seats if s.role == mover), left=True)
    return match


def match_abort(*, match_id: int, user) -> Match:
    """Call off a match that is still waiting for players (its creator, or any seated player)."""
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Match.Status.WAITING:
            raise ServiceError("match_started", "Only a match still waiting for players can be aborted.")
        if not user.is_authenticated or (match.created_by_id != user.pk
                                         and not match.seats.filter(player=user).exists()):
            raise ServiceError("not_seated", "Only a player of this match can abort it.")
        match.status, match.finished_at = Match.Status.ABORTED, timezone.now()
        match.save(update_fields=["status", "finished_at"])
        broadcast.match_changed_on_commit(match.pk)
        broadcast.lobby_changed_on_commit()
    return match


def rematch_offer(*, match_id: int, user) -> Match:
    """Offer a rematch of a finished match: same players, seats rotated by one.

    The offerer is seated at once, and so is the computer where it played; the other players'
    seats are kept for them and the rematch starts when they accept (``seat_join``). A second
    offer returns the pending rematch.
    """
    with transaction.atomic():
        old = lock_match(match_id)
        old_seats = match_seats(old.pk)
        seat_of(old, user, old_seats)
        if old.status != Match.Status.FINISHED:
            raise ServiceError("match_not_over", "A rematch can be offered once the match is over.")
        pending = old.rematches.exclude(status=Match.Status.ABORTED).first()
        if pending is not None:
            return pending
        game = get_game(old.game)
        new = Match.objects.create(game=old.game, is_private=old.is_private, created_by=user, rematch_of=old,
                                   state=game.state_to_json(game.initial_state()))
        now = timezone.now()
        seated = {s.player_id for s in old_seats if s.player_id == user.pk or (s.player and s.player.is_computer)}
        players = [s.player for s in old_seats]
        rotated = players[-1:] + players[:-1]
        seats = [Seat(match=new, role=r, order=i,
                      player=p if p.pk in seated else None, joined_at=now if p.pk in seated else None,
                      reserved_for=None if p.pk in seated else p)
                 for i, (r, p) in enumerate(zip(game.roles, rotated))]
        Seat.objects.bulk_create(seats)
        if all(p.pk in seated for p in rotated):
            new.status, new.started_at = Match.Status.ACTIVE, now
            new.save(update_fields=["status", "started_at"])
            computer_turn_after_commit(new, game, game.initial_state(), seats)
        broadcast.match_changed_on_commit(old.pk)
        broadcast.lobby_changed_on_commit()
    return new


def _lock_playing_seat(match_id: int, user):
    """The locked match, its seats, and ``user``'s seat, which must still be playing in an active match."""
    match = lock_match(match_id)
    seats = match_seats(match.pk)
    seat = seat_of(match, user, seats)
    require_active(match)
    if seat.resigned:
        raise ServiceError("already_resigned", "You have already resigned this match.")
    return match, seats, seat


def _resign_seat(match: Match, seats: list[Seat], seat: Seat, *, left: bool = False) -> None:
    """``seat`` scores 0 from now on; finish the match if at most one seat plays on, else play
    the seat's turns at random. ``left``: the player did not resign but left and was claimed."""
    seat.resigned = True
    seat.save(update_fields=["resigned"])
    game = get_game(match.game)
    resigned = {s.role for s in seats if s.resigned}
    if len(game.roles) - len(resigned) <= 1:
        scores = {role: (0 if role in resigned else 100) for role in game.roles}
        names = " and ".join(sorted(resigned))
        reason = f"{seat.role} left the match and the win was claimed" if left else f"{names} resigned"
        outcome = {"scores": scores, "reason": reason, "line": [], "resigned": sorted(resigned)}
        set_winners(outcome)
        finish(match, outcome, seats)
        match.save(update_fields=["status", "finished_at", "result"])
        broadcast.match_changed_on_commit(match.pk)
        broadcast.lobby_changed_on_commit()
    else:
        moves: list[Move] = []
        state = play_for_resigned(match, game, game.state_from_json(match.state), moves, resigned)
        record(match, game, state, moves, seats)
