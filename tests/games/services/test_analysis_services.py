"""Post-game analysis against the database: the queue, reuse, limits, fair play, restarts."""

import asyncio
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from games import services
from games.computer import analysis_runs
from games.models import Analysis, Match
from games.rules import get_game
from games.runtime import holders, starting
from games.selectors.analysis import analysis_of
from games.services import ServiceError
from tests.botapi.support import call, token_for
from tests.support.analysis import blunder_line, live_and_its_uploaded_copy, move_on, play_line, store_analysis
from tests.support.players import make_accounts, make_players, play_first_moves, start_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def analysis_settings(settings):
    settings.ANALYSIS_WORKERS = "off"  # queued only; the tests run the queue with run_here
    settings.ANALYSIS_ROUNDS = 100
    settings.ANALYSIS_QUEUE_MAX = 20
    settings.ANALYSIS_GUEST_PER_DAY = 5
    return settings


def refused(code, **kwargs):
    with pytest.raises(ServiceError) as info:
        services.analysis_request(**kwargs)
    assert info.value.code == code, info.value.message
    return info.value.message


def finished(players=None, game="nine-board-tictactoe"):
    """A finished match with a blunder at ``.blunder_ply`` (played through the services)."""
    players = players or make_players(2)
    moves, blunder = blunder_line(game)
    match = play_line(start_match(game, players), players, moves)
    assert match.status == Match.Status.FINISHED
    match.blunder_ply, match.moves_played = blunder, moves
    return match


def quick_finished(count: int) -> list[Match]:
    """Finished match rows with no moves: enough for the queue's limits."""
    game = get_game("nine-board-tictactoe")
    return [Match.objects.create(game=game.slug, status=Match.Status.FINISHED, state=game.state_to_json(game.initial_state()))
            for _ in range(count)]


def test_a_request_queues_the_match_and_the_worker_stores_each_position_then_the_marks():
    match = finished()
    alice = match.seats.get(order=0).player
    analysis = services.analysis_request(match_id=match.pk, user=alice)
    assert analysis.status == Analysis.Status.QUEUED and analysis.positions == match.plies + 1
    assert analysis_of(match=match)["status"] == "queued"
    assert analysis_runs.run_here() == 1
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.DONE and len(analysis.evaluations) == match.plies + 1
    assert all(e["line"][:1] == ([e["best"]] if e["best"] else []) for e in analysis.evaluations)
    view = analysis_of(match=match)
    assert view["done"] == view["total"] == match.plies + 1
    blunder = view["moves"][match.blunder_ply - 1]
    winning = match.moves_played[match.blunder_ply]  # what the opponent then won with shows what was missed
    assert blunder["mark"] == "blunder" and blunder["loss"] >= 0.3 and blunder["better"] is not None
    assert blunder["better"] != blunder["action"]
    assert winning[0] != blunder["role"]
    row = next(r for r in view["summary"] if r["role"] == blunder["role"])
    assert row["blunder"] >= 1 and row["average_loss"] > 0
    # The last position is the end: its scores are the result's.
    assert view["positions"][-1]["scores"][winning[0]] == 1.0 and view["positions"][-1]["best"] is None


def test_the_same_match_analysed_twice_gives_the_same_numbers():
    match = finished()
    user = match.seats.get(order=0).player
    services.analysis_request(match_id=match.pk, user=user)
    analysis_runs.run_here()
    first = Analysis.objects.get(match=match).evaluations
    Analysis.objects.all().delete()
    services.analysis_request(match_id=match.pk, user=user)
    analysis_runs.run_here()
    assert Analysis.objects.get(match=match).evaluations == first


def test_a_second_request_reuses_the_stored_or_queued_analysis():
    match = finished()
    alice, bob = (s.player for s in match.seats.all())
    first = services.analysis_request(match_id=match.pk, user=alice)
    carol, = make_players(1, prefix="carol")
    assert services.analysis_request(match_id=match.pk, user=carol).pk == first.pk  # while queued
    analysis_runs.run_here()
    again = services.analysis_request(match_id=match.pk, user=bob)
    assert again.pk == first.pk and again.status == Analysis.Status.DONE
    assert Analysis.objects.count() == 1 and analysis_runs.run_here() == 0


