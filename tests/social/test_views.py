"""The Following page and a player page's follow and block buttons."""

import pytest
from django.test import Client

from games import services as game_services
from social.models import Block, Follow
from tests.support.players import make_accounts, make_players, start_match

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_player_page_offers_follow_then_unfollow_and_block_then_unblock():
    me, them = make_accounts(2)
    client = signed_in(me)
    page = client.get(f"/players/{them.pk}/").content.decode()
    assert 'data-testid="follow"' in page and 'data-testid="block"' in page and 'id="challenge-form"' in page
    followed = client.post(f"/players/{them.pk}/follow/", follow=True)
    assert Follow.objects.filter(follower=me, followed=them).exists()
    assert 'data-testid="unfollow"' in followed.content.decode() and "You follow this player" in followed.content.decode()
    blocked = client.post(f"/players/{them.pk}/block/", follow=True).content.decode()
    assert Block.objects.filter(blocker=me, blocked=them).exists() and not Follow.objects.exists()
    assert 'data-testid="unblock"' in blocked and 'data-testid="follow"' not in blocked
    assert 'id="challenge-form"' not in blocked  # neither may challenge the other
    client.post(f"/players/{them.pk}/unblock/")
    client.post(f"/players/{them.pk}/unfollow/")  # not following: nothing to do, no error
    assert not Block.objects.exists() and not Follow.objects.exists()


def test_the_player_who_was_blocked_sees_no_challenge_form_and_no_sign_of_the_block():
    me, them = make_accounts(2)
    Block.objects.create(blocker=them, blocked=me)
    page = signed_in(me).get(f"/players/{them.pk}/").content.decode()
    assert 'id="challenge-form"' not in page and 'data-testid="follow"' in page and "unblock" not in page.lower()


def test_no_buttons_on_your_own_page_nor_for_a_visitor_and_a_guest_is_asked_to_sign_up():
    me, them = make_accounts(2)
    assert 'data-testid="social-actions"' not in signed_in(me).get(f"/players/{me.pk}/").content.decode()
    assert 'data-testid="social-actions"' not in Client().get(f"/players/{them.pk}/").content.decode()
    (guest,) = make_players(1)
    page = signed_in(guest).get(f"/players/{them.pk}/").content.decode()
    assert 'data-testid="follow"' not in page and "to follow players" in page and 'data-testid="block"' in page
    refused = signed_in(guest).post(f"/players/{them.pk}/follow/", follow=True)
    assert "Sign up to follow players" in refused.content.decode() and not Follow.objects.exists()


def test_the_buttons_refuse_a_visitor_a_get_and_a_player_who_is_not_there():
    (them,) = make_accounts(1)
    assert Client().post(f"/players/{them.pk}/follow/").status_code == 302  # to the log-in page
    assert not Follow.objects.exists()
    (me,) = make_accounts(1, "other")
    client = signed_in(me)
    assert client.get(f"/players/{them.pk}/follow/").status_code == 405
    assert client.post("/players/999999/follow/").status_code == 404
    assert not Follow.objects.exists()


def test_the_following_page_lists_who_is_online_and_links_the_live_match_and_the_challenge():
    me, friend, other, opponent = make_accounts(4)
    client = signed_in(me)
    client.post(f"/players/{friend.pk}/follow/")
    client.post(f"/players/{other.pk}/follow/")
    match = start_match("nine-board-tictactoe", [friend, opponent])
    game_services.online_enter(user=friend, channel_name="friend-page")
    page = client.get("/following/").content.decode()
    assert f'href="/matches/{match.pk}/" data-testid="watch"' in page
    assert f'href="/players/{friend.pk}/#challenge-form"' in page and f'href="/players/{other.pk}/#challenge-form"' in page
    assert page.count('data-testid="online"') == 1
    assert 'href="/following/"' in page  # the header links it


def test_the_following_page_asks_a_guest_or_visitor_to_sign_up():
    (guest,) = make_players(1)
    for client in (Client(), signed_in(guest)):
        page = client.get("/following/")
        assert page.status_code == 200 and "to follow players" in page.content.decode()
    assert 'href="/following/"' not in signed_in(guest).get("/history/").content.decode()
