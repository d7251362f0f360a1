"""A channel layer that cannot be reached (Redis down): committed changes stay committed and
answered as such; the broadcast that failed is logged, and pages catch up by version."""

import asyncio
import sqlite3
import time

import psycopg
import psycopg_pool
import pytest

from games import services
from games.models import Match, Move
from games.runtime import outages
from games.services import broadcast
from tests.support.handoffs import handoff_replaced
from tests.support.players import make_players, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db


class DownLayer:
    async def group_send(self, group, message):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@pytest.fixture
def layer_down(monkeypatch):
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: DownLayer())


def test_creating_a_match_with_the_layer_down_answers_the_new_match_once(client, layer_down,
                                                                          django_capture_on_commit_callbacks, caplog):
    user, = make_players(1)
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/matches/new/", {"game": "quarto-misere", "role": "black"})
    match = Match.objects.get()  # exactly one: nothing to retry into a duplicate
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert "pages resync by version" in caplog.text


def test_a_move_with_the_layer_down_is_stored_and_reported_played(layer_down, django_capture_on_commit_callbacks):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    with django_capture_on_commit_callbacks(execute=True):
        played = services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    assert played.version == 1 and Move.objects.filter(match=match).count() == 1


# -- the socket layer: told to retry with 4503, never a failed handshake ---------------------------

@pytest.mark.django_db(transaction=True)
async def test_a_page_whose_move_lost_its_broadcast_is_answered_before_it_is_told_to_retry(layer_down, settings):
    """Redis went as the move committed: its state never came back through the layer. When the
    layer tells the socket (``socket.layer_down``), the page gets its move's state first. (On
    the in-memory layer, whose groups name the socket's channel, on every stage.)"""
    settings.REDIS_URL = ""  # the socket limits and presence in memory too
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "live.layers.InMemoryLayer"}}
    from channels.db import database_sync_to_async
    from channels.layers import get_channel_layer

    from tests.live.consumers.test_consumers import join_match, receive

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    sx, first = await join_match(match.pk, x)
    sx_channel, = get_channel_layer().groups[broadcast.match_group(match.pk)]
    await sx.send_json_to({"type": "action", "action": first["you"]["legal"]["xPlayer"][0], "version": 0})
    while await database_sync_to_async(Move.objects.filter(match=match).count)() == 0:
        await asyncio.sleep(0.01)
    await get_channel_layer().send(sx_channel, {"type": "socket.layer_down"})
    assert (await receive(sx, "state"))["version"] == 1
    assert (await receive(sx, "error"))["code"] == "unavailable"
    assert (await sx.receive_output(timeout=EVENT_SECONDS))["code"] == outages.TRY_AGAIN_LATER


@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_session_cannot_be_read_is_told_to_retry_not_refused(monkeypatch):
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config import socketauth
    from config.asgi import application

    async def database_away(scope):
        raise from_driver(psycopg_pool.PoolTimeout("couldn't get a connection after 4.00 sec"))

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    monkeypatch.setattr(socketauth, "read_user", database_away)
    comm = WebsocketCommunicator(application, f"/ws/matches/{match.pk}/",
                                 headers=[(b"origin", b"http://testserver"), (b"host", b"testserver")])
    connected, _ = await comm.connect()
    assert connected  # accepted, not a failed handshake
    assert (await comm.receive_json_from(timeout=EVENT_SECONDS))["code"] == "unavailable"
    assert (await comm.receive_output(timeout=EVENT_SECONDS))["code"] == outages.TRY_AGAIN_LATER


