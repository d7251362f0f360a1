"""Starting a game against the computer: the level's description on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.computer.search import LEVELS

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
