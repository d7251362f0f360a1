"""The NDJSON streams through Django's async client: fed by the same broadcasts as the pages,
kept alive, limited per token, and whole again after a drop."""

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from django.test import AsyncClient

from botapi import services as api_services
from botapi.limits import STREAM_START_SECONDS, Limits
from botapi.models import ApiToken
from games import services
from games.match.settings import MatchSettings
from games.models import Match
from games.rules import get_game
from tests.botapi.support import token_for
from tests.support.players import make_accounts, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "tictactoe-x9"


class Stream:
    """A stream read in a task of its own, line by line; ``close`` cancels it, as Django does
    when the client goes away."""

    def __init__(self, response) -> None:
        self.response = response
        self.lines: asyncio.Queue = asyncio.Queue()
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        buffer = b""
        async for chunk in self.response.streaming_content:
            buffer += chunk
            while b"\n" in buffer:
                text, buffer = buffer.split(b"\n", 1)
                await self.lines.put(json.loads(text) if text else None)
        await self.lines.put("ended")

    async def next(self, kind: str | None = None, keepalive: bool = False):
        """The next line of ``kind`` (skipping keep-alives unless ``keepalive``)."""
        while True:
            content = await asyncio.wait_for(self.lines.get(), EVENT_SECONDS)
            if content is None and not keepalive:
                continue
            if kind is None or content is None or content == "ended" or content["type"] == kind:
                return content

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def open_stream(secret: str, path: str):
    response = await AsyncClient().get(f"/api{path}", headers={"Authorization": f"Bearer {secret}"})
    return response, (Stream(response) if response.status_code == 200 else None)


@database_sync_to_async
def setup_duel():
    x, o = make_accounts(2, "stream")
    return start_match(GAME, [x, o]), x, o, token_for(x), token_for(o)


@database_sync_to_async
def move(match_id, user, version):
    match = Match.objects.get(pk=match_id)
    game = get_game(match.game)
    return services.move_submit(match_id=match_id, user=user, version=version,
                                action=game.legal_actions(game.state_from_json(match.state))[0])


async def test_the_match_stream_starts_full_then_follows_every_change(settings):
    settings.BOT_API_KEEPALIVE_SECONDS = 0.2
    match, x, o, x_secret, _ = await setup_duel()
    response, stream = await open_stream(x_secret, f"/matches/{match.pk}/stream")
    assert response["Content-Type"] == "application/x-ndjson"
    try:
        full = await stream.next()
        assert full["type"] == "gameFull" and full["version"] == match.version
        assert full["you"]["roles"] == ["xplayer"] and full["you"]["legal"]["xplayer"]
        assert full["match"]["game"] == GAME and [s["role"] for s in full["match"]["seats"]] == ["xplayer", "oplayer"]
        gone = await stream.next("opponentGone")  # O has no page open on the match
        assert gone["role"] == "oplayer" and gone["gone"] is True
        assert await stream.next(keepalive=True) is None  # the keep-alive line
        await move(match.pk, x, match.version)
        state = await stream.next("gameState")
        assert state["version"] == match.version + 1 and state["last_move"]["role"] == "xplayer"
        await database_sync_to_async(services.chat_post)(match_id=match.pk, user=o, text="hello bot")
        assert (await stream.next("chatLine"))["text"] == "hello bot"
        await database_sync_to_async(services.match_resign)(match_id=match.pk, user=o)
        final = await stream.next("gameState")
        assert final["match"]["status"] == "aborted"  # O resigned before moving: the match is called off
        assert await stream.next() == "ended"  # the stream ends with the match
    finally:
        await stream.close()


async def test_both_streams_begin_with_a_keep_alive():
    """So that the answer's head goes out at once (Daphne sends it with the first line)."""
    match, _, _, x_secret, _ = await setup_duel()
    for path in ("/stream/event", f"/matches/{match.pk}/stream"):
        _, stream = await open_stream(x_secret, path)
        try:
            assert await stream.next(keepalive=True) is None
        finally:
            await stream.close()


async def test_a_match_stream_reopened_after_a_drop_misses_nothing():
    match, x, o, x_secret, _ = await setup_duel()
    _, stream = await open_stream(x_secret, f"/matches/{match.pk}/stream")
    assert (await stream.next())["type"] == "gameFull"
    await stream.close()  # the connection drops
    await move(match.pk, x, match.version)
    await move(match.pk, o, match.version + 1)
    _, again = await open_stream(x_secret, f"/matches/{match.pk}/stream")
    try:
        full = await again.next()
        assert full["type"] == "gameFull" and full["version"] == match.version + 2
        assert [m["ply"] for m in full["match"]["moves"]] == [1, 2]
    finally:
        await again.close()


