"""What the read-only sockets share (live/consumers/listening.py), through the real ASGI stack
for each of them: a missing page is ``not_found`` and closed with 4404; once open, only ping
and sync are taken, anything else is refused with ``read_only`` and the socket stays open."""

from datetime import timedelta

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from games.match.clocks import TimeControl
from tests.support.players import make_accounts, start_match
from tests.support.waits import EVENT_SECONDS
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)

HOST = (b"host", b"127.0.0.1")
ORIGIN = (b"origin", b"http://127.0.0.1")
PAGES = ["/ws/embed/{}/", "/ws/tournaments/{}/"]


@pytest.mark.parametrize("path", PAGES)
async def test_a_page_that_does_not_exist_is_refused_and_closed(path):
    comm = WebsocketCommunicator(application, path.format(987654), headers=[HOST, ORIGIN])
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    refused = await comm.receive_json_from(timeout=EVENT_SECONDS)
    assert refused["type"] == "error" and refused["code"] == "not_found"
    closed = await comm.receive_output(timeout=EVENT_SECONDS)
    assert closed == {"type": "websocket.close", "code": 4404}


@pytest.mark.parametrize("path", PAGES)
async def test_writes_are_refused_and_the_socket_keeps_listening(path, listened_page):
    comm = WebsocketCommunicator(application, path.format(listened_page[path]), headers=[HOST, ORIGIN])
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    first = await comm.receive_json_from(timeout=EVENT_SECONDS)
    assert "version" in first
    for write in ({"type": "resign"}, {"type": "draw_offer"}, {"type": "chat", "text": "hello"},
                  {"type": "action", "action": "(play 1 1 1 1 x)", "version": 0}):
        await comm.send_json_to(write)
        refused = await comm.receive_json_from(timeout=EVENT_SECONDS)
        assert refused["type"] == "error" and refused["code"] == "read_only" and refused["message"]
    await comm.send_json_to({"type": "ping"})
    assert (await comm.receive_json_from(timeout=EVENT_SECONDS))["type"] == "pong"
    await comm.disconnect()


@pytest.fixture
def listened_page(db):
    ada, bob = make_accounts(2)
    match = start_match("nine-board-tictactoe", [ada, bob])
    tournament = services.tournament_create(
        user=ada, name="Friday", game="nine-board-tictactoe", time_control=TimeControl(base=300, increment=0),
        starts_at=timezone.now() + timedelta(minutes=5))
    return {PAGES[0]: match.pk, PAGES[1]: tournament.pk}
