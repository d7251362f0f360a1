"""Checks and steps shared by the match services. Each runs inside the caller's transaction."""

from __future__ import annotations

import random
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection
from django.utils import timezone

from games.services import broadcast, flagfall
from games.computer import bots
from games.ggp import manager as ggp_manager
from games.match import clocks, conduct, invites
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.rulesets import stored_rules
from games.models import Match, Move, Out, Outcome, Seat
from games.selectors import match_seats
from games.services import statements
from games.services.ratings import SEAT_RATING_FIELDS, ratings_update

SEAT_RESULT_FIELDS = ["score", "outcome", *SEAT_RATING_FIELDS]


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


def play_for_resigned(match: Match, game, state, moves: list[Move], resigned: set[str]):
    """Give each turn of a ``resigned`` seat a random legal action, reproducible from the match's token."""
    ply = match.plies + len(moves)
    while not game.is_terminal(state) and game.to_move(state) in resigned:
        role = game.to_move(state)
        action = random.Random(f"{match.random_token}:{ply}").choice(game.legal_actions(state))
        state = game.play(state, role, action)
        ply += 1
        moves.append(Move(match=match, ply=ply, role=role, action=action))
    return state


class Overtaken(Exception):
    """A conditional write (``record_if_unchanged``, ``record_move_alone``) found the match
    changed since it was read, and wrote nothing."""


def record_locked(match: Match, game, state, moves: list[Move], seats: list[Seat], *, at=None) -> None:
    """Write a match the caller holds the row lock of (``lock_match``), inside the caller's
    transaction: the careful move path, and a resignation whose match plays on (``resign_seat``,
    with the resigned seats' random moves, or none). The match row is saved, the seats' results
    if the game ended, and ``moves`` inserted (a ply already there: ``stale_version``). What
    changes, and what follows the commit, as in ``_advance`` and ``_announce``."""
    previous, fields, _ = _advance(match, game, state, moves, seats, save_seats=True, at=at)
    match.save(update_fields=fields)
    _insert_moves(moves, previous)
    _announce(match, game, state, moves, seats, previous)


def record_if_unchanged(match: Match, game, state, moves: list[Move], seats: list[Seat], *, since: int,
                        at) -> None:
    """Write a move the caller checked against its memory of ``match`` and ``seats`` (read
    without a lock, at version ``since``), inside the caller's transaction: the move path from
    memory when the move cannot be one statement (it ends the game, the database is not
    PostgreSQL, or the move is one of ``move_submit_many``'s). The update applies only if the row
    is still at ``since``, still active, with no offers pending and no other seat resigned
    meanwhile, and takes the row lock; else ``Overtaken``, and nothing is written. Then the seats'
    results if the game ended, and the insert of ``moves``."""
    previous, fields, resigned = _advance(match, game, state, moves, seats, save_seats=False, at=at)
    if not statements.update_if_unchanged(match, fields, since, resigned):
        raise Overtaken
    if match.status == Match.Status.FINISHED:
        statements.update_seats(seats, SEAT_RESULT_FIELDS)
    _insert_moves(moves, previous)
    _announce(match, game, state, moves, seats, previous)


def record_move_alone(match: Match, game, state, moves: list[Move], seats: list[Seat], *, since: int,
                      at) -> None:
    """The move's fast path: write a move checked against memory (as ``record_if_unchanged``)
    that does not end the game, outside any transaction, where ``one_statement`` allows: the
    conditional update and the insert are one statement that commits on its own, all or
    nothing; ``Overtaken`` if the update did not apply."""
    previous, fields, resigned = _advance(match, game, state, moves, seats, save_seats=False, at=at)
    if not statements.update_and_insert_if_unchanged(match, fields, since, resigned, moves):
        raise Overtaken
    _announce(match, game, state, moves, seats, previous)


def one_statement(match: Match, moves: list[Move]) -> bool:
    """Whether a remembered match's move can be written by ``record_move_alone`` (PostgreSQL,
    and the game goes on: a finishing move also writes the seats; not inside a caller's
    transaction, where a failed statement would end that transaction)."""
    return (bool(moves) and match.status == Match.Status.ACTIVE and connection.vendor in statements.ONE_STATEMENT
            and not connection.in_atomic_block)


