"""A visitor finds a game's rules in GDL from its rules page and reads them as text."""

import pytest
from playwright.sync_api import expect

from games.ggp.gdl.sheets import sheet_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_opens_the_gdl_sheets_from_the_rules_page(player_page):
    visitor = player_page(None)
    visitor.goto("/rules/tictactoe-3player/")
    section = visitor.get_by_role("region", name="The rules in GDL")
    expect(section.get_by_role("link")).to_have_count(2)  # the game and its torus variant
    section.get_by_role("link", name="Three-Player Tic-Tac-Toe (tictactoe-3player.kif)").click()
    visitor.wait_for_url("**/rules/tictactoe-3player.kif")
    expect(visitor.locator("body")).to_contain_text("(role zplayer)")
    assert visitor.locator("body").inner_text().strip() == sheet_text("tictactoe-3player").strip()
    visitor.go_back()
    visitor.get_by_role("link", name="(tictactoe-3player-torus.kif)").click()
    visitor.wait_for_url("**/rules/tictactoe-3player-torus.kif")
    expect(visitor.locator("body")).to_contain_text("(succ 5 1)")