@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_session_read_hangs_is_told_to_retry_before_daphne_gives_up(monkeypatch):
    """While the database is away a session read waits for the pool, and behind other reads on
    the database threads: longer than Daphne's 5 s for a handshake, which it then drops with no
    answer (seen once in a loop of the PostgreSQL outage test). The page is told to retry first."""
    import threading

    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config import socketauth
    from config.asgi import application
    from games.runtime.dbthreads import db

    released = threading.Event()
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    monkeypatch.setattr(socketauth, "read_user", db(lambda scope: released.wait(30)))
    monkeypatch.setattr(socketauth, "SESSION_READ_SECONDS", 0.2)
    comm = WebsocketCommunicator(application, f"/ws/matches/{match.pk}/",
                                 headers=[(b"origin", b"http://testserver"), (b"host", b"testserver")])
    try:
        connected, _ = await comm.connect(timeout=EVENT_SECONDS)
        assert connected  # accepted while the read still hangs, not dropped
        assert not released.is_set()
        assert (await comm.receive_json_from(timeout=EVENT_SECONDS))["code"] == "unavailable"
        assert (await comm.receive_output(timeout=EVENT_SECONDS))["code"] == outages.TRY_AGAIN_LATER
    finally:
        released.set()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_that_cannot_get_a_channel_is_told_to_retry_not_refused(monkeypatch):
    from channels.layers import get_channel_layer
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    async def redis_away(prefix="specific."):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(get_channel_layer(), "new_channel", redis_away)
    comm = WebsocketCommunicator(application, "/ws/lobby/",
                                 headers=[(b"origin", b"http://testserver"), (b"host", b"testserver")])
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_json_from(timeout=EVENT_SECONDS))["code"] == "unavailable"
    assert (await comm.receive_output(timeout=EVENT_SECONDS))["code"] == outages.TRY_AGAIN_LATER


# -- pages and the log ------------------------------------------------------------------------------

def from_driver(error: Exception) -> Exception:
    """What Django's database layer raises for a driver's ``error``: its own type, raised from it."""
    from django.db import InterfaceError, OperationalError

    wrapped = (InterfaceError if isinstance(error, (psycopg.InterfaceError, sqlite3.InterfaceError))
               else OperationalError)(*error.args)
    wrapped.__cause__ = error
    return wrapped


def raised(run) -> Exception:
    try:
        run()
    except Exception as err:
        return err
    raise AssertionError("nothing was raised")


