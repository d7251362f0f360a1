"""A seek over the API: the lobby's quick-game pool, waited in from an NDJSON stream."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.test import AsyncClient

from games.models import Match, PoolEntry
from tests.botapi.support import call, token_for
from tests.botapi.test_streams import Stream
from tests.support.players import make_accounts
from tests.support.waits import EVENT_SECONDS, POLL_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)
SEEK = {"game": "tictactoe-x9", "clock": "5+3"}


async def seek(secret: str, body: dict = SEEK):
    response = await AsyncClient().post("/api/seek", data=body, content_type="application/json",
                                        headers={"Authorization": f"Bearer {secret}"})
    return response, (Stream(response) if response.status_code == 200 else None)


@database_sync_to_async
def seekers(count: int, prefix: str = "seek"):
    people = make_accounts(count, prefix)
    return people, [token_for(person) for person in people]


def entries() -> int:
    return PoolEntry.objects.count()


async def pool_empty() -> None:
    while await database_sync_to_async(entries)():
        await asyncio.sleep(POLL_SECONDS)


async def test_two_seeks_are_paired_into_one_match_told_on_both_streams():
    (ada, bob), (ada_secret, bob_secret) = await seekers(2)
    _, first = await seek(ada_secret)
    _, second = await seek(bob_secret)  # ada waits: bob's arrival pairs them
    try:
        bob_start = await second.next("gameStart")
        ada_start = await first.next("gameStart")  # ada's stream finds the match at its next look
        assert ada_start["game"]["id"] == bob_start["game"]["id"]
        match = await database_sync_to_async(Match.objects.get)(pk=bob_start["game"]["id"])
        assert match.status == Match.Status.ACTIVE and match.game == SEEK["game"]
        assert sorted(s["player"]["id"] for s in ada_start["game"]["seats"]) == sorted([ada.pk, bob.pk])
        assert len(ada_start["game"]["roles"]) == len(bob_start["game"]["roles"]) == 1
        assert await first.next() == "ended" and await second.next() == "ended"
        assert await database_sync_to_async(entries)() == 0
    finally:
        await first.close()
        await second.close()


async def test_a_cancelled_seek_ends_its_stream_and_leaves_the_pool():
    _, (secret,) = await seekers(1)
    _, stream = await seek(secret)
    try:
        assert await database_sync_to_async(entries)() == 1
        cancelled = await database_sync_to_async(call)(secret, "/seek/cancel")
        assert cancelled.status_code == 200 and cancelled.json() == {"ok": True}
        assert await stream.next() == {"type": "seekCanceled"}
        assert await stream.next() == "ended"
        again = await database_sync_to_async(call)(secret, "/seek/cancel")
        assert again.json() == {"ok": False}  # nothing was waiting
    finally:
        await stream.close()


async def test_closing_the_stream_leaves_the_pool():
    _, (secret,) = await seekers(1)
    _, stream = await seek(secret)
    assert (await stream.next(keepalive=True)) is None  # the stream's first line: a keep-alive
    assert await database_sync_to_async(entries)() == 1
    await stream.close()
    await asyncio.wait_for(pool_empty(), EVENT_SECONDS)  # the closed seek's entry leaves the pool


async def test_a_refused_seek_is_an_error_and_holds_no_stream(settings):
    settings.BOT_API_STREAMS = 1
    (person,), (secret,) = await seekers(1, "refused")
    await database_sync_to_async(type(person).objects.filter(pk=person.pk).update)(is_bot=True)
    response, _ = await seek(secret)
    assert response.status_code == 400 and response.json()["code"] == "bots_not_pooled"
    for body in ({**SEEK, "colour": "white"}, {**SEEK, "game": "chess"}, {**SEEK, "clock": "forever"}):
        response, _ = await seek(secret, body)
        assert response.status_code == 400, body
    assert await database_sync_to_async(entries)() == 0
    await database_sync_to_async(type(person).objects.filter(pk=person.pk).update)(is_bot=False)
    response, stream = await seek(secret)  # the one stream allowed: the refusals held none
    assert response.status_code == 200
    await stream.close()
