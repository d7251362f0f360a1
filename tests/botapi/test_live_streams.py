"""The streams on a real Daphne, through raw sockets: what a client that leaves at once costs
the server (nothing, for good), and when the answer's head arrives (at once)."""

from __future__ import annotations

import json
import socket
import time

import pytest

from tests.botapi.support import token_for
from tests.support.live import forgetting, live_server
from tests.support.players import make_accounts, start_match
from tests.support.waits import EVENT_SECONDS
from tests.support.wsclient import Socket

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "tictactoe-x9"
STREAMS = 4  # BOT_API_STREAMS, as the server below has it
# Bursts of STREAMS clients that leave at once. Whether a request is dropped with its slot taken
# depends on when its client's disconnect reaches Django; one burst was caught at it in about
# half the runs before the fix, five in nearly all.
BURSTS = 5
KEEPALIVE_SECONDS = 3600  # longer than any wait here: no test is helped along by a keep-alive


@pytest.fixture(scope="module")
def server(django_db_setup):
    """One Daphne for the module, started once the test database exists."""
    env = {"BOT_API_STREAMS": str(STREAMS), "BOT_API_KEEPALIVE_SECONDS": str(KEEPALIVE_SECONDS)}
    with live_server(env=env) as live:
        yield live


@pytest.fixture
def fresh_server(server):
    with forgetting(server):
        yield server


def request_bytes(path: str, secret: str) -> bytes:
    return (f"GET /api{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {secret}\r\n"
            f"Accept: application/x-ndjson\r\n\r\n").encode()


def connected(server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=EVENT_SECONDS)


def head_of(sock: socket.socket) -> tuple[int, bytes]:
    """The answer's status and whatever of its body came with the head."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(4096)
        if not chunk:
            raise AssertionError(f"the server closed the connection after {received!r}")
        received += chunk
    head, rest = received.split(b"\r\n\r\n", 1)
    return int(head.split(b" ", 2)[1]), rest


def leave_at_once(server, path: str, secret: str) -> None:
    """Bursts of ``STREAMS`` clients that ask for the stream at the same moment, each closing its
    connection right after sending the request, as QA's reproduction did."""
    for _ in range(BURSTS):
        socks = [connected(server) for _ in range(STREAMS)]
        for sock in socks:
            sock.sendall(request_bytes(path, secret))
        for sock in socks:
            sock.close()


def open_streams(server, path: str, secret: str, count: int) -> list[socket.socket]:
    """``count`` streams on the token, open at once; after a 429 (a slot reserved by a request
    whose answer Django dropped lapses only after ``STREAM_START_SECONDS``) asked again, until the
    deadline."""
    deadline = time.monotonic() + EVENT_SECONDS
    opened: list[socket.socket] = []
    while len(opened) < count:
        sock = connected(server)
        sock.sendall(request_bytes(path, secret))
        status, _ = head_of(sock)
        if status == 200:
            opened.append(sock)
            continue
        sock.close()
        assert status == 429, status
        if time.monotonic() > deadline:
            for sock in opened:
                sock.close()
            raise AssertionError(f"{len(opened)} of {count} streams open, the others refused for "
                                 f"{EVENT_SECONDS} s: slots of the clients that left are still taken")
        time.sleep(0.25)  # polling interval, under the calls budget (10 a second)
    return opened


@pytest.fixture
def duel(fresh_server):
    bot, person = make_accounts(2, "early")
    match = start_match(GAME, [bot, person])
    return match, bot, person, token_for(bot)


def presence_of(watcher: Socket, role: str, online: bool) -> None:
    """Until the match socket ``watcher`` says the seat of ``role`` is (or is not) online."""
    deadline = time.monotonic() + EVENT_SECONDS
    while True:
        message = json.loads(watcher.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if message["type"] == "presence" and message["online"][role] is online:
            return


def test_event_streams_whose_clients_left_at_once_give_their_slots_back(duel, fresh_server):
    _, _, _, secret = duel
    leave_at_once(fresh_server, "/stream/event", secret)
    for sock in open_streams(fresh_server, "/stream/event", secret, STREAMS):
        sock.close()


def test_match_streams_whose_clients_left_at_once_give_everything_back(duel, fresh_server):
    match, bot, person, secret = duel
    path = f"/matches/{match.pk}/stream"
    bot_role = next(s.role for s in match.seats.all() if s.player_id == bot.pk)
    watcher = Socket(fresh_server, f"/ws/matches/{match.pk}/", person)
    try:
        leave_at_once(fresh_server, path, secret)
        streams = open_streams(fresh_server, path, secret, STREAMS)
        presence_of(watcher, bot_role, online=True)
        for sock in streams:
            sock.close()
        # Every stream on the match has gone, the early leavers' too: the bot is away again (a
        # page left open would keep it online for PRESENCE_TIMEOUT_SECONDS).
        presence_of(watcher, bot_role, online=False)
    finally:
        watcher.close()


def test_a_quiet_event_stream_answers_at_once(fresh_server):
    """An account with nothing open has no line to send until the first keep-alive (an hour
    here): the head, and a first empty line, come at once all the same."""
    (quiet,) = make_accounts(1, "quiet")
    with connected(fresh_server) as sock:
        sock.sendall(request_bytes("/stream/event", token_for(quiet)))
        status, _ = head_of(sock)  # the socket's timeout (EVENT_SECONDS) bounds the wait
    assert status == 200
