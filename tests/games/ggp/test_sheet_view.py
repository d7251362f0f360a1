"""The rule sheets on the web: /rules/<slug>.kif serves each sheet as plain text, and each rules
page links to the sheets of its game and variants."""

import re

import pytest

from games.ggp.gdl.sheets import sheet_text
from games.match.guide import guide_slug
from games.rules import SLUGS

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("slug", SLUGS)
def test_each_sheet_is_served_as_plain_text(client, slug):
    response = client.get(f"/rules/{slug}.kif")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode("utf-8") == sheet_text(slug)


@pytest.mark.parametrize("path", ["/rules/chess.kif", "/rules/nine-board-tictactoe.gdl", "/rules/..kif",
                                  "/rules/NINE-BOARD-TICTACTOE.kif"])
def test_an_unknown_sheet_is_404(client, path):
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("slug", SLUGS)
def test_the_rules_page_links_to_the_sheet(client, slug):
    page = client.get(f"/rules/{guide_slug(slug)}/")
    assert page.status_code == 200
    links = re.findall(r'<a href="(/rules/[^"]+\.kif)"', page.content.decode())
    assert f"/rules/{slug}.kif" in links
    for link in links:
        assert client.get(link).status_code == 200
