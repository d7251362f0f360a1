"""live/crowds.py over the websocket: a crowd arriving on one match hears its presence in
batches, a few messages a page however many arrive, and every page ends with the right count."""

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from config.asgi import application
from tests.support.players import make_players, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://127.0.0.1")
HOST = (b"host", b"127.0.0.1")
CROWD = 50
BATCH_SECONDS = 1.0


async def spectator(match_id: int) -> WebsocketCommunicator:
    """An anonymous page on the match (each counts on its own), its state read."""
    page = WebsocketCommunicator(application, f"/ws/matches/{match_id}/", headers=[ORIGIN, HOST])
    connected, _ = await page.connect(timeout=EVENT_SECONDS)
    assert connected
    while (await page.receive_json_from(timeout=EVENT_SECONDS))["type"] != "state":
        pass
    return page


async def presences_until(page: WebsocketCommunicator, spectators: int) -> list[dict]:
    """The presence messages ``page`` receives until one counts ``spectators``."""
    seen = []
    while not seen or seen[-1]["spectators"] != spectators:
        message = await page.receive_json_from(timeout=EVENT_SECONDS)
        if message["type"] == "presence":
            seen.append(message)
    return seen


@override_settings(PRESENCE_BATCH_SECONDS=BATCH_SECONDS, WS_MAX_SOCKETS=CROWD + 10)
async def test_a_crowd_arriving_on_one_match_hears_its_presence_batched():
    """50 pages open on one match at once. Sent on every opening, the first page would hear 50
    presence messages and the crowd 1,275 together; batched, each page hears at most one a batch
    interval (plus the one under way), and every page ends counting all 50. When all but one
    close, the last hears the count fall to 0 in as few."""
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    began = time.monotonic()
    crowd = await asyncio.gather(*(spectator(match.pk) for _ in range(CROWD)))
    heard = await asyncio.gather(*(presences_until(page, CROWD) for page in crowd))
    took = time.monotonic() - began
    bound = took / BATCH_SECONDS + 2
    counts = sorted(len(messages) for messages in heard)
    assert counts[-1] <= bound, f"a page heard {counts[-1]} presence messages in {took:.1f} s"
    assert all(messages[-1]["spectators"] == CROWD and messages[-1]["online"] == {"white": False, "black": False}
               for messages in heard)

    last, *leaving = crowd
    began = time.monotonic()
    await asyncio.gather(*(page.disconnect(timeout=EVENT_SECONDS) for page in leaving))
    falling = await presences_until(last, 1)
    assert len(falling) <= (time.monotonic() - began) / BATCH_SECONDS + 2, falling
    await last.disconnect(timeout=EVENT_SECONDS)


@override_settings(PRESENCE_BATCH_SECONDS=BATCH_SECONDS)
async def test_a_page_that_opens_alone_hears_the_presence_with_itself_counted():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    page = await spectator(match.pk)
    heard = await presences_until(page, 1)
    assert heard[-1] == {"type": "presence", "spectators": 1, "online": {"white": False, "black": False},
                         "away": heard[-1]["away"], "claim_after": 60}
    await page.disconnect(timeout=EVENT_SECONDS)