def sqlite_locked(tmp_path) -> Exception:
    """SQLite's own "database is locked": another connection holds the write lock past the timeout."""
    holder = sqlite3.connect(tmp_path / "locked.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        return raised(lambda: sqlite3.connect(tmp_path / "locked.sqlite3", timeout=0).execute("BEGIN IMMEDIATE"))
    finally:
        holder.close()


def sqlite_no_such_table(tmp_path) -> Exception:
    return raised(lambda: sqlite3.connect(":memory:").execute("SELECT * FROM missing"))


DATABASE_AWAY = [  # psycopg's errors carry their SQLSTATE as a class attribute, as raised
    lambda _: psycopg.OperationalError('connection failed: connection to server at "127.0.0.1", port 5432 '
                                       'failed: Connection refused'),
    lambda _: psycopg.OperationalError("the connection is closed"),
    lambda _: psycopg_pool.PoolTimeout("couldn't get a connection after 4.00 sec"),
    lambda _: psycopg.errors.ConnectionFailure("server closed the connection unexpectedly"),
    lambda _: psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
    lambda _: psycopg.errors.CannotConnectNow("the database system is starting up"),
    sqlite_locked,
    lambda tmp_path: raised(lambda: sqlite3.connect(tmp_path / "no" / "such" / "directory.sqlite3")),
]
DATABASE_FAULTS = [
    lambda _: psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
    lambda _: psycopg.errors.DeadlockDetected("deadlock detected"),
    lambda _: psycopg.errors.LockNotAvailable('could not obtain lock on row in relation "games_match"'),
    lambda _: psycopg.InterfaceError("the cursor is closed"),
    sqlite_no_such_table,
    lambda _: raised(lambda: sqlite3.connect(":memory:").execute("SELECT missing FROM sqlite_master")),
]


@pytest.mark.parametrize("make", DATABASE_AWAY)
def test_a_database_that_cannot_be_reached_or_is_busy_is_away(make, tmp_path):
    assert outages.database_away(from_driver(make(tmp_path)))
    assert outages.down(from_driver(make(tmp_path)))


@pytest.mark.parametrize("make", DATABASE_FAULTS)
def test_any_other_database_error_is_a_fault_not_an_outage(make, tmp_path):
    assert not outages.database_away(from_driver(make(tmp_path)))
    assert not outages.down(from_driver(make(tmp_path)))


def test_the_database_is_away_by_the_drivers_code_not_by_words():
    from django.db import OperationalError

    assert not outages.database_away(OperationalError("connection refused"))  # no driver's error to read


def test_django_raises_its_database_errors_from_the_drivers_which_database_away_reads():
    from django.db import connection

    err = raised(lambda: connection.cursor().execute("SELECT * FROM no_such_table"))
    assert isinstance(err.__cause__, (sqlite3.Error, psycopg.Error)) and not outages.database_away(err)


@pytest.mark.parametrize("make", [DATABASE_AWAY[0], sqlite_locked])
def test_a_page_that_cannot_reach_the_database_is_the_sites_503(make, client, monkeypatch, caplog, tmp_path):
    from games import selectors

    def database_away(**kwargs):
        raise from_driver(make(tmp_path))

    monkeypatch.setattr(selectors, "lobby_lists", database_away)
    for _ in range(3):
        response = client.get("/")
        assert response.status_code == 503 and response["Retry-After"]
        assert "Back in a moment" in response.content.decode()
    assert caplog.text.count("answered 503") == 1 and "Traceback" not in caplog.text


@pytest.mark.parametrize("make", [DATABASE_FAULTS[0], sqlite_no_such_table])
def test_a_page_that_meets_any_other_database_error_is_a_500_logged_with_its_traceback(make, monkeypatch, caplog,
                                                                                         tmp_path):
    from django.test import Client

    from games import selectors

    def fault(**kwargs):
        raise from_driver(make(tmp_path))

    monkeypatch.setattr(selectors, "lobby_lists", fault)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert "Internal Server Error: /" in caplog.text and "Traceback" in caplog.text
    assert "answered 503" not in caplog.text


def test_a_socket_that_meets_a_database_fault_logs_its_traceback_and_an_outage_one_line(caplog, tmp_path):
    import logging

    log = logging.getLogger("tests.outages")
    outages.report_or_log("opening a match page", from_driver(sqlite_no_such_table(tmp_path)), log)
    outages.report_or_log("opening a lobby page", from_driver(sqlite_locked(tmp_path)), log)
    fault, away = caplog.records
    assert fault.levelname == "ERROR" and fault.exc_info and "no such table" in caplog.text
    assert away.levelname == "WARNING" and not away.exc_info and "not an outage" in away.getMessage()


def test_a_timeout_is_logged_as_no_answer_in_time_not_as_an_outage(caplog, tmp_path):
    """A wait that ran out (the publish's timer, redis-py's read, the pool's wait, SQLite's
    busy timeout) is what an overloaded process meets with every service up: its line says so.
    A refused connection is an outage."""
    from django.db import OperationalError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    pool_timeout = OperationalError("couldn't get a connection after 4.00 sec")
    pool_timeout.__cause__ = psycopg_pool.PoolTimeout("couldn't get a connection after 4.00 sec")
    waits = [TimeoutError(), RedisTimeoutError("Timeout reading from socket"), pool_timeout,
             from_driver(sqlite_locked(tmp_path))]
    for n, error in enumerate(waits):
        outages.report(f"waiting {n}", error)
    outages.report("publishing", ConnectionRefusedError(111, "Connection refused"))
    *slow, refused = [record.getMessage() for record in caplog.records]
    assert len(slow) == len(waits)
    assert all("no answer in time" in line and "a service is down" not in line for line in slow), slow
    assert "a service is down" in refused and "no answer in time" not in refused


def test_the_home_page_works_without_redis_and_lists_nobody_online(client, monkeypatch):
    from games.runtime import presence
    from games.selectors import online_players

    class RedisAway:
        def pages(self, key):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with monkeypatch.context() as patch:
        patch.setattr(presence, "store", lambda: RedisAway())
        assert online_players() == []
        assert client.get("/").status_code == 200


def test_each_kind_of_failure_is_one_line_a_minute_with_a_count_of_the_rest(caplog, monkeypatch):
    err = ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    for _ in range(5):
        outages.report("publishing", err)
    outages.report("subscribing", err)
    assert [r.getMessage().split(" failed")[0] for r in caplog.records] == ["publishing", "subscribing"]
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + outages.REPEAT_SECONDS + 1)
    outages.report("publishing", err)
    assert "(4 more since the last line)" in caplog.records[-1].getMessage()
    assert all(r.levelname == "WARNING" and not r.exc_info for r in caplog.records)


