"""The embeddable board and a match page's link preview (Open Graph)."""

import pytest
from django.test import Client

from games.match.settings import MatchSettings
from tests.support.players import make_players, start_match, waiting_match

pytestmark = pytest.mark.django_db


def test_a_public_match_embeds_in_any_site_without_cookies():
    ada, bob = make_players(2)
    match = start_match("quarto-misere", [ada, bob])
    answer = Client().get(f"/embed/{match.pk}/")
    assert answer.status_code == 200
    assert "X-Frame-Options" not in answer and "frame-ancestors *" in answer["Content-Security-Policy"]
    assert not answer.cookies
    page = answer.content.decode()
    assert 'id="match-snapshot"' in page and "js/embed.js" in page and "<form" not in page
    framed_elsewhere = Client().get(f"/matches/{match.pk}/")
    assert framed_elsewhere["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in framed_elsewhere["Content-Security-Policy"]


def test_a_private_match_has_no_embed_and_its_page_no_snippet(client):
    ada, bob = make_players(2)
    private = start_match("quarto-misere", [ada, bob], is_private=True)
    assert Client().get(f"/embed/{private.pk}/").status_code == 404
    assert Client().get("/embed/999999/").status_code == 404
    client.force_login(ada)
    assert "embed-snippet" not in client.get(f"/matches/{private.pk}/").content.decode()
    public = start_match("quarto-misere", [ada, bob])
    assert f'/embed/{public.pk}/' in client.get(f"/matches/{public.pk}/").content.decode()


def test_a_match_page_carries_open_graph_tags_without_its_invite_token():
    ada, bob = make_players(2)
    ada.display_name, bob.display_name = "Ada", "Bob"
    ada.save()
    bob.save()
    match = start_match("quarto-misere", [ada, bob], is_private=True)
    page = Client().get(f"/matches/{match.pk}/?invite={match.invite_token}").content.decode()
    assert f'<meta property="og:title" content="Misère Quarto #{match.pk}: Ada vs Bob">' in page
    assert '<meta property="og:description" content="Casual, ' in page and "in play." in page
    assert f'<meta property="og:url" content="http://testserver/matches/{match.pk}/">' in page
    waiting = waiting_match(ada, MatchSettings("quarto-misere"))
    assert "Ada vs a free seat" in Client().get(f"/matches/{waiting.pk}/").content.decode()
