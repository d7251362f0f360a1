"""Post-game analysis, the writes: asking for one (with its limits and the fair-play rule), and
the worker's steps (take the next job, store each position's evaluation, give up on a job).

The queue is the ``Analysis`` rows (queued, running, done, failed), so it survives a restart:
a worker takes the oldest queued job by a conditional update (two workers never take the same
one), stores each evaluation as it goes (a job taken over resumes where it stopped), and a
running job is taken over when its worker fell silent for ``ANALYSIS_STALE_SECONDS``, or at once
when its worker was a process of this host that is gone (a restart: ``games.runtime.holders``).
Who runs the jobs, and when they are asked to: ``games/computer/analysis_runs.py``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone

from games.computer import analysis_runs
from games.match.analysis import match_positions
from games.match.errors import ServiceError
from games.match.rulesets import stored_rules
from games.models import Analysis, Match
from games.rules.base import RulesError
from games.runtime.holders import holder_gone, holder_here
from games.selectors.analysis import analysis_require_no_live_position, analysis_require_over
from games.services.guards import lock_player, require_player

ACTIVE = (Analysis.Status.QUEUED, Analysis.Status.RUNNING)


@dataclass(frozen=True)
class AnalysisJob:
    """What a worker needs, as plain values: the positions to evaluate from ``len(done)`` on."""

    analysis_id: int
    claim: str
    ruleset: str
    rounds: int
    positions: list[Any]
    done: list[dict[str, Any]]
    actions: list[str]  # the move made from each position but the last

    def played(self, ply: int) -> str | None:
        """The move made from position ``ply`` (None after the last)."""
        return self.actions[ply] if ply < len(self.actions) else None


def analysis_request(*, match_id: int, user) -> Analysis:
    """Queue the analysis of a finished match, or give the one already stored or under way (a
    second request, by anyone, reuses it). Refused, with a message, while the match is in play
    (fair play), when it did not finish or its rules are gone (``stored_rules``), for visitors
    who did not choose a name, and over the limits: one analysis under way per player,
    ``ANALYSIS_GUEST_PER_DAY`` a day per guest, ``ANALYSIS_QUEUE_MAX`` queued or running in all.

    A reuse is two reads: no transaction (on SQLite, none holding the one writer's lock), no
    row lock and no look at the live matches. The fair-play rule on live positions
    (``analysis_require_no_live_position``) guards the queueing of new work here, and the
    reading of a stored one in ``analysis_of``, which every page and call that shows it uses."""
    require_player(user)
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise ServiceError("not_found", "There is no such match.")
    _require_finished(match)
    stored_rules(match.game)
    stored = Analysis.objects.filter(match=match).exclude(status=Analysis.Status.FAILED).first()
    if stored is not None:
        return stored
    analysis_require_no_live_position(match=match)
    with transaction.atomic():
        lock_player(user)
        existing = Analysis.objects.select_for_update().filter(match=match).first()
        if existing is not None and existing.status != Analysis.Status.FAILED:
            return existing
        _check_limits(user)
        if existing is not None:  # a failed one is asked for again
            existing.delete()
        try:
            with transaction.atomic():
                analysis = Analysis.objects.create(match=match, requested_by=user, rounds=settings.ANALYSIS_ROUNDS,
                                                   positions=match.plies + 1)
        except IntegrityError:  # someone else asked for it at the same moment
            return Analysis.objects.get(match=match)
        analysis_runs.run_on_commit()
    return analysis


def _require_finished(match: Match) -> None:
    analysis_require_over(match=match)
    if match.status != Match.Status.FINISHED:
        raise ServiceError("analysis_not_finished", "This match was called off before it finished: only finished "
                                                    "matches can be analysed.")


def _check_limits(user) -> None:
    mine = Analysis.objects.filter(requested_by=user, status__in=ACTIVE).values_list("match_id", flat=True).first()
    if mine is not None:
        raise ServiceError("analysis_busy", f"Your analysis of match #{mine} is still under way: ask for another "
                                            "once it is done (one at a time per player).", {"match_id": mine})
    if getattr(user, "is_guest", False):
        since = timezone.now() - timedelta(days=1)
        if Analysis.objects.filter(requested_by=user, created_at__gte=since).count() >= settings.ANALYSIS_GUEST_PER_DAY:
            raise ServiceError("analysis_daily_cap", f"Guests may ask for {settings.ANALYSIS_GUEST_PER_DAY} analyses "
                                                     "in 24 hours: sign up for more, or come back tomorrow.")
    active = dict(Analysis.objects.filter(status__in=ACTIVE).values_list("status").annotate(Count("pk")))
    running, waiting = active.get(Analysis.Status.RUNNING, 0), active.get(Analysis.Status.QUEUED, 0)
    if running + waiting >= settings.ANALYSIS_QUEUE_MAX:
        raise ServiceError("analysis_queue_full", f"The analyser is full ({running} running, {waiting} waiting; "
                                                  f"{settings.ANALYSIS_QUEUE_MAX} at most): try again in a few minutes.")


def _stale_before():
    return timezone.now() - timedelta(seconds=settings.ANALYSIS_STALE_SECONDS)


def analysis_claim() -> AnalysisJob | None:
    """Take the oldest queued job, or a running one whose worker fell silent or is gone, for this
    worker; None when there is none. The update is conditional: a job another worker took
    meanwhile is skipped. A job that cannot be run is failed, saying why (``_job``)."""
    while True:
        candidate = (Analysis.objects
                     .filter(Q(status=Analysis.Status.QUEUED)
                             | Q(status=Analysis.Status.RUNNING, heartbeat__lt=_stale_before())
                             | Q(pk__in=_left_by_gone_holders()))
                     .order_by("created_at", "pk").values("pk", "status", "claim").first())
        if candidate is None:
            return None
        claim = secrets.token_hex(8)
        taken = (Analysis.objects.filter(pk=candidate["pk"], status=candidate["status"], claim=candidate["claim"])
                 .update(status=Analysis.Status.RUNNING, claim=claim, holder=holder_here(), heartbeat=timezone.now()))
        if taken and (job := _job(candidate["pk"], claim)) is not None:
            return job


def _left_by_gone_holders() -> list[int]:
    """The running jobs whose worker was a process of this host that no longer runs."""
    running = Analysis.objects.filter(status=Analysis.Status.RUNNING).exclude(holder="").values_list("pk", "holder")
    return [pk for pk, holder in running if holder_gone(holder)]


def _job(analysis_id: int, claim: str) -> AnalysisJob | None:
    """The job just claimed, or None when it cannot be run and is failed, saying why: a stored
    move the rules refuse, or rules this site no longer has (removed since the job was queued,
    or a damaged row)."""
    analysis = Analysis.objects.select_related("match").get(pk=analysis_id)
    match = analysis.match
    moves = list(match.moves.values_list("role", "action"))
    try:
        stored_rules(match.game)
        positions = match_positions(match.game, moves)
    except ServiceError:  # unknown_rules
        why = f"This match was played under rules this site no longer has ({match.game}): it cannot be analysed."
    except RulesError:
        why = "A stored move is not one the rules accept."
    else:
        return AnalysisJob(analysis_id, claim, match.game, analysis.rounds, positions, list(analysis.evaluations),
                           [action for _, action in moves])
    analysis_fail(analysis_id=analysis_id, claim=claim, error=why)
    return None


def analysis_progress(*, analysis_id: int, claim: str, evaluations: list[dict[str, Any]]) -> bool:
    """Store the evaluations so far of a job this worker holds (``claim``); done when there is
    one per position. False when the job is no longer this worker's (taken over): stop."""
    analysis = Analysis.objects.filter(pk=analysis_id).values("positions").first()
    if analysis is None:
        return False
    done = len(evaluations) >= analysis["positions"]
    now = timezone.now()
    return bool(Analysis.objects.filter(pk=analysis_id, status=Analysis.Status.RUNNING, claim=claim).update(
        evaluations=evaluations, heartbeat=now,
        **({"status": Analysis.Status.DONE, "finished_at": now, "claim": "", "holder": ""} if done else {})))


def analysis_fail(*, analysis_id: int, claim: str, error: str) -> None:
    """Give up on a job this worker holds; asking again queues it anew."""
    Analysis.objects.filter(pk=analysis_id, claim=claim).update(
        status=Analysis.Status.FAILED, error=error[:200], claim="", holder="", finished_at=timezone.now())


def analysis_takeover_seconds() -> float | None:
    """Seconds until the next running job may be taken over (its worker silent), or None."""
    oldest = (Analysis.objects.filter(status=Analysis.Status.RUNNING).order_by("heartbeat")
              .values_list("heartbeat", flat=True).first())
    if oldest is None:
        return None
    due = oldest + timedelta(seconds=settings.ANALYSIS_STALE_SECONDS)
    return max((due - timezone.now()).total_seconds(), 0.0) + 0.5
