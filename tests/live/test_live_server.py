"""Real Daphne processes: a restart mid-match loses nothing (nor the computer's turn); two
processes share one match."""

import asyncio
import json
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings

from games import services
from games.match.settings import MatchSettings
from games.models import Match, Move
from games.rules import get_game
from tests.support.httpclient import Visitor
from tests.support.live import STARTUP_SECONDS, LiveServer, free_port, live_server
from tests.support.players import make_players, play_out, session_cookie, start_match
from tests.support.waits import EVENT_SECONDS, until_here
from tests.support.wsclient import Socket

pytestmark = pytest.mark.django_db(transaction=True)


def needs_the_scaled_path() -> None:
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql" or not settings.REDIS_URL:
        pytest.skip("the scaled path needs DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)")


def play(sockets: dict, game, state, version: int, rng: random.Random, count: int | None = None):
    """Play ``count`` random moves (or to the end), each acknowledged by the broadcast state."""
    played = 0
    while not game.is_terminal(state) and (count is None or played < count):
        mover = game.to_move(state)
        action = rng.choice(game.legal_actions(state))
        sockets[mover].send({"type": "action", "action": action, "version": version})
        for sock in sockets.values():
            assert sock.receive("state")["version"] == version + 1
        state, version, played = game.play(state, mover, action), version + 1, played + 1
    return state, version


def test_acknowledged_moves_survive_a_server_restart():
    game = get_game("nine-board-tictactoe")
    players = make_players(2)
    match = start_match(game.slug, players)
    rng = random.Random(11)
    server = LiveServer().start()
    try:
        sockets = {role: Socket(server, f"/ws/matches/{match.pk}/", user) for role, user in zip(game.roles, players)}
        for sock in sockets.values():
            sock.receive("state")
        state, version = play(sockets, game, game.initial_state(), 0, rng, count=4)
        server.stop()
        server.start()
        sockets = {role: Socket(server, f"/ws/matches/{match.pk}/", user) for role, user in zip(game.roles, players)}
        for sock in sockets.values():
            first = sock.receive("state")
            assert first["version"] == 4 and first["match"]["view"] == game.view(state)
        state, version = play(sockets, game, state, version, rng)
        for sock in sockets.values():
            sock.close()
    finally:
        server.stop()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.version == version
    assert game.state_from_json(match.state) == state
    assert match.result["scores"] == game.goals(state)


def test_a_computer_turn_cut_short_by_a_restart_is_played_after_it_with_no_page_open():
    """The computer thinks in the server's pool: the server stops while it thinks, and the
    server that starts again plays the turn as it starts, before anyone opens the match."""
    human, = make_players(1)
    match = services.match_create(user=human, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer",
                                  against_computer=True)  # the expert: it thinks for all of COMPUTER_SECONDS
    server = LiveServer(env={"COMPUTER_WORKERS": "pool", "COMPUTER_SECONDS": "5", "CLOCK_SWEEP_SECONDS": "30"}).start()
    try:
        sock = Socket(server, f"/ws/matches/{match.pk}/", human)
        sock.receive("state")
        sock.send({"type": "action", "action": "(play 2 2 2 2 x)", "version": 0})
        assert sock.receive("state")["version"] == 1  # the computer thinks now, for 5 s
        sock.close()
        server.stop()
        assert Match.objects.get(pk=match.pk).version == 1, "the computer answered before the server stopped"
        server.extra_env["COMPUTER_SECONDS"] = "0.5"
        server.start()  # answers one HTTP request, as a server does at its first visitor: no match page
        deadline = time.monotonic() + EVENT_SECONDS
        while Match.objects.get(pk=match.pk).version < 2:
            assert time.monotonic() < deadline, f"the computer did not move after the restart; see {server.log.name}"
            time.sleep(0.05)  # polling interval, not a wait for something
    finally:
        server.close()
    assert list(Move.objects.filter(match=match).values_list("role", flat=True)) == ["xPlayer", "oPlayer"]