def test_in_play_nothing_is_queued_and_nothing_is_shown():
    players = make_players(2)
    match = play_first_moves(start_match("nine-board-tictactoe", players), players)
    message = refused("analysis_in_play", match_id=match.pk, user=players[0])
    assert "still being played" in message and "fair play" in message
    # Even a row written another way stays hidden while the match is in play: the read says so
    # in the same words.
    Analysis.objects.create(match=match, rounds=10, positions=match.plies + 1, status=Analysis.Status.DONE)
    with pytest.raises(ServiceError) as read:
        analysis_of(match=match)
    assert (read.value.code, read.value.message) == ("analysis_in_play", message)


def test_an_aborted_match_a_missing_one_and_a_visitor_without_a_name_are_refused():
    players = make_players(2)
    match = start_match("nine-board-tictactoe", players)
    services.match_abort(match_id=match.pk, user=players[0])
    assert "called off" in refused("analysis_not_finished", match_id=match.pk, user=players[0])
    refused("not_found", match_id=999_999, user=players[0])
    refused("not_signed_in", match_id=match.pk, user=AnonymousUser())
    assert Analysis.objects.count() == 0


def test_one_analysis_at_a_time_per_player():
    alice, = make_players(1)
    first, second = quick_finished(2)
    services.analysis_request(match_id=first.pk, user=alice)
    message = refused("analysis_busy", match_id=second.pk, user=alice)
    assert f"#{first.pk}" in message and "one at a time" in message
    analysis_runs.run_here()
    assert services.analysis_request(match_id=second.pk, user=alice).status == Analysis.Status.QUEUED


def test_a_guest_has_a_daily_cap_and_a_member_has_none(analysis_settings):
    analysis_settings.ANALYSIS_GUEST_PER_DAY = 2
    guest, = make_players(1)
    member, = make_accounts(1)
    matches = quick_finished(6)
    for match in matches[:2]:
        services.analysis_request(match_id=match.pk, user=guest)
        analysis_runs.run_here()
    message = refused("analysis_daily_cap", match_id=matches[2].pk, user=guest)
    assert "2 analyses in 24 hours" in message
    Analysis.objects.filter(requested_by=guest).update(created_at=timezone.now() - timedelta(days=1, minutes=1))
    services.analysis_request(match_id=matches[2].pk, user=guest)  # a day later
    for match in matches[3:]:
        services.analysis_request(match_id=match.pk, user=member)
        analysis_runs.run_here()


def test_a_full_queue_refuses_with_a_clear_message(analysis_settings):
    analysis_settings.ANALYSIS_QUEUE_MAX = 2
    matches = quick_finished(3)
    people = make_players(3)
    for match, person in zip(matches[:2], people):
        services.analysis_request(match_id=match.pk, user=person)
    assert services.analysis_claim() is not None  # one runs, one waits: both count, each by its name
    message = refused("analysis_queue_full", match_id=matches[2].pk, user=people[2])
    assert message == "The analyser is full (1 running, 1 waiting; 2 at most): try again in a few minutes."
    assert Analysis.objects.count() == 2


