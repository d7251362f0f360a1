"""games/services/broadcast.py: the messages to one group leave in order, and a send left pending by an
event loop that has closed holds up nothing."""

import asyncio

from channels.layers import get_channel_layer

from games.services import broadcast
from games.services.broadcast import LOBBY_GROUP, LOBBY_STALE
from tests.support.waits import EVENT_SECONDS


async def listening(group: str) -> str:
    layer = get_channel_layer()
    page = await layer.new_channel()
    await layer.group_add(group, page)
    return page


async def test_messages_to_a_group_leave_in_the_order_asked():
    page = await listening("match.1")
    for version in range(5):
        broadcast._enqueue("match.1", {"type": "match.state", "version": version})
    layer = get_channel_layer()
    heard = [(await asyncio.wait_for(layer.receive(page), EVENT_SECONDS))["version"] for _ in range(5)]
    assert heard == [0, 1, 2, 3, 4]


async def test_a_send_left_pending_by_a_closed_event_loop_holds_up_nothing(monkeypatch):
    """Seen in a CI run (Redis layer, load ~20): a lobby change's message came due while the
    previous test's event loop was closing, its send stayed pending with that loop, and the next
    test's lobby message waited on it for good (the lobby never heard who came online)."""
    ended = asyncio.new_event_loop()
    monkeypatch.setitem(broadcast._tails, LOBBY_GROUP, ended.create_future())
    ended.close()
    page = await listening(LOBBY_GROUP)
    broadcast._enqueue(LOBBY_GROUP, LOBBY_STALE)
    assert await asyncio.wait_for(get_channel_layer().receive(page), EVENT_SECONDS) == LOBBY_STALE