async def test_a_flag_fall_that_meets_the_database_away_is_tried_again_soon(monkeypatch):
    from games.match import clocks
    from games.services import flagfall

    def database_away(**kwargs):
        raise from_driver(psycopg.OperationalError("connection failed: Connection refused"))

    handoff_replaced(monkeypatch, flagfall.SERVICES, clock_flag=database_away)
    await flagfall.fire(42)
    deadline = flagfall.armed()[42]
    assert 0 < (deadline - clocks.now()).total_seconds() <= flagfall.RETRY_SECONDS


# -- one judgement everywhere: a database fault is a fault, not an outage -------------------------
# Every place that waits out a service that is away (a socket, the flag-fall timer, the
# computer's turns, the analysis queue) judges an error as the 503 page does (``outages.down``):
# a database error that is not the database away (here SQLite's "no such table", as a missing
# migration raises it) is logged with its traceback and takes the place's normal error path.

def database_fault(tmp_path) -> Exception:
    return from_driver(sqlite_no_such_table(tmp_path))


def database_away_error(tmp_path) -> Exception:
    return from_driver(sqlite_locked(tmp_path))


def logged_with_traceback(caplog, words: str) -> bool:
    return any(words in r.getMessage() and r.exc_info for r in caplog.records)


@pytest.mark.django_db(transaction=True)
async def test_a_socket_message_that_meets_a_database_fault_is_a_server_error_not_a_retry(monkeypatch, caplog, tmp_path):
    from channels.db import database_sync_to_async

    from tests.live.consumers.test_consumers import join_match, receive

    fault = database_fault(tmp_path)

    def chat_post(**kwargs):
        raise fault

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    sx, _ = await join_match(match.pk, x)
    monkeypatch.setattr(services, "chat_post", chat_post)
    await sx.send_json_to({"type": "chat", "text": "hello"})
    assert (await receive(sx, "error"))["code"] == "server_error"
    await sx.send_json_to({"type": "ping"})
    await receive(sx, "pong")  # still open and serving: not told to retry
    assert logged_with_traceback(caplog, "failed") and "a service is down" not in caplog.text
    await sx.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_that_meets_a_database_fault_as_it_opens_is_closed_with_a_server_error(monkeypatch, caplog,
                                                                                               tmp_path):
    from channels.db import database_sync_to_async

    from live import sockets
    from tests.live.consumers.test_consumers import open_socket, receive

    fault = database_fault(tmp_path)

    def presence_enter(**kwargs):
        raise fault

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    monkeypatch.setattr(services, "presence_enter", presence_enter)
    sx = await open_socket(f"/ws/matches/{match.pk}/", x)
    assert (await receive(sx, "error"))["code"] == "server_error"
    assert (await sx.receive_output(timeout=EVENT_SECONDS))["code"] == sockets.SERVER_ERROR
    assert logged_with_traceback(caplog, "opening a match page failed") and "a service is down" not in caplog.text


