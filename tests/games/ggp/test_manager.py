"""The manager's own bookkeeping: one task of a match at a time in any process, what was sent
kept in the database (a restarted worker carries on), and a match that is over let go.

The services run inline; the GGP seat is a small HTTP server that answers START ``ready`` and
every PLAY with a move that is not legal, so its turns are played at random at once."""

import dataclasses
import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.ggp import client, manager, offpath
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPPlayer, GGPProgress, Match, Rating, ReplacedMove
from games.rules import get_game
from games.selectors import match_seats
from games.services.guards import lock_match
from games.services.lifecycle import resign_seat
from tests.support.ggphttp import PlayerServer, fumbling
from tests.support.players import make_accounts
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)
PER_MOVE = TimeControl(start=10, play=2)


@pytest.fixture(autouse=True)
def manager_inline(settings, fake_time):
    settings.COMPUTER_WORKERS = "inline"
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_GRACE_SECONDS = 1.0


def seat_a_ggp_player(server: PlayerServer, slug: str = "tictactoe-x9", person=None) -> tuple[Match, object]:
    person = person or make_accounts(1)[0]
    registered = services.ggp_player_register(owner=person, name=f"Fumbler {person.pk}", url=server.url)
    match = services.match_create(user=person, settings=MatchSettings(slug, time_control=PER_MOVE),
                                  role="xplayer", ggp_players={"oplayer": registered.pk})
    return match, person


def progress_of(match) -> GGPProgress:
    return GGPProgress.objects.get(pk=match.pk)


def test_a_finished_match_is_let_go_and_hears_nothing_more():
    game = get_game("tictactoe-x9")
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        for _ in range(9):
            match.refresh_from_db()
            if match.status != Match.Status.ACTIVE:
                break
            action = game.legal_actions(game.state_from_json(match.state))[0]
            services.move_submit(match_id=match.pk, user=person, action=action, version=match.version)
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED
        assert server.bodies()[-1].startswith("(STOP ")
        progress = progress_of(match)
        assert progress.ended and progress.claim == "" and progress.sent == match.plies - 1
        heard = len(server.bodies())
        manager.ggp_match_changed(match.pk)  # a change asked for again (a redelivered task)
        assert len(server.bodies()) == heard


def test_a_pass_reads_the_progress_row_once():
    """Before the match (a change committed after the read counts itself in ``asked``, and the
    pass serves again), and not again to serve it; counting the change and claiming the match
    are updates."""
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        services.match_abort(match_id=match.pk, user=person)
    with CaptureQueriesContext(connection) as queries:
        manager.ggp_match_changed(match.pk)  # asked for again: the row says it ended
    table = GGPProgress._meta.db_table
    reads = [q["sql"] for q in queries.captured_queries
             if q["sql"].lstrip().upper().startswith("SELECT") and f'FROM "{table}"' in q["sql"]]
    assert len(reads) == 1, reads
    assert progress_of(match).claim == ""


def test_a_called_off_match_is_let_go():
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        services.match_abort(match_id=match.pk, user=person)
    assert server.bodies()[-1].startswith("(ABORT ")
    progress = progress_of(match)
    assert progress.ended and progress.claim == ""


def test_what_was_sent_survives_the_process_that_sent_it():
    """A worker that restarts (or another worker) carries on from the steps recorded: no second
    START, no step sent twice, the next one sent once."""
    game = get_game("tictactoe-x9")
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        action = game.legal_actions(game.state_from_json(match.state))[0]
        services.move_submit(match_id=match.pk, user=person, action=action, version=match.version)
        heard = server.bodies()
        assert [body.split()[0] for body in heard] == ["(INFO)", "(START", "(PLAY", "(PLAY", "(PLAY"]
        manager.ggp_match_changed(match.pk)  # as a new process would, with nothing in memory
        assert server.bodies() == heard


class Died(Exception):
    """The worker process dies here."""


