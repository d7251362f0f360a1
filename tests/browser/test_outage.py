"""What a person sees while Redis is away: a Daphne of this test's own on a redis-server of its
own, stopped and started again under an open match page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import VIEWPORT, WAIT_MS
from tests.browser.helpers import create_match, join_match, wait_version
from tests.support import live
from tests.support.services import own_redis

# The database is emptied after the test (its own Daphne wrote Ada and Bob there): the next test
# signs in guests of the same names.
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def guest(browser: Browser, base_url: str, name: str) -> Page:
    context = browser.new_context(base_url=base_url, viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto("/")
    form = page.locator("form.guest-form")
    form.get_by_label("Your name").fill(name)
    form.get_by_role("button", name="Play as guest").click()
    expect(page.get_by_test_id("me")).to_contain_text(name)
    return page


def test_the_match_page_says_live_updates_are_interrupted_and_comes_back_by_itself(browser, live_server):
    """(``live_server``, the session's Daphne, is asked for the test database it sets up.)"""
    with own_redis() as redis, live.live_server(env={"REDIS_URL": redis.url, "CHANNEL_LAYER_PREFIX": "browser-outage",
                                                "DEBUG": "0"}) as server:
        ada = guest(browser, server.url, "Ada")
        errors = []
        ada.on("pageerror", lambda error: errors.append(str(error)))
        match_id = create_match(ada, "nine-board-tictactoe", seat="xPlayer")
        banner = ada.locator("#connection")

        redis.stop()
        expect(banner).to_contain_text("Live updates interrupted, reconnecting")
        expect(ada.locator("#action-error")).to_be_hidden()  # said once, in the banner

        redis.start()
        expect(banner).to_contain_text("Reconnected")
        bob = guest(browser, server.url, "Bob")
        join_match(bob, f"/matches/{match_id}/", "oPlayer")
        expect(ada.locator("#seats")).to_contain_text("Bob")  # live updates flow again
        wait_version(ada, 0)
        for page in (ada, bob):
            page.context.close()
    assert not errors, errors
