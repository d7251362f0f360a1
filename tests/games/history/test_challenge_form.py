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


def test_the_form_says_in_which_rule_sets_the_pair_already_had_its_counted_result_today():
    from tests.support.players import play_first_moves, start_match

    ada, bob = make_accounts(2)
    assert 'id="challenge-pair-limit"' not in player_page(signed_in(ada), bob)
    match = play_first_moves(start_match("quarto-misere", [ada, bob], rated=True), [ada, bob])
    services.match_resign(match_id=match.pk, user=bob)
    page = player_page(signed_in(ada), bob).replace("&#x27;", "'")
    assert (f"A rated result between you and {bob.display_name} already counted in the last 24 hours in "
            "Misère Quarto: a rated match of it today would not count for the ratings (the pair's daily limit).") in page


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
