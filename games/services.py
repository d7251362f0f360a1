"""Every write to a match happens here, each in one transaction, broadcast only after commit.

Concurrency: ``_lock_match`` takes the row lock on PostgreSQL (``SELECT ... FOR UPDATE``).
SQLite ignores that clause; there the settings open every transaction with ``BEGIN IMMEDIATE``
(one writer at a time), and in any case the version check plus the unique (match, ply)
constraint refuse a second submission at the same version.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import bots, broadcast, computer, selectors
from games.models import ChatMessage, Match, Move, Outcome, Presence, Seat
from games.rules import RulesError, get_game


@dataclass
class ServiceError(Exception):
    """A refused request. ``code`` is stable for clients, ``message`` is for people."""

    code: str
    message: str
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


def _lock_match(match_id: int) -> Match:
    """Fetch the match row for writing. Call inside ``transaction.atomic()``."""
    try:
        return Match.objects.select_for_update().get(pk=match_id)
    except Match.DoesNotExist:
        raise ServiceError("not_found", "There is no such match.") from None


def _require_player(user) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("not_signed_in", "Choose a name (play as a guest) or log in first.")


def match_create(*, user, game_slug: str, is_private: bool = False, role: str | None = None,
                 against_computer: bool = False, computer_level: int = computer.STRONGEST,
                 rng: random.Random | None = None) -> Match:
    """Create a match and seat its creator (``role=None`` picks a random seat).

    It waits for players, unless ``against_computer``: then the computer, at ``computer_level``
    (1 to 3, ``games.computer.LEVELS``), takes every other seat and the match starts at once.
    """
    _require_player(user)
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
        Seat.objects.bulk_create([
            Seat(match=match, role=r, order=i, player=user if r == role else computers.get(r),
                 joined_at=now if r == role or r in computers else None)
            for i, r in enumerate(game.roles)
        ])
        if against_computer:
            match.status, match.started_at = Match.Status.ACTIVE, now
            match.save(update_fields=["status", "started_at"])
            _computer_turn_after_commit(match, game, game.initial_state())
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
    _require_player(user)
    with transaction.atomic():
        match = _lock_match(match_id)
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


def move_submit(*, match_id: int, user, action: str, version: int) -> Match:
    """Play ``action`` for the seat ``user`` holds, if the match is still at ``version``."""
    with transaction.atomic():
        match = _lock_match(match_id)
        seats = list(match.seats.all())
        seat = _seat_of(match, user, seats)
        _require_active(match)
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
        resigned = {s.role for s in seats if s.resigned}
        state = _play_for_resigned(match, game, state, moves, resigned)
        _record(match, game, state, moves, resigned)
    return match


def match_resign(*, match_id: int, user) -> Match:
    """Resign ``user``'s seat: it scores 0. With two players the other wins at once; with
    three, the game goes on and the resigned seat's turns get random legal actions."""
    with transaction.atomic():
        match, seat = _lock_playing_seat(match_id, user)
        _resign_seat(match, seat)
    return match


def match_claim(*, match_id: int, user) -> Match:
    """Claim the match from a player who left: allowed to the other players once the player
    whose turn it is has had no page open on the match for ``ABANDON_SECONDS``. The absent
    seat then counts as resigned (two players: the claimant wins; three: the game goes on)."""
    with transaction.atomic():
        match, seat = _lock_playing_seat(match_id, user)
        game = get_game(match.game)
        mover = game.to_move(game.state_from_json(match.state))
        if mover == seat.role:
            raise ServiceError("not_abandoned", "It is your own turn: play, or resign.")
        wait = settings.ABANDON_SECONDS
        away = selectors.match_presence(match_id=match.pk)["away"].get(mover)
        if away is None or away < wait:
            raise ServiceError("not_abandoned", f"{mover} is still here, or left less than {wait} seconds ago: "
                                                "you can claim the match once they have been gone that long.")
        _resign_seat(match, match.seats.get(role=mover), left=True)
    return match


def chat_post(*, match_id: int, user, text: str) -> ChatMessage:
    """A player of the match writes a line to the chat (during the match and after it).

    Spectators read the chat but do not write in it, so the players are never heckled.
    """
    text = " ".join(text.split()) if isinstance(text, str) else ""
    if not text:
        raise ServiceError("bad_chat", "Write something first.")
    if len(text) > ChatMessage.MAX_LENGTH:
        raise ServiceError("bad_chat", f"A chat line holds at most {ChatMessage.MAX_LENGTH} characters.")
    with transaction.atomic():
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            raise ServiceError("not_found", "There is no such match.")
        seat = _seat_of(match, user)
        message = ChatMessage.objects.create(match=match, author=seat.player, text=text)
        broadcast.chat_posted_on_commit(message)
    return message


