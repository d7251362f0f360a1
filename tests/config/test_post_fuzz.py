"""Every POST endpoint against junk, as an anonymous visitor, a spectator and an outsider: a
page or a redirect (a 4xx at worst), never a 500, and nothing made or changed by junk."""

from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games.models import ChatMessage, Match, Move, Seat
from tests.support.players import make_players, start_match

pytestmark = pytest.mark.django_db

JUNK = [
    {}, {"display_name": ""}, {"display_name": "\x00"}, {"display_name": "\ud800x"}, {"display_name": "\u202e" * 3},
    {"display_name": "x" * 100_000}, {"display_name": ["\x00", "\u202e"]}, {"game": "chess", "role": "king"},
    {"game": "\x00", "opponent": "\ud800"}, {"game": "quarto-misere", "role": "x" * 5000, "opponent": "🙂"},
    {"username": "\x00", "password": "\ud800"}, {"username": "a" * 10_000, "password1": "", "password2": "x"},
    {"next": "//evil.example/", "display_name": "\t"}, {"computer_level": "-1", "game": "tictactoe-3player"},
]
FILES = [b"", b"\xff\xfe", b"[" * 50_000, b'{"matchId": "\\ud800"}', b"null", b'{"players": [' + b"1," * 1000 + b"1]}"]


def post_urls(match_id: int) -> list[str]:
    return ["/guest/", "/signup/", "/login/", "/logout/", "/matches/new/", "/history/import/",
            f"/matches/{match_id}/join/", f"/matches/{match_id}/abort/", f"/matches/{match_id}/rematch/",
            f"/matches/{match_id}/rematch/decline/", "/account/", "/account/bot/", "/account/tokens/1/revoke/",
            "/account/notifications/", "/account/notifications/push/", "/account/notifications/push/remove/",
            "/notifications/unsubscribe/junk/"]


def counts():
    return (get_user_model().objects.count(), Match.objects.count(), Seat.objects.count(), Move.objects.count(),
            ChatMessage.objects.count())


@pytest.mark.parametrize("visitor", ["anonymous", "spectator", "outsider"])
def test_junk_posts_answer_without_a_500_and_change_nothing(visitor):
    x, o, watcher, outsider = make_players(4, "fuzz")
    match = start_match("nine-board-tictactoe", [x, o])
    finished = start_match("quarto-misere", [x, o])
    client = Client(raise_request_exception=False)
    if visitor != "anonymous":
        client.force_login({"spectator": watcher, "outsider": outsider}[visitor])
    before = counts()
    for url in post_urls(match.pk) + post_urls(finished.pk)[-4:]:
        for data in JUNK:
            # Encoded as a browser would send the bytes: a lone surrogate as %ED%A0%80.
            body = urlencode(data, doseq=True, encoding="utf-8", errors="surrogatepass")
            response = client.post(url, body, content_type="application/x-www-form-urlencoded")
            assert response.status_code < 500, (url, data, response.status_code)
            assert response.status_code in {200, 302, 400, 403, 404, 405, 413}, (url, response.status_code)
        for content in FILES:
            response = client.post("/history/import/", {"file": SimpleUploadedFile("m.json", content)})
            assert response.status_code < 500, (content[:40], response.status_code)
        if visitor != "anonymous":  # logout is the one junk post that does something
            client.force_login({"spectator": watcher, "outsider": outsider}[visitor])
    assert counts() == before


@pytest.mark.parametrize("method", ["TRACE", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "BREW"])
def test_methods_the_site_has_no_use_for_are_refused_and_change_nothing(method):
    """A function view answers any method as GET (a TRACE got the page; a DELETE on a form's
    address its 405 only by luck): every other method is a 405 naming the allowed ones."""
    a, b = make_players(2)
    match = start_match("quarto-misere", [a])
    client = Client()
    client.force_login(b)
    before = counts()
    for url in ["/", "/history/", f"/matches/{match.pk}/", f"/players/{a.pk}/", "/rules/", "/nowhere/",
                *post_urls(match.pk), "/static/css/site.css"]:
        response = client.generic(method, url, data=urlencode({"display_name": "Mallory"}),
                                  content_type="application/x-www-form-urlencoded")
        allowed = "GET, HEAD" if url.startswith("/static/") else "GET, HEAD, POST"  # WhiteNoise's own answer
        assert response.status_code == 405 and response["Allow"] == allowed, (method, url)
        body = b"".join(response) if response.streaming else response.content
        assert b"Mallory" not in body
    assert counts() == before
    assert client.get("/").status_code == 200 and client.head("/").status_code == 200
