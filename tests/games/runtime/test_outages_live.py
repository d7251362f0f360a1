"""Real outages under live Daphne processes: a redis-server and a PostgreSQL cluster of the test's
own are stopped in the middle of a match and started again. Pages keep working (Redis) or say
"back in a moment" (503, PostgreSQL); sockets are closed with 4503 and a message; a move is
either stored and answered or refused; the log holds warning lines, not tracebacks; and every
process recovers by itself. Each test prints its figures (docs/resilience.md records a run)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from django.conf import settings
from websockets.exceptions import ConnectionClosed, InvalidStatus

from games.models import Match, Move
from games.rules import get_game
from tests.support import live
from tests.support.httpclient import Visitor
from tests.support.live import live_server
from tests.support.players import make_players, play_out, session_cookie, start_match
from tests.support.services import own_postgres, own_redis
from tests.support.wsclient import TIMEOUT, Socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]
TRY_AGAIN_LATER = 4503
RECOVER_WITHIN = 60  # seconds; the page's back-off, at most 15 s a try, is far inside this


def needs_postgresql() -> None:
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("needs DATABASE_URL (PostgreSQL)")


def until_closed(sock: Socket, timeout: float = TIMEOUT) -> tuple[list[dict], int]:
    """Every message ``sock`` gets until the server closes it, and the close code."""
    messages = []
    try:
        while True:
            messages.append(json.loads(sock.ws.recv(timeout=timeout)))
    except ConnectionClosed as closed:
        return messages, closed.rcvd.code if closed.rcvd else None


def told_to_retry(messages: list[dict], code: int) -> bool:
    return code == TRY_AGAIN_LATER and any(m["type"] == "error" and m["code"] == "unavailable" for m in messages)


def reconnect(server, path: str, user, cookie: str | None = None) -> tuple[Socket, dict, float]:
    """As the page does: try again until a socket opens and gets the state (after each failed
    handshake, or "unavailable" and 4503: the service may still be on its way back, a short
    pause). The socket, its state, and when it got it."""
    deadline = time.monotonic() + RECOVER_WITHIN
    while time.monotonic() < deadline:
        try:
            sock = Socket(server, path, user, cookie)
            while (message := json.loads(sock.ws.recv(timeout=TIMEOUT)))["type"] != "state":
                if message["type"] == "error" and message["code"] == "unavailable":
                    sock.close()  # told to try again (the server closes with 4503 next)
                    break
                assert message["type"] in {"presence", "pong", "chat"}, message
            else:
                return sock, message, time.monotonic()
        except (ConnectionClosed, InvalidStatus, OSError, TimeoutError):
            pass
        time.sleep(0.25)
    raise AssertionError(f"no socket to {path} within {RECOVER_WITHIN} s")


def tracebacks(*servers) -> int:
    return sum(Path(s.log.name).read_text().count("Traceback") for s in servers)


def warnings_of(*servers) -> list[str]:
    return [line for s in servers for line in Path(s.log.name).read_text().splitlines()
            if "a service is down" in line or "answers again" in line]


def test_a_redis_outage_keeps_pages_up_closes_sockets_with_a_code_and_recovers():
    """Two processes share a match through a redis-server that is stopped and started again."""
    needs_postgresql()
    game = get_game("nine-board-tictactoe")
    x, o = make_players(2)
    match = start_match(game.slug, [x, o])
    path = f"/ws/matches/{match.pk}/"
    with own_redis() as redis:
        env = {"REDIS_URL": redis.url, "CHANNEL_LAYER_PREFIX": "outage"}
        with live_server(env=env) as first, live_server(env=env) as second:
            sx, so = Socket(first, path, x), Socket(second, path, o)
            opening = sx.receive("state")
            assert so.receive("state")["version"] == 0
            redis.stop()
            # A move sent as Redis goes: stored and answered to its sender, or refused with a code;
            # or never sent, when the server had already closed the socket with its code (seen in a
            # clean-clone CI run: the send met the close).
            try:
                sx.send({"type": "action", "action": opening["you"]["legal"]["xPlayer"][0], "version": 0})
            except ConnectionClosed:
                pass
            x_heard, x_code = until_closed(sx)
            o_heard, o_code = until_closed(so)  # nobody sends anything here: the server tells it
            assert told_to_retry(x_heard, x_code) and told_to_retry(o_heard, o_code)
            stored = Move.objects.filter(match=match).count()
            assert stored == 0 or [m["version"] for m in x_heard if m["type"] == "state"] == [1]

            # Pages read the database: they work; creating a match works.
            visitor = Visitor(first, x)
            assert visitor.get("/").status == 200
            assert visitor.get(f"/matches/{match.pk}/").status == 200
            created = visitor.post("/matches/new/", {"game": "quarto-misere", "role": "black"})
            assert created.status == 302 and re.fullmatch(r"/matches/\d+/", created.headers["Location"])
            # A socket opened meanwhile is accepted, told and closed with the code (no failed handshake).
            assert told_to_retry(*until_closed(Socket(second, path, o)))

            redis.start()
            back = time.monotonic()
            sx, x_state, _ = reconnect(first, path, x)
            so, o_state, _ = reconnect(second, path, o)
            assert x_state["version"] == o_state["version"] == stored  # both resync to what is stored
            legal = o_state["you"]["legal"].get("oPlayer") or x_state["you"]["legal"]["xPlayer"]
            mover = so if "oPlayer" in o_state["you"]["legal"] else sx
            mover.send({"type": "action", "action": legal[0], "version": stored})
            assert sx.receive("state")["version"] == so.receive("state")["version"] == stored + 1  # across processes
            recovered = time.monotonic() - back
            for sock in (sx, so):
                sock.close()
            logged, lines = tracebacks(first, second), warnings_of(first, second)
    assert Move.objects.filter(match=match).count() == stored + 1
    assert Match.objects.count() == 2
    assert logged == 0, "a traceback was logged"
    assert lines and len(lines) <= 40, lines
    print(f"\nREDIS OUTAGE: moves acknowledged and stored during the outage: {stored}; seconds to recover: "
          f"{recovered:.2f}; tracebacks logged: {logged}; warning lines: {len(lines)}")


def test_a_postgresql_restart_answers_503_closes_sockets_with_a_code_and_recovers():
    """One Daphne on a PostgreSQL cluster of the test's own (a copy of the test database), which is
    stopped ("fast": every connection cut) and started again in the middle of a match."""
    import psycopg

    needs_postgresql()
    game = get_game("nine-board-tictactoe")
    x, o = make_players(2)
    match = start_match(game.slug, [x, o])
    cookies = {user.pk: session_cookie(user) for user in (x, o)}  # rows of the copy
    path = f"/ws/matches/{match.pk}/"
    with own_postgres() as cluster:
        cluster.copy_database(live.test_database_url(), "boardhall")
        url = cluster.url("boardhall")
        with live_server(env={"DATABASE_URL": url, "REDIS_URL": ""}) as server:
            sx, so = Socket(server, path, cookie=cookies[x.pk]), Socket(server, path, cookie=cookies[o.pk])
            opening = sx.receive("state")
            assert so.receive("state")["version"] == 0
            sx.send({"type": "action", "action": opening["you"]["legal"]["xPlayer"][0], "version": 0})
            assert sx.receive("state")["version"] == 1
            turn = so.receive("state")
            assert turn["version"] == 1
            visitor = Visitor(server, cookie=cookies[x.pk])
            assert visitor.get("/").status == 200

            cluster.stop()
            away = visitor.get("/")
            assert away.status == 503 and "Back in a moment" in away.text and away.headers["Retry-After"]
            assert visitor.get(f"/matches/{match.pk}/").status == 503
            # A move now cannot be stored: it is refused with the code, never left unanswered.
            so.send({"type": "action", "action": turn["you"]["legal"]["oPlayer"][0], "version": 1})
            assert told_to_retry(*until_closed(so))
            # A socket opened meanwhile is accepted, told and closed with the code (no failed handshake).
            assert told_to_retry(*until_closed(Socket(server, path, cookie=cookies[o.pk])))

            cluster.start()
            back = time.monotonic()
            so, o_state, _ = reconnect(server, path, None, cookie=cookies[o.pk])
            assert o_state["version"] == 1  # the refused move was not stored
            so.send({"type": "action", "action": o_state["you"]["legal"]["oPlayer"][0], "version": 1})
            assert so.receive("state")["version"] == sx.receive("state")["version"] == 2  # x's socket stayed open
            recovered = time.monotonic() - back
            pages = [visitor.get("/").status for _ in range(20)]  # the pool's connections from before are gone
            for sock in (sx, so):
                sock.close()
            logged, lines = tracebacks(server), warnings_of(server)
        with psycopg.connect(url.replace("postgres://", "postgresql://")) as connection:
            stored = connection.execute("SELECT count(*) FROM games_move WHERE match_id = %s", [match.pk]).fetchone()[0]
    assert pages == [200] * 20, pages
    assert stored == 2
    assert logged == 0, "a traceback was logged"
    assert lines and len(lines) <= 40, lines
    print(f"\nPOSTGRESQL RESTART: moves acknowledged and stored during the outage: 0 (1 refused with 4503); "
          f"seconds to recover: {recovered:.2f}; tracebacks logged: {logged}; warning lines: {len(lines)}")


def test_flag_fall_and_the_computer_carry_on_through_a_redis_outage():
    """A clock that runs out while Redis is away ends its match all the same; a computer turn
    asked for as Redis goes (a worker thinks, over the channel layer) is played once it is back."""
    import os
    import subprocess
    import sys

    from games import services
    from games.match.clocks import TimeControl
    from games.match.settings import MatchSettings

    needs_postgresql()
    x, o, human = make_players(3)
    timed = play_out(start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(base=60)), [x, o],
                     max_moves=2)  # each has moved: running out now loses (before, it calls the match off)
    Match.objects.filter(pk=timed.pk).update(clock=dict(timed.clock, remaining={"xPlayer": 60_000, "oPlayer": 2_500}))
    against = services.match_create(user=human, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer",
                                    against_computer=True)
    with own_redis() as redis:
        env = {"REDIS_URL": redis.url, "CHANNEL_LAYER_PREFIX": "outage-computer", "COMPUTER_WORKERS": "channel",
               "COMPUTER_ITERATIONS": "30", "COMPUTER_SECONDS": "0.2"}
        with live_server(env=env) as server:
            worker_log = open(f"{server.log.name}.worker", "w")
            worker = subprocess.Popen([sys.executable, "manage.py", "runworker", "computer"], cwd=live.ROOT,
                                      env={**os.environ, "DATABASE_URL": live.test_database_url(),
                                           "DJANGO_SETTINGS_MODULE": "config.settings", **env},
                                      stdout=worker_log, stderr=subprocess.STDOUT)
            try:
                clock_path, computer_path = f"/ws/matches/{timed.pk}/", f"/ws/matches/{against.pk}/"
                sx, sh = Socket(server, clock_path, x), Socket(server, computer_path, human)
                first, mine = sx.receive("state"), sh.receive("state")
                sx.send({"type": "action", "action": first["you"]["legal"]["xPlayer"][0], "version": 2})
                assert sx.receive("state")["match"]["clock"]["running"] == "oPlayer"  # 2.5 s left
                sh.send({"type": "action", "action": mine["you"]["legal"]["xPlayer"][0], "version": 0})
                assert sh.receive("state")["version"] == 1  # the computer's turn is asked for now
                redis.stop()
                for sock in (sx, sh):
                    until_closed(sock)
                deadline = time.monotonic() + 30
                while Match.objects.get(pk=timed.pk).status != Match.Status.FINISHED:  # Redis still away
                    assert time.monotonic() < deadline, "the clock ran out and nothing ended the match"
                    time.sleep(0.1)
                redis.start()
                sx, over, _ = reconnect(server, clock_path, x)
                assert over["match"]["status"] == "finished"
                assert over["match"]["result"]["reason"] == "oPlayer ran out of time"
                sh, state, _ = reconnect(server, computer_path, human)
                while state["version"] < 2:  # the computer has played: it is the human's turn again
                    state = sh.receive("state", timeout=30)
                for sock in (sx, sh):
                    sock.close()
                logged = tracebacks(server) + Path(worker_log.name).read_text().count("Traceback")
            finally:
                worker.terminate()
                worker.wait(10)
                worker_log.close()
    assert Move.objects.filter(match=against).count() >= 2
    assert logged == 0, "a traceback was logged"
