"""games/services/broadcast.py: the messages to one group leave in order, a send left pending by an
event loop that has closed holds up nothing, and a state that could not reach Redis is sent again."""

import asyncio

import pytest
from channels.layers import get_channel_layer
from redis.exceptions import ConnectionError as RedisConnectionError

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


class FailingFirst:
    """The channel layer, whose first ``failures`` group sends raise ``error``."""

    def __init__(self, layer, failures: int, error: Exception) -> None:
        self.layer, self.failures, self.error, self.tries = layer, failures, error, 0

    async def group_send(self, group: str, message: dict) -> None:
        self.tries += 1
        if self.tries <= self.failures:
            raise self.error
        await self.layer.group_send(group, message)


def failing_layer(monkeypatch, failures: int, error: Exception) -> FailingFirst:
    failing = FailingFirst(get_channel_layer(), failures, error)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: failing)
    monkeypatch.setattr(broadcast, "RESEND_SECONDS", 0.01)
    return failing


async def test_a_state_that_could_not_reach_redis_is_sent_again_and_the_next_waits_behind_it(monkeypatch):
    """A process cut off from Redis (a partition: its connections stay open, only the send
    fails) is never told that Redis was away: without the second send the pages on other
    processes waited for this move for good (tests/deploy/test_cluster.py)."""
    page = await listening("match.2")
    failing = failing_layer(monkeypatch, 3, RedisConnectionError("no route"))
    broadcast._enqueue("match.2", {"type": "match.state", "version": 7})
    broadcast._enqueue("match.2", {"type": "match.state", "version": 8})
    layer = get_channel_layer()
    heard = [(await asyncio.wait_for(layer.receive(page), EVENT_SECONDS))["version"] for _ in range(2)]
    assert heard == [7, 8] and failing.tries == 5


@pytest.mark.parametrize("message, error", [
    ({"type": "match.chat", "line": {}}, RedisConnectionError("no route")),  # no version: a page could show it twice
    ({"type": "match.state", "version": 3}, ValueError("a fault, not an outage")),
])
async def test_what_is_not_sent_again(monkeypatch, message, error):
    page = await listening("match.3")
    failing = failing_layer(monkeypatch, 1, error)
    broadcast._enqueue("match.3", message)
    broadcast._enqueue("match.3", {"type": "match.state", "version": 9})
    heard = await asyncio.wait_for(get_channel_layer().receive(page), EVENT_SECONDS)
    assert heard["version"] == 9 and failing.tries == 2
