"""A rolling restart in the scaled set-up (config/drain.py): one of two Daphne processes behind
nginx gets a SIGTERM while matches are played; its sockets close with 1001, the players
reconnect through nginx to the other process at once, and no acknowledged move is lost."""

import asyncio
import json
import random
import time

import pytest

from config.drain import DRAIN_SECONDS, GOING_AWAY
from games.models import Match, Move
from games.rules import get_game
from tests.games.test_live_server import needs_the_scaled_path
from tests.support.live import live_server
from tests.support.players import make_players, session_cookie, start_match

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

GAME = "nine-board-tictactoe"


class Table:
    """What the players saw: moves acknowledged, closes, errors, how long reconnecting took."""

    def __init__(self) -> None:
        self.acknowledged: list[tuple[int, int, str]] = []
        self.closes: list[int | None] = []
        self.errors: list[dict] = []
        self.reconnect_seconds: list[float] = []
        self.terminated = asyncio.Event()


async def player(front, match_id: int, cookie: str, seed: int, table: Table, on_ack) -> None:
    """Answer every state with a random legal action, as a page would; on a close, reconnect at
    once (a page's first retry is within a second) and carry on from the state it gets."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    rng = random.Random(seed)
    sent: dict[int, str] = {}
    closed_at = None
    seen = -1  # the newest version: an older state is dropped, as the page drops it
    while True:
        try:
            async with connect(f"{front.ws_url}/ws/matches/{match_id}/", origin=front.url, open_timeout=10,
                               additional_headers={"Cookie": f"sessionid={cookie}"}) as ws:
                while True:
                    message = json.loads(await ws.recv())
                    if message["type"] == "error":
                        table.errors.append(message)
                    if message["type"] != "state":
                        continue
                    if closed_at is not None:
                        table.reconnect_seconds.append(time.monotonic() - closed_at)
                        closed_at = None
                    elif message["version"] <= seen:
                        continue
                    seen = message["version"]
                    last = message["last_move"]
                    if last and sent.get(last["ply"]) == last["action"]:
                        table.acknowledged.append((match_id, last["ply"], last["action"]))
                        on_ack()
                    if message["match"]["status"] != "active":
                        return
                    legal = [a for actions in message["you"]["legal"].values() for a in actions]
                    if legal:
                        sent[message["version"] + 1] = rng.choice(legal)
                        await ws.send(json.dumps({"type": "action", "action": sent[message["version"] + 1],
                                                  "version": message["version"]}))
        except ConnectionClosed as closed:
            table.closes.append(closed.rcvd.code if closed.rcvd else None)
            closed_at = time.monotonic()


def test_a_sigterm_drains_one_process_and_the_pages_carry_on_through_the_other():
    needs_the_scaled_path()
    from tests.support.nginx import nginx_in_front

    game = get_game(GAME)
    tables = [(start_match(GAME, players), players) for players in (make_players(2, f"r{i}") for i in range(6))]
    cookies = {m.pk: [session_cookie(p) for p in players] for m, players in tables}
    table = Table()
    with live_server() as first, live_server() as second, nginx_in_front([first, second]) as front:

        def on_ack() -> None:
            if len(table.acknowledged) >= 30 and not table.terminated.is_set():
                table.terminated.set()
                # The test's own copy of the listening socket (LiveServer keeps it for restarts)
                # goes first: in production the process alone listens, so once it stops listening
                # nginx is refused there and tries the other, instead of queueing in a backlog
                # nobody accepts from.
                first.listener.close()
                first.process.terminate()  # SIGTERM, as a rolling restart sends

        async def play() -> None:
            await asyncio.wait_for(asyncio.gather(*(player(front, match_id, cookie, match_id * 10 + n, table, on_ack)
                                                    for match_id, pair in cookies.items()
                                                    for n, cookie in enumerate(pair))), 120)

        asyncio.run(play())
        assert table.terminated.is_set(), "the games ended before the restart"
        first.process.wait(DRAIN_SECONDS + 10)
        drained = first.log_text()
    assert "SIGTERM: stopped listening" in drained and "Traceback" not in drained
    print(f"\n{len(table.closes)} sockets closed by the SIGTERM; reconnected through nginx in at most "
          f"{max(table.reconnect_seconds, default=0):.2f} s")
    assert table.closes and set(table.closes) == {GOING_AWAY}, table.closes
    assert len(table.reconnect_seconds) == len(table.closes) and max(table.reconnect_seconds) < 2.5
    assert table.errors == [], table.errors
    for match, _ in tables:
        match.refresh_from_db()
        stored = list(Move.objects.filter(match=match).order_by("ply").values_list("ply", "action"))
        assert match.status == Match.Status.FINISHED and match.version == len(stored)
        assert game.state_from_json(match.state) == game.replay([a for _, a in stored])
    stored = set(Move.objects.values_list("match", "ply", "action"))
    assert all(move in stored for move in table.acknowledged)
