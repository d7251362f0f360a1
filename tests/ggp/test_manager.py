"""The manager's own bookkeeping: one task of a match at a time in this process, and nothing
kept for a match that is over (a long-running server serves matches without end).

The services run inline; the GGP seat is a small HTTP server that answers START ``ready`` and
every PLAY with a move that is not legal, so its turns are played at random at once."""

import threading
import time

import pytest
from django.db import transaction

from games import services
from games.ggp import manager, offpath
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match
from games.rules import get_game
from games.selectors import match_seats
from games.services.common import lock_match, resign_seat
from tests.support.ggphttp import PlayerServer
from tests.support.players import make_accounts
from tests.support.waits import EVENT_SECONDS, POLL_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)
PER_MOVE = TimeControl(start=10, play=2)
ANSWERS = {"INFO": "available", "START": "ready", "PLAY": "(not a move)", "STOP": "done", "ABORT": "aborted"}


@pytest.fixture(autouse=True)
def manager_inline(settings, fake_time):
    settings.COMPUTER_WORKERS = "inline"
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_GRACE_SECONDS = 1.0


def answer(body: str) -> str:
    return ANSWERS[body.strip("()").split()[0].upper()]


def seat_a_ggp_player(server: PlayerServer, slug: str = "tictactoe-x9") -> tuple[Match, object]:
    [person] = make_accounts(1)
    registered = services.ggp_player_register(owner=person, name="Fumbler", url=server.url)
    match = services.match_create(user=person, settings=MatchSettings(slug, time_control=PER_MOVE),
                                  role="xplayer", ggp_players={"oplayer": registered.pk})
    return match, person


def test_a_finished_match_keeps_no_lock():
    game = get_game("tictactoe-x9")
    with PlayerServer(answer) as server:
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
    assert match.pk not in manager._locks


def test_a_called_off_match_keeps_no_lock():
    with PlayerServer(answer) as server:
        match, person = seat_a_ggp_player(server)
        services.match_abort(match_id=match.pk, user=person)
    assert server.bodies()[-1].startswith("(ABORT ")
    assert match.pk not in manager._locks


def test_the_tasks_of_one_match_take_turns_and_the_last_one_out_drops_the_lock(monkeypatch):
    """A task that waits for the lock keeps it alive: the one that holds it cannot drop it
    from under the waiting one (a third task would then take a new lock and run beside it)."""
    inside, release = [], threading.Event()

    def serve(match_id):
        inside.append(threading.current_thread().name)
        if len(inside) == 1:
            release.wait(EVENT_SECONDS)

    monkeypatch.setattr(manager, "_serve", serve)
    first = threading.Thread(target=manager.ggp_match_changed, args=(7,), name="first")
    second = threading.Thread(target=manager.ggp_match_changed, args=(7,), name="second")
    first.start()
    try:
        until(lambda: inside == ["first"], "the first task serves")
        second.start()
        until(lambda: manager._locks[7].users == 2, "the second task waits for the lock")
        assert inside == ["first"]
    finally:
        release.set()
    first.join(EVENT_SECONDS)
    second.join(EVENT_SECONDS)
    assert inside == ["first", "second"]
    assert 7 not in manager._locks


def until(condition, what: str) -> None:
    deadline = time.monotonic() + EVENT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {EVENT_SECONDS} s"
        time.sleep(POLL_SECONDS)


def test_calling_off_a_match_hands_the_manager_the_seats_in_hand(django_assert_num_queries):
    """A seat resigned before every seat moved: the match is called off with the seats the
    service read under the row lock, and the manager is asked for (ABORT) without reading
    them again: which moves were made, whose, and the match's write; nothing more."""
    with PlayerServer(answer) as server:
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
    with PlayerServer(answer) as server:
        match, person = seat_a_ggp_player(server)
        while match.status == Match.Status.ACTIVE:
            action = game.legal_actions(game.state_from_json(match.state))[0]
            services.move_submit(match_id=match.pk, user=person, action=action, version=match.version)
            match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert asked.count("ggp_match_changed") == 1 + match.plies
