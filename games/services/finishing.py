"""How a match ends with a result: ``finish``, the one step every finishing goes through (the
last move, a resignation, a claim, a flag fall, an agreed draw), inside the transaction that
finishes it, and the fields it changes. The write paths (``records``: a move that ends the game)
and the lifecycle (``lifecycle``: a resignation, a draw) both come here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import transaction

from games.ggp import manager as ggp_manager
from games.match import clocks
from games.match.clocks import TimeControl
from games.models import Match, Out, Outcome, Seat
from games.runtime.handoffs import Handoff
from games.services import statements
from games.services.ratings import SEAT_RATING_FIELDS, ratings_update

SEAT_RESULT_FIELDS = ["score", "outcome", *SEAT_RATING_FIELDS]


FINISH_FIELDS = ["status", "finished_at", "result", "clock", "deadline", "offers"]


EARLY_EXIT = {Out.RESIGNED: "resigned", Out.TIME: "ran out of time", Out.ABANDONED: "left the match",
              Out.LEFT: "left the site"}


@dataclass(frozen=True)
class EndedServices:
    """What an app above the games app runs once a match's end (a result, or called off) has
    committed: ``match_ended(match_id)`` (a tournament moves on to its next round)."""

    match_ended: Callable[[int], object]


ENDED = Handoff(EndedServices, needed_by="a match's end (games.services.finishing.ended_on_commit)",
                set_by="tournaments.sweep.wire (run by the tournaments app's ready())")


def ended_on_commit(match_id: int) -> None:
    """Once the transaction that ends match ``match_id`` commits, hand it to ``ENDED``'s
    ``match_ended`` (a failure there is logged: the match's end stands)."""
    transaction.on_commit(partial(ENDED.get().match_ended, match_id), robust=True)


def set_winners(outcome: dict[str, Any]) -> None:
    scores = outcome["scores"]
    top = max(scores.values())
    winners = [] if len(set(scores.values())) == 1 else [r for r, s in scores.items() if s == top]
    outcome["winners"], outcome["draw"] = winners, not winners


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
    ended_on_commit(match.pk)
    if save_seats:
        statements.update_seats(seats, SEAT_RESULT_FIELDS)
