"""What a new user meets on their first visits: the create forms' seats, the header on a phone,
the home page's order on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import GGPPlayer
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_accounts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_create_forms_offer_the_chosen_rule_sets_seats_and_a_third_seat_only_for_three(page_of):
    member, owner, program = outside_the_event_loop(lambda: make_accounts(3, "Seats"))
    outside_the_event_loop(lambda: GGPPlayer.objects.create(account=program, owner=owner, url="http://localhost:9/",
                                                            status=GGPPlayer.Status.ONLINE))
    page = page_of(member)
    page.goto("/")
    form = page.locator("#create-form")
    seat = form.get_by_label("Your seat")
    expect(seat.locator("option")).to_have_text(["Random seat", "X (first to move)", "O (second to move)"])
    form.get_by_label("Game").select_option("tictactoe-3player")
    expect(seat.locator("option")).to_have_text(
        ["Random seat", "X (first to move)", "O (second to move)", "Z (third to move)"])
    page.goto("/ggp/")
    play = page.locator("form", has=page.get_by_role("button", name=f"Play {program.display_name}"))
    third = play.get_by_label("Third seat")
    expect(third).to_be_hidden()
    play.get_by_label("Rule set").select_option("tictactoe-3player")
    expect(third).to_be_visible()
    play.get_by_label("Rule set").select_option("quarto-misere")
    expect(third).to_be_hidden()
