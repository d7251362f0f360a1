"""The clock's own writes: ending a match on time, and the sweep for missed deadlines.

Both are idempotent: they act only on an active match whose deadline has passed (by
``games.match.clocks.now``), or whose rules this site no longer has (the sweep looks for those
once per process), under the row lock, so timers of several processes, the sweep and a late
move can race for the same flag and it falls once.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.db.models import Q

from games.ggp import manager as ggp_manager
from games.match import clocks
from games.match.clocks import TimeControl
from games.match.rulesets import known_rules
from games.models import Match, Out
from games.rules import SLUGS
from games.selectors import match_seats
from games.services import broadcast
from games.services.lifecycle import call_off, every_seat_moved, resign_seat
from games.services.replaced import move_replace

logger = logging.getLogger(__name__)
_unknown_rules_called_off = False  # this process's first sweep called off the matches of unknown rules


def clock_flag(*, match_id: int) -> datetime | None:
    """If the running clock of ``match_id`` ran out, its seat loses on time: with two
    players still playing the other wins; with three, the seat counts as resigned and play
    goes on. Before every seat has moved (in real time: a seat's first-move time ran out) the
    match is aborted instead (``resign_seat``; as lichess does: nobody loses, or is rated, for
    a game that never began). Per move (the GGP way), a random legal move is played for the
    mover instead and marked as such, and the match goes on (``move_replace``; a rated match
    ends for a seat that does not play at all, ``games.match.absence``): too late, or, for a
    GGP seat the manager serves (it judges those turns, the flag falls only when it could
    not), lost by the server. Returns the deadline still ahead, if the match has one.

    An active match of rules this site no longer has (a rule set removed since, or a damaged
    row), timed or not, is called off at once, not rated, saying why (``call_off``, which needs
    no rules; its GGP seats hear ABORT): nobody can tell whose flag fell, and nobody can move,
    resign or abort it (``unknown_rules``), so it would stay in its players' lists and be met by
    every sweep for good. lichess aborts a game its server can no longer play."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != Match.Status.ACTIVE:
            return None
        game = known_rules(match.game)
        if game is None:
            logger.warning("match %s names rules this site does not have (%s): called off, not rated",
                           match.pk, match.game)
            seats = match_seats(match.pk)
            call_off(match, reason=f"the site no longer has its rules ({match.game})", seats=seats)
            broadcast.mine_changed_on_commit(s.player for s in seats)  # no state for its pages: tell the home pages
            return None
        if match.deadline is None:
            return None
        at = clocks.now()
        if at < match.deadline:
            return match.deadline
        seats = match_seats(match.pk)
        mover = game.to_move(game.state_from_json(match.state))
        if TimeControl.of(match).play:
            seat = next(s for s in seats if s.role == mover)
            if ggp_manager.is_ggp(seat.player) and at < (ggp_deadline := ggp_manager.flag_deadline(match, at)):
                return ggp_deadline  # the manager judges its answer; the flag only if it cannot
            # a seat the manager serves: it could not judge (its process went away), the
            # server's failure, not the player's: counted neither way, up to a cap that calls a
            # rated match off (``games.match.absence``)
            reason = "lost" if ggp_manager.is_served(seat.player) else "late"
            move_replace(match_id=match.pk, version=match.version, role=mover, reason=reason)
            return Match.objects.values_list("deadline", flat=True).get(pk=match.pk)
        if every_seat_moved(match):
            match.clock = clocks.flag(match.clock)
        seat = next(s for s in seats if s.role == mover)
        resign_seat(match, seats, seat, reason=f"{mover} ran out of time", at=at, out=Out.TIME)
        return match.deadline


def clock_play_sent(*, match_id: int) -> None:
    """The PLAY of a GGP seat's turn went out (``GGPProgress.sent_at``, recorded by the GGP
    game manager): the seat's clock runs from then, maybe seconds after its turn began, so the
    match's pages hear its state again (at the same version: pages apply it) with the clock
    counted from the PLAY (``selectors.match_snapshot``)."""
    broadcast.match_changed_on_commit(match_id)


def clock_sweep() -> int:
    """Flag every active match whose deadline passed (missed while no process was watching
    it), and, at this process's first sweep, call off every active one of rules this site no
    longer has (``clock_flag``); returns how many there were.

    Only the first: the rule sets a process has are fixed when it starts, and a rule set is
    removed by a new release, whose processes sweep first (``manage.py clock_sweep`` in
    ``bin/start``, then each server's first pass). That look reads every active match's
    ``game``, which the (status, deadline) index cannot answer; the later sweeps read only
    the overdue deadlines. A row damaged while a process runs is called off by its own flag
    timer if timed, else at the next start. A first sweep that fails is tried again whole."""
    global _unknown_rules_called_off
    due = Q(deadline__lte=clocks.now())
    if not _unknown_rules_called_off:
        due |= ~Q(game__in=SLUGS)
    overdue = list(Match.objects.filter(due, status=Match.Status.ACTIVE).values_list("pk", flat=True))
    for match_id in overdue:
        clock_flag(match_id=match_id)
    _unknown_rules_called_off = True
    return len(overdue)


def forget() -> None:
    """Forget that this process looked for matches of unknown rules (tests: each test's first
    sweep is a process's first)."""
    global _unknown_rules_called_off
    _unknown_rules_called_off = False