def move_as_the_task_dies(match, person, monkeypatch) -> None:
    """The person moves; the task that sends the GGP seat's PLAY dies before it reads the
    answers (a worker restarted): the step is recorded as sent, the match let go."""
    game = get_game(match.game)
    call = client.call

    def dies_after_sending(url, body, seconds):
        sent = call(url, body, seconds=seconds)
        if body.startswith("(PLAY"):
            raise Died
        return sent

    action = game.legal_actions(game.state_from_json(match.state))[0]
    with monkeypatch.context() as patched:
        patched.setattr(client, "call", dies_after_sending)
        services.move_submit(match_id=match.pk, user=person, action=action, version=match.version)
    match.refresh_from_db()
    assert match.plies == 1  # the GGP seat's turn waits
    progress = progress_of(match)
    assert progress.sent == 1 and progress.claim == ""  # sent, and let go as it died


def test_a_step_whose_task_died_is_played_at_random_and_sent_once(monkeypatch):
    """The task that sent a step dies before it reads the answers (a worker restarted): the
    step is not sent again; the next look for stalled matches plays the GGP mover's turn at
    random, as no answer, and the match goes on."""
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        move_as_the_task_dies(match, person, monkeypatch)
        heard = server.bodies()
        GGPProgress.objects.filter(pk=match.pk).update(claim="alive", held_until=timezone.now() + timedelta(seconds=60))
        assert manager.resume_stalled() == 0  # a match a task holds is left to it
        GGPProgress.objects.filter(pk=match.pk).update(claim="", held_until=None)
        assert manager.resume_stalled() == 1
        match.refresh_from_db()
        assert match.plies == 2
        assert ReplacedMove.objects.get(match=match, ply=2).reason == "lost"  # not the player's fault
        new = server.bodies()[len(heard):]
        assert [body.split()[0] for body in new] == ["(PLAY"]  # the next step once; the last not again
        assert new[0] != heard[-1]


def test_a_match_of_rules_the_site_no_longer_has_is_skipped_and_the_others_are_served(monkeypatch, caplog):
    """Its rule set removed since (or its row damaged) while it is active: the manager skips
    it, with one warning for the process, sends its player nothing, and serves the other
    matches. Before, reading it raised: out of the resume's pass (inline), every later stalled
    match left as it was, or (threads, workers) a task's traceback every ``GGP_RESUME_SECONDS``."""
    ada, bob = make_accounts(2)
    with PlayerServer(fumbling) as gone_server, PlayerServer(fumbling) as server:
        gone, _ = seat_a_ggp_player(gone_server, person=ada)
        match, person = seat_a_ggp_player(server, person=bob)
        move_as_the_task_dies(match, person, monkeypatch)
        Match.objects.filter(pk=gone.pk).update(game="gone-rules")
        heard = gone_server.bodies()
        caplog.clear()  # the task that died logged its own traceback
        assert manager.resume_stalled() == 2
        assert manager.resume_stalled() == 2  # still active, still skipped (no second warning)
        match.refresh_from_db()
        assert match.plies == 2 and ReplacedMove.objects.get(match=match, ply=2).reason == "lost"
        assert gone_server.bodies() == heard
        assert progress_of(gone).claim == ""
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned == [f"match {gone.pk} names rules this site does not have (gone-rules): the computer's turns "
                      "and the GGP manager skip it until the clock sweep calls it off"]
    assert "Traceback" not in caplog.text


def test_a_match_of_rules_the_site_no_longer_has_called_off_by_the_sweep_sends_its_program_abort(caplog):
    """The clock sweep calls such a match off (``clock_flag``): its program, which heard START,
    hears ABORT (STOP needs the last joint move, which cannot be written without the rules),
    once, and the match is let go; its pages are sent nothing (they have no state to show)."""
    with PlayerServer(fumbling) as server:
        match, _ = seat_a_ggp_player(server)
        Match.objects.filter(pk=match.pk).update(game="gone-rules")
        heard = server.bodies()
        caplog.clear()
        assert services.clock_sweep() == 1
        assert server.bodies()[len(heard):] == [f"(ABORT boardhall.{match.pk})"]
        assert services.clock_sweep() == 0
        manager.ggp_match_changed(match.pk)  # asked for again: it ended
        assert len(server.bodies()) == len(heard) + 1
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and not match.result.get("scores")
    progress = progress_of(match)
    assert progress.ended and progress.claim == ""
    assert "Traceback" not in caplog.text and "Error" not in caplog.text


