"""A match's life outside its moves: create, join, resign, claim, abort, rematch."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.services import broadcast, flagfall
from games.runtime import presence
from games.computer import search as computer
from games.ggp import manager as ggp_manager
from games.match import clocks
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.labels import role_label
from games.match.settings import MatchSettings
from games.models import GGPPlayer, Match, Out, Seat
from games.rules import get_game
from games.selectors import match_seats
from games.selectors.rows import MAX_ID
from games.services.common import (
    call_off,
    computer_turn_after_commit,
    every_seat_moved,
    finish_drawn,
    lock_match,
    lock_playing_seat,
    require_player,
    resign_seat,
    seat_of,
)
from games.services.moves import forget
from games.services.playing import is_real_time, lock_players, require_not_playing, start_guard
from games.services.ratings import is_ratable, seat_rating
from games.selectors.snapshots import player_json

logger = logging.getLogger(__name__)


def match_create(*, user, settings: MatchSettings, is_private: bool = False, role: str | None = None,
                 opponents: Sequence = (), against_computer: bool = False,
                 computer_level: int = computer.STRONGEST, rng: random.Random | None = None,
                 ggp_players: Mapping[str, int] | None = None) -> Match:
    """Create a match with ``settings`` (rule set, rated or casual, time control) and seat its
    creator (``role=None`` picks a random seat).

    It waits for players, unless every other seat is taken at once: by ``opponents`` (quick
    pairing, an accepted challenge; they take the other seats in random order) or, if
    ``against_computer``, by the computer at ``computer_level`` (1 to 4,
    ``games.computer.search.LEVELS``); then it starts. A rated match is for signed-up accounts only.
    ``ggp_players`` seats registered GGP players (role -> ``GGPPlayer`` id) at once, as the
    computer is seated; such a match needs the per-move time control (the GGP way), and
    people and the computer may take the other seats.
    """
    require_player(user)
    if against_computer:
        _require_computer_may_play(level=computer_level, rated=settings.rated,
                                   advice="untick Rated, or choose to play against people.")
    if settings.rated and not all(is_ratable(p) for p in (user, *opponents)):
        raise ServiceError("rated_needs_accounts", "Rated matches are between signed-up players: guests play "
                                                   "casual matches. Sign up, or choose casual.")
    game = get_game(settings.game)
    rng = rng or random
    if role is None:
        role = rng.choice(game.roles)
    elif role not in game.roles:
        raise ServiceError("unknown_role", f"{game.name} has no seat {role!r}; pick one of {', '.join(game.roles)}.")
    ggp = _ggp_accounts(ggp_players or {}, game, role, settings.time_control)
    others = [r for r in game.roles if r != role and r not in ggp]
    if against_computer:
        seated = {r: computer_user(n, computer_level) for n, r in enumerate(others, start=1)}
    else:
        shuffled = rng.sample(others, len(others))
        seated = dict(zip(shuffled, opponents))
    seated.update(ggp)
    seated[role] = user
    control = settings.time_control
    starts = len(seated) == len(game.roles)
    with transaction.atomic():
        lock_players(p.pk for p in seated.values())  # first of all its locks (playing.py)
        if not starts and not opponents:
            _require_room_to_wait(user)
        if against_computer:
            _require_room_for_the_computer(user)
        if is_real_time(control) and not starts:  # a seek while playing would start a second match
            require_not_playing(seated.values(), user=user)
        now = timezone.now()
        match = Match.objects.create(game=game.slug, rated=settings.rated, is_private=is_private, created_by=user,
                                     state=game.state_to_json(game.initial_state()), **control.fields())
        # A waiting match counts its players away until they open its page: the lobby lists it
        # only then, and the expiry sweep calls it off if nobody ever comes.
        away = None if starts else now
        seats = [Seat(match=match, role=r, order=i, player=seated.get(r), joined_at=now if r in seated else None,
                      away_since=away if r in seated and not seated[r].is_computer else None)
                 for i, r in enumerate(game.roles)]
        for seat in seats:
            seat.rating_before, seat.rating_provisional = seat_rating(user=seat.player, game=game.slug)
        Seat.objects.bulk_create(seats)
        if starts:
            if is_real_time(control):
                start_guard(match, seated.values(), user=user)
            _start(match, game, seats, now)
        broadcast.lobby_changed_on_commit()
        broadcast.mine_changed_on_commit(seated.values())
    return match


def _ggp_accounts(chosen: Mapping[str, int], game, role: str, control: TimeControl) -> dict:
    """The accounts of the GGP players ``chosen`` for their roles (ServiceError if a role or
    player is wrong, or the time control is not per move)."""
    if not chosen:
        return {}
    if not control.play:
        raise ServiceError("ggp_needs_per_move", "A match with a GGP player uses the per-move time control "
                                                 "(a start clock and a play clock): choose one.")
    if role in chosen or not set(chosen) <= set(game.roles) or len(set(chosen.values())) != len(chosen):
        raise ServiceError("ggp_seats", "Each GGP player takes one seat other than yours.")
    storable = [pk for pk in chosen.values() if 0 < pk <= MAX_ID]  # no row has another; the database refuses larger
    players = {p.pk: p for p in GGPPlayer.objects.select_related("account")
               .filter(pk__in=storable, account__is_active=True)}
    if set(players) != set(chosen.values()):
        raise ServiceError("ggp_unknown", "There is no such GGP player.")
    return {r: players[pk].account for r, pk in chosen.items()}


def _require_computer_may_play(*, level: int, rated: bool, advice: str) -> None:
    """Refuse a computer's seat at an unknown ``level`` or in a ``rated`` match (the computer plays
    casual only); ``advice`` ends the rated refusal with what the player can do instead."""
    if level not in range(1, computer.STRONGEST + 1):
        raise ServiceError("unknown_level", f"The computer's level runs from 1 to {computer.STRONGEST}.")
    if rated:
        raise ServiceError("rated_needs_accounts", f"Games against the computer are casual: {advice}")


def _require_room_to_wait(user) -> None:
    """A player has at most ``WAITING_MATCHES_MAX`` matches of their own waiting for players
    (rematch offers aside): the lobby is not theirs to fill. Call holding their row lock."""
    waiting = Match.objects.filter(created_by=user, status=Match.Status.WAITING, rematch_of__isnull=True).count()
    if waiting >= settings.WAITING_MATCHES_MAX:
        raise ServiceError("too_many_waiting", f"You already have {waiting} matches waiting for players: "
                                               "wait for them to start, or leave one first.")


def _require_room_for_the_computer(user) -> None:
    """A player has at most ``COMPUTER_MATCHES_MAX`` unfinished matches with the computer
    seated: playing it again and again is fine, leaving games behind by the dozen is not (each
    may ask for the computer's time). Finished and aborted ones do not count. The refusal
    links to the oldest. Call holding the player's row lock."""
    unfinished = (Match.objects.filter(status=Match.Status.ACTIVE, seats__player=user)
                  .filter(seats__player__is_computer=True).distinct().order_by("started_at"))
    oldest = list(unfinished.values_list("pk", flat=True)[:settings.COMPUTER_MATCHES_MAX])
    if len(oldest) >= settings.COMPUTER_MATCHES_MAX:
        games = f"{len(oldest)} unfinished game{'s' if len(oldest) > 1 else ''}"
        raise ServiceError("too_many_computer_games", f"You have {games} against the computer: finish or resign "
                                                      "one first.", {"match": oldest[0]})


def computer_user(number: int = 1, level: int = computer.STRONGEST):
    """The computer player's account at ``level`` for its ``number``-th seat in a match (made on
    first use), e.g. "Computer 2 (easy)".

    One account per seat and level, since a player holds one seat of a match and the level
    belongs to the player (as on other sites: "level 3"); none of them can log in.
    """
    name = computer.LEVELS[level - 1].name
    user, created = get_user_model().objects.get_or_create(
        username=f"computer-{name}-{number}",
        defaults={"display_name": f"Computer ({name})" if number == 1 else f"Computer {number} ({name})",
                  "is_computer": True, "computer_level": level})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    elif not user.is_computer:
        # A person's account holds the name (signing up under it is refused, but an older
        # deployment may have one): never seat them as the computer.
        logger.error("the computer's account name %r belongs to a person's account", user.username)
        raise ServiceError("computer_unavailable", "The computer cannot play at this level right now; "
                                                   "try another level.")
    return user


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
        _take_seat(match, seats, free[0], user, by=user)
    return match


def _seat_give_to_computer(match_id: int, user, role: str, level: int) -> Match:
    with transaction.atomic():
        match, seats = _lock_waiting(match_id, user)
        if match.created_by_id != user.pk:
            raise ServiceError("not_creator", "Only the player who created this match can give a seat to the computer.")
        game = get_game(match.game)
        if role not in game.roles:
            raise ServiceError("unknown_role", f"{game.name} has no seat {role!r}; pick one of {', '.join(game.roles)}.")
        seat = next(s for s in seats if s.role == role)
        if seat.player_id is not None or seat.reserved_for_id is not None:
            raise ServiceError("seat_taken", f"The seat {role_label(role)} is not free.")
        _require_computer_may_play(level=level, rated=match.rated,
                                   advice="this rated match waits for signed-up players.")
        _require_room_for_the_computer(user)
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
        _start(match, get_game(match.game), seats, seat.joined_at)
    broadcast.match_changed_on_commit(match.pk)
    broadcast.lobby_changed_on_commit()
    broadcast.mine_changed_on_commit([by])


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
    game = get_game(match.game)
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


def rematch_offer(*, match_id: int, user) -> Match:
    """Offer a rematch of a finished match: same players, seats rotated by one.

    The offerer is seated at once, and so is the computer where it played; the other players'
    seats are kept for them and the rematch starts when they accept (``seat_join``). A second
    offer returns the pending rematch. Once a player declined one, its offerer may not offer
    another after this match (there is no next move to wait for, as with draws).
    """
    with transaction.atomic():
        lock_players([user.pk] if user.is_authenticated else [])  # before the matches' rows (playing.py)
        old = lock_match(match_id)
        old_seats = match_seats(old.pk)
        seat_of(old, user, old_seats)
        if old.status != Match.Status.FINISHED:
            raise ServiceError("match_not_over", "A rematch can be offered once the match is over.")
        pending = old.rematches.exclude(status=Match.Status.ABORTED).first()
        if pending is not None:
            return pending
        if old.rematches.filter(created_by=user, result__declined=True).exists():
            raise ServiceError("rematch_declined", "Your rematch offer was declined: you cannot offer another "
                                                   "after this match.")
        gone = next((s.player for s in old_seats if s.player is not None and not s.player.is_active), None)
        if gone is not None:  # a guest who logged out: nobody could ever take the seat kept for them
            raise ServiceError("player_gone", f"{gone} has left the site: there is nobody to play the rematch with.")
        game = get_game(old.game)
        kept = MatchSettings.of_match(old)
        real_time = is_real_time(kept.time_control)
        if real_time:
            require_not_playing([user], user=user)
        if any(s.player is not None and s.player.is_computer for s in old_seats):
            _require_room_for_the_computer(user)
        new = Match.objects.create(game=old.game, rated=kept.rated, is_private=old.is_private, created_by=user,
                                   rematch_of=old, state=game.state_to_json(game.initial_state()),
                                   **kept.time_control.fields())
        now = timezone.now()
        seated = {s.player_id for s in old_seats if s.player_id == user.pk or (s.player and s.player.is_computer)}
        players = [s.player for s in old_seats]
        rotated = players[-1:] + players[:-1]
        seats = [Seat(match=new, role=r, order=i,
                      player=p if p.pk in seated else None, joined_at=now if p.pk in seated else None,
                      reserved_for=None if p.pk in seated else p)
                 for i, (r, p) in enumerate(zip(game.roles, rotated))]
        for seat in seats:
            seat.rating_before, seat.rating_provisional = seat_rating(user=seat.player, game=game.slug)
        Seat.objects.bulk_create(seats)
        if all(p.pk in seated for p in rotated):
            if real_time:
                start_guard(new, rotated, user=user)
            _start(new, game, seats, now)
        broadcast.match_changed_on_commit(old.pk)
        broadcast.lobby_changed_on_commit()
        broadcast.mine_changed_on_commit(rotated)
    return new


def rematch_decline(*, match_id: int, user) -> Match:
    """Decline the rematch offered after the finished match ``match_id``: a player it waits
    for calls it off, and the offer leaves every page of both matches (``call_off``)."""
    with transaction.atomic():
        pending = Match.objects.filter(rematch_of_id=match_id, status=Match.Status.WAITING).first()
        rematch = lock_match(pending.pk) if pending is not None else None
        if rematch is None or rematch.status != Match.Status.WAITING:
            raise ServiceError("no_offer", "There is no rematch offer to decline.")
        if not (user.is_authenticated and rematch.seats.filter(reserved_for=user).exists()):
            raise ServiceError("not_yours", "Only a player the rematch waits for can decline it.")
        call_off(rematch, reason="the rematch offer was declined", declined_by=player_json(user))
    return rematch


def _start(match: Match, game, seats: list[Seat], at) -> None:
    """Every seat is taken: the match starts ``at``, and so does the first mover's time for
    its first move (real time; its own clock starts at that move)."""
    state = game.initial_state()
    match.status, match.started_at = Match.Status.ACTIVE, at
    match.clock, match.deadline = clocks.start(TimeControl.of(match), game.roles, game.to_move(state), clocks.now(),
                                               first_move_ms=settings.FIRST_MOVE_SECONDS * 1000)
    match.save(update_fields=["status", "started_at", "clock", "deadline"])
    flagfall.arm_on_commit(match.pk, match.deadline)
    computer_turn_after_commit(match, game, state, seats)
    ggp_manager.after_commit(match.pk, seats)  # GGP seats hear START
