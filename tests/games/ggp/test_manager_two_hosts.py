"""The GGP game manager on two worker hosts at once (``manage.py runworker ggp`` in two processes
sharing only PostgreSQL and Redis). Every ask reaches both workers (the publish/subscribe
layer), and each step of a match is asked for by the commit before it, on whichever host made
it: each match is still driven by one task at a time, so each GGP player hears START, every
PLAY and STOP once (``manager._claim``: the match's ``GGPProgress`` row, held until
``held_until``)."""

import asyncio
from contextlib import ExitStack

import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer

from games import services
from games.ggp import offpath
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPPlayer, GGPProgress, Match, ReplacedMove
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.ggpplayer import GGPTestPlayer
from tests.support.hosts import hosts_running
from tests.support.players import make_accounts
from tests.support.services import own_redis

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

MATCHES = 3
ASKS = 2  # each match's first step asked for this many times, as several web hosts would
PER_MOVE = TimeControl(start=10, play=10)  # the players answer at once: a clock only for a stuck manager


async def ask_workers(redis_url: str, match_ids: list[int]) -> None:
    layer = RedisPubSubChannelLayer(hosts=[redis_url])
    try:
        for _ in range(ASKS):
            for match_id in match_ids:
                await layer.send(offpath.GGP_CHANNEL, {"type": "ggp.task", "name": "ggp_match_changed",
                                                       "args": [match_id]})
    finally:
        await layer.flush()


def test_two_managers_asked_at_once_drive_each_match_once(settings, monkeypatch):
    needs_the_scaled_path()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # accounts made quickly
    settings.COMPUTER_WORKERS = "inline"  # the players' INFO checks, here
    settings.GGP_PLAYER_HOSTS = ["localhost"]  # the test's players, on any port of the loopback
    [owner] = make_accounts(1, "owner")
    with ExitStack() as stack:
        players = [stack.enter_context(GGPTestPlayer(seed=i)) for i in range(2 * MATCHES)]  # one match each
        registered = [services.ggp_player_register(owner=owner, name=f"Program {i}", url=p.url)
                      for i, p in enumerate(players)]
        assert GGPPlayer.objects.filter(status=GGPPlayer.Status.ONLINE).count() == len(players)
        monkeypatch.setattr(offpath, "run", lambda name, *args: None)  # nobody here asks: the test does, below
        matches = {}
        for i in range(MATCHES):
            x, o = registered[2 * i], registered[2 * i + 1]
            match = services.match_create(user=x.account, settings=MatchSettings("nine-board-tictactoe",
                                                                                 time_control=PER_MOVE),
                                          role="xPlayer", ggp_players={"oPlayer": o.pk})
            matches[match.pk] = (players[2 * i], players[2 * i + 1])
        with own_redis() as redis, hosts_running(["runworker", offpath.GGP_CHANNEL], redis_url=redis.url,
                                                 env={"COMPUTER_WORKERS": "channel", "GGP_PLAYER_HOSTS": "localhost"}) as hosts:
            hosts.until(lambda: hosts.redis.pubsub_numsub(offpath.GGP_CHANNEL)[0][1] == 2, "both workers listening")
            asyncio.run(ask_workers(redis.url, list(matches)))
            hosts.until(lambda: all(p.done.is_set() for p in players), "every player told the end of its match")
            hosts.until(lambda: not GGPProgress.objects.exclude(claim="").exists(), "every task let its match go")
            logs = hosts.logs_text()
    for match in Match.objects.filter(pk__in=matches):
        assert match.status == Match.Status.FINISHED, logs
        for player in matches[match.pk]:
            heard = [kind for kind in player.messages if kind != "INFO"]
            assert heard == ["START"] + ["PLAY"] * match.plies + ["STOP"], f"match {match.pk}: {heard}\n{logs}"
    assert not ReplacedMove.objects.exists(), "an answer was judged late or lost: two managers, or a stuck one"
