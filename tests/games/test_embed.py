"""The embeddable board and the position picture (games/embed.py): what they show, that they set
no cookie, that only the embed may be framed, and that private or missing matches are 404."""

import io
import json
import re

import pytest
from django.test import Client
from PIL import Image

from games import services
from tests.support.players import make_players, play_out, start_match

pytestmark = pytest.mark.django_db


def signed_in_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_live_match_embeds_its_board_and_players_with_the_read_only_socket(client):
    ada, bob = make_players(2)
    match = start_match("nine-board-tictactoe", [ada, bob])
    response = client.get(f"/embed/{match.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    snapshot = json.loads(re.search(r'<script id="match-snapshot" type="application/json">(.*?)</script>', page, re.S)[1])
    assert snapshot["id"] == match.pk and snapshot["status"] == "active"
    assert [s["player"]["name"] for s in snapshot["seats"]] == ["player 1", "player 2"]
    assert 'src="/static/js/embed.js"' in page and "replay.js" not in page
    assert "<form" not in page and "csrfmiddlewaretoken" not in page


def test_a_finished_match_embeds_its_replay_with_its_controls(client):
    players = make_players(3)
    match = play_out(start_match("tictactoe-3player", players), players)
    assert match.status == "finished"
    page = client.get(f"/embed/{match.pk}/").content.decode()
    data = json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)[1])
    assert len(data["views"]) == match.plies + 1 and data["ply"] == match.plies
    assert 'data-step="next"' in page and 'src="/static/js/replay.js"' in page
    assert 'data-testid="embed-result"' in page


def test_the_embed_may_be_framed_by_any_site_and_sets_no_cookie():
    ada, bob = make_players(2)
    match = start_match("quarto-misere", [ada, bob])
    # Even a signed-in visitor's request gets a page with no cookie set and nothing of theirs.
    response = signed_in_client(ada).get(f"/embed/{match.pk}/")
    assert response.status_code == 200
    assert "X-Frame-Options" not in response
    assert "frame-ancestors *" in response["Content-Security-Policy"]
    assert "Set-Cookie" not in str(response.serialize_headers()) and not response.cookies
    assert "Cookie" not in response.get("Vary", "")


@pytest.mark.parametrize("path", ["/", "/matches/{id}/", "/matches/{id}/replay/", "/history/", "/rules/"])
def test_every_other_page_still_refuses_to_be_framed(client, path):
    match = start_match("nine-board-tictactoe", make_players(2))
    response = client.get(path.format(id=match.pk))
    assert response.status_code == 200
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]


def test_private_and_missing_matches_are_not_embedded_even_with_the_invite():
    ada, bob = make_players(2)
    private = start_match("nine-board-tictactoe", [ada, bob], is_private=True)
    for path in (f"/embed/{private.pk}/", f"/embed/{private.pk}/?invite={private.invite_token}", "/embed/999999/",
                 "/embed/99999999999999999999/"):
        response = signed_in_client(ada).get(path)
        assert response.status_code == 404, path
        assert "no such public match" in response.content.decode().lower()
        assert not response.cookies and "X-Frame-Options" not in response  # the frame says why


def test_the_embed_takes_no_post(client):
    match = start_match("nine-board-tictactoe", make_players(2))
    assert client.post(f"/embed/{match.pk}/").status_code == 405


def test_the_position_picture_is_a_png_of_the_current_position():
    ada, bob = make_players(2)
    match = start_match("nine-board-tictactoe", [ada, bob])
    client = Client()
    first = client.get(f"/matches/{match.pk}/position.png")
    assert first.status_code == 200 and first["Content-Type"] == "image/png"
    picture = Image.open(io.BytesIO(first.content))
    assert picture.format == "PNG" and picture.size == (1200, 630)
    assert len(first.content) < 100_000
    assert "max-age" in first["Cache-Control"] and not first.cookies
    services.move_submit(match_id=match.pk, user=ada, action="(play 2 2 2 2 x)", version=0)
    second = client.get(f"/matches/{match.pk}/position.png")
    assert second.content != first.content and second["ETag"] != first["ETag"]


@pytest.mark.parametrize("path", ["/matches/999999/position.png", "/matches/0/position.png",
                                  "/matches/99999999999999999999/position.png", "/matches/x/position.png"])
def test_the_position_picture_of_a_bad_id_is_404(client, path):
    assert client.get(path).status_code == 404


def test_the_position_picture_of_a_private_match_is_404_even_for_its_players():
    ada, bob = make_players(2)
    match = start_match("nine-board-tictactoe", [ada, bob], is_private=True)
    assert signed_in_client(ada).get(f"/matches/{match.pk}/position.png").status_code == 404
    assert Client().get(f"/matches/{match.pk}/position.png?invite={match.invite_token}").status_code == 404
