"""Where a tournament's format decides which service runs: the pages, the sweep and a match's
end call these, and each hands over to the round robin's (``services``), the Swiss's
(``swiss``) or the arena's (``arena``) writes."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from tournaments import arena, schedule, services, swiss
from tournaments.models import Entry, Tournament, TournamentGame


def _format(tournament_id: int) -> str | None:
    return Tournament.objects.filter(pk=tournament_id).values_list("format", flat=True).first()


def tournament_start(*, tournament_id: int, user=None, now: datetime | None = None) -> Tournament:
    form = _format(tournament_id)
    if form == Tournament.Format.SWISS:
        return swiss.swiss_start(tournament_id=tournament_id, user=user, now=now)
    if form == Tournament.Format.ARENA:
        return arena.arena_start(tournament_id=tournament_id, user=user, now=now)
    return services.tournament_start(tournament_id=tournament_id, user=user, now=now)


def tournament_join(*, tournament_id: int, user, invite: str | None = None, password: str | None = None) -> Entry:
    """Join before the start; a Swiss also takes late joiners while it runs, an arena anyone until
    it ends (or a paused player back)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is not None and tournament.format == Tournament.Format.ARENA:
        return arena.arena_join(tournament_id=tournament_id, user=user, invite=invite)
    if tournament is not None and swiss.is_swiss(tournament) and tournament.status == Tournament.Status.RUNNING:
        return swiss.swiss_late_join(tournament_id=tournament_id, user=user, invite=invite, password=password)
    return services.tournament_join(tournament_id=tournament_id, user=user, invite=invite, password=password)


def tournament_withdraw(*, tournament_id: int, user) -> None:
    """Withdraw before the start; from a running Swiss or arena too."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is not None and tournament.format == Tournament.Format.ARENA:
        return arena.arena_withdraw(tournament_id=tournament_id, user=user)
    if tournament is not None and swiss.is_swiss(tournament) and tournament.status == Tournament.Status.RUNNING:
        return swiss.swiss_withdraw(tournament_id=tournament_id, user=user)
    return services.tournament_withdraw(tournament_id=tournament_id, user=user)


def match_ended(match_id: int) -> None:
    """A match ended (after commit): if it is a tournament's game, move the tournament on."""
    game = TournamentGame.objects.filter(match_id=match_id).values_list("tournament_id", "tournament__format").first()
    if game is None:
        return
    if game[1] == Tournament.Format.SWISS:
        swiss.swiss_advance(tournament_id=game[0])
    elif game[1] == Tournament.Format.ARENA:
        arena.arena_match_ended(match_id)
    else:
        services.match_ended(match_id)


def tournaments_sweep(*, now: datetime | None = None) -> int:
    """The sweep of every format, and the site's scheduled events. Returns how many started."""
    now = now or timezone.now()
    schedule.schedule_sweep(now=now)
    return services.tournaments_sweep(now=now) + swiss.swiss_sweep(now=now)
