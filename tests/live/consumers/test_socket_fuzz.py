"""The match socket against a corpus of generated frames, from every kind of visitor.

The corpus (seeded, so a failure repeats) mutates each message kind: wrong types, missing,
extra and repeated fields, deep nesting, odd encodings and sizes, plus random JSON values. For
every frame: an answer (an error with a code, or a pong or the state for ``ping``/``sync``),
the socket still open, the match unchanged, and nothing logged as an error.
"""

import json
import logging
import random

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings

from live import protocol
from tests.live.consumers.test_consumers import db_state, join_match, open_socket
from tests.support.players import make_players, start_match
from tests.support.waits import EVENT_SECONDS

ODD_TEXT = ["", " ", "\x00", "\ud800", "\udfff", "\u202e", "\u200b", "\ufeff", "x" * 41, "x" * 5000, "(play 1 1 1 1 x)",
            "(play ١ 1 1 1 x)", "(play 1\u30001 1 1 x)", "(mark 3 3)", "swap", "(select p0000)", "😀" * 20, "\n\t", "null"]
ODD_NUMBERS = [-1, 0, 1, 2**31, 2**63, 1e400, -0.0, 1.5, True, False, None, "1", [], {}, 10**30]


def random_json(rng: random.Random, depth: int = 0):
    kind = rng.randrange(7 if depth < 4 else 4)
    if kind == 0:
        return rng.choice(ODD_NUMBERS)
    if kind == 1:
        return rng.choice(ODD_TEXT)
    if kind == 2:
        return rng.random() < 0.5
    if kind == 3:
        return None
    if kind == 4:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["type", "action", "version", "text", "extra", ""]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def corpus(seed: int, size: int, shapes=protocol.SHAPES) -> list[str]:
    rng = random.Random(seed)
    frames = ["[" * 1000 + "]" * 1000, '{"a":' * 900 + "1" + "}" * 900, "{" * 5000, '"' + "\\ud800" * 500 + '"',
              '{"type": "action", "action": "(play 1 1 1 1 x)", "version": 0, "version": 0}', "\x00", "{}", "[]"]
    kinds = list(shapes) + ["fly", "", "ACTION", "action "]
    names = sorted({name for shape in shapes.values() for name in shape})
    while len(frames) < size:
        kind = rng.choice(kinds)
        message: dict = {"type": kind}
        for name in names:
            if rng.random() < 0.6:
                message[name] = rng.choice([rng.choice(ODD_TEXT), rng.choice(ODD_NUMBERS), random_json(rng)])
        if rng.random() < 0.2:
            message[rng.choice(["extra", "Type", "VERSION"])] = random_json(rng)
        try:
            text = json.dumps(message, ensure_ascii=rng.random() < 0.5)
        except ValueError:  # 1e400 is inf: not JSON
            text = json.dumps(message).replace("Infinity", "1e400")
        if rng.random() < 0.1:
            text = text[: rng.randrange(1, len(text))]  # cut short
        frames.append(text)
    return frames


def effect_free(frame: str, seated: bool) -> bool:
    """Frames that may be sent: for a seated visitor, none that would really act (a legal move,
    a resignation, a chat line, a claim): those are the point of a seat, not hostile input."""
    try:
        kind, _ = protocol.parse(frame)
    except protocol.Malformed:
        return True
    return not seated or kind in {"ping", "sync"}


async def answer(sock, skip=frozenset({"presence", "chat"})) -> dict:
    while True:
        message = await sock.receive_json_from(timeout=EVENT_SECONDS)
        if message["type"] not in skip:
            return message


VISITORS = ["player to move", "other player", "signed-in spectator", "anonymous", "player of another match"]


@pytest.mark.django_db(transaction=True)
@override_settings(WS_RATE_BURST=100_000, WS_RATE_PER_SECOND=100_000)
@pytest.mark.parametrize("visitor", VISITORS)
async def test_every_generated_frame_gets_an_answer_and_changes_nothing(visitor, caplog):
    x, o, spectator, stranger, stranger_o = await database_sync_to_async(make_players)(5)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    await database_sync_to_async(start_match)("nine-board-tictactoe", [stranger, stranger_o])
    user = {"player to move": x, "other player": o, "signed-in spectator": spectator, "anonymous": None,
            "player of another match": stranger}[visitor]
    sock, _ = await join_match(match.pk, user)
    before = await db_state(match.pk)
    seated = visitor in {"player to move", "other player"}
    sent = 0
    with caplog.at_level(logging.WARNING):
        for frame in corpus(seed=VISITORS.index(visitor), size=250):
            if not effect_free(frame, seated):
                continue
            await sock.send_to(text_data=frame)
            reply = await answer(sock)
            assert reply["type"] in {"error", "pong", "state"}, (frame[:80], reply)
            if reply["type"] == "error":
                assert reply["code"] and reply["message"], reply
            sent += 1
        await sock.send_to(bytes_data=b"\xff\xfe\x00")
        assert (await answer(sock))["code"] == "malformed"
        await sock.send_json_to({"type": "ping"})
        assert (await answer(sock))["type"] == "pong"  # still open
    assert sent > 150
    assert await db_state(match.pk) == before
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    await sock.disconnect()
    lobby = await open_socket("/ws/lobby/", user)  # the lobby socket likewise
    assert (await answer(lobby))["type"] == "lobby"
    for frame in corpus(seed=99, size=30):
        await lobby.send_to(text_data=frame)
        # the lists come again whenever they change (here: the match page just closed), and a
        # signed-in player's own matches come on connect
        assert (await answer(lobby, skip={"lobby", "mine"}))["code"] == "malformed"
    await lobby.disconnect()


SITE_EFFECT_FREE = {"ping", "pool_leave", "challenge_accept", "challenge_decline", "challenge_cancel"}


@pytest.mark.django_db(transaction=True)
@override_settings(WS_RATE_BURST=100_000, WS_RATE_PER_SECOND=100_000)
async def test_the_site_socket_answers_every_generated_frame_and_changes_nothing(caplog):
    """No challenge exists, so answering or cancelling one is refused; entering the pool or
    challenging someone for real is the point of the socket, not hostile input."""
    from games.models import Challenge, PoolEntry

    member, = await database_sync_to_async(make_players)(1)
    sock = await open_socket("/ws/site/", member)
    assert (await sock.receive_json_from())["type"] == "challenges"
    sent = 0
    with caplog.at_level(logging.WARNING):
        for frame in corpus(seed=7, size=250, shapes=protocol.SITE_SHAPES):
            try:
                if protocol.parse(frame, shapes=protocol.SITE_SHAPES)[0] not in SITE_EFFECT_FREE:
                    continue
            except protocol.Malformed:
                pass
            await sock.send_to(text_data=frame)
            reply = await sock.receive_json_from(timeout=EVENT_SECONDS)
            assert reply["type"] in {"error", "pong", "pool"}, (frame[:80], reply)
            assert reply["type"] != "error" or (reply["code"] and reply["message"]), reply
            sent += 1
        await sock.send_json_to({"type": "ping"})
        assert (await sock.receive_json_from())["type"] == "pong"  # still open
    assert sent > 150
    assert not await database_sync_to_async(lambda: PoolEntry.objects.exists() or Challenge.objects.exists())()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    await sock.disconnect()
