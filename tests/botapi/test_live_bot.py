"""The example client (examples/random_bot.py) plays a whole match of each rule set against
people on a real Daphne: it accepts a person's challenge over its event stream and moves over
the API, while the people play on the match socket as the match page does."""

from __future__ import annotations

import http.client
import json
import random
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from botapi.services import bot_upgrade
from games.models import Match
from games.rules import GAMES, get_game
from tests.botapi.support import token_for
from tests.support.live import forgetting, live_server
from tests.support.players import make_accounts, session_cookie
from tests.support.wsclient import Socket

pytestmark = pytest.mark.django_db(transaction=True)
CLIENT = Path(__file__).resolve().parents[2] / "examples" / "random_bot.py"
OVER = ("finished", "aborted")
CSRF = "b" * 32  # a token of Django's format, sent as cookie and field alike
FINISH_SECONDS = 300  # a whole match on a loaded machine; a passing run takes a fraction


@pytest.fixture(scope="module")
def server(django_db_setup):
    """One Daphne for the module, started once the test database exists."""
    with live_server(env={"BOT_API_KEEPALIVE_SECONDS": "1"}) as live:
        yield live


@pytest.fixture
def fresh_server(server):
    with forgetting(server):
        yield server


def person_plays(server, match_id: int, user, seed: int) -> None:
    """Random legal actions on the match socket until the match is over, once per version: a
    state may come again at the same version (a seat or an offer changed), as on the page."""
    rng = random.Random(seed)
    socket = Socket(server, f"/ws/matches/{match_id}/", user)
    acted = -1
    try:
        while True:
            state = json.loads(socket.ws.recv(timeout=FINISH_SECONDS))
            if state["type"] != "state":
                assert state["type"] in {"presence", "pong", "chat"}, state
                continue
            if state["match"]["status"] in OVER:
                return
            for actions in state["you"]["legal"].values():
                if actions and state["version"] > acted:
                    acted = state["version"]
                    socket.send({"type": "action", "action": rng.choice(actions), "version": state["version"]})
    finally:
        socket.close()


def join(server, match_id: int, user) -> int:
    connection = http.client.HTTPConnection(urlsplit(server.url).netloc, timeout=30)
    try:
        connection.request("POST", f"/matches/{match_id}/join/", urlencode({"csrfmiddlewaretoken": CSRF}), {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"sessionid={session_cookie(user)}; csrftoken={CSRF}"})
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.parametrize("slug", [g.slug for g in GAMES])
def test_the_example_client_plays_a_whole_match(fresh_server, slug):
    server = fresh_server
    people_needed = len(get_game(slug).roles) - 1
    bot, *people = make_accounts(1 + people_needed, f"live-{len(slug)}-")
    bot_upgrade(user=bot)
    secret = token_for(bot)
    client = subprocess.Popen([sys.executable, str(CLIENT), "--server", server.url, "--games", "1", "--seed", "7"],
                              env={"BOARDHALL_TOKEN": secret, "PATH": ""}, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        site = Socket(server, "/ws/site/", people[0])
        site.receive("challenges")
        site.send({"type": "challenge", "to": bot.pk, "game": slug, "rated": False, "clock": "untimed"})
        while (challenge := site.receive("challenge")["challenge"])["status"] == "pending":
            pass
        site.close()
        assert challenge["status"] == "accepted", challenge
        match_id = challenge["match"]
        for person in people[1:]:
            assert join(server, match_id, person) == 302
        players = [threading.Thread(target=person_plays, args=(server, match_id, p, n)) for n, p in enumerate(people)]
        for thread in players:
            thread.start()
        for thread in players:
            thread.join(FINISH_SECONDS)
        output, _ = client.communicate(timeout=FINISH_SECONDS)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    assert client.returncode == 0, output
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED, (match.status, output)
    bot_seat = match.seats.get(player=bot)
    assert match.moves.filter(role=bot_seat.role).exists() and f"match {match_id} over" in output
    assert secret not in server.log_text()  # the server (DEBUG on) logged every request, never the token
