"""Real Daphne processes: a restart mid-match loses nothing; two processes share one match."""

import random

import pytest
from django.conf import settings

from games.models import Match
from games.rules import get_game
from tests.support.live import LiveServer, live_server
from tests.support.players import make_players, start_match
from tests.support.wsclient import Socket

pytestmark = pytest.mark.django_db(transaction=True)


def play(sockets: dict, game, state, version: int, rng: random.Random, count: int | None = None):
    """Play ``count`` random moves (or to the end), each acknowledged by the broadcast state."""
    played = 0
    while not game.is_terminal(state) and (count is None or played < count):
        mover = game.to_move(state)
        action = rng.choice(game.legal_actions(state))
        sockets[mover].send({"type": "action", "action": action, "version": version})
        for sock in sockets.values():
            assert sock.receive("state")["version"] == version + 1
        state, version, played = game.play(state, mover, action), version + 1, played + 1
    return state, version


def test_acknowledged_moves_survive_a_server_restart():
    game = get_game("nine-board-tictactoe")
    players = make_players(2)
    match = start_match(game.slug, players)
    rng = random.Random(11)
    server = LiveServer().start()
    try:
        sockets = {role: Socket(server, f"/ws/matches/{match.pk}/", user) for role, user in zip(game.roles, players)}
        for sock in sockets.values():
            sock.receive("state")
        state, version = play(sockets, game, game.initial_state(), 0, rng, count=4)
        server.stop()
        server.start()
        sockets = {role: Socket(server, f"/ws/matches/{match.pk}/", user) for role, user in zip(game.roles, players)}
        for sock in sockets.values():
            first = sock.receive("state")
            assert first["version"] == 4 and first["match"]["view"] == game.view(state)
        state, version = play(sockets, game, state, version, rng)
        for sock in sockets.values():
            sock.close()
    finally:
        server.stop()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.version == version
    assert game.state_from_json(match.state) == state
    assert match.result["scores"] == game.goals(state)


@pytest.mark.services
def test_two_processes_share_a_match_through_postgresql_and_redis():
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql" or \
            not settings.CHANNEL_LAYERS["default"]["BACKEND"].startswith("channels_redis"):
        pytest.skip("the scaled path needs DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)")
    game = get_game("tictactoe-3player")
    players = make_players(3)
    match = start_match(game.slug, players)
    with live_server() as first, live_server() as second:
        movers = {role: Socket(first, f"/ws/matches/{match.pk}/", user) for role, user in zip(game.roles, players)}
        spectator = Socket(second, f"/ws/matches/{match.pk}/")
        assert spectator.receive("state")["version"] == 0
        for sock in movers.values():
            sock.receive("state")
        movers["xplayer"].send({"type": "action", "action": "(mark 3 3)", "version": 0})
        seen = spectator.receive("state")
        assert seen["version"] == 1 and seen["last_move"] == {"ply": 1, "role": "xplayer", "action": "(mark 3 3)",
                                                              "label": game.action_label("(mark 3 3)")}
        for sock in movers.values():
            assert sock.receive("state")["version"] == 1
        # And the other way round: a player connected to the second process moves.
        late = Socket(second, f"/ws/matches/{match.pk}/", players[1])
        late.receive("state")
        late.send({"type": "action", "action": "(mark 1 1)", "version": 1})
        assert movers["xplayer"].receive("state")["version"] == 2
        for sock in [*movers.values(), spectator, late]:
            sock.close()