def match_abort(*, match_id: int, user) -> Match:
    """Call off a match that is still waiting for players (its creator, or any seated player)."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.WAITING:
            raise ServiceError("match_started", "Only a match still waiting for players can be aborted.")
        if match.created_by_id != user.pk and not match.seats.filter(player=user).exists():
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
        old = _lock_match(match_id)
        _seat_of(old, user)
        if old.status != Match.Status.FINISHED:
            raise ServiceError("match_not_over", "A rematch can be offered once the match is over.")
        pending = old.rematches.exclude(status=Match.Status.ABORTED).first()
        if pending is not None:
            return pending
        old_seats = list(old.seats.select_related("player"))
        game = get_game(old.game)
        new = Match.objects.create(game=old.game, is_private=old.is_private, created_by=user, rematch_of=old,
                                   state=game.state_to_json(game.initial_state()))
        now = timezone.now()
        seated = {s.player_id for s in old_seats if s.player_id == user.pk or (s.player and s.player.is_computer)}
        players = [s.player_id for s in old_seats]
        rotated = players[-1:] + players[:-1]
        Seat.objects.bulk_create([
            Seat(match=new, role=r, order=i,
                 player_id=pid if pid in seated else None, joined_at=now if pid in seated else None,
                 reserved_for_id=None if pid in seated else pid)
            for i, (r, pid) in enumerate(zip(game.roles, rotated))
        ])
        if all(pid in seated for pid in rotated):
            new.status, new.started_at = Match.Status.ACTIVE, now
            new.save(update_fields=["status", "started_at"])
            _computer_turn_after_commit(new, game, game.initial_state())
        broadcast.match_changed_on_commit(old.pk)
        broadcast.lobby_changed_on_commit()
    return new


def presence_enter(*, match_id: int, channel_name: str, user) -> None:
    """A page on the match opened (a websocket connected); a seated player is back.

    Also sweeps the match's rows of pages that stopped answering without closing (a server
    process that died): all but those of the other seated players, which still say since when
    those players are away.
    """
    signed_in = user is not None and user.is_authenticated
    now = timezone.now()
    Presence.objects.update_or_create(
        channel_name=channel_name,
        defaults={"match_id": match_id, "user": user if signed_in else None, "last_seen": now},
    )
    others = Seat.objects.filter(match_id=match_id, player__isnull=False).exclude(player_id=user.pk if signed_in else None)
    (Presence.objects.filter(match_id=match_id, last_seen__lt=now - timedelta(seconds=settings.PRESENCE_TIMEOUT_SECONDS))
     .exclude(user_id__in=others.values("player_id")).delete())
    if signed_in:
        Seat.objects.filter(match_id=match_id, player=user, away_since__isnull=False).update(away_since=None)


def presence_touch(*, channel_name: str) -> None:
    Presence.objects.filter(channel_name=channel_name).update(last_seen=timezone.now())


def presence_leave(*, channel_name: str) -> None:
    """A page closed; when it was a seated player's last one on the match, note since when they are away."""
    row = Presence.objects.filter(channel_name=channel_name).first()
    if row is None:
        return
    row.delete()
    now = timezone.now()
    since = now - timedelta(seconds=settings.PRESENCE_TIMEOUT_SECONDS)
    if row.user_id and not Presence.objects.filter(match_id=row.match_id, user_id=row.user_id,
                                                   last_seen__gte=since).exists():
        Seat.objects.filter(match_id=row.match_id, player_id=row.user_id).update(away_since=now)


# -- internals -------------------------------------------------------------------------------

def _seat_of(match: Match, user, seats: list[Seat] | None = None) -> Seat:
    """``user``'s seat in ``match`` (looked up in ``seats`` when the caller has them all)."""
    if user is None or not user.is_authenticated:
        raise ServiceError("not_seated", "Only the players of this match can do that; you are watching.")
    if seats is None:
        seats = list(match.seats.filter(player=user))
    seat = next((s for s in seats if s.player_id == user.pk), None)
    if seat is None:
        raise ServiceError("not_seated", "Only the players of this match can do that; you are watching.")
    return seat


def _lock_playing_seat(match_id: int, user) -> tuple[Match, Seat]:
    """The locked match and ``user``'s seat, which must still be playing in an active match."""
    match = _lock_match(match_id)
    seat = _seat_of(match, user)
    _require_active(match)
    if seat.resigned:
        raise ServiceError("already_resigned", "You have already resigned this match.")
    return match, seat


def _require_active(match: Match) -> None:
    if match.status == Match.Status.WAITING:
        raise ServiceError("match_not_started", "The match starts when every seat is taken.")
    if match.status != Match.Status.ACTIVE:
        raise ServiceError("match_over", "This match is over.")


