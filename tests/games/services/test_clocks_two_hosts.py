"""The clock sweep on two hosts at once (``manage.py clock_sweep`` in two processes sharing only
PostgreSQL and Redis): every overdue match ends on time once, with one result and one message
to its pages, whichever host got there first (``clock_flag`` takes the match's row lock and acts
only on an active match whose deadline passed)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.match.clocks import TimeControl
from games.models import Match, Out, Seat
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.hosts import hosts_running
from tests.support.players import make_players, play_first_moves, start_match
from tests.support.services import own_redis

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

OVERDUE = 24


def overdue_matches(count: int) -> dict[int, int]:
    """``count`` begun correspondence matches whose mover's time ran out a minute ago, unseen
    (no process was watching); each match id with its version."""
    versions = {}
    for i in range(count):
        players = make_players(2, f"sweep{i}")
        match = play_first_moves(start_match("nine-board-tictactoe", players, time_control=TimeControl(days=1)),
                                 players)
        Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(minutes=1))
        versions[match.pk] = match.version
    return versions


def test_two_hosts_sweeping_at_once_end_each_overdue_match_once():
    needs_the_scaled_path()
    versions = overdue_matches(OVERDUE)
    with own_redis() as redis, hosts_running(["clock_sweep"], redis_url=redis.url, record=("broadcasts",)) as hosts:
        hosts.wait_all()
        sent = hosts.counts()
    for match in Match.objects.filter(pk__in=versions):
        assert match.status == Match.Status.FINISHED and match.deadline is None
        assert match.version == versions[match.pk] + 1, f"match {match.pk} was changed more than once"
        assert "ran out of time" in match.result["reason"]
        assert Seat.objects.filter(match=match, out=Out.TIME).count() == 1
        assert sent[f"match.{match.pk}/match.state"] == 1, f"match {match.pk}: its pages heard {sent}"
    assert sum(n for unit, n in sent.items() if unit.endswith("/match.state")) == OVERDUE
