"""Play with a friend: a visitor gets an invite link from the home page, goes elsewhere on the
site, and when the friend opens the link in another browser, picks a name and joins, both land
in the game."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import match_id_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_friend_joins_by_link_and_both_land_in_the_game_while_the_creator_is_on_another_page(player_page):
    ada = player_page(None)
    form = ada.locator("#friend-form")
    form.get_by_label("Game to play").select_option("quarto-misere")
    form.get_by_label("Seat").select_option("1")
    form.get_by_label("Your name (optional)").fill("Ada")
    form.get_by_role("button", name="Get an invite link").click()
    match_id = match_id_of(ada)
    expect(ada.get_by_role("img", name="QR code of the invite link")).to_be_visible()
    expect(ada.locator("#invite-lifetime")).to_contain_text("stays open while you are on this site")
    link = ada.locator("#invite-url").input_value()
    assert f"/matches/{match_id}/?invite=" in link

    ada.goto("/rules/")  # another page of the site: its site socket stands for her
    ada.wait_for_function("window.boardhallSite && window.boardhallSite.ready === true")

    bob = player_page(None)
    bob.goto(link)
    expect(bob.locator("#seats")).to_contain_text("Choose a name at the top to join.")
    header = bob.locator("form.guest-form")
    header.get_by_label("Your name").fill("Bob")
    header.get_by_role("button", name="Play as guest").click()
    bob.get_by_role("button", name=re.compile(r"^Join as ")).click()
    expect(bob.locator("#seats")).to_contain_text("(you)")

    expect(ada).to_have_url(re.compile(rf"/matches/{match_id}/$"))
    for page in (ada, bob):
        expect(page.locator("#status-line")).not_to_contain_text("Waiting for players")
        expect(page.locator("#seats")).to_contain_text("Ada")
        expect(page.locator("#seats")).to_contain_text("Bob")
    expect(ada.locator("#status-line")).to_contain_text("Your turn")  # she chose to move first
