"""A move: the hot path.

This process remembers each active match it has played a move in (the match row, its seats
with players, the parsed state) at the version it last wrote. A move at that version is
checked against the memory, with no read, and written by an update that applies only if the
row is still at that version, still active, with no offers pending and no other seat resigned
meanwhile (it takes the
row lock, so concurrent submissions at one version give exactly one move) and the insert of
the move: one transaction of two statements, or on PostgreSQL one statement on its own
(``statements``). Anything else (no memory, another version, the
conditional update refused because another process or service changed the match) takes the
careful path: lock the row, read the seats, check, write; it refreshes the memory.

A refusal from memory is always right: at the version the client names, the position is
fixed, a finished match stays finished and a seat's player does not change once it started;
and the mover's clock ran from the moment the turn began, which that version fixes too.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.computer import bots
from games.ggp import manager as ggp_manager
from games.match import clocks
from games.match.errors import ServiceError
from games.match.labels import role_label
from games.match.rulesets import rules_or_skip, stored_rules
from games.models import Match, Move, Seat
from games.rules import RulesError
from games.selectors import match_seats
from games.services.clocks import clock_flag
from games.services.guards import lock_match, require_active, require_version, seat_of
from games.services.records import (
    Overtaken,
    computer_turn_after_commit,
    one_statement,
    play_for_resigned,
    record_if_unchanged,
    record_locked,
    record_move_alone,
)

MEMORY_SIZE = 10_000  # active matches remembered per process (least recently moved forgotten)


@dataclass(frozen=True)
class Known:
    """An active match as this process last wrote it."""

    match: Match
    seats: list[Seat]
    state: object


known: OrderedDict[int, Known] = OrderedDict()


def move_submit(*, match_id: int, user, action: str, version: int) -> Match:
    """Play ``action`` for the seat ``user`` holds, if the match is still at ``version`` and
    the mover's time has not run out (else the match ends on time, and the move is refused).
    A GGP seat's time is its manager's to judge, against the play clock of its own PLAY
    (``games.ggp.manager``), which may have gone out after its turn began."""
    try:
        return _submit(match_id, user, action, version)
    except clocks.OutOfTime:
        known.pop(match_id, None)
        clock_flag(match_id=match_id)
        if Match.objects.filter(pk=match_id, status=Match.Status.ABORTED).exists():
            raise ServiceError("first_move_too_late", "Your time for a first move ran out before this move "
                                                      "arrived: the match was aborted (not rated).",
                               {"version": version}) from None
        raise ServiceError("out_of_time", "Your time ran out before this move arrived: the match is lost on time.",
                           {"version": version}) from None


def move_submit_many(calls: list[dict]) -> list[Match | Exception]:
    """Several moves (each ``move_submit``'s keyword arguments) in one transaction with one
    commit: what a database thread does with the moves that queued for it meanwhile
    (``live.movequeue``). Each move is a savepoint of its own: a refusal or a failure undoes
    that move alone and takes its place in the list returned, in the order of ``calls``. A
    move lost on time still ends its match. Nothing is sent before the one commit.

    The savepoints are the move path's own ``atomic`` blocks: every write of ``move_submit`` is
    inside one (the careful path's, the one around each ``record_...``, the flag fall's), so a move that
    fails rolls back to where it began; inside this transaction a move is never the one
    statement that commits on its own (``one_statement``)."""
    results: list[Match | Exception] = []
    with transaction.atomic():
        for call in calls:
            try:
                results.append(move_submit(**call))
            except Exception as err:  # the caller of that move alone receives it
                results.append(err)
    return results


def _submit(match_id: int, user, action: str, version: int) -> Match:
    memory = known.get(match_id)
    if memory is not None and memory.match.version == version and not memory.match.offers:
        try:
            return _play_from_memory(memory, user, action, version)
        except Overtaken:
            pass
        except ServiceError as err:
            if err.code == "stale_version":
                known.pop(match_id, None)
            raise
        except BaseException:
            known.pop(match_id, None)
            raise
    known.pop(match_id, None)
    with transaction.atomic():
        match = lock_match(match_id)
        return _play_locked(Known(match, match_seats(match.pk), None), user, action, version)


def _play_from_memory(memory: Known, user, action: str, version: int) -> Match:
    """The move checked against this process's memory of the match, at ``version``, and
    written only if the row is still as remembered (else ``Overtaken``): as one statement on its
    own where it can be (``record_move_alone``), else in a transaction (``record_if_unchanged``)."""
    match, seats, game, state, moves, at = _move(memory, user, action, version)
    if game.is_terminal(state):
        seats = [_clone(s) for s in seats]  # finishing writes the results into them: not into the memory
    elif one_statement(match, moves):
        record_move_alone(match, game, state, moves, seats, since=version, at=at)  # commits on its own
        _remember(match, seats, state)
        return match
    with transaction.atomic():
        record_if_unchanged(match, game, state, moves, seats, since=version, at=at)
        transaction.on_commit(lambda: _remember(match, seats, state), robust=True)
    return match


def _play_locked(memory: Known, user, action: str, version: int) -> Match:
    """The careful path: the move checked against the match just read with its row lock held
    (``memory``), and written in the caller's transaction (``record_locked``)."""
    match, seats, game, state, moves, at = _move(memory, user, action, version)
    with transaction.atomic():
        record_locked(match, game, state, moves, seats, at=at)
        transaction.on_commit(lambda: _remember(match, seats, state), robust=True)
    return match


def _move(memory: Known, user, action: str, version: int):
    """Check ``action`` by ``user``'s seat at ``version`` against ``memory`` and play it (and the
    resigned seats' turns after it) on a copy of the match: the copy, the seats, the game, the
    new state, the moves and when the move was played. Nothing is written."""
    match, seats = _clone(memory.match), memory.seats
    seat = seat_of(match, user, seats)
    require_active(match)
    require_version(match, version)
    game = stored_rules(match.game)
    state = memory.state if memory.state is not None else game.state_from_json(match.state)
    mover = game.to_move(state)
    if seat.role != mover:
        raise ServiceError("not_your_turn", f"It is {role_label(mover)}'s turn, not yours.")
    at = clocks.now()
    if not (match.clock_play and ggp_manager.is_ggp(user)):  # its manager judged it by the clock of its own PLAY
        clocks.check(match.clock, at)
    try:
        action = game.canonical_action(action)  # stored and shown in its one spelling
        state = game.play(state, seat.role, action)
    except RulesError as err:
        raise ServiceError("illegal_action", str(err), {"detail": err.code}) from None
    moves = [Move(match=match, ply=match.plies + 1, role=seat.role, action=action)]
    state = play_for_resigned(match, game, state, moves, {s.role for s in seats if s.resigned})
    return match, seats, game, state, moves, at


def _clone(instance):
    """A shallow copy of a model instance: what ``copy.copy`` gives (its own field values and
    its own cache of related objects), without the detour through pickling's protocol."""
    clone = instance.__class__.__new__(instance.__class__)
    clone.__dict__ = instance.__dict__.copy()
    clone._state = copy.copy(instance._state)
    clone._state.fields_cache = instance._state.fields_cache.copy()
    return clone


def _remember(match: Match, seats: list[Seat], state) -> None:
    known.pop(match.pk, None)
    if match.status == Match.Status.ACTIVE:
        _keep(Known(match, seats, state))


def _keep(memory: Known) -> None:
    """Remember ``memory`` as the most recently used (the least recently used goes past the size)."""
    known[memory.match.pk] = memory
    known.move_to_end(memory.match.pk)
    if len(known) > MEMORY_SIZE:
        known.popitem(last=False)


def move_memory_prime(*, match: Match, seats: list[Seat]) -> None:
    """Remember an active ``match`` as just read (``seats`` with their players) unless a newer
    version is remembered: a page opening does this, so the first move of a match in this
    process (every match's first, and every match's after a restart) needs no read either.
    A read is as good as a write here: the conditional update still checks the version and the
    rest, and a stale memory takes the careful path."""
    if match.status != Match.Status.ACTIVE:
        return
    memory = known.get(match.pk)
    if memory is None or memory.match.version < match.version:
        _keep(Known(match, seats, None))


def forget(match_id: int) -> None:
    """Drop this process's memory of a match (another service of this process changed it)."""
    known.pop(match_id, None)


def computer_turn_resume(*, match: Match, seats) -> None:
    """Ask again for the computer's turn of an active ``match`` (``seats`` with their players):
    after a restart the first visitor of the match page does this; a turn already being
    played is not started twice."""
    if match.status == Match.Status.ACTIVE:
        game = stored_rules(match.game)
        computer_turn_after_commit(match, game, game.state_from_json(match.state), seats)


def computer_turns_resume(*, stalled_only: bool) -> int:
    """Ask again for the computer's turn of every active match whose seat to move is a
    computer's (``computer_turn_resume``): all of them when a server process starts (the turns
    it was playing died with the last one), or with ``stalled_only`` those whose turn began
    longer ago than a turn takes (``bots.stalled_after_seconds``: its request was lost). Asking
    for a turn being played is harmless: only the holder of its lease plays it (``bots.turn_lease``),
    and a stale version is refused by ``move_submit``. Two queries, plus the seats of each match asked for; returns
    how many were asked for. A match of rules this site no longer has is skipped (``rules_or_skip``)."""
    active = Match.objects.filter(status=Match.Status.ACTIVE, seats__player__is_computer=True,
                                  seats__resigned=False).distinct()
    if stalled_only:
        # The turn began at the last move (or the start); offers and takebacks only make it look older.
        began = timezone.now() - timedelta(seconds=bots.stalled_after_seconds())
        active = active.annotate(turn_began=Coalesce(Max("moves__created_at"), "started_at")).filter(
            turn_began__lte=began)
    matches = {match.pk: match for match in active}
    computer_roles: dict[int, set[str]] = {}
    for match_id, role in Seat.objects.filter(match_id__in=matches, player__is_computer=True,
                                              resigned=False).values_list("match_id", "role"):
        computer_roles.setdefault(match_id, set()).add(role)
    asked = 0
    for match in matches.values():
        game = rules_or_skip(match_id=match.pk, slug=match.game)
        if game is not None and game.to_move(game.state_from_json(match.state)) in computer_roles.get(match.pk, ()):
            computer_turn_resume(match=match, seats=match_seats(match.pk))
            asked += 1
    return asked
