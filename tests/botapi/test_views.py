"""The account page and the API's documentation page (botapi/views.py)."""

import re
from html import unescape

import pytest
from django.test import Client

from botapi.models import ApiToken
from games import services as game_services
from games.models import GGPPlayer, Match, Seat
from tests.botapi.support import call
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db

LISTED_CALL = re.compile(r"<dt><code>(GET|POST|PUT|PATCH|DELETE) (\S+)</code>")


def test_every_call_the_docs_page_lists_answers_at_the_path_it_shows():
    """Each call is requested by the method and path the page prints (a path parameter as 1,
    without a token): it must reach the API's call, which asks for a token, never a 404."""
    page = unescape(Client().get("/api/docs/").content.decode())
    listed = LISTED_CALL.findall(page)
    assert len(listed) >= 10
    for method, path in listed:
        assert path.startswith("/api/") and not path.startswith("/api/api/"), path
        answer = Client().generic(method, re.sub(r"\{\w+\}", "1", path))
        assert answer.status_code == 401, (method, path, answer.status_code)


def test_the_docs_page_shows_code_in_the_descriptions_as_code_not_backticks():
    page = Client().get("/api/docs/").content.decode()
    assert "``" not in page and "<code>stale_version</code>" in page


def test_a_new_token_is_shown_once_after_the_redirect_and_a_reload_makes_no_second():
    (user,) = make_accounts(1, "owner")
    client = Client()
    client.force_login(user)
    made = client.post("/account/", {"name": "my bot", "scopes": ["play", "read"]})
    assert made.status_code == 302 and made["Location"] == "/account/"
    assert ApiToken.objects.filter(user=user).count() == 1
    shown = client.get("/account/")
    secret = shown.context["secret"]
    assert secret.startswith("bh_") and secret in shown.content.decode()
    assert call(secret, "/account", method="get").json()["id"] == user.pk
    reloaded = client.get("/account/")
    assert reloaded.context["secret"] is None and secret not in reloaded.content.decode()
    assert ApiToken.objects.filter(user=user).count() == 1


def test_a_refused_token_name_redirects_with_the_reason_and_stores_nothing():
    (user,) = make_accounts(1, "owner")
    client = Client()
    client.force_login(user)
    refused = client.post("/account/", {"name": "\x00", "scopes": ["play"]}, follow=True)
    assert refused.redirect_chain == [("/account/", 302)]
    assert "a control character (U+0000)" in refused.content.decode().replace("&#x27;", "'")
    assert refused.context["secret"] is None and not ApiToken.objects.exists()


def registered_ggp_player(owner, name: str) -> GGPPlayer:
    player = game_services.ggp_player_register(owner=owner, name=name, url="http://localhost:9/")
    GGPPlayer.objects.filter(pk=player.pk).update(status=GGPPlayer.Status.ONLINE)
    return player


@pytest.fixture
def ggp_hosts(settings):
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.COMPUTER_WORKERS = "inline"


def test_a_rated_two_player_match_against_a_ggp_player_has_no_third_seat_to_give_the_computer(ggp_hosts):
    """The third-seat choice is for three-player rule sets: sent with a two-player one, it is
    ignored, and the match is rated as asked (not refused as a game against the computer)."""
    alice, bob = make_accounts(2, "ggp")
    program = registered_ggp_player(bob, "Theirs")
    client = Client()
    client.force_login(alice)
    answer = client.post(f"/ggp/{program.pk}/play/", {"game": "tictactoe-x9", "clock": "m30/10", "rated": "on",
                                                      "rest": "computer"})
    match = Match.objects.get()
    assert answer["Location"] == f"/matches/{match.pk}/" and match.rated
    assert not Seat.objects.filter(match=match, player__username__startswith="computer").exists()


def test_the_ggp_page_shows_the_third_seat_choice_only_with_a_three_player_rule_set(ggp_hosts):
    alice, bob = make_accounts(2, "ggp")
    registered_ggp_player(bob, "Theirs")
    client = Client()
    client.force_login(alice)
    page = client.get("/ggp/").content.decode()
    third = re.search(r'<label class="third-seat"([^>]*)>', page)
    assert third and "hidden" in third[1]  # the first rule set listed has two players
    games = dict(re.findall(r'<option value="([a-z0-9-]+)" data-players="(\d)"', page))
    assert games["tictactoe-3player"] == "3" and games["tictactoe-x9"] == "2"
