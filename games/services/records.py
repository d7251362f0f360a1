"""The three ways a move (or a seat's change) is written, each checked differently: under the
match's row lock (``record_locked``), against the match as remembered, inside a transaction
(``record_if_unchanged``), or as one statement that commits on its own (``record_move_alone``,
where ``one_statement`` allows). Each advances the match in memory the same way, and announces
the same after commit: the new state to its pages, the lobby a finished match, the computer's
turn, the GGP seats' next step."""

from __future__ import annotations

import random

from django.db import IntegrityError, connection

from games.computer import bots
from games.ggp import manager as ggp_manager
from games.match import clocks, conduct
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.models import Match, Move, Seat
from games.services import broadcast, flagfall, notices, statements
from games.services.finishing import EARLY_EXIT, FINISH_FIELDS, SEAT_RESULT_FIELDS, finish


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
        notices.turn_on_commit(match, game, state, seats)


def computer_turn_after_commit(match: Match, game, state, seats: list[Seat]) -> None:
    """If the computer holds the seat to move next, let it play once this transaction commits."""
    if match.status != Match.Status.ACTIVE:
        return
    mover = game.to_move(state)
    if any(s.role == mover and s.player is not None and s.player.is_computer and not s.resigned for s in seats):
        bots.computer_turn_on_commit(match.pk, match.version)
