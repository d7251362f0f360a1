"""Every POST endpoint of the match pages as an anonymous visitor, a spectator and an outsider:
a clean 4xx or a redirect, never a 500, and no way to tell a private match from a missing one."""

import re

import pytest
from django.test import Client

from games import services
from games.match.settings import MatchSettings
from games.models import Match
from tests.support.players import make_players, play_out, start_match

pytestmark = pytest.mark.django_db

ACTIONS = ["join", "abort", "rematch"]
BIG = 10**22


def without_tokens(content: bytes) -> bytes:
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", content)


def client_for(user=None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def private_matches():
    ada, bob, eve = make_players(3)
    waiting = services.match_create(user=ada, settings=MatchSettings("quarto-misere"), role="white", is_private=True)
    finished = play_out(start_match("quarto-misere", [ada, bob], is_private=True), [ada, bob])
    return eve, [waiting, finished]


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_a_private_match_answers_like_a_missing_one(action, who, private_matches):
    eve, matches = private_matches
    client = client_for(eve if who == "outsider" else None)
    missing = client.post(f"/matches/{BIG}/{action}/")
    assert missing.status_code == 404
    for match in matches:
        before = Match.objects.count(), Match.objects.get(pk=match.pk).status
        hidden = client.post(f"/matches/{match.pk}/{action}/")
        same_page = hidden.content.replace(f"/matches/{match.pk}/".encode(), f"/matches/{BIG}/".encode())
        assert hidden.status_code == 404 and without_tokens(same_page) == without_tokens(missing.content)
        assert (Match.objects.count(), Match.objects.get(pk=match.pk).status) == before


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("who", ["anonymous", "spectator"])
def test_refused_posts_on_a_public_match_redirect_with_a_message(action, who):
    ada, bob, eve = make_players(3)
    waiting = services.match_create(user=ada, settings=MatchSettings("quarto-misere"), role="white")
    finished = play_out(start_match("quarto-misere", [ada, bob]), [ada, bob])
    client = client_for(eve if who == "spectator" else None)
    for match in (waiting, finished):
        before = Match.objects.count(), Match.objects.get(pk=match.pk).status
        response = client.post(f"/matches/{match.pk}/{action}/", {"role": "nobody", "invite": "x\r\ny"})
        assert response.status_code == 302, response.status_code
        if action != "join" or who == "anonymous" or match is finished:
            assert (Match.objects.count(), Match.objects.get(pk=match.pk).status) == before


def test_the_404_page_is_the_friendly_one(settings):
    settings.DEBUG = False
    page = client_for().get("/no/such/page/")
    assert page.status_code == 404 and b'data-testid="error-page"' in page.content
    assert b"Back to the lobby" in page.content and b"urlpatterns" not in page.content


def test_a_huge_player_filter_is_reported_not_a_500():
    assert client_for().get("/history/", {"player": BIG}).status_code == 200


def test_a_post_without_its_csrf_token_gets_the_friendly_403():
    page = Client(enforce_csrf_checks=True).post("/guest/", {"display_name": "Ada"})
    assert page.status_code == 403 and b"That form has expired" in page.content


def test_the_500_page_renders_without_a_request_context():
    from django.template.loader import render_to_string

    html = render_to_string("500.html")
    assert "Something went wrong on our side" in html and "Traceback" not in html


@pytest.mark.parametrize("url", ["/matches/1/abort/", "/matches/1/rematch/", "/matches/1/join/", "/guest/"])
def test_opening_a_form_address_directly_gets_a_page_not_a_blank(url):
    page = client_for().get(url)
    assert page.status_code == 405 and b"This address is for a form" in page.content
    assert page["Allow"] == "POST"


@pytest.mark.parametrize("url", ["/rules/%00/", "/rules/%ED%A0%80/", "/rules/" + "a" * 5000 + "/",
                                 "/matches/{id}/positions/?invite=%ED%A0%80", "/matches/{id}/positions/?invite=" + "x" * 5000,
                                 "/matches/{id}/positions/", "/matches/99999999999999999999999/positions/"])
def test_rules_and_positions_answer_junk_with_a_404(url, private_matches):
    _, matches = private_matches
    for match in matches:
        assert Client().get(url.format(id=match.pk)).status_code == 404


def test_logging_out_with_junk_keeps_a_guest_until_it_confirms():
    guest = make_players(1, "Junk")[0]
    client = Client()
    client.force_login(guest)
    for data in [{"confirm": "yes"}, {"confirm": "\x00"}, {"confirm": ["1", "1"][:0]}]:
        assert client.post("/logout/", data).status_code == 200
    assert client.get("/").context["user"].is_authenticated