@pytest.mark.services
def test_two_processes_share_a_match_through_postgresql_and_redis():
    needs_the_scaled_path()
    game = get_game("tictactoe-3player")
    players = make_players(3)
    match = start_match(game.slug, players)
    with live_server() as first, live_server() as second:
        movers = {role: Socket(first, f"/ws/matches/{match.pk}/", user) for role, user in zip(game.roles, players)}
        spectator = Socket(second, f"/ws/matches/{match.pk}/")
        assert spectator.receive("state")["version"] == 0
        for sock in movers.values():
            sock.receive("state")
        movers["xplayer"].send({"type": "action", "action": "(mark 3 3)", "version": 0})
        seen = spectator.receive("state")
        assert seen["version"] == 1 and seen["last_move"] == {"ply": 1, "role": "xplayer", "action": "(mark 3 3)",
                                                              "label": game.action_label("(mark 3 3)")}
        for sock in movers.values():
            assert sock.receive("state")["version"] == 1
        # And the other way round: a player connected to the second process moves.
        late = Socket(second, f"/ws/matches/{match.pk}/", players[1])
        late.receive("state")
        late.send({"type": "action", "action": "(mark 1 1)", "version": 1})
        assert movers["xplayer"].receive("state")["version"] == 2
        for sock in [*movers.values(), spectator, late]:
            sock.close()


@pytest.mark.services
def test_a_killed_server_loses_no_acknowledged_move_and_every_page_resyncs():
    """SIGKILL a loaded Daphne on PostgreSQL and Redis: every move a client saw acknowledged is
    in the database, the database equals the rules' replay, and every page that reconnects gets
    the stored state."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("the durability test runs on PostgreSQL (DATABASE_URL)")
    game = get_game("nine-board-tictactoe")
    tables = [(start_match(game.slug, players), players) for players in (make_players(2, f"t{i}") for i in range(8))]
    cookies = {m.pk: [session_cookie(p) for p in players] for m, players in tables}
    acknowledged: list[tuple[int, int, str]] = []  # (match, ply, action) the mover saw come back
    server = LiveServer().start()
    try:
        asyncio.run(_play_until_killed(server, cookies, acknowledged, kill_after=40))
        server.start()
        stored = {m.pk: list(Move.objects.filter(match=m).order_by("ply").values_list("ply", "action"))
                  for m, _ in tables}
        for match_id, ply, action in acknowledged:
            assert (ply, action) in stored[match_id], f"acknowledged move {ply} of match {match_id} is not stored"
        for match, players in tables:
            match.refresh_from_db()
            assert match.version == len(stored[match.pk])
            state = game.replay([a for _, a in stored[match.pk]])
            assert game.state_from_json(match.state) == state
            for player in players:
                sock = Socket(server, f"/ws/matches/{match.pk}/", player)
                first = sock.receive("state")
                assert first["version"] == match.version and first["match"]["view"] == game.view(state)
                sock.close()
    finally:
        server.stop()
    assert len(acknowledged) >= 40


async def _play_until_killed(server, cookies, acknowledged, kill_after: int) -> None:
    """Every player answers its state at once with a random legal action; after ``kill_after``
    acknowledged moves the server is killed (SIGKILL) while moves are in flight."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    killed = asyncio.Event()

    async def player(match_id: int, cookie: str, seed: int) -> None:
        rng = random.Random(seed)
        sent: dict[int, str] = {}
        try:
            async with connect(f"{server.ws_url}/ws/matches/{match_id}/", origin=server.url,
                               additional_headers={"Cookie": f"sessionid={cookie}"}) as ws:
                while True:
                    message = json.loads(await ws.recv())
                    if message["type"] != "state":
                        continue
                    last = message["last_move"]
                    if last and sent.get(last["ply"]) == last["action"]:
                        acknowledged.append((match_id, last["ply"], last["action"]))
                        if len(acknowledged) >= kill_after and not killed.is_set():
                            killed.set()
                            server.process.kill()  # SIGKILL: no shutdown, no flush
                    legal = [a for actions in message["you"]["legal"].values() for a in actions]
                    if legal and message["match"]["status"] == "active":
                        sent[message["version"] + 1] = rng.choice(legal)
                        await ws.send(json.dumps({"type": "action", "action": sent[message["version"] + 1],
                                                  "version": message["version"]}))
        except (ConnectionClosed, OSError):
            return

    await asyncio.wait_for(asyncio.gather(*(player(match_id, cookie, match_id * 10 + n)
                                            for match_id, pair in cookies.items()
                                            for n, cookie in enumerate(pair))), 180)
    assert killed.is_set(), "the games ended before the server was killed"
    server.process.wait()


