"""The embeddable board: another site's frame of a public match follows its moves live."""

import pytest
from playwright.sync_api import expect

from games.rules import get_game
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, WAIT_MS
from tests.browser.helpers import click_turns, create_match, join_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
OTHER_SITE = "http://blog.example"


@pytest.fixture
def other_site(browser, live_server):
    """A browser whose pages may frame the test server on the loopback address: Chromium's
    local network access checks refuse a public site's frame of a loopback page, which a
    real deployment's public address never meets. The blog page is served by the browser."""
    separate = browser.browser_type.launch(executable_path=CHROMIUM,
                                           args=CHROMIUM_ARGS + ["--disable-features=LocalNetworkAccessChecks"])
    context = separate.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    separate.close()
    assert not errors, errors


def test_an_embedded_board_follows_the_match_live_inside_another_sites_frame(player_page, other_site, live_server):
    white, black = get_game("quarto-misere").roles
    ada, bob = player_page("Ada"), player_page("Bob")
    match_id = create_match(ada, "quarto-misere", seat=white)
    join_match(bob, f"/matches/{match_id}/", black)
    snippet = f'<iframe id="frame" src="{live_server.url}/embed/{match_id}/" width="420" height="520"></iframe>'
    other_site.route(f"{OTHER_SITE}/**", lambda route: route.fulfill(content_type="text/html",
                                                                    body=f"<!doctype html><title>A blog</title>{snippet}"))
    other_site.goto(f"{OTHER_SITE}/post.html")
    frame = other_site.frame_locator("#frame")
    expect(frame.locator("#board")).to_have_attribute("data-version", "0")
    expect(frame.locator("#embed-players")).to_contain_text("Ada")
    version = click_turns([ada])  # one move: the frame follows it
    expect(frame.locator("#board")).to_have_attribute("data-version", str(version))
    expect(frame.locator("#embed-status")).to_contain_text("to move")
    assert not other_site.context.cookies()  # the frame set none
