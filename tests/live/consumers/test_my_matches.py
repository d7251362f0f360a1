"""The home page's list of the player's own matches ("Your matches"), kept live by the lobby
socket: whose turn it is, a match starting or ending, a match new to the player."""

import pytest
from channels.db import database_sync_to_async

from games import services
from games.match.settings import MatchSettings
from games.models import Match, Seat
from tests.live.consumers.test_consumers import drain, open_socket
from tests.support.players import make_players, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)


async def next_mine(comm, timeout: float = EVENT_SECONDS) -> list[dict]:
    """The next list of the player's matches, skipping the lobby lists and pongs."""
    while True:
        message = await comm.receive_json_from(timeout=timeout)
        if message["type"] == "mine":
            return message["matches"]
        assert message["type"] in {"lobby", "pong"}, message


def lines(matches: list[dict]) -> list[tuple[int, str, bool]]:
    return [(m["id"], m["status"], m["your_turn"]) for m in matches]


move = database_sync_to_async(services.move_submit)


async def test_whose_turn_it_is_follows_the_moves_and_a_finished_match_leaves_the_list():
    white, black = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [white, black])
    home = await open_socket("/ws/lobby/", black)
    assert lines(await next_mine(home)) == [(match.pk, "active", False)]
    await move(match_id=match.pk, user=white, action="(select p0000)", version=0)
    await move(match_id=match.pk, user=white, action="(place p0000 1 1)", version=1)
    assert lines(await next_mine(home)) == [(match.pk, "active", True)]
    await move(match_id=match.pk, user=black, action="(select p0001)", version=2)  # still black's turn
    await database_sync_to_async(services.chat_post)(match_id=match.pk, user=white, text="hello")
    assert {m["type"] for m in await drain(home)} <= {"lobby"}  # nothing shown changed; the chat is the page's
    await move(match_id=match.pk, user=black, action="(place p0001 1 2)", version=3)
    assert lines(await next_mine(home)) == [(match.pk, "active", False)]
    await database_sync_to_async(services.match_resign)(match_id=match.pk, user=white)
    assert await next_mine(home) == []
    rematch = await database_sync_to_async(services.rematch_offer)(match_id=match.pk, user=white)
    assert lines(await next_mine(home)) == [(rematch.pk, "waiting", False)]  # a seat kept for black
    await home.disconnect()


async def test_a_match_new_to_the_player_joins_the_list_and_starts_there():
    ada, bob = await database_sync_to_async(make_players)(2)
    home = await open_socket("/ws/lobby/", ada)
    assert await next_mine(home) == []
    match = await database_sync_to_async(services.match_create)(
        user=bob, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer")
    assert {m["type"] for m in await drain(home)} <= {"lobby"}  # somebody else's match
    await database_sync_to_async(services.seat_join)(match_id=match.pk, user=ada)
    mine = await next_mine(home)
    assert lines(mine) == [(match.pk, "active", False)]  # bob plays x and moves first
    assert [s["player"]["name"] for s in mine[0]["seats"]] == [bob.display_name, ada.display_name]
    await move(match_id=match.pk, user=bob, action="(play 2 2 2 2 x)", version=0)
    assert lines(await next_mine(home)) == [(match.pk, "active", True)]
    await home.disconnect()


async def test_a_match_created_for_the_player_elsewhere_appears_waiting():
    ada, = await database_sync_to_async(make_players)(1)
    home = await open_socket("/ws/lobby/", ada)
    assert await next_mine(home) == []
    match = await database_sync_to_async(services.match_create)(  # in another tab, or a rematch offered
        user=ada, settings=MatchSettings("quarto-misere"), is_private=True)
    assert lines(await next_mine(home)) == [(match.pk, "waiting", False)]
    await home.disconnect()


async def test_a_visitor_who_is_not_signed_in_gets_only_the_lobby_lists():
    visitor = await open_socket("/ws/lobby/")
    assert (await visitor.receive_json_from())["type"] == "lobby"
    assert await visitor.receive_nothing(timeout=0.3)
    await visitor.disconnect()


async def test_a_match_of_rules_the_site_no_longer_has_is_listed_by_its_slug_and_the_socket_serves(caplog):
    """A rule set removed since, or a damaged row, on a player's waiting and active matches
    (both public, someone at the table): the player's own list names them by their slug, and
    whose turn it is is not claimed; the lobby lists name the active one so, and leave the
    waiting one out (nobody could join it). Before, reading the lists raised: the socket was
    closed with 1011 and the page reconnected to fail again, for the player, and for everyone
    while such a match was listed."""
    ada, bob = await database_sync_to_async(make_players)(2)
    active = await database_sync_to_async(start_match)("quarto-misere", [ada, bob])  # ada's turn
    waiting = await database_sync_to_async(services.match_create)(
        user=ada, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer")
    await Match.objects.filter(pk__in=[active.pk, waiting.pk]).aupdate(game="gone-rules")
    await Seat.objects.filter(player=ada).aupdate(away_since=None)  # at the table: in the lobby lists
    home = await open_socket("/ws/lobby/", ada)
    lobby = await home.receive_json_from(timeout=EVENT_SECONDS)
    assert lobby["type"] == "lobby", lobby
    assert lobby["open"] == [] and [(m["id"], m["game_name"]) for m in lobby["live"]] == [(active.pk, "gone-rules")]
    mine = await next_mine(home)
    assert [(m["id"], m["game_name"], m["status"], m["your_turn"]) for m in mine] == [
        (waiting.pk, "gone-rules", "waiting", False), (active.pk, "gone-rules", "active", False)]
    await home.disconnect()
    assert "Traceback" not in caplog.text and "failed" not in caplog.text