def guest_made(front, name: str, *, forwarded_for: str, source: str = "127.0.0.1") -> bool:
    """A fresh browser connecting from ``source`` with its own X-Forwarded-For asks for a guest."""
    from lobby.models import User

    Visitor(front, source=source, headers={"X-Forwarded-For": forwarded_for}).post("/guest/", {"display_name": name})
    return User.objects.filter(display_name=name).exists()


@pytest.mark.services
def test_a_match_through_nginx_in_front_of_two_processes():
    """The deployment of bin/scaled: nginx spreads the sockets over two Daphne processes; the
    players and the spectator play a whole game through it. The per-address limits count the
    address nginx saw, whatever X-Forwarded-For a client sends; behind a trusted proxy, the
    client that proxy names."""
    needs_the_scaled_path()
    from tests.support.nginx import nginx_in_front

    game = get_game("tictactoe-3player")
    players = make_players(3)
    match = start_match(game.slug, players)
    # One guest a day per address: a minute's window turning mid-test does not reset it.
    env = {"GUEST_CREATE_PER_ADDRESS_PER_MINUTE": "100", "GUEST_CREATE_PER_ADDRESS_PER_DAY": "1"}
    with live_server(env=env, proxy_headers=True) as first, live_server(env=env, proxy_headers=True) as second, \
            nginx_in_front([first, second], trusted_proxies=["127.0.0.2"]) as front:
        assert guest_made(front, "Forger 1", forwarded_for="203.0.113.1")
        assert not guest_made(front, "Forger 2", forwarded_for="203.0.113.2")  # 127.0.0.1's second, refused
        # Through the trusted proxy, each client it names has its own count; what a client wrote
        # before the entry the proxy added is not believed.
        assert guest_made(front, "Proxied 1", source="127.0.0.2", forwarded_for="198.51.100.7")
        assert guest_made(front, "Proxied 2", source="127.0.0.2", forwarded_for="198.51.100.8")
        assert not guest_made(front, "Proxied 3", source="127.0.0.2", forwarded_for="198.51.100.8, 198.51.100.7")
        sockets = {role: Socket(front, f"/ws/matches/{match.pk}/", user) for role, user in zip(game.roles, players)}
        watchers = [Socket(front, f"/ws/matches/{match.pk}/") for _ in range(3)]
        for sock in [*sockets.values(), *watchers]:
            assert sock.receive("state")["version"] == 0
        state, version = play({**sockets, **{f"watcher{i}": w for i, w in enumerate(watchers)}}, game,
                              game.initial_state(), 0, random.Random(3))
        for sock in [*sockets.values(), *watchers]:
            sock.close()
        logs = [server.log_text() for server in (first, second)]
    assert all("WSCONNECT" in log for log in logs), "nginx sent every socket to one process"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.version == version
    assert game.state_from_json(match.state) == state


