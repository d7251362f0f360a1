"""The scaled set-up's post-game analysis across real processes (PostgreSQL, Redis): asked for
on one Daphne, run by a ``manage.py runworker computer`` process, read on another Daphne; a job
queued while no worker runs, picked up when one starts; a job whose worker was killed, finished
by the next."""

from __future__ import annotations

import json
import time

import pytest

from games.models import Analysis
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.analysis import blunder_line, play_line
from tests.support.httpclient import Visitor
from tests.support.live import computer_worker, live_server
from tests.support.players import make_players, start_match

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROUNDS = 30  # search rounds a position: a whole match in a few seconds, even under load
SCALED = {"ANALYSIS_WORKERS": "channel", "COMPUTER_WORKERS": "channel", "ANALYSIS_ROUNDS": str(ROUNDS)}
ANALYSIS_SECONDS = 120  # a ceiling against a hang: a whole match's positions on a loaded machine
POLL_SECONDS = 0.2  # polling interval, as the replay page's own


def finished_match():
    players = make_players(2)
    moves, _ = blunder_line()
    return play_line(start_match("nine-board-tictactoe", players), players, moves), players


def analysis_json(visitor: Visitor, match_id: int) -> dict:
    answer = visitor.get(f"/matches/{match_id}/analysis.json")
    assert answer.status == 200, answer.text
    return json.loads(answer.text)


def until_done(visitor: Visitor, match_id: int, worker) -> dict:
    """The analysis as ``visitor``'s server gives it, once done (failing at once if it failed,
    or if the worker exited)."""
    deadline = time.monotonic() + ANALYSIS_SECONDS
    while (data := analysis_json(visitor, match_id))["status"] != "done":
        assert data["status"] in ("queued", "running"), data
        assert worker.poll() is None, f"the worker exited; see {worker.log_name}"
        assert time.monotonic() < deadline, f"the analysis was not done within {ANALYSIS_SECONDS} s: {data}"
        time.sleep(POLL_SECONDS)
    return data


def ask(server, user, match_id: int) -> None:
    answer = Visitor(server, user).post(f"/matches/{match_id}/analysis/", {})
    assert answer.status == 302 and answer.headers["Location"].endswith(f"/matches/{match_id}/replay/")


def test_asked_on_one_process_run_by_the_worker_read_on_the_other():
    needs_the_scaled_path()
    match, players = finished_match()
    with computer_worker(SCALED) as worker, live_server(env=SCALED) as first, live_server(env=SCALED) as second:
        reader = Visitor(second)
        assert analysis_json(reader, match.pk) == {"status": "none"}
        ask(first, players[0], match.pk)
        data = until_done(reader, match.pk, worker)
    assert data["rounds"] == ROUNDS and data["done"] == data["total"] == match.plies + 1
    assert [p["ply"] for p in data["positions"]] == list(range(match.plies + 1))
    assert len(data["moves"]) == match.plies and [row["role"] for row in data["summary"]] == ["xPlayer", "oPlayer"]
    stored = Analysis.objects.get(match=match)
    assert stored.requested_by == players[0] and stored.claim == "" and len(stored.evaluations) == match.plies + 1


def test_a_job_queued_while_no_worker_runs_is_run_when_a_worker_starts():
    """The request's message to the workers reaches nobody (no worker listens on the channel):
    the job waits in the queue, and the worker that starts later runs it."""
    needs_the_scaled_path()
    match, players = finished_match()
    with live_server(env=SCALED) as server:
        ask(server, players[0], match.pk)
        reader = Visitor(server)
        assert analysis_json(reader, match.pk)["status"] == "queued"
        with computer_worker(SCALED) as worker:
            data = until_done(reader, match.pk, worker)
    assert data["done"] == data["total"] == match.plies + 1


def test_a_job_whose_worker_was_killed_is_finished_by_the_next_worker():
    """A worker SIGKILLed in the middle of a job leaves it running, stored up to where it got; the
    next worker, once the job has been silent for ``ANALYSIS_STALE_SECONDS``, takes it over and
    finishes it."""
    needs_the_scaled_path()
    match, players = finished_match()
    slow = {**SCALED, "ANALYSIS_ROUNDS": "1500", "ANALYSIS_STALE_SECONDS": "2"}  # long enough to be caught midway
    with live_server(env=slow) as server:
        with computer_worker(slow) as worker:
            ask(server, players[0], match.pk)
            deadline = time.monotonic() + ANALYSIS_SECONDS
            while not (row := Analysis.objects.filter(match=match).values("status", "evaluations", "claim").first()) \
                    or not row["evaluations"]:
                assert worker.poll() is None, f"the worker exited; see {worker.log_name}"
                assert time.monotonic() < deadline, f"the worker stored no position within {ANALYSIS_SECONDS} s"
                time.sleep(0.02)  # polling interval
            worker.kill()
            worker.wait()
        left = Analysis.objects.get(match=match)
        assert left.status == Analysis.Status.RUNNING and 0 < len(left.evaluations) < left.positions, \
            "the job ended before the worker was killed: nothing to take over"
        with computer_worker(slow) as worker:
            data = until_done(Visitor(server), match.pk, worker)
    finished = Analysis.objects.get(match=match)
    assert data["done"] == data["total"] == match.plies + 1
    assert finished.evaluations[:len(left.evaluations)] == left.evaluations
