"""The challenge form on a player page: offered only to someone who could answer, rated by
default between signed-up players (as under Quick game)."""

import pytest
from django.test import Client

from games import services
from lobby.models import User
from lobby.services import guest_leave
from tests.support.players import make_accounts, make_players

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def player_page(client: Client, player) -> str:
    page = client.get(f"/players/{player.pk}/")
    assert page.status_code == 200
    return page.content.decode()


def test_a_player_who_could_answer_is_offered_the_form_rated_by_default():
    ada, bob = make_accounts(2)
    page = player_page(signed_in(ada), bob)
    assert 'id="challenge-form"' in page
    assert '<input type="checkbox" id="challenge-rated" name="rated" checked>' in page


def test_a_guest_is_offered_a_casual_challenge_only():
    (ada,) = make_accounts(1)
    (guest,) = make_players(1)
    page = player_page(signed_in(ada), guest)
    assert '<input type="checkbox" id="challenge-rated" name="rated" disabled>' in page


@pytest.mark.parametrize("target", ["ended guest", "computer", "closed account"])
def test_no_form_for_a_player_who_cannot_answer(target):
    (ada,) = make_accounts(1)
    if target == "ended guest":
        (other,) = make_players(1)
        guest_leave(user=other)
    elif target == "computer":
        other = services.computer_user()
    else:
        (other,) = make_accounts(1, "closed")
        User.objects.filter(pk=other.pk).update(is_active=False)
    page = player_page(signed_in(ada), other)
    assert 'id="challenge-form"' not in page and "player.js" not in page
