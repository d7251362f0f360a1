"""Starting a game against the computer: the level's description on a phone, the rated box."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.computer.search import LEVELS
from tests.browser.helpers import outside_the_event_loop
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
        expect(description).to_have_text(level.description)
        box = description.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (level.name, box)
        assert description.evaluate("e => e.scrollWidth <= e.clientWidth"), level.name  # nothing cut
    box = select.bounding_box()
    assert box["width"] <= PHONE["width"] / 2 and box["x"] + box["width"] <= PHONE["width"], box  # short
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


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