def test_opening_a_match_stream_decides_once_whether_the_caller_may_watch():
    """The call decides (a 404 before any line, for a private match one is not seated in); the
    lines trust it. They read the match again, after they listen (the next test says why)."""
    from asgiref.sync import async_to_sync
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match, x, _, x_secret, _ = async_to_sync(setup_duel)()
    Match.objects.filter(pk=match.pk).update(is_private=True)

    async def first_line():  # run here, on this thread (async_to_sync): its queries are counted
        _, stream = await open_stream(x_secret, f"/matches/{match.pk}/stream")
        try:
            return await stream.next()
        finally:
            await stream.close()

    with CaptureQueriesContext(connection) as queries:
        assert async_to_sync(first_line)()["type"] == "gameFull"
    sql = [q["sql"] for q in queries]
    seated = [q for q in sql if q.startswith('SELECT 1 AS "a" FROM "games_seat"')]
    assert len(seated) == 1, seated  # seated: one look at the seats decides
    assert len([q for q in sql if q.startswith('SELECT m."id"')]) == 2  # the call's read, the lines' read


async def test_a_move_made_between_the_call_and_its_lines_is_in_the_first_line():
    """Why the lines read the match again rather than take the call's read: a move committed
    before they listen reaches them only through that read."""
    match, x, _, x_secret, _ = await setup_duel()
    response = await AsyncClient().get(f"/api/matches/{match.pk}/stream",
                                       headers={"Authorization": f"Bearer {x_secret}"})
    assert response.status_code == 200  # answered; its lines have not begun
    await move(match.pk, x, match.version)
    stream = Stream(response)
    try:
        full = await stream.next()
        assert full["type"] == "gameFull" and full["version"] == match.version + 1
    finally:
        await stream.close()


async def test_the_event_stream_tells_challenges_starts_and_finishes():
    a, b, c = await database_sync_to_async(make_accounts)(3, "events")
    a_secret, b_secret = await database_sync_to_async(token_for)(a), await database_sync_to_async(token_for)(b)
    made = await database_sync_to_async(services.challenge_create)(user=a, to_id=b.pk,
                                                                   settings=MatchSettings(GAME))
    _, stream = await open_stream(b_secret, "/stream/event")
    try:
        first = await stream.next()
        assert first["type"] == "challenge" and first["challenge"]["id"] == made.pk  # open before the stream
        declined = await database_sync_to_async(services.challenge_create)(user=c, to_id=b.pk,
                                                                           settings=MatchSettings("quarto-misere"))
        assert (await stream.next())["challenge"]["id"] == declined.pk
        await database_sync_to_async(services.challenge_decline)(user=b, challenge_id=declined.pk)
        assert (await stream.next())["type"] == "challengeDeclined"
        accepted = await database_sync_to_async(services.challenge_accept)(user=b, challenge_id=made.pk)
        start = await stream.next("gameStart")
        assert start["game"]["id"] == accepted.match_id and len(start["game"]["roles"]) == 1
        await database_sync_to_async(services.match_resign)(match_id=accepted.match_id, user=a)
        finish = await stream.next("gameFinish")
        assert finish["game"]["id"] == accepted.match_id and finish["game"]["status"] == "aborted"  # before any move
    finally:
        await stream.close()
    _, again = await open_stream(a_secret, "/stream/event")  # nothing open: only keep-alives
    await again.close()


async def test_a_three_player_challenge_starts_on_the_event_stream_when_the_third_sits_down():
    a, b, c = await database_sync_to_async(make_accounts)(3, "trio")
    b_secret = await database_sync_to_async(token_for)(b)
    made = await database_sync_to_async(services.challenge_create)(user=a, to_id=b.pk,
                                                                   settings=MatchSettings("tictactoe-3player"))
    _, stream = await open_stream(b_secret, "/stream/event")
    try:
        accepted = await database_sync_to_async(services.challenge_accept)(user=b, challenge_id=made.pk)
        match = await database_sync_to_async(Match.objects.get)(pk=accepted.match_id)
        assert match.status == Match.Status.WAITING
        free = await database_sync_to_async(lambda: match.seats.get(player__isnull=True).role)()
        await database_sync_to_async(services.seat_join)(match_id=match.pk, user=c, role=free)
        start = await stream.next("gameStart")
        assert start["game"]["id"] == match.pk and len(start["game"]["seats"]) == 3
    finally:
        await stream.close()


