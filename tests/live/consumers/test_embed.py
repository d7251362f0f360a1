"""The embedded board's socket (live/consumers/embed.py) through the real ASGI stack: it follows
a public match from any origin, never sees a cookie, and refuses every action."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.models import Match, Move
from tests.support.players import make_players, session_cookie, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)

HOST = (b"host", b"127.0.0.1")
FOREIGN = (b"origin", b"https://blog.example")


async def opened(path: str, *headers) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, path, headers=[HOST, *headers])
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    return comm


async def next_state(comm: WebsocketCommunicator) -> dict:
    while True:
        message = await comm.receive_json_from(timeout=EVENT_SECONDS)
        if message["type"] == "state":
            return message
        assert message["type"] == "pong", message


@database_sync_to_async
def moves_and_version(match_id: int) -> tuple[int, int]:
    return Move.objects.filter(match_id=match_id).count(), Match.objects.get(pk=match_id).version


async def test_an_embedded_board_from_another_origin_follows_the_players_moves():
    ada, bob = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [ada, bob])
    embed = await opened(f"/ws/embed/{match.pk}/", FOREIGN)
    first = await next_state(embed)
    assert first["version"] == 0 and first["match"]["id"] == match.pk and first["you"] == {"roles": [], "legal": {}}

    cookie = await database_sync_to_async(session_cookie)(ada)
    player = await opened(f"/ws/matches/{match.pk}/", (b"origin", b"http://127.0.0.1"),
                          (b"cookie", f"sessionid={cookie}".encode()))
    await next_state(player)
    await player.send_json_to({"type": "action", "action": "(play 2 2 2 2 x)", "version": 0})
    moved = await next_state(embed)
    assert moved["version"] == 1 and moved["last_move"]["action"] == "(play 2 2 2 2 x)"
    # The players' chat and presence stay on Boardhall's page.
    await player.send_json_to({"type": "chat", "text": "hello"})
    await embed.send_json_to({"type": "sync"})
    assert (await next_state(embed))["version"] == 1
    assert await embed.receive_nothing(timeout=0.3)
    await player.disconnect()
    await embed.disconnect()


@pytest.mark.parametrize("frame", [
    {"type": "action", "action": "(play 2 2 2 2 x)", "version": 0},
    {"type": "resign"}, {"type": "draw_offer"}, {"type": "chat", "text": "hi"}, {"type": "claim"},
])
async def test_the_embedded_board_refuses_every_action_even_with_a_players_cookie(frame):
    ada, bob = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [ada, bob])
    cookie = await database_sync_to_async(session_cookie)(ada)
    embed = await opened(f"/ws/embed/{match.pk}/", FOREIGN, (b"cookie", f"sessionid={cookie}".encode()))
    await next_state(embed)
    await embed.send_json_to(frame)
    error = await embed.receive_json_from(timeout=EVENT_SECONDS)
    assert error["type"] == "error" and error["code"] == "read_only"
    assert "read-only" in error["message"]
    assert await moves_and_version(match.pk) == (0, 0)
    await embed.send_json_to({"type": "ping"})  # still open
    assert (await embed.receive_json_from(timeout=EVENT_SECONDS))["type"] == "pong"
    await embed.disconnect()


async def test_a_private_or_missing_match_is_not_embedded_even_with_its_invite():
    ada, bob = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [ada, bob], is_private=True)
    for path in (f"/ws/embed/{match.pk}/", f"/ws/embed/{match.pk}/?invite={match.invite_token}", "/ws/embed/999999/"):
        embed = await opened(path, FOREIGN)
        error = await embed.receive_json_from(timeout=EVENT_SECONDS)
        assert error["code"] == "not_found"
        assert (await embed.receive_output(timeout=EVENT_SECONDS))["code"] == 4404


async def test_only_the_embed_route_takes_a_foreign_origin():
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", await database_sync_to_async(make_players)(2))
    for path in (f"/ws/matches/{match.pk}/", "/ws/lobby/", "/ws/site/"):
        comm = WebsocketCommunicator(application, path, headers=[HOST, FOREIGN])
        connected, _ = await comm.connect(timeout=EVENT_SECONDS)
        assert not connected, path
    # Any origin, or none, on the embed route; but only on a Host the site answers to.
    for headers in ([HOST, FOREIGN], [HOST]):
        comm = WebsocketCommunicator(application, f"/ws/embed/{match.pk}/", headers=headers)
        assert (await comm.connect(timeout=EVENT_SECONDS))[0]
        await comm.disconnect()
    comm = WebsocketCommunicator(application, f"/ws/embed/{match.pk}/", headers=[(b"host", b"evil.example"), FOREIGN])
    assert not (await comm.connect(timeout=EVENT_SECONDS))[0]
    comm = WebsocketCommunicator(application, "/ws/embed/nothing/", headers=[HOST, FOREIGN])
    assert not (await comm.connect(timeout=EVENT_SECONDS))[0]
