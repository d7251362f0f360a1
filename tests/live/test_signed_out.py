"""A player who logged out is gone from every socket: the server closes them all, every write
checks its sender again, and nobody can challenge a player who could never answer."""

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import Client

from games import services
from games.models import Challenge, ChatMessage, Match
from lobby.models import User
from lobby.services import guest_leave
from tests.live.consumers.test_consumers import join_match, open_socket, receive
from tests.support.players import make_accounts, make_players, session_cookie, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)
SIGNED_OUT = 4403


def log_out(cookie: str, guest: bool) -> None:
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = cookie
    assert client.post("/logout/", {"confirm": "1"} if guest else {}).status_code == 302


async def closed_signed_out(comm) -> None:
    """The page is told it is signed out (after the news of its resignations, for a guest), then
    closed with the code it does not retry after."""
    while (message := await comm.receive_json_from(timeout=EVENT_SECONDS))["type"] != "signed_out":
        assert message["type"] in {"state", "presence", "chat", "lobby", "mine"}, message
    assert message == {"type": "signed_out"}
    assert await comm.receive_output(timeout=EVENT_SECONDS) == {"type": "websocket.close", "code": SIGNED_OUT}


@pytest.mark.parametrize("guest", [True, False], ids=["guest", "account"])
async def test_logging_out_closes_every_socket_of_that_session(guest):
    """Match and lobby sockets too, not only the site socket; the opponent's stay open."""
    make = make_players if guest else make_accounts
    ada, bob = await database_sync_to_async(make)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [ada, bob])
    cookie = await database_sync_to_async(session_cookie)(ada)
    match_page = await open_socket(f"/ws/matches/{match.pk}/", cookie=cookie)
    await receive(match_page, "state")
    lobby_page = await open_socket("/ws/lobby/", cookie=cookie)
    assert (await lobby_page.receive_json_from(timeout=EVENT_SECONDS))["type"] == "lobby"
    theirs, _ = await join_match(match.pk, bob)

    await database_sync_to_async(log_out)(cookie, guest)
    await closed_signed_out(match_page)
    await closed_signed_out(lobby_page)
    await theirs.send_json_to({"type": "ping"})
    while (message := await theirs.receive_json_from(timeout=EVENT_SECONDS))["type"] != "pong":  # still open
        assert message["type"] in {"state", "presence", "chat"}, message  # and never signed out
    await theirs.disconnect()


async def test_a_logged_out_guests_socket_that_missed_the_news_writes_nothing():
    """The message closing its sockets may be lost (the channel layer delivers at most once):
    the chat line is still refused, under a name a new guest may already have taken."""
    ada, bob = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [ada, bob])
    page, _ = await join_match(match.pk, ada)
    await database_sync_to_async(guest_leave)(user=ada)  # as its logging out does, and the news is lost

    await page.send_json_to({"type": "chat", "text": "still here?"})
    await closed_signed_out(page)
    assert not await database_sync_to_async(ChatMessage.objects.filter(match=match).exists)()


@pytest.mark.parametrize("batches", [True, False], ids=["one database thread", "several"])
async def test_a_move_from_a_page_whose_player_is_gone_is_not_played(batches, settings):
    """The move line reads that the mover may act in the trip that plays the move. (A closed
    account here: a guest that left has resigned its matches, which refuses its moves anyway.)"""
    settings.MOVE_BATCHES = batches
    ada, bob = await database_sync_to_async(make_accounts)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [ada, bob])
    page, state = await join_match(match.pk, ada)
    await database_sync_to_async(User.objects.filter(pk=ada.pk).update)(is_active=False)

    [legal] = state["you"]["legal"].values()  # ada holds the first seat: hers to move
    await page.send_json_to({"type": "action", "action": legal[0], "version": state["version"]})
    await closed_signed_out(page)
    assert await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).plies)() == 0


async def test_a_player_still_signed_in_writes_as_before():
    ada, bob = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [ada, bob])
    page, _ = await join_match(match.pk, ada)
    await page.send_json_to({"type": "chat", "text": "good luck"})
    assert (await receive_chat(page))["text"] == "good luck"
    await page.disconnect()


async def receive_chat(comm) -> dict:
    while True:
        message = await comm.receive_json_from(timeout=EVENT_SECONDS)
        if message["type"] == "chat" and message["lines"]:
            return message["lines"][-1]


@pytest.mark.parametrize("target", ["ended guest", "computer", "closed account"])
async def test_a_challenge_to_a_player_who_cannot_answer_is_refused(target):
    """It would sit unanswerable until it expired, holding one of the challenger's five places."""
    (ada,) = await database_sync_to_async(make_accounts)(1)

    @database_sync_to_async
    def make_target():
        if target == "computer":
            return services.computer_user()
        if target == "ended guest":
            (guest,) = make_players(1, "Gone")
            guest_leave(user=guest)
            return guest
        (account,) = make_accounts(1, "closed")
        User.objects.filter(pk=account.pk).update(is_active=False)
        return account

    other = await make_target()
    site = await open_socket("/ws/site/", ada)
    assert (await site.receive_json_from(timeout=EVENT_SECONDS))["type"] == "challenges"
    await site.send_json_to({"type": "challenge", "to": other.pk, "game": "quarto-misere", "rated": False,
                             "clock": "untimed"})
    assert (await receive(site, "error"))["code"] == "no_such_player"
    assert not await database_sync_to_async(Challenge.objects.exists)()
    assert not await database_sync_to_async(Match.objects.exists)()
    await site.disconnect()
