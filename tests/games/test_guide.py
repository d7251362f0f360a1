"""The rules pages: one per game, for visitors too, with diagrams from real positions."""

import json

import pytest

from games.match.guide import DIAGRAMS, game_guide, guide_games

pytestmark = pytest.mark.django_db


def test_every_game_has_a_page_whose_diagrams_are_real_positions(client):
    assert [g["slug"] for g in guide_games()] == list(DIAGRAMS)
    for game in guide_games():
        page = client.get(f"/rules/{game['slug']}/")
        assert page.status_code == 200
        html = page.content.decode()
        data = json.loads(html.split('id="guide-diagrams" type="application/json">')[1].split("</script>")[0])
        for name in data:
            assert f'data-diagram="{name}"' in html  # every diagram is drawn
        for name in set(html.split('data-diagram="')[1:]):
            assert name.split('"')[0] in data  # and every figure has its position


def test_the_diagrams_show_what_the_text_says():
    nine = game_guide(slug="nine-board-tictactoe")["diagrams"]
    assert nine["sub_board"]["view"]["sub_board"] == [3, 1]  # sent to A3
    assert nine["full"]["view"]["sub_board"] is None and all(nine["full"]["view"]["cells"][:9])
    pie = game_guide(slug="nine-board-tictactoe-pie")["diagrams"]
    assert pie["after_swap"]["view"]["markers"] == {"red": "o", "blue": "x"}
    assert game_guide(slug="tictactoe-3player")["diagrams"]["scores"]["scores"] == {"X": 66, "O": 100, "Z": 0}
    quarto = game_guide(slug="quarto-misere")["diagrams"]
    assert quarto["line"]["scores"] == {"White": 100, "Black": 0} and quarto["line"]["view"]["line"]
    assert (quarto["own_order"]["to_move"], quarto["classic_order"]["to_move"]) == ("White", "Black")


def test_variants_lead_to_their_games_page_and_unknown_games_are_404(client):
    response = client.get("/rules/quarto-misere-classic/")
    assert response.status_code == 302 and response.url == "/rules/quarto-misere/#variants"
    assert client.get("/rules/chess/").status_code == 404
    index = client.get("/rules/").content.decode()
    assert all(f'href="/rules/{g["slug"]}/"' in index for g in guide_games())