def test_after_a_restart_a_queued_job_is_picked_up_and_a_silent_running_one_resumes(analysis_settings):
    """The queue is rows: a new process runs what an old one queued, and takes over a job whose
    worker died mid-way, from the position it had reached."""
    queued_match, running_match = finished(), finished(make_players(2, prefix="other"))
    services.analysis_request(match_id=queued_match.pk, user=queued_match.seats.get(order=0).player)
    services.analysis_request(match_id=running_match.pk, user=running_match.seats.get(order=0).player)
    Analysis.objects.filter(match=queued_match).update(created_at=timezone.now() + timedelta(seconds=1))
    job = services.analysis_claim()  # the old process took the oldest, evaluated 3 positions, died
    assert job.analysis_id == Analysis.objects.get(match=running_match).pk
    from games.computer.analysis import evaluate_position
    partial = [evaluate_position(job.ruleset, job.positions[ply], ply, job.rounds, job.played(ply)) for ply in range(3)]
    assert services.analysis_progress(analysis_id=job.analysis_id, claim=job.claim, evaluations=partial)
    # While its worker is fresh, nobody else takes it; the queued one is next.
    assert analysis_of(match=running_match)["done"] == 3
    assert services.analysis_takeover_seconds() > 0
    evaluated = []

    def counting(ruleset, state, ply, rounds, played):
        evaluated.append(ply)
        return evaluate_position(ruleset, state, ply, rounds, played)

    assert analysis_runs.run_here(counting) == 1
    assert Analysis.objects.get(match=queued_match).status == Analysis.Status.DONE
    Analysis.objects.filter(match=running_match).update(
        heartbeat=timezone.now() - timedelta(seconds=analysis_settings.ANALYSIS_STALE_SECONDS + 1))
    evaluated.clear()
    assert analysis_runs.run_here(counting) == 1
    taken = Analysis.objects.get(match=running_match)
    assert taken.status == Analysis.Status.DONE and evaluated[0] == 3 and taken.evaluations[:3] == partial
    # The old worker's late write is refused: the job is no longer its own.
    assert not services.analysis_progress(analysis_id=job.analysis_id, claim=job.claim, evaluations=partial)


