"""The tournament sweep on two hosts at once (``manage.py tournament_sweep`` in two processes
sharing only PostgreSQL and Redis): every tournament due to start is started once, each game
of its round robin with one match (``tournament_start`` and ``tournament_advance`` hold the
tournament's row lock and act only on an upcoming, or a running, tournament)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.match.clocks import TimeControl
from games.models import Match
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.hosts import hosts_running
from tests.support.players import make_accounts
from tests.support.services import own_redis
from tournaments import services
from tournaments.models import Tournament, TournamentGame

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

DUE = 6
PLAYERS = 4  # three rounds of two games: every game at once (correspondence)


def due_tournaments(count: int) -> list[int]:
    """``count`` correspondence round robins of ``PLAYERS`` whose start time passed a minute ago."""
    ids = []
    for i in range(count):
        players = make_accounts(PLAYERS, f"t{i}p")
        tournament = services.tournament_create(
            user=players[0], name=f"Round robin {i}", game="nine-board-tictactoe", time_control=TimeControl(days=1),
            starts_at=timezone.now() + timedelta(minutes=10))
        for player in players[1:]:
            services.tournament_join(tournament_id=tournament.pk, user=player)
        Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now() - timedelta(minutes=1))
        ids.append(tournament.pk)
    return ids


def test_two_hosts_sweeping_at_once_start_each_due_tournament_once(settings):
    needs_the_scaled_path()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # accounts made quickly
    due = due_tournaments(DUE)
    with own_redis() as redis, \
            hosts_running(["tournament_sweep"], redis_url=redis.url, record=("tournament_starts",)) as hosts:
        hosts.wait_all()
        started = hosts.counts()
    assert started == {str(pk): 1 for pk in due}, f"tournaments started (id: times): {started}"
    games_each = PLAYERS * (PLAYERS - 1) // 2
    for tournament in Tournament.objects.filter(pk__in=due):
        assert tournament.status == Tournament.Status.RUNNING and tournament.rounds == PLAYERS - 1
        games = TournamentGame.objects.filter(tournament=tournament)
        assert games.count() == games_each and not games.filter(match__isnull=True).exists()
    assert Match.objects.count() == DUE * games_each
