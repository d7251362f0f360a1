"""The site socket and private invitations: a friend taking one sends its creator's pages to
the game; an invitation that ended is told to its creator's next page, once; and the watchers
of a private match are told of its rematch and may open it with the link they came by."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings
from django.utils import timezone

from games import services
from games.match.settings import MatchSettings
from games.models import Seat
from games.runtime import presence
from live.sockets import NOT_FOUND
from tests.live.consumers.test_consumers import drain, join_match, open_socket
from tests.live.consumers.test_consumers import receive as receive_match
from tests.support.players import make_players, play_out, start_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)


async def receive(comm, kind: str) -> dict:
    """The next message of ``kind`` on a site socket, skipping pongs and the challenge list."""
    while True:
        message = await comm.receive_json_from(timeout=EVENT_SECONDS)
        if message["type"] == kind:
            return message
        assert message["type"] in {"pong", "challenges"}, message


@database_sync_to_async
def private_invite(user):
    return services.match_create(user=user, settings=MatchSettings("quarto-misere"), is_private=True)


async def test_a_friend_taking_the_invitation_sends_the_creators_site_page_to_the_game():
    ada, bob = await database_sync_to_async(make_players)(2)
    match = await private_invite(ada)
    page = await open_socket("/ws/site/", ada)  # ada waits on another page of the site
    friend = await open_socket("/ws/site/", bob)
    await database_sync_to_async(services.seat_join)(match_id=match.pk, user=bob)
    assert await receive(page, "started") == {"type": "started", "match": match.pk}
    assert "started" not in [m["type"] for m in await drain(friend)]  # the joiner goes there by its own answer
    await page.disconnect()
    await friend.disconnect()


@override_settings(INVITE_GRACE_SECONDS=60)
async def test_an_invitation_that_ended_while_away_is_told_on_the_next_page_once():
    presence.store().forget_all()
    (ada,) = await database_sync_to_async(make_players)(1)
    match = await private_invite(ada)
    await database_sync_to_async(Seat.objects.filter(match=match).update)(
        away_since=timezone.now() - timedelta(seconds=61))
    assert await database_sync_to_async(services.invites_expire)() == 1
    page = await open_socket("/ws/site/", ada)
    told = await receive(page, "invite_ended")
    assert told["ending"]["match"] == match.pk
    assert told["ending"]["text"] == "Your invitation ended: you left the site for more than 1 minute."
    await page.disconnect()
    again = await open_socket("/ws/site/", ada)
    await receive(again, "challenges")
    assert await again.receive_nothing(timeout=0.3)
    await again.disconnect()


async def test_watchers_of_a_private_match_are_told_of_its_rematch_and_may_open_it_by_the_same_link():
    ada, bob, cy = await database_sync_to_async(make_players)(3)

    def finished():
        return play_out(start_match("quarto-misere", [ada, bob], is_private=True), [ada, bob])

    match = await database_sync_to_async(finished)()
    watcher, _ = await join_match(match.pk, cy, f"?invite={match.invite_token}")
    rematch = await database_sync_to_async(services.rematch_offer)(match_id=match.pk, user=bob)
    state = await receive_match(watcher, "state")
    assert (state["match"]["rematch"], state["match"]["rematch_status"]) == (rematch.pk, "waiting")
    follow, first = await join_match(rematch.pk, cy, f"?invite={match.invite_token}")
    assert first["match"]["id"] == rematch.pk
    stranger = await open_socket(f"/ws/matches/{rematch.pk}/?invite=not-the-link", cy)
    assert (await stranger.receive_json_from(timeout=EVENT_SECONDS))["code"] == "not_found"
    assert await stranger.receive_output(timeout=EVENT_SECONDS) == {"type": "websocket.close", "code": NOT_FOUND}
    for comm in (watcher, follow, stranger):
        await comm.disconnect()
