"""Starting a game against the computer: a visitor in two clicks, the level's description on a
phone, the rated box; the computer taking a free seat of a waiting match."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.computer.search import LEVELS
from tests.browser.conftest import match_id_of
from tests.browser.helpers import PLAYABLE, create_match, join_match, my_turn, outside_the_event_loop, wait_version
from tests.support.players import make_accounts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


def assert_level_readable(page: Page, select_id: str) -> None:
    """The level select is short (the level's name) and the chosen level's description stands
    whole below it, inside the page, which does not scroll sideways."""
    select = page.locator(f"#{select_id}")
    for number, level in enumerate(LEVELS, start=1):
        select.select_option(str(number))
        description = page.locator(f"#{select_id}-description")
        expect(description).to_have_text(str(level.description))
        box = description.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (level.name, box)
        assert description.evaluate("e => e.scrollWidth <= e.clientWidth"), level.name  # nothing cut
    box = select.bounding_box()
    assert box["width"] <= PHONE["width"] / 2 and box["x"] + box["width"] <= PHONE["width"], box  # short
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_visitor_plays_the_computer_in_two_clicks(page_of):
    """Click one: "Play the computer" on the home page, with its defaults; the visitor is a
    guest at once and the match has begun. Click two: their move, which the computer answers."""
    visitor = page_of(None)
    visitor.goto("/")
    visitor.get_by_role("button", name="Play the computer").click()
    match_id_of(visitor)
    expect(visitor.get_by_test_id("me")).to_have_text(re.compile(r"Guest \d{6}"))
    expect(visitor.locator("#seats")).to_contain_text("Computer (medium)")
    expect(visitor.locator("#board")).to_have_attribute("data-status", "active")
    # The seat is random: when the computer has the first move, its move comes by itself.
    visitor.wait_for_function("() => document.querySelector('#board').classList.contains('board-holder--my-turn')")
    version = int(visitor.locator("#board").get_attribute("data-version"))
    assert my_turn(visitor) and version in (0, 1)
    visitor.locator(PLAYABLE).first.click()
    wait_version(visitor, version + 2)  # the move, and the computer's answer
    expect(visitor.locator("#moves li")).to_have_count(version + 2)
    expect(visitor.locator("#board.board-holder--my-turn")).to_have_count(1)


def test_the_visitors_level_description_is_readable_on_a_phone(page_of):
    visitor = page_of(None)
    visitor.set_viewport_size(PHONE)
    visitor.goto("/")
    assert_level_readable(visitor, "computer-computer_level")


def test_the_create_forms_level_description_is_readable_on_a_phone(player_page):
    phone = player_page("Phil", viewport=PHONE)
    phone.locator("#create-form").get_by_label("The computer: start at once").check()
    assert_level_readable(phone, "id_computer_level")


def test_rated_is_unticked_and_disabled_against_the_computer(page_of):
    member = outside_the_event_loop(lambda: make_accounts(1)[0])
    page = page_of(member)
    page.goto("/")
    form = page.locator("#create-form")
    rated = form.get_by_label("Rated")
    rated.check()
    form.get_by_label("The computer: start at once").check()
    expect(rated).to_be_disabled()
    expect(rated).not_to_be_checked()
    form.get_by_label("People: wait for them to join").check()
    expect(rated).to_be_enabled()
    page.goto("/?opponents=computer")  # a link that preselects the computer
    expect(form.get_by_label("The computer: start at once")).to_be_checked()
    expect(form.get_by_label("Its strength")).to_be_enabled()
    expect(rated).to_be_disabled()


def test_the_creator_gives_the_third_seat_to_the_computer(player_page):
    """Two people and the computer: Ada creates, Bob joins, Ada gives the last seat to the
    computer; the match starts on both pages and the computer plays its turn."""
    ada = player_page("Ada")
    match_id = create_match(ada, "tictactoe-3player", seat="xplayer")
    bob = player_page("Bob")
    join_match(bob, f"/matches/{match_id}/", "oplayer")
    free = ada.locator('#seats .seat[data-role="zplayer"]')
    expect(free).to_contain_text("free seat")
    expect(bob.get_by_role("button", name="Give this seat to the computer")).to_have_count(0)  # Ada's match
    free.get_by_label("Level").select_option(label="Easy")
    free.get_by_role("button", name="Give this seat to the computer").click()
    for page in (ada, bob):
        expect(page.locator("#board")).to_have_attribute("data-status", "active")
        expect(page.locator("#seats")).to_contain_text("Computer (easy)")
    for version, page in enumerate((ada, bob)):  # x, o; then z, the computer, at once
        wait_version(page, version)
        page.locator(PLAYABLE).first.click()
    for page in (ada, bob):
        wait_version(page, 3)  # the computer answered
        expect(page.locator("#moves li")).to_have_count(3)
