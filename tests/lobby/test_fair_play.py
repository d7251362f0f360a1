"""The pages and the site socket say why a match was refused: one real-time match at a time
(with a link to it), a few waiting matches per player, creation too fast."""

import pytest
from channels.db import database_sync_to_async
from django.test import Client, override_settings

from games import services
from games.models import Match, PoolEntry
from tests.games.services.test_one_game import BLITZ, playing
from tests.live.consumers.test_site_socket import receive, site
from tests.support.players import make_players

CREATE_BLITZ = {"game": "quarto-misere", "clock": "3+2"}


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


@pytest.mark.django_db
def test_creating_a_real_time_match_while_playing_one_shows_why_with_a_link(client):
    ada, bob = make_players(2)
    live = playing(ada, bob)
    client.force_login(ada)
    response = client.post("/matches/new/", {**CREATE_BLITZ, "opponents": "computer"}, follow=True)
    assert response.request["PATH_INFO"] == "/"
    page = response.content.decode()
    assert "You are already playing a real-time match: finish it first." in page
    assert f'<a href="/matches/{live.pk}/">Go to that match</a>' in page
    assert Match.objects.count() == 1


@pytest.mark.django_db
def test_joining_by_invite_link_while_playing_is_refused_on_the_match_page(client):
    ada, bob, cy = make_players(3)
    live = playing(ada, bob)
    private = services.match_create(user=cy, settings=BLITZ, is_private=True)
    client.force_login(ada)
    response = client.post(f"/matches/{private.pk}/join/", {"invite": private.invite_token}, follow=True)
    assert response.request["PATH_INFO"] == f"/matches/{private.pk}/"
    assert f'finish it first. <a href="/matches/{live.pk}/">Go to that match</a>' in response.content.decode()
    assert Match.objects.get(pk=private.pk).status == Match.Status.WAITING


@pytest.mark.django_db
@override_settings(WAITING_MATCHES_MAX=2)
def test_a_third_waiting_match_is_refused_with_a_message(client):
    ada, = make_players(1)
    client.force_login(ada)
    for _ in range(2):
        assert client.post("/matches/new/", {"game": "quarto-misere"}).status_code == 302
    response = client.post("/matches/new/", {"game": "quarto-misere"}, follow=True)
    assert messages_of(response) == ["You already have 2 matches waiting for players: wait for them to start, "
                                     "or leave one first."]
    assert Match.objects.count() == 2


@pytest.mark.django_db
@override_settings(CREATE_PER_MINUTE=3, CREATE_PER_ADDRESS_PER_MINUTE=5, WAITING_MATCHES_MAX=100)
def test_creating_matches_is_limited_per_player_and_per_address(clock):
    players = make_players(3)
    clients = []
    for player in players:
        clients.append(Client())
        clients[-1].force_login(player)
    too_fast = "You are creating matches too fast: wait a minute, then try again."
    for _ in range(3):
        assert clients[0].post("/matches/new/", {"game": "quarto-misere"}).status_code == 302
    assert messages_of(clients[0].post("/matches/new/", {"game": "quarto-misere"}, follow=True)) == [too_fast]
    assert Match.objects.count() == 3
    assert clients[1].post("/matches/new/", {"game": "quarto-misere"}).status_code == 302  # the address's 5th
    assert messages_of(clients[2].post("/matches/new/", {"game": "quarto-misere"}, follow=True)) == [too_fast]
    assert Match.objects.count() == 4


@pytest.mark.django_db
@override_settings(CREATE_PER_MINUTE=1, CREATE_PER_ADDRESS_PER_MINUTE=1, COMPUTER_CREATE_PER_MINUTE=3,
                   COMPUTER_CREATE_PER_ADDRESS_PER_MINUTE=5, COMPUTER_MATCHES_MAX=100)
def test_games_against_the_computer_have_their_own_roomier_count(clock):
    """They never wait in the lobby: creating them does not use up the creations of matches
    with people, and they may be created more often, still only so often a minute."""
    ada, bob = make_players(2)
    clients = []
    for player in (ada, bob):
        clients.append(Client())
        clients[-1].force_login(player)
    too_fast = "You are creating matches too fast: wait a minute, then try again."
    computer = {"game": "quarto-misere", "opponents": "computer"}
    assert clients[0].post("/matches/new/", {"game": "quarto-misere"}).status_code == 302  # with people
    for _ in range(2):
        assert clients[0].post("/matches/new/", computer).status_code == 302
    assert clients[0].post("/play/computer/", {"game": "quarto-misere"}).status_code == 302  # the same count
    assert messages_of(clients[0].post("/matches/new/", computer, follow=True)) == [too_fast]  # the player's 4th
    assert Match.objects.filter(seats__player=bob).count() == 0
    assert clients[1].post("/play/computer/", {"game": "quarto-misere"}).status_code == 302  # the address's 5th
    assert Match.objects.filter(seats__player=bob).count() == 1
    assert messages_of(clients[1].post("/matches/new/", computer, follow=True)) == [too_fast]
    assert messages_of(clients[1].post("/matches/new/", {"game": "quarto-misere"}, follow=True)) == [too_fast]
    assert Match.objects.filter(seats__player__is_computer=True).distinct().count() == 4
    assert Match.objects.count() == 5


@pytest.mark.django_db
@override_settings(COMPUTER_MATCHES_MAX=1)
def test_too_many_unfinished_games_against_the_computer_shows_why_with_a_link(client):
    ada, = make_players(1)
    client.force_login(ada)
    computer = {"game": "quarto-misere", "opponents": "computer"}
    first = client.post("/matches/new/", computer, follow=True).request["PATH_INFO"]
    response = client.post("/play/computer/", {"game": "quarto-misere"}, follow=True)
    assert response.request["PATH_INFO"] == "/"
    page = response.content.decode()
    assert "You have 1 unfinished game against the computer: finish or resign one first (abort one not yet begun), such as the oldest." in page
    assert f'<a href="{first}">Go to that match</a>' in page


@pytest.mark.django_db(transaction=True)
async def test_a_quick_game_while_playing_is_refused_with_the_match_to_go_to():
    ada, bob = await database_sync_to_async(make_players)(2)
    live = await database_sync_to_async(playing)(ada, bob)
    page = await site(ada)
    await page.send_json_to({"type": "pool_enter", "game": "quarto-misere", "rated": False, "clock": "3+2"})
    error = await receive(page, "error")
    assert (error["code"], error["match"]) == ("already_playing", live.pk)
    assert error["message"] == "You are already playing a real-time match: finish it first."
    assert not await database_sync_to_async(PoolEntry.objects.exists)()
    await page.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_search_closed_by_a_match_started_elsewhere_stops_waiting_on_its_page():
    ada, bob = await database_sync_to_async(make_players)(2)
    page = await site(ada)
    await page.send_json_to({"type": "pool_enter", "game": "quarto-misere", "rated": False, "clock": "untimed"})
    assert (await receive(page, "pool"))["waiting"] is True
    await database_sync_to_async(playing)(ada, bob)  # in another tab
    assert (await receive(page, "pool"))["waiting"] is False
    assert not await database_sync_to_async(PoolEntry.objects.exists)()
    await page.disconnect()