async def test_an_unfinished_match_is_told_first_when_the_event_stream_opens():
    match, x, _, x_secret, _ = await setup_duel()
    _, stream = await open_stream(x_secret, "/stream/event")
    try:
        start = await stream.next()
        assert start == {"type": "gameStart", "game": start["game"]} and start["game"]["id"] == match.pk
    finally:
        await stream.close()


async def test_streams_per_token_are_limited_and_given_back(settings):
    settings.BOT_API_STREAMS = 1
    match, _, _, x_secret, _ = await setup_duel()
    _, first = await open_stream(x_secret, "/stream/event")
    second, _ = await open_stream(x_secret, f"/matches/{match.pk}/stream")
    assert second.status_code == 429 and json.loads(second.content)["code"] == "too_many_streams"
    assert second["Retry-After"]
    await first.next()
    await first.close()
    third, stream = await open_stream(x_secret, f"/matches/{match.pk}/stream")
    assert third.status_code == 200
    await stream.close()


def test_a_stream_slot_whose_lines_never_began_lapses(settings):
    settings.BOT_API_STREAMS = 1
    now = [0.0]
    limits = Limits(clock=lambda: now[0])
    dropped = limits.stream_reserve(7)  # its response never reached the client: no lines, no release
    assert dropped is not None and limits.stream_reserve(7) is None
    now[0] += STREAM_START_SECONDS + 0.1
    streaming = limits.stream_reserve(7)
    assert streaming is not None
    limits.stream_begin(streaming)
    now[0] += STREAM_START_SECONDS + 0.1
    assert limits.stream_reserve(7) is None  # begun: held until its lines end, however long
    limits.stream_release(streaming)
    assert limits.stream_reserve(7) is not None


async def test_a_stream_refused_for_its_match_holds_no_slot(settings):
    settings.BOT_API_STREAMS = 1
    _, _, _, x_secret, _ = await setup_duel()
    missing, _ = await open_stream(x_secret, "/matches/999999/stream")
    assert missing.status_code == 404 and json.loads(missing.content)["code"] == "not_found"
    _, stream = await open_stream(x_secret, "/stream/event")
    assert stream is not None
    await stream.close()


async def test_a_revoked_token_ends_its_streams_at_the_next_keep_alive(settings):
    settings.BOT_API_KEEPALIVE_SECONDS = 0.2
    match, x, _, x_secret, _ = await setup_duel()
    _, stream = await open_stream(x_secret, f"/matches/{match.pk}/stream")
    try:
        await stream.next("gameFull")
        token = await database_sync_to_async(ApiToken.objects.get)(user=x)
        await database_sync_to_async(ApiToken.objects.filter(pk=token.pk).update)(
            revoked_at=__import__("django.utils.timezone", fromlist=["now"]).now())  # no message: the keep-alive sees it
        while (line := await stream.next()) != "ended":
            assert line["type"] == "opponentGone"
    finally:
        await stream.close()


@pytest.mark.parametrize("path", ["/matches/{match}/stream", "/stream/event"])
async def test_revoking_a_token_ends_its_streams_at_once_and_they_deliver_nothing_after(settings, path):
    """Told as the revocation commits, not at a keep-alive (this one would come long after the
    wait's ceiling): a move made after it reaches neither stream."""
    settings.BOT_API_KEEPALIVE_SECONDS = 3600
    match, x, o, x_secret, _ = await setup_duel()
    _, stream = await open_stream(x_secret, path.format(match=match.pk))
    try:
        await stream.next("gameFull" if "matches" in path else "gameStart")
        token = await database_sync_to_async(ApiToken.objects.get)(user=x)
        await database_sync_to_async(api_services.token_revoke)(user=x, token_id=token.pk)
        await move(match.pk, x, match.version)
        while (line := await stream.next()) != "ended":
            assert line["type"] == "opponentGone", f"delivered after the revocation: {line}"
    finally:
        await stream.close()


async def test_a_challenge_made_over_the_api_expires_on_the_event_stream(settings):
    settings.CHALLENGE_SECONDS = 1
    a, b = await database_sync_to_async(make_accounts)(2, "expiry")
    a_secret, b_secret = await database_sync_to_async(token_for)(a), await database_sync_to_async(token_for)(b)
    _, stream = await open_stream(b_secret, "/stream/event")
    try:
        made = await AsyncClient().post("/api/challenges", {"to": b.pk, "game": GAME}, content_type="application/json",
                                        headers={"Authorization": f"Bearer {a_secret}"})
        assert made.status_code == 200
        assert (await stream.next())["type"] == "challenge"
        gone = await stream.next()
        assert gone["type"] == "challengeCanceled" and gone["challenge"]["status"] == "expired"
    finally:
        await stream.close()