def test_a_change_while_another_task_serves_the_match_is_served_by_that_task_after(monkeypatch):
    """No two tasks serve one match at once, in any process: the second only counts its change
    and returns at once (it does not wait out the first one's play clock); the first serves
    again before it lets go, so the change is not lost."""
    [person] = make_accounts(1)
    match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9"), role="xplayer")
    served, inside, release = [], threading.Event(), threading.Event()

    def serve(match_id, claim, progress):
        served.append(threading.current_thread().name)
        if len(served) == 1:
            inside.set()
            release.wait(EVENT_SECONDS)

    monkeypatch.setattr(manager, "_serve", serve)
    first = threading.Thread(target=offpath.run_here, args=("ggp_match_changed", match.pk), name="first")
    first.start()
    try:
        assert inside.wait(EVENT_SECONDS)
        manager.ggp_match_changed(match.pk)  # the second task, here
        assert served == ["first"]
        assert progress_of(match).claim != ""
    finally:
        release.set()
    first.join(EVENT_SECONDS)
    assert served == ["first", "first"]  # served again for the second change
    progress = progress_of(match)
    assert progress.claim == "" and progress.asked == 2


def test_a_task_that_fell_silent_loses_the_match_when_its_time_is_up(monkeypatch):
    [person] = make_accounts(1)
    match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9"), role="xplayer")
    served = []
    monkeypatch.setattr(manager, "_serve", lambda match_id, claim, progress: served.append(claim))
    GGPProgress.objects.create(match=match, claim="dead", held_until=timezone.now() + timedelta(seconds=60))
    manager.ggp_match_changed(match.pk)
    assert served == []  # still the silent one's: the change is only counted
    GGPProgress.objects.filter(pk=match.pk).update(held_until=timezone.now() - timedelta(seconds=1))
    manager.ggp_match_changed(match.pk)
    assert len(served) == 1 and served[0] != "dead"
    assert progress_of(match).claim == ""


def test_a_task_that_lost_the_match_sends_nothing_more():
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        heard = len(server.bodies())
        GGPProgress.objects.filter(pk=match.pk).update(sent=-1, claim="other")
        manager._serve(match.pk, "mine", progress_of(match))  # its time ran out and another task took the match
        assert len(server.bodies()) == heard


def test_calling_off_a_match_hands_the_manager_the_seats_in_hand(django_assert_num_queries):
    """A seat resigned before every seat moved: the match is called off with the seats the
    service read under the row lock, and the manager is asked for (ABORT) without reading
    them again: which moves were made, whose, and the match's write; nothing more."""
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        with transaction.atomic():
            match = lock_match(match.pk)
            seats = match_seats(match.pk)
            mine = next(s for s in seats if s.player_id == person.pk)
            with django_assert_num_queries(3):
                resign_seat(match, seats, mine)
        assert server.bodies()[-1].startswith("(ABORT ")
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED


def test_every_change_of_a_match_asks_the_manager_once(monkeypatch):
    """The start and each move ask for the manager once; the last move too: the manager hears
    of the end from ``finish``, not a second time from the move (a second task read the match,
    its moves and seats again for nothing)."""
    asked, run = [], offpath.run

    def counted(name, *args):
        asked.append(name)
        run(name, *args)

    monkeypatch.setattr(offpath, "run", counted)
    game = get_game("tictactoe-x9")
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        while match.status == Match.Status.ACTIVE:
            action = game.legal_actions(game.state_from_json(match.state))[0]
            services.move_submit(match_id=match.pk, user=person, action=action, version=match.version)
            match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert asked.count("ggp_match_changed") == 1 + match.plies


