"""A block over the site socket (live/consumers/lobby.py): a challenge between the two players is
refused with the service's message, and nothing is stored."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.models import Challenge
from social import services as social
from tests.support.players import make_accounts, session_cookie
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)


async def site_socket(user) -> WebsocketCommunicator:
    cookie = await database_sync_to_async(session_cookie)(user)
    comm = WebsocketCommunicator(application, "/ws/site/", headers=[
        (b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"), (b"cookie", f"sessionid={cookie}".encode())])
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    assert (await comm.receive_json_from(timeout=EVENT_SECONDS))["type"] == "challenges"
    return comm


async def test_a_blocked_player_s_challenge_over_the_site_socket_is_refused_saying_so():
    alice, bob = await database_sync_to_async(make_accounts)(2)
    await database_sync_to_async(social.block_create)(user=bob, player_id=alice.pk)
    comm = await site_socket(alice)
    await comm.send_json_to({"type": "challenge", "to": bob.pk, "game": "quarto-misere", "rated": False,
                             "clock": "untimed"})
    while (message := await comm.receive_json_from(timeout=EVENT_SECONDS))["type"] == "pong":
        pass
    assert message["type"] == "error" and message["code"] == "blocked", message
    assert "does not accept challenges from you" in message["message"]
    assert not await Challenge.objects.aexists()
    await comm.disconnect()
