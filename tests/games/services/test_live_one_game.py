"""One real-time match at a time, raced for real: a player fires two ways of starting a real-time
match at the same instant, one through each of two Daphne processes on PostgreSQL and Redis,
for every pair of the six ways (create against the computer, join, invite link, rematch
accept, quick game, challenge accept), several times each. Never two; and never none."""

from __future__ import annotations

import http.client
import itertools
import json
import threading
from urllib.parse import urlencode, urlsplit

import pytest

from games import services
from games.models import Challenge, Match, PoolEntry
from tests.games.services.test_one_game import BLITZ, playing
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.live import live_server
from tests.support.players import make_players, play_first_moves, session_cookie
from tests.support.wsclient import Socket

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

PATHS = ["create", "join", "invite", "rematch", "quick", "challenge"]
ROUNDS = 3  # of each pair of paths
NUMBERS = itertools.count()  # the partners' names differ
CSRF = "a" * 32  # a token of Django's format, sent as cookie and field alike
# The pages post from one address here: lift the per-address and per-player creation limits.
SERVER_ENV = {"CREATE_PER_MINUTE": "100000", "CREATE_PER_ADDRESS_PER_MINUTE": "100000",
              "COMPUTER_CREATE_PER_MINUTE": "100000", "COMPUTER_CREATE_PER_ADDRESS_PER_MINUTE": "100000"}


class Chance:
    """One way for ``player`` to start a real-time match, prepared (the other players waiting,
    the page open) so that ``fire`` only sends the last request, and ``wait`` its answer."""

    def __init__(self, path: str, player, server, cookie: str) -> None:
        self.path, self.player, self.server, self.cookie = path, player, server, cookie
        self.socket, self.answer, self.fields, self.seen = None, None, {}, []
        opponent, = make_players(1, prefix=f"{path} {next(NUMBERS)}")
        if path == "join":
            self.url = f"/matches/{services.match_create(user=opponent, settings=BLITZ).pk}/join/"
        elif path == "invite":
            private = services.match_create(user=opponent, settings=BLITZ, is_private=True)
            self.url, self.fields = f"/matches/{private.pk}/join/", {"invite": private.invite_token}
        elif path == "rematch":
            old = play_first_moves(playing(player, opponent), [player, opponent])  # begun: resigning ends it
            services.match_resign(match_id=old.pk, user=player)
            self.url = f"/matches/{services.rematch_offer(match_id=old.pk, user=opponent).pk}/join/"
        elif path == "create":
            self.url, self.fields = "/matches/new/", {"game": BLITZ.game, "clock": BLITZ.time_control.code,
                                                      "opponents": "computer"}
        elif path == "quick":
            services.pool_enter(user=opponent, settings=BLITZ, channel_name=f"page-of-{opponent.pk}")
        elif path == "challenge":
            self.challenge = services.challenge_create(user=opponent, to_id=player.pk, settings=BLITZ)
        if path in ("quick", "challenge"):
            self.socket = Socket(server, "/ws/site/", player)
            self.socket.receive("challenges")

    def fire(self) -> None:
        if self.path == "quick":
            self.socket.send({"type": "pool_enter", "game": BLITZ.game, "rated": False,
                              "clock": BLITZ.time_control.code})
        elif self.path == "challenge":
            self.socket.send({"type": "challenge_accept", "id": self.challenge.pk})
        else:
            self.answer = self._post()

    def _post(self) -> int:
        connection = http.client.HTTPConnection(urlsplit(self.server.url).netloc, timeout=30)
        try:
            connection.request("POST", self.url, urlencode({**self.fields, "csrfmiddlewaretoken": CSRF}), {
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"sessionid={self.cookie}; csrftoken={CSRF}"})
            return connection.getresponse().status
        finally:
            connection.close()

    def wait(self) -> None:
        """Until the server answered this request: the page's redirect; the pairing or the
        refusal (sent to this page alone); this challenge accepted, or the refusal."""
        if self.socket is None:
            assert self.answer == 302, f"{self.path}: answered {self.answer}"
            return
        while True:
            message = json.loads(self.socket.ws.recv(timeout=30))
            self.seen.append(message)
            if message["type"] in ("paired", "error") or (
                    self.path == "challenge" and message["type"] == "challenge"
                    and message["challenge"]["id"] == self.challenge.pk
                    and message["challenge"]["status"] == "accepted"):
                self.answer = message
                return

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()


def real_time_matches_of(player) -> list[int]:
    return list(Match.objects.filter(status=Match.Status.ACTIVE, seats__player=player, seats__resigned=False,
                                     clock_base__isnull=False).values_list("pk", flat=True))


def race(first: Chance, second: Chance) -> None:
    both = threading.Barrier(2)
    failures: list[str] = []

    def run(chance: Chance) -> None:
        try:
            both.wait(timeout=30)
            chance.fire()
            chance.wait()
        except BaseException as err:  # reported below
            failures.append(f"{chance.path}: {err!r} (messages seen: {chance.seen})")

    threads = [threading.Thread(target=run, args=(chance,)) for chance in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


def test_two_ways_of_starting_a_real_time_match_at_once_start_exactly_one():
    needs_the_scaled_path()
    player, = make_players(1, prefix="racer")
    cookie = session_cookie(player)
    outcomes: list[tuple[str, str, int]] = []
    with live_server(env=SERVER_ENV) as one, live_server(env=SERVER_ENV) as two:
        for first, second in [pair for pair in itertools.combinations(PATHS, 2) for _ in range(ROUNDS)]:
            chances = [Chance(first, player, one, cookie), Chance(second, player, two, cookie)]
            try:
                race(*chances)
            finally:
                for chance in chances:
                    chance.close()
            started = real_time_matches_of(player)
            outcomes.append((first, second, len(started)))
            assert len(started) == 1, (first, second, started, [c.answer for c in chances])
            services.match_resign(match_id=started[0], user=player)
            # What the losing path left (a partner still searching would pair with the next one).
            Challenge.objects.filter(challenged=player, status=Challenge.Status.PENDING).update(
                status=Challenge.Status.DECLINED)
            PoolEntry.objects.all().delete()
    assert len(outcomes) == 15 * ROUNDS