@pytest.mark.services
def test_pages_come_back_on_their_own_after_a_redis_outage(tmp_path):
    """A redis-server of the test's own is stopped under a live Daphne and started again: pages
    are told to retry (4503), nothing committed is lost, and the first socket opened once Redis is
    back gets the state."""
    from websockets.exceptions import ConnectionClosed

    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(binary).exists():
        pytest.skip("redis-server is not installed")

    def redis_up(port: int) -> subprocess.Popen:
        """redis-server on ``port``, once it answers as itself: a port chosen free may have been
        taken since by another process, which must not pass for ours."""
        import redis as client

        process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"redis-server exited: is port {port} taken?")
            try:
                with client.Redis(port=port, socket_timeout=5) as answering:
                    if answering.info("server")["process_id"] == process.pid:
                        return process
            except client.RedisError:
                pass
            time.sleep(0.05)  # polling interval
        process.kill()
        raise RuntimeError("redis-server did not answer")

    def first_redis() -> tuple[subprocess.Popen, int]:
        for _ in range(5):
            port = free_port()
            try:
                return redis_up(port), port
            except RuntimeError:
                continue
        raise RuntimeError("no free port for redis-server")

    game = get_game("nine-board-tictactoe")
    players = make_players(2)
    match = start_match(game.slug, players)
    redis, port = first_redis()
    env = {"REDIS_URL": f"redis://127.0.0.1:{port}/0", "CHANNEL_LAYER_PREFIX": "outage"}
    try:
        with live_server(env=env) as server:
            x = Socket(server, f"/ws/matches/{match.pk}/", players[0])
            assert x.receive("state")["version"] == 0
            redis.kill()
            redis.wait()
            # The process's reader of Redis sees the outage and tells every socket of the
            # process to retry. Waiting for it (on a loaded machine it may see it late) keeps the
            # socket opened below from being told about the outage it opened after.
            until_here(lambda: "listening to Redis (reconnecting) failed" in server.log_text(),
                       "the server's reader of Redis sees the outage")
            assert x.receive("error")["code"] == "unavailable"
            with pytest.raises(ConnectionClosed) as closed:
                x.receive("state")
            assert closed.value.rcvd.code == 4503
            redis = redis_up(port)
            again = Socket(server, f"/ws/matches/{match.pk}/", players[0])  # the first try
            assert again.receive("state")["version"] == 0
            again.send({"type": "action", "action": "(play 2 2 2 2 x)", "version": 0})
            assert again.receive("state")["version"] == 1
            again.close()
    finally:
        redis.kill()
        redis.wait()
    assert Move.objects.filter(match=match).count() == 1


def test_a_real_server_ends_matches_on_time_by_itself():
    """A match whose clock ran out while no server ran ends when a server starts serving (its
    sweep), and a clock that runs out later ends its match by the server's own timer, with no
    client sending anything."""
    from datetime import timedelta

    from django.utils import timezone

    from games.match.clocks import TimeControl

    a, b, c, d = make_players(4)
    control = TimeControl(base=60)
    overdue = play_out(start_match("nine-board-tictactoe", [a, b], time_control=control), [a, b], max_moves=2)
    since = timezone.now() - timedelta(seconds=90)
    Match.objects.filter(pk=overdue.pk).update(
        clock={"remaining": {"xPlayer": 60_000, "oPlayer": 60_000}, "since": int(since.timestamp() * 1000),
               "running": "xPlayer"}, deadline=since + timedelta(seconds=60))
    short = play_out(start_match("nine-board-tictactoe", [c, d], time_control=control), [c, d], max_moves=2)
    clock = dict(short.clock, remaining={"xPlayer": 60_000, "oPlayer": 1_500})  # o has 1.5 s left
    Match.objects.filter(pk=short.pk).update(clock=clock)
    server = LiveServer(env={"CLOCK_SWEEP_SECONDS": "30"}).start()
    try:
        watcher = Socket(server, f"/ws/matches/{overdue.pk}/")
        state = watcher.receive("state")
        while state["match"]["status"] == "active":
            state = watcher.receive("state")
        assert state["match"]["result"]["reason"] == "xPlayer ran out of time"

        x = Socket(server, f"/ws/matches/{short.pk}/", c)
        first = x.receive("state")
        x.send({"type": "action", "action": first["you"]["legal"]["xPlayer"][0], "version": first["version"]})
        assert x.receive("state")["match"]["clock"]["running"] == "oPlayer"
        over = x.receive("state")  # nobody sends anything: the server's timer ends it
        assert over["match"]["status"] == "finished" and over["match"]["result"]["reason"] == "oPlayer ran out of time"
        for sock in (watcher, x):
            sock.close()
    finally:
        server.stop()
    assert set(Match.objects.values_list("status", flat=True)) == {"finished"}