def _play_for_resigned(match: Match, game, state, moves: list[Move], resigned: set[str]):
    """Give each turn of a ``resigned`` seat a random legal action, reproducible from the match's token."""
    ply = match.version + len(moves)
    while not game.is_terminal(state) and game.to_move(state) in resigned:
        role = game.to_move(state)
        action = random.Random(f"{match.random_token}:{ply}").choice(game.legal_actions(state))
        state = game.play(state, role, action)
        ply += 1
        moves.append(Move(match=match, ply=ply, role=role, action=action))
    return state


def _record(match: Match, game, state, moves: list[Move], resigned: set[str]) -> None:
    """Append ``moves``, store ``state`` and the result if it ended (``resigned`` roles score 0);
    broadcast after commit."""
    try:
        Move.objects.bulk_create(moves)
    except IntegrityError:
        raise ServiceError("stale_version", "Another move was recorded first; here is the current state.",
                           {"version": match.version}) from None
    match.version += len(moves)
    match.state = game.state_to_json(state)
    fields = ["version", "state"]
    if game.is_terminal(state):
        outcome = game.outcome(state).to_json()
        if resigned:
            outcome["scores"].update({role: 0 for role in resigned})
            outcome["resigned"] = sorted(resigned)
            _set_winners(outcome)
        _finish(match, outcome)
        fields += ["status", "finished_at", "result"]
    match.save(update_fields=fields)
    broadcast.match_changed_on_commit(match.pk, last_moves=[(m.ply, m.role, m.action) for m in moves])
    _computer_turn_after_commit(match, game, state)
    if match.status == Match.Status.FINISHED:
        broadcast.lobby_changed_on_commit()


def _computer_turn_after_commit(match: Match, game, state) -> None:
    """If the computer holds the seat to move next, let it play once this transaction commits."""
    if match.status != Match.Status.ACTIVE:
        return
    if match.seats.filter(role=game.to_move(state), player__is_computer=True, resigned=False).exists():
        bots.computer_turn_on_commit(match.pk, match.version)


def computer_turn_resume(*, match_id: int) -> None:
    """Ask again for the computer's turn of an active match (after a restart the first visitor
    of the match page does this; a turn already being played is not started twice)."""
    match = Match.objects.filter(pk=match_id, status=Match.Status.ACTIVE).first()
    if match is not None:
        game = get_game(match.game)
        _computer_turn_after_commit(match, game, game.state_from_json(match.state))


def _resign_seat(match: Match, seat: Seat, *, left: bool = False) -> None:
    """``seat`` scores 0 from now on; finish the match if at most one seat plays on, else play
    the seat's turns at random. ``left``: the player did not resign but left and was claimed."""
    seat.resigned = True
    seat.save(update_fields=["resigned"])
    game = get_game(match.game)
    resigned = set(match.seats.filter(resigned=True).values_list("role", flat=True))
    if len(game.roles) - len(resigned) <= 1:
        _finish_by_resignation(match, game, resigned, left=seat.role if left else None)
    else:
        moves: list[Move] = []
        state = _play_for_resigned(match, game, game.state_from_json(match.state), moves, resigned)
        _record(match, game, state, moves, resigned)


def _finish_by_resignation(match: Match, game, resigned: set[str], left: str | None = None) -> None:
    scores = {role: (0 if role in resigned else 100) for role in game.roles}
    names = " and ".join(sorted(resigned))
    reason = f"{left} left the match and the win was claimed" if left else f"{names} resigned"
    outcome = {"scores": scores, "reason": reason, "line": [], "resigned": sorted(resigned)}
    _set_winners(outcome)
    _finish(match, outcome)
    match.save(update_fields=["status", "finished_at", "result"])
    broadcast.match_changed_on_commit(match.pk)
    broadcast.lobby_changed_on_commit()


def _set_winners(outcome: dict[str, Any]) -> None:
    scores = outcome["scores"]
    top = max(scores.values())
    winners = [] if len(set(scores.values())) == 1 else [r for r, s in scores.items() if s == top]
    outcome["winners"], outcome["draw"] = winners, not winners


def _finish(match: Match, outcome: dict[str, Any]) -> None:
    match.status, match.finished_at, match.result = Match.Status.FINISHED, timezone.now(), outcome
    for seat in match.seats.all():
        seat.score = outcome["scores"][seat.role]
        seat.outcome = (Outcome.DRAWN if outcome["draw"] else
                        Outcome.WON if seat.role in outcome["winners"] else Outcome.LOST)
        seat.save(update_fields=["score", "outcome"])
