"""Sockets at their edges: a client that closes while the server answers it, a handler that
fails, a match id no database can hold or of rules the site no longer has, a path that names no
socket, a lobby socket flooded."""

import asyncio

import pytest
from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from config.asgi import application
from games.models import Match, Seat
from live.consumers.match import MatchConsumer
from tests.live.consumers.test_consumers import HOST, ORIGIN, join_match, open_socket, receive
from tests.support.players import make_players, session_cookie, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)


def closing_under(app, closing: asyncio.Event):
    """``app`` behind a server that, once ``closing`` is set, fails every send as Daphne does
    when the client has sent its close and the server has not yet marked the socket closed."""
    async def wrapped(scope, receive, send):
        async def send_or_fail(message):
            if closing.is_set() and message["type"] == "websocket.send":
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)
        await app(scope, receive, send_or_fail)
    return wrapped


async def spectators_seen_by(comm, count: int) -> None:
    while (await receive(comm, "presence"))["spectators"] != count:
        pass


@override_settings(WS_MAX_SOCKETS=1)
async def test_a_page_closing_while_the_server_answers_it_still_gives_back_its_place(caplog):
    x, o, fan = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    closing = asyncio.Event()
    cookie = await database_sync_to_async(session_cookie)(fan)
    watcher = WebsocketCommunicator(closing_under(application, closing), f"/ws/matches/{match.pk}/",
                                    headers=[ORIGIN, HOST, (b"cookie", f"sessionid={cookie}".encode())])
    assert (await watcher.connect())[0]
    await receive(watcher, "state")
    await spectators_seen_by(sx, 1)
    closing.set()
    await watcher.send_to(text_data="garbage")  # its error cannot be sent any more
    await watcher.send_json_to({"type": "ping"})  # nor its pong
    sx2, _ = await join_match(match.pk, o)  # a presence message the closing page cannot be sent
    await watcher.disconnect()  # raises if the socket's loop had ended with the failed send
    await spectators_seen_by(sx, 0)
    again, first = await join_match(match.pk, fan)  # its one place is free again
    assert first["version"] == 0
    assert "Disconnected" not in caplog.text and "failed" not in caplog.text
    for sock in (sx, sx2, again):
        await sock.disconnect()


@override_settings(WS_MAX_SOCKETS=1)
async def test_a_socket_whose_handler_fails_still_gives_back_its_place(monkeypatch):
    x, o, fan = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    watcher, _ = await join_match(match.pk, fan)
    await spectators_seen_by(sx, 1)

    working = MatchConsumer.match_presence

    async def broken_for_the_watcher(self, event):
        if self.user_id == fan.pk:
            raise RuntimeError("a bug in a group message's handler")
        await working(self, event)

    monkeypatch.setattr(MatchConsumer, "match_presence", broken_for_the_watcher)
    so, _ = await join_match(match.pk, o)  # its presence message reaches the watcher's broken handler
    with pytest.raises(RuntimeError, match="a bug"):
        await watcher.wait(timeout=EVENT_SECONDS)
    monkeypatch.undo()
    await spectators_seen_by(sx, 0)  # the crashed page left the match's presence
    again, first = await join_match(match.pk, fan)  # and gave back its place
    assert first["version"] == 0
    for sock in (sx, so, again):
        await sock.disconnect()


@pytest.mark.parametrize("match_id", [2**63, 10**20])
async def test_a_match_id_no_database_can_hold_is_not_found(match_id, caplog):
    viewer = await open_socket(f"/ws/matches/{match_id}/")
    assert (await receive(viewer, "error"))["code"] == "not_found"
    assert (await viewer.receive_output(timeout=EVENT_SECONDS))["code"] == 4404
    assert "Traceback" not in caplog.text and "could not open" not in caplog.text


@pytest.mark.parametrize("status", [Match.Status.ACTIVE, Match.Status.FINISHED])
async def test_a_match_of_rules_the_site_no_longer_has_is_refused_with_why_and_the_page_stops(status, caplog):
    """A rule set removed since, or a damaged row: a player and a spectator are told why
    (``unknown_rules``) and the socket closes with 4404, as the match's page is a 404; the visit
    is not recorded. Before, opening it raised: a traceback, ``server_error`` and a close with
    1011, after which the page reconnected to fail again."""
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    await Match.objects.filter(pk=match.pk).aupdate(game="no-such-game", status=status)
    for viewer in (x, None):
        comm = await open_socket(f"/ws/matches/{match.pk}/", viewer)
        error = await receive(comm, "error")
        assert error["code"] == "unknown_rules", error
        assert "rules this site no longer has (no-such-game)" in error["message"]
        assert (await comm.receive_output(timeout=EVENT_SECONDS)) == {"type": "websocket.close", "code": 4404}
    assert await Seat.objects.filter(match=match, player=x, away_since__isnull=False).aexists()  # never counted as here
    assert "Traceback" not in caplog.text and "failed" not in caplog.text


@pytest.mark.parametrize("path", ["/ws/nope/", "/ws/matches/abc/", "/ws/matches/-1/", "/ws/matches/1",
                                  "/ws/lobby/extra", "/ws/matches/\uff11/", "/"])
async def test_a_path_that_names_no_socket_is_refused_at_the_handshake(path):
    comm = WebsocketCommunicator(application, path, headers=[ORIGIN, HOST])
    connected, _ = await comm.connect()  # raised "No route found" before
    assert not connected


@override_settings(WS_RATE_BURST=3, WS_RATE_PER_SECOND=0.01)
async def test_the_lobby_socket_answers_from_the_clients_message_budget():
    lobby = await open_socket("/ws/lobby/")
    await receive(lobby, "lobby")
    for _ in range(5):
        await lobby.send_to(text_data="anything")
    codes = [(await receive(lobby, "error"))["code"] for _ in range(5)]
    assert codes == ["malformed"] * 3 + ["rate_limited"] * 2
    await lobby.disconnect()