def _advance(match: Match, game, state, moves: list[Move], seats: list[Seat], *, save_seats: bool,
             at) -> tuple[int, list[str], set[str]]:
    """Change ``match`` in memory for ``moves`` (none when only a seat changed) and the new
    ``state``: version and plies, the state, another player's draw offer lapsing, the result if
    the game ended (resigned seats score 0, credited with no line, and the reason says how they
    left: "...; xplayer resigned"; ``finish``, which saves the seats' results if
    ``save_seats``), else the clock run to the next mover (the change happened ``at``, by
    default now). Returns the version before, the fields to write and the resigned roles."""
    previous = match.version
    match.version += len(moves)
    match.plies += len(moves)
    match.state = game.state_to_json(state)
    fields = ["version", "plies", "state"]
    if moves and match.offers:
        match.offers = conduct.after_move(match.offers, moves[0].role)
        fields.append("offers")
    resigned = {s.role for s in seats if s.resigned}
    at = at or clocks.now()
    if game.is_terminal(state):
        outcome = game.outcome_without(state, resigned).to_json()
        if resigned:
            left = " and ".join(f"{s.role} {EARLY_EXIT.get(s.out, 'resigned')}" for s in seats if s.resigned)
            outcome["reason"] += f"; {left}"
            outcome["resigned"] = sorted(resigned)
        finish(match, outcome, seats, save_seats=save_seats, at=at)
        fields += FINISH_FIELDS
    elif match.clock is not None:
        match.clock, match.deadline = clocks.advance(TimeControl.of(match), match.clock,
                                                     after=game.to_move(state), at=at)
        fields += ["clock", "deadline"]
        flagfall.arm_on_commit(match.pk, match.deadline)
    return previous, list(dict.fromkeys(fields)), resigned


def _insert_moves(moves: list[Move], previous: int) -> None:
    """Insert ``moves`` (if any) after the match row's write; a ply already there means another
    move at version ``previous`` was recorded first."""
    if not moves:
        return
    try:
        statements.insert_moves(moves)
    except IntegrityError:
        raise ServiceError("stale_version", "Another move was recorded first; here is the current state.",
                           {"version": previous}) from None


def _announce(match: Match, game, state, moves: list[Move], seats: list[Seat], previous: int) -> None:
    """After commit: broadcast the new state, built from what the transaction already holds;
    the lobby hears of a finished match (its GGP seats hear from ``finish``), the computer
    plays if its seat is to move, GGP seats hear the move."""
    broadcast.match_moved_on_commit(match=match, game=game, state=state, seats=seats,
                                    previous_version=previous, moves=moves)
    if match.status == Match.Status.FINISHED:
        broadcast.lobby_changed_on_commit()
    else:
        computer_turn_after_commit(match, game, state, seats)
        ggp_manager.after_commit(match.pk, seats)


def computer_turn_after_commit(match: Match, game, state, seats: list[Seat]) -> None:
    """If the computer holds the seat to move next, let it play once this transaction commits."""
    if match.status != Match.Status.ACTIVE:
        return
    mover = game.to_move(state)
    if any(s.role == mover and s.player is not None and s.player.is_computer and not s.resigned for s in seats):
        bots.computer_turn_on_commit(match.pk, match.version)


def start(match: Match, game, seats: list[Seat], at) -> None:
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


def every_seat_moved(match: Match) -> bool:
    """Whether every seat of the active ``match`` has made its first move (the computer's
    seats too): until then it has not really begun, and any ending aborts it (``resign_seat``)."""
    return set(match.moves.values_list("role", flat=True).distinct()) >= set(stored_rules(match.game).roles)


def call_off(match: Match, *, reason: str = "", declined_by: dict[str, Any] | None = None,
             seats: list[Seat] | None = None, invite_ended: dict[str, Any] | None = None) -> None:
    """End a match that never really began (``aborted``: no result, not rated): its clock
    stops, offers go; ``reason`` says why (``Match.result``: ``{"aborted": true, "reason": ...}``,
    with ``declined`` and ``by``, the player, for a rematch offer that player declined; with
    ``invite_ended``, ``games.match.invites.ending``, for a private invitation, and ``told``:
    whether its creator knows; she is told of one that ended while she was away,
    ``games.services.invites``); the
    lobby and its pages hear after commit, at a new version, and GGP seats hear ABORT (from
    ``seats`` with their players if the caller has them, else read). Call holding the row lock."""
    match.status, match.finished_at = Match.Status.ABORTED, timezone.now()
    match.result = {"aborted": True, "reason": reason,
                    **({"declined": True, "by": declined_by} if declined_by else {}),
                    **({"invite_ended": invite_ended, "told": invite_ended["why"] != invites.LEFT}
                       if invite_ended else {})}
    match.clock, _ = clocks.advance(TimeControl.of(match), match.clock, after=None, at=clocks.now())
    match.deadline, match.offers = None, ""
    match.version += 1
    match.save(update_fields=["status", "finished_at", "result", "clock", "deadline", "offers", "version"])
    broadcast.match_changed_on_commit(match.pk)
    ggp_manager.after_commit(match.pk, seats)  # GGP seats hear ABORT
    if match.rematch_of_id is not None:  # its offer on the finished match's page goes too
        broadcast.match_changed_on_commit(match.rematch_of_id)
    broadcast.lobby_changed_on_commit()