@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_session_read_meets_a_database_fault_fails_its_handshake(monkeypatch, tmp_path):
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator
    from django.db import OperationalError

    from config import socketauth
    from config.asgi import application

    fault = database_fault(tmp_path)

    async def read_user(scope):
        raise fault

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    monkeypatch.setattr(socketauth, "read_user", read_user)
    comm = WebsocketCommunicator(application, f"/ws/matches/{match.pk}/",
                                 headers=[(b"origin", b"http://testserver"), (b"host", b"testserver")])
    with pytest.raises(OperationalError, match="no such table"):  # as any other fault (Daphne logs it)
        await comm.connect()


async def test_a_flag_fall_that_meets_a_database_fault_is_logged_and_left_to_the_sweep(monkeypatch, caplog, tmp_path):
    from games.services import flagfall

    fault = database_fault(tmp_path)

    def flag(**kwargs):
        raise fault

    handoff_replaced(monkeypatch, flagfall.SERVICES, clock_flag=flag)
    await flagfall.fire(42)
    assert 42 not in flagfall.armed()  # not tried again in RETRY_SECONDS as an outage would be
    assert logged_with_traceback(caplog, "flag fall failed") and "a service is down" not in caplog.text


async def test_the_computers_turn_that_meets_a_database_fault_is_not_retried(monkeypatch, tmp_path):
    from django.db import OperationalError

    from games.computer import bots

    fault, calls = database_fault(tmp_path), []

    async def play_turn(match_id, version, executor):
        calls.append(match_id)
        raise fault

    monkeypatch.setattr(bots, "play_turn", play_turn)
    monkeypatch.setattr(bots, "RETRY_SECONDS", 0.001)
    monkeypatch.setattr(bots, "RETRY_FOR_SECONDS", 0.003)
    with pytest.raises(OperationalError, match="no such table"):
        await bots.play_turn_when_possible(42, 1, None)
    assert calls == [42]


async def test_the_computers_turn_waits_out_the_database_away(monkeypatch, tmp_path):
    from games.computer import bots

    away, calls = database_away_error(tmp_path), []

    async def play_turn(match_id, version, executor):
        calls.append(match_id)
        if len(calls) < 3:
            raise away

    monkeypatch.setattr(bots, "play_turn", play_turn)
    monkeypatch.setattr(bots, "RETRY_SECONDS", 0.001)
    await bots.play_turn_when_possible(42, 1, None)
    assert calls == [42, 42, 42]


async def test_asking_a_worker_again_for_the_computers_turn_stops_at_a_database_fault(monkeypatch, settings,
                                                                                       tmp_path):
    from django.db import OperationalError

    from games import selectors
    from games.computer import bots

    settings.COMPUTER_SECONDS = 0
    fault, calls = database_fault(tmp_path), []

    def computer_turn(**kwargs):
        calls.append(kwargs["match_id"])
        raise fault

    monkeypatch.setattr(selectors, "computer_turn", computer_turn)
    monkeypatch.setattr(bots, "WORKER_GRACE_SECONDS", 0.0)
    with pytest.raises(OperationalError, match="no such table"):
        await bots._to_worker(42, 1)
    assert calls == [42]


@pytest.mark.parametrize("make, runs", [(database_fault, False), (database_away_error, True)])
async def test_the_analysis_queue_waits_out_the_database_away_but_not_a_fault(make, runs, monkeypatch, tmp_path):
    from django.db import OperationalError

    from games.computer import analysis_runs

    error, claims = make(tmp_path), []

    def claim():
        claims.append(1)
        if len(claims) == 1:
            raise error
        return None  # the queue is empty

    handoff_replaced(monkeypatch, analysis_runs.SERVICES, analysis_claim=claim, analysis_takeover_seconds=lambda: None)
    monkeypatch.setattr(analysis_runs, "RETRY_SECONDS", 0.0)
    if runs:
        await analysis_runs.run_queue(None)
        assert len(claims) == 2
    else:
        with pytest.raises(OperationalError, match="no such table"):
            await analysis_runs.run_queue(None)
        assert len(claims) == 1
