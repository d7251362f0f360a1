"""The computer's turns on two worker hosts at once (``manage.py runworker computer`` in two
processes sharing only PostgreSQL and Redis). The publish/subscribe layer hands every ask to
every worker, and web hosts ask more than once (the move's host again while the turn is not
played, each clock sweep for a stalled one): each turn is still thought about by one worker
only, the one holding its lease (``bots.turn_lease``), and played once."""

import asyncio
from collections import Counter

import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer

from games import selectors, services
from games.computer import bots
from games.match.settings import MatchSettings
from games.models import Match, Move
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.hosts import hosts_running
from tests.support.players import make_players
from tests.support.services import own_redis

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

TURNS = 8
ASKS = 3  # each turn asked for this many times, as several web hosts would


def computer_to_move(count: int) -> dict[int, int]:
    """``count`` matches against the computer, each with the computer to move; match id ->
    version. Nobody in this process asks for those turns: the test does, below."""
    turns = {}
    for player in make_players(count, "human"):
        match = services.match_create(user=player, settings=MatchSettings("nine-board-tictactoe"), role="oPlayer",
                                      against_computer=True, computer_level=1)
        assert selectors.computer_turn(match_id=match.pk, version=match.version) is not None
        turns[match.pk] = match.version
    return turns


async def ask_workers(redis_url: str, turns: dict[int, int]) -> None:
    layer = RedisPubSubChannelLayer(hosts=[redis_url])
    try:
        for _ in range(ASKS):
            for match_id, version in turns.items():
                await layer.send(bots.COMPUTER_CHANNEL, {"type": "computer.turn", "match_id": match_id,
                                                         "version": version})
    finally:
        await layer.flush()


def test_two_workers_asked_at_once_play_each_computer_turn_once(monkeypatch):
    needs_the_scaled_path()
    monkeypatch.setattr(bots, "_request", lambda match_id, version: None)
    turns = computer_to_move(TURNS)
    fast = {"COMPUTER_WORKERS": "channel", "COMPUTER_SECONDS": "0.3"}
    with own_redis() as redis, hosts_running(["runworker", bots.COMPUTER_CHANNEL], redis_url=redis.url,
                                             record=("computer_turns",), env=fast) as hosts:
        hosts.until(lambda: hosts.redis.pubsub_numsub(bots.COMPUTER_CHANNEL)[0][1] == 2, "both workers listening")
        asyncio.run(ask_workers(redis.url, turns))
        hosts.until(lambda: Match.objects.filter(pk__in=turns, plies=1).count() == TURNS, "every computer turn played")
        thought, logs = hosts.records(), hosts.logs_text()
    assert Counter(turn for turn, _ in thought) == {f"{match_id}:{version}": 1 for match_id, version in turns.items()}, \
        f"turns thought about (match:version, host): {thought}\n{logs}"
    for match_id in turns:
        assert list(Move.objects.filter(match_id=match_id).values_list("ply", flat=True)) == [1]