def test_every_reason_for_a_replaced_move_has_its_words_on_the_pages():
    from games.selectors.snapshots import REPLACED

    reasons = {value for value, _ in ReplacedMove._meta.get_field("reason").choices}
    assert reasons == set(REPLACED) and "lost" in reasons
    assert "server" in REPLACED["lost"]  # not the player's "no answer"


def test_a_removed_player_hears_nothing_more_of_its_matches():
    """Its row is kept (it counts toward its owner's limit) but the manager no longer calls it:
    its turns fall to the flag, as before the row was kept."""
    game = get_game("tictactoe-x9")
    with PlayerServer(fumbling) as server:
        match, person = seat_a_ggp_player(server)
        heard = len(server.bodies())
        services.ggp_player_remove(owner=person, player_id=match.seats.get(role="oplayer").player.ggp_player.pk)
        match.refresh_from_db()
        action = game.legal_actions(game.state_from_json(match.state))[0]
        services.move_submit(match_id=match.pk, user=person, action=action, version=match.version)
        assert len(server.bodies()) == heard


# -- a START with no valid answer in time -------------------------------------------------------------

START_FAILURES = {"an error": (500, {}, "no"), "an odd answer": "(what", "a late ready": "ready"}


def failing_start(failure: str):
    def answers(body: str):
        return START_FAILURES[failure] if body.startswith("(START") else fumbling(body)
    return answers


def late_start(monkeypatch) -> None:
    """Every START answer comes after the start clock (and within the grace)."""
    call = client.call

    def slow(url, body, seconds):
        got = call(url, body, seconds=seconds)
        return dataclasses.replace(got, seconds=PER_MOVE.start + 0.5) if body.startswith("(START") else got

    monkeypatch.setattr(client, "call", slow)


@pytest.mark.parametrize("failure", list(START_FAILURES))
def test_a_rated_match_whose_program_gives_start_no_valid_answer_in_time_is_called_off(failure, monkeypatch):
    """It never began (as a match where one side never moved, on lichess): aborted, nobody
    rated, ABORT sent; the program is shown away with what its START did, so it is not seated
    rated again before a check finds it online."""
    owner, person = make_accounts(2)
    with PlayerServer(failing_start(failure)) as server:
        registered = services.ggp_player_register(owner=owner, name="Never Ready", url=server.url)
        if failure == "a late ready":
            late_start(monkeypatch)
        match = services.match_create(user=person, settings=MatchSettings("tictactoe-x9", True, PER_MOVE),
                                      role="xplayer", ggp_players={"oplayer": registered.pk})
        match.refresh_from_db()
        assert match.status == Match.Status.ABORTED
        assert match.result["reason"] == "Never Ready did not answer START ready in time"
        assert [body.split()[0] for body in server.bodies()] == ["(INFO)", "(START", "(ABORT"]
    assert not Rating.objects.exists()
    registered.refresh_from_db()
    assert registered.status == GGPPlayer.Status.AWAY and registered.note.startswith("START")
    with pytest.raises(services.ServiceError) as refused:
        services.match_create(user=person, settings=MatchSettings("tictactoe-x9", True, PER_MOVE),
                              role="xplayer", ggp_players={"oplayer": registered.pk})
    assert refused.value.code == "ggp_not_online"


@pytest.mark.parametrize("failure", list(START_FAILURES))
def test_a_casual_match_whose_program_gives_start_no_valid_answer_goes_on_at_random(failure, monkeypatch):
    with PlayerServer(failing_start(failure)) as server:
        if failure == "a late ready":
            late_start(monkeypatch)
        match, person = seat_a_ggp_player(server)
        game = get_game(match.game)
        action = game.legal_actions(game.state_from_json(match.state))[0]
        services.move_submit(match_id=match.pk, user=person, action=action, version=match.version)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.plies == 2  # its turn played at random
    assert match.seats.get(role="oplayer").player.ggp_player.status == GGPPlayer.Status.AWAY