def set_winners(outcome: dict[str, Any]) -> None:
    scores = outcome["scores"]
    top = max(scores.values())
    winners = [] if len(set(scores.values())) == 1 else [r for r, s in scores.items() if s == top]
    outcome["winners"], outcome["draw"] = winners, not winners


FINISH_FIELDS = ["status", "finished_at", "result", "clock", "deadline", "offers"]


def finish(match: Match, outcome: dict[str, Any], seats: list[Seat], *, save_seats: bool = True,
           at=None) -> None:
    """End ``match`` with ``outcome`` ``at`` (by default now): the clock stops, pending offers
    go, and if the match is rated its players' ratings are updated. Every way a match finishes
    (the last move, a resignation, a claim, a flag fall, an agreed draw) comes through here,
    inside the transaction that finishes it. The caller saves ``FINISH_FIELDS``; the seats'
    results are saved here in one statement (unless ``save_seats`` is false: the caller saves
    ``SEAT_RESULT_FIELDS`` once its own update has applied)."""
    match.status, match.result = Match.Status.FINISHED, outcome
    match.clock, _ = clocks.advance(TimeControl.of(match), match.clock, after=None, at=at or clocks.now())
    match.deadline, match.offers = None, ""
    for seat in seats:
        seat.score = outcome["scores"][seat.role]
        seat.outcome = (Outcome.DRAWN if outcome["draw"] else
                        Outcome.WON if seat.role in outcome["winners"] else Outcome.LOST)
    ratings_update(match=match, seats=seats)
    ggp_manager.after_commit(match.pk, seats)  # GGP seats hear STOP
    if save_seats:
        statements.update_seats(seats, SEAT_RESULT_FIELDS)


def finish_drawn(match: Match, seats: list[Seat], reason: str) -> None:
    """End ``match`` as a draw among the seats still playing (resigned ones score 0), for
    ``reason``; its pages and the lobby hear after commit, at a new version. Call holding the
    row lock."""
    scores = {s.role: 0 if s.resigned else 50 for s in seats}
    outcome = {"scores": scores, "reason": reason, "line": [], "resigned": sorted(s.role for s in seats if s.resigned)}
    set_winners(outcome)
    finish(match, outcome, seats)
    match.version += 1
    match.save(update_fields=[*FINISH_FIELDS, "version"])
    broadcast.match_changed_on_commit(match.pk)
    broadcast.lobby_changed_on_commit()


EARLY_EXIT = {Out.RESIGNED: "resigned", Out.TIME: "ran out of time", Out.ABANDONED: "left the match",
              Out.LEFT: "left the site"}


def resign_seat(match: Match, seats: list[Seat], seat: Seat, *, reason: str | None = None, at=None,
                out: str = Out.RESIGNED) -> None:
    """``seat`` scores 0 from now on (having left play as ``out`` says); finish the match
    (``reason``, by default "... resigned") if at most one seat plays on, else play the seat's
    turns at random. Before every seat has moved (``every_seat_moved``), with two players or
    three, the match is aborted instead, saying why: nobody wins, loses or is rated for a
    match that never began (lichess's rule). The version goes up either way: pages must notice.
    Call holding the row lock."""
    if not every_seat_moved(match):
        moved = match.moves.filter(role=seat.role).exists()
        call_off(match, reason=f"{seat.role} {EARLY_EXIT[out]} before "
                               f"{'every player had moved' if moved else 'moving'}", seats=seats)
        return
    seat.resigned, seat.out, seat.out_ply = True, out, match.plies
    seat.save(update_fields=["resigned", "out", "out_ply"])
    game = stored_rules(match.game)
    resigned = {s.role for s in seats if s.resigned}
    match.resigned = statements.resigned_text(resigned)
    match.version += 1
    match.save(update_fields=["resigned", "version"])
    if len(game.roles) - len(resigned) <= 1:
        scores = {role: (0 if role in resigned else 100) for role in game.roles}
        outcome = {"scores": scores, "reason": reason or f"{' and '.join(sorted(resigned))} resigned", "line": [],
                   "resigned": sorted(resigned)}
        set_winners(outcome)
        finish(match, outcome, seats, at=at)
        match.save(update_fields=FINISH_FIELDS)
        broadcast.match_changed_on_commit(match.pk)
        broadcast.lobby_changed_on_commit()
    else:
        moves: list[Move] = []
        state = play_for_resigned(match, game, game.state_from_json(match.state), moves, resigned)
        record_locked(match, game, state, moves, seats, at=at)
