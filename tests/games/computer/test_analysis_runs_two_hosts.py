"""The post-game analysis queue on two worker hosts at once (``manage.py runworker computer`` in
two processes sharing only PostgreSQL and Redis, each running the queue as it starts): every
queued analysis is run by one of them, once (``analysis_claim`` takes a job by a conditional
update on its row)."""

import pytest

from games import services
from games.models import Analysis
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.hosts import hosts_running
from tests.support.players import make_players, play_first_moves, start_match
from tests.support.services import own_redis

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

QUEUED = 6


def queued_analyses(count: int) -> list[int]:
    """``count`` analyses queued while no worker runs, each of a short finished match."""
    ids = []
    for i in range(count):
        players = make_players(2, f"analysed{i}")
        match = play_first_moves(start_match("nine-board-tictactoe", players), players)
        services.match_resign(match_id=match.pk, user=players[0])
        ids.append(services.analysis_request(match_id=match.pk, user=players[1]).pk)
    return ids


def test_two_workers_starting_at_once_run_each_queued_analysis_once(settings):
    needs_the_scaled_path()
    settings.ANALYSIS_WORKERS = "off"  # queued here, run by the hosts alone
    settings.ANALYSIS_QUEUE_MAX = QUEUED
    queued = queued_analyses(QUEUED)
    env = {"ANALYSIS_WORKERS": "channel", "COMPUTER_WORKERS": "channel", "ANALYSIS_ROUNDS": "30"}
    with own_redis() as redis, hosts_running(["runworker", "computer"], redis_url=redis.url,
                                             record=("analysis_jobs",), env=env) as hosts:
        hosts.until(lambda: Analysis.objects.filter(status=Analysis.Status.DONE).count() == QUEUED,
                    "every analysis done")
        runs, logs = hosts.records(), hosts.logs_text()
    assert sorted(job for job, _ in runs) == sorted(str(pk) for pk in queued), \
        f"jobs run (analysis, host): {runs}\n{logs}"
    for analysis in Analysis.objects.all():
        assert len(analysis.evaluations) == analysis.positions and analysis.claim == ""