def gone_pid() -> int:
    """The pid of a process of this host that has exited."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def test_after_a_restart_a_job_whose_process_is_gone_is_taken_back_at_once(analysis_settings):
    """Its heartbeat is fresh (the process died a moment ago), so the silence rule would wait
    ``ANALYSIS_STALE_SECONDS``: a holder of this host that no longer runs, or whose pid this new
    process now has, is known to be gone. A holder that runs, here or on another host (the scaled
    set-up), is left to it until it falls silent."""
    match = finished()
    services.analysis_request(match_id=match.pk, user=match.seats.get(order=0).player)
    job = services.analysis_claim()
    assert Analysis.objects.get(pk=job.analysis_id).holder == holders.holder_here()
    for held in (holders.holder_here(), f"{holders.HOST}:{os.getppid()}:0123abcd",
                 f"another-{holders.HOST}:{gone_pid()}:0123abcd", ""):
        Analysis.objects.filter(pk=job.analysis_id).update(holder=held, heartbeat=timezone.now())
        assert services.analysis_claim() is None, held
    for gone in (f"{holders.HOST}:{gone_pid()}:0123abcd", f"{holders.HOST}:{os.getpid()}:an-earlier-run"):
        Analysis.objects.filter(pk=job.analysis_id).update(holder=gone, heartbeat=timezone.now())
        again = services.analysis_claim()
        assert again is not None and again.analysis_id == job.analysis_id, gone
    assert analysis_runs.run_here() == 0  # taken back, and held by this process now: nobody takes it twice
    assert not services.analysis_progress(analysis_id=job.analysis_id, claim=job.claim, evaluations=[])
    assert services.analysis_progress(analysis_id=job.analysis_id, claim=again.claim, evaluations=[])


def test_a_failed_analysis_is_queued_anew_when_asked_again():
    match = finished()
    user = match.seats.get(order=0).player
    services.analysis_request(match_id=match.pk, user=user)

    def broken(*args):
        raise ValueError("out of memory")

    analysis_runs.run_here(broken)
    failed = analysis_of(match=match)
    assert failed["status"] == "failed" and "out of memory" in failed["error"]
    assert services.analysis_request(match_id=match.pk, user=user).status == Analysis.Status.QUEUED


def test_an_analysis_queued_before_its_rules_went_fails_saying_why_and_the_queue_goes_on():
    """Its rule set removed since it was queued (or its row damaged): the worker marks it failed
    with the reason and runs the next job; the analysis reads, the bot API's among them, say why
    (``unknown_rules``), and asking again queues nothing. Before, taking the job raised out of
    the queue, which stopped, and the job was left running, to be taken over and raise again."""
    gone, kept = finished(make_accounts(2, prefix="gone")), finished(make_players(2, prefix="kept"))
    asker = gone.seats.get(order=0).player
    services.analysis_request(match_id=gone.pk, user=asker)
    services.analysis_request(match_id=kept.pk, user=kept.seats.get(order=0).player)
    Match.objects.filter(pk=gone.pk).update(game="no-such-game")
    assert analysis_runs.run_here() == 1
    failed = Analysis.objects.get(match=gone)
    assert (failed.status, failed.claim, failed.holder) == (Analysis.Status.FAILED, "", "")
    assert "rules this site no longer has (no-such-game)" in failed.error and len(failed.error) <= 200
    assert Analysis.objects.get(match=kept).status == Analysis.Status.DONE
    assert analysis_runs.run_here() == 0 and services.analysis_takeover_seconds() is None
    gone.refresh_from_db()
    with pytest.raises(ServiceError) as info:
        analysis_of(match=gone)
    assert info.value.code == "unknown_rules"
    answer = call(token_for(asker), f"/matches/{gone.pk}/analysis", method="get")
    assert answer.status_code == 404 and answer.json()["code"] == "unknown_rules"
    assert "cannot be shown, replayed, exported or analysed" in answer.json()["message"]
    assert "no-such-game" in refused("unknown_rules", match_id=gone.pk, user=asker)
    assert Analysis.objects.get(match=gone).status == Analysis.Status.FAILED


async def test_a_server_process_has_the_queue_run_at_its_first_connection_only(analysis_settings, monkeypatch):
    """Jobs queued before a restart are run without waiting for a new request (the queue's start
    hook; the clock sweep's does nothing here, CLOCK_SWEEP_SECONDS being 0)."""
    analysis_settings.ANALYSIS_WORKERS = "pool"
    runs = []

    async def run_queue(executor):
        runs.append(executor)

    monkeypatch.setattr(analysis_runs, "run_queue", run_queue)
    monkeypatch.setattr(analysis_runs, "_process_pool", lambda: "the pool")
    served = []

    async def app(scope, receive, send):
        served.append(scope["type"])

    server = starting.RunStartHooks(app)
    await server({"type": "lifespan"}, None, None)
    assert runs == []
    for kind in ("http", "websocket", "http"):
        await server({"type": kind}, None, None)
    await asyncio.sleep(0)  # one turn of the loop: the task it started runs
    assert runs == ["the pool"] and served == ["lifespan", "http", "websocket", "http"]


def test_inline_the_request_runs_the_analysis_after_its_commit(analysis_settings, django_capture_on_commit_callbacks):
    analysis_settings.ANALYSIS_WORKERS = "inline"
    match = finished()
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(match_id=match.pk, user=match.seats.get(order=0).player)
    assert analysis_of(match=match)["status"] == "done"


@pytest.mark.django_db(transaction=True)
async def test_a_worker_process_runs_the_queue_when_asked_on_its_channel():
    """The scaled set-up: ``manage.py runworker computer`` takes ``analysis.run`` and runs every
    queued job, evaluating in a thread of its own and storing through the database threads."""
    from asgiref.sync import sync_to_async

    from games.computer.workers import ComputerWorker

    def queue():
        match = finished()
        services.analysis_request(match_id=match.pk, user=match.seats.get(order=0).player)
        return match

    match = await sync_to_async(queue)()
    await ComputerWorker().analysis_run({"type": "analysis.run"})
    analysis = await Analysis.objects.aget(match=match)
    assert analysis.status == Analysis.Status.DONE and len(analysis.evaluations) == analysis.positions


def test_outside_a_server_the_pool_is_not_started_and_the_job_waits_in_the_queue(analysis_settings,
                                                                                 django_capture_on_commit_callbacks):
    analysis_settings.ANALYSIS_WORKERS = "pool"
    match = finished()
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(match_id=match.pk, user=match.seats.get(order=0).player)
    assert analysis_of(match=match)["status"] == "queued"


def test_manage_py_runworker_is_the_worker_that_runs_the_queue_as_it_starts():
    """``games`` precedes ``channels`` in INSTALLED_APPS, so its runworker is the one run
    (``tests/games/computer/test_live_analysis.py`` runs it across processes, in stage 2)."""
    from django.core.management import get_commands, load_command_class

    from games.runtime.starting import StartingWorker, worker_hooks

    assert get_commands()["runworker"] == "games"
    assert load_command_class("games", "runworker").worker_class is StartingWorker
    assert "the analysis queue" in worker_hooks(["computer"])
    assert "the analysis queue" not in worker_hooks(["ggp"])


def test_an_import_through_a_live_match_position_waits_until_that_match_moves_on():
    players, live, copy = live_and_its_uploaded_copy()
    message = refused("analysis_live_position", match_id=copy.pk, user=players[0])
    assert "being played now" in message and "fair play" in message
    carol, = make_players(1, prefix="carol")
    refused("analysis_live_position", match_id=copy.pk, user=carol)  # anyone: the result would be shown to all
    assert Analysis.objects.count() == 0
    # Once the live match has moved on, its former position is history.
    move_on(live, players)
    assert services.analysis_request(match_id=copy.pk, user=players[0]).status == Analysis.Status.QUEUED


def test_a_match_played_here_is_analysed_whatever_live_matches_stand_at():
    players = make_players(4)
    match = finished(players[:2])
    # A live match standing where the finished one stood after its first two moves.
    live = play_line(start_match(match.game, players[2:]), players[2:], match.moves_played[:2])
    assert live.status == Match.Status.ACTIVE
    assert services.analysis_request(match_id=match.pk, user=players[0]).status == Analysis.Status.QUEUED


def test_a_stored_analysis_is_handed_back_with_two_reads_no_lock_and_no_live_scan(django_assert_num_queries):
    match = finished()
    alice, bob = (s.player for s in match.seats.all())
    first = services.analysis_request(match_id=match.pk, user=alice)
    with django_assert_num_queries(2):  # the match, the analysis: no transaction, no lock
        assert services.analysis_request(match_id=match.pk, user=bob).pk == first.pk
    analysis_runs.run_here()
    with django_assert_num_queries(2):
        assert services.analysis_request(match_id=match.pk, user=bob).status == Analysis.Status.DONE
    # An import's stored analysis too, while a live match stands at one of its positions: the
    # row is handed back, and the read (analysis_of) is what applies the fair-play rule.
    players, live, copy = live_and_its_uploaded_copy()
    refused("analysis_live_position", match_id=copy.pk, user=players[0])
    stored = store_analysis(copy, {})  # as if done before the live match stood there
    with django_assert_num_queries(2):
        assert services.analysis_request(match_id=copy.pk, user=players[1]).pk == stored.pk


def test_a_stored_analysis_of_an_import_is_not_read_while_a_live_match_stands_at_one_of_its_positions():
    players, live, copy = live_and_its_uploaded_copy()
    store_analysis(copy, {})  # done before the live match stood there (or by a row written another way)
    with pytest.raises(ServiceError) as info:  # whoever reads: the page, the JSON, the export, the bot API
        analysis_of(match=copy)
    assert info.value.code == "analysis_live_position"
    assert "being played now" in info.value.message and "fair play" in info.value.message
    move_on(live, players)
    data = analysis_of(match=copy)
    assert data["status"] == "done" and len(data["positions"]) == copy.plies + 1


def test_reading_a_done_analysis_costs_two_queries_and_an_imports_one_more_for_the_live_positions(
        django_assert_num_queries):
    match = finished()
    store_analysis(match, {})
    with django_assert_num_queries(2):  # the analysis, the moves
        assert analysis_of(match=match)["status"] == "done"
    players, live, copy = live_and_its_uploaded_copy()
    move_on(live, players)
    store_analysis(copy, {})
    with django_assert_num_queries(3):  # and whether a live match stands at one of its positions
        assert analysis_of(match=copy)["status"] == "done"


def test_an_imports_analysis_in_the_queue_shows_its_progress_whatever_live_matches_stand_at(
        django_assert_num_queries):
    players, live, copy = live_and_its_uploaded_copy()
    Analysis.objects.create(match=copy, rounds=100, positions=copy.plies + 1)  # queued: no evaluation to hand out
    with django_assert_num_queries(2):  # the analysis, the jobs ahead of it
        assert analysis_of(match=copy)["status"] == "queued"
