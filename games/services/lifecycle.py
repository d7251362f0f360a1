"""A match's life past its moves: it starts (``start``), it is called off before it really
began (``call_off``), it ends drawn (``finish_drawn``), a seat resigns or leaves
(``resign_seat``: the match finishes, is called off, or plays on with that seat's turns at
random). Each runs inside the caller's transaction, holding the match's row lock; the pages,
the lobby and the GGP seats hear after commit."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from games.ggp import manager as ggp_manager
from games.match import clocks, invites
from games.match.clocks import TimeControl
from games.match.rulesets import stored_rules
from games.models import Match, Move, Out, Seat
from games.services import broadcast, flagfall, notices, statements
from games.services.finishing import EARLY_EXIT, FINISH_FIELDS, ended_on_commit, finish, set_winners
from games.services.records import computer_turn_after_commit, play_for_resigned, record_locked


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
    notices.turn_on_commit(match, game, state, seats)
    notices.followed_on_commit(match, game, seats)


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
    ended_on_commit(match.pk)
    if match.rematch_of_id is not None:  # its offer on the finished match's page goes too
        broadcast.match_changed_on_commit(match.rematch_of_id)
    broadcast.lobby_changed_on_commit()


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
