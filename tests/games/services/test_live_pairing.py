"""Quick pairing across two Daphne processes on PostgreSQL and Redis: everyone entering the
pool at once, half through each process, is paired exactly once."""

import json
import threading

import pytest

from games.models import Match, PoolEntry, Seat
from games.rules import get_game
from tests.live.test_live_server import needs_the_scaled_path
from tests.support.live import live_server
from tests.support.players import make_accounts
from tests.support.wsclient import TIMEOUT, Socket

pytestmark = pytest.mark.django_db(transaction=True)


def wait_paired(sock: Socket, game: str, out: dict, key: int) -> None:
    """Enter the pool for ``game`` and wait for the pairing; ``out[key]``: the match id (or
    every message seen, if none came)."""
    sock.send({"type": "pool_enter", "game": game, "rated": False, "clock": "untimed"})
    seen = []
    try:
        while True:
            message = json.loads(sock.ws.recv(timeout=TIMEOUT))
            seen.append(message["type"])
            if message["type"] == "paired":
                out[key] = message["match"]
                return
    except TimeoutError:
        out[key] = seen


@pytest.mark.services
@pytest.mark.parametrize("game, count", [("quarto-misere", 16), ("tictactoe-3player", 9)])
def test_players_entering_at_once_through_two_processes_are_each_paired_once(game, count):
    needs_the_scaled_path()
    players = make_accounts(count)
    seats = len(get_game(game).roles)
    with live_server() as first, live_server() as second:
        sockets = [Socket(first if i % 2 else second, "/ws/site/", user) for i, user in enumerate(players)]
        for sock in sockets:
            assert json.loads(sock.ws.recv(timeout=TIMEOUT))["type"] == "challenges"
        paired: dict[int, object] = {}
        threads = [threading.Thread(target=wait_paired, args=(sock, game, paired, user.pk))
                   for sock, user in zip(sockets, players)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for sock in sockets:
            sock.close()
    unpaired = {player: seen for player, seen in paired.items() if not isinstance(seen, int)}
    assert not unpaired, f"not paired within {TIMEOUT} s (player: messages seen): {unpaired}"
    matches = Match.objects.filter(game=game)
    assert matches.count() == count // seats
    for match in matches:
        players_in = set(Seat.objects.filter(match=match).values_list("player_id", flat=True))
        assert len(players_in) == seats and {p for p, m in paired.items() if m == match.pk} == players_in
    assert Seat.objects.count() == count and not PoolEntry.objects.exists()
