"""The embeddable board on another site's page: a page served by a second HTTP server, on
another host name and port (another site), frames /embed/<id>/ of the live server, and the frame
follows the match as a player moves; it offers no move of its own. A finished match's embed steps
through its replay."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import VIEWPORT, WAIT_MS
from tests.browser.helpers import PLAYABLE, outside_the_event_loop, wait_version
from tests.support.players import make_players, play_out, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class OtherSite:
    """A static page with an iframe of ``embed_url``, served at http://localhost:<port>/."""

    def __init__(self, embed_url: str) -> None:
        body = (f'<!doctype html><html><head><title>A blog</title></head><body><h1>Look at this game</h1>'
                f'<iframe src="{embed_url}" width="400" height="500" title="The match"></iframe></body></html>').encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.server.server_address[1]}/"

    def __enter__(self) -> OtherSite:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def visitor(browser):
    """A page in a browser context of its own, on no site yet; fails on JavaScript errors."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_an_embed_on_another_site_follows_a_live_match(live_server, page_of, visitor):
    ada, bob = outside_the_event_loop(lambda: make_players(2))
    match = outside_the_event_loop(lambda: start_match("nine-board-tictactoe", [ada, bob]))
    with OtherSite(f"{live_server.url}/embed/{match.pk}/") as site:
        visitor.goto(site.url)
        frame = visitor.frame_locator("iframe")
        expect(frame.locator("#board")).to_have_attribute("data-version", "0")
        expect(frame.locator("#embed-seats")).to_contain_text("player 1")
        expect(frame.locator("#embed-status")).to_have_text("player 1 to move.")
        expect(frame.locator("#board [data-action]:not([disabled])")).to_have_count(0)  # nothing to play

        player = page_of(ada)
        player.goto(f"/matches/{match.pk}/")
        wait_version(player, 0)
        player.locator(PLAYABLE).first.click()
        wait_version(player, 1)

        expect(frame.locator("#board")).to_have_attribute("data-version", "1")
        expect(frame.locator("#embed-status")).to_have_text("player 2 to move.")
        expect(frame.locator("#board .mark")).to_have_count(1)
        expect(frame.locator("#embed-connection")).to_be_hidden()


def test_an_embed_of_a_finished_match_steps_through_its_replay(live_server, visitor):
    players = outside_the_event_loop(lambda: make_players(2))
    match = outside_the_event_loop(lambda: play_out(start_match("nine-board-tictactoe", players), players))
    with OtherSite(f"{live_server.url}/embed/{match.pk}/") as site:
        visitor.goto(site.url)
        frame = visitor.frame_locator("iframe")
        expect(frame.locator("#replay-board")).to_have_attribute("data-ply", str(match.plies))
        expect(frame.get_by_test_id("embed-result")).to_have_text(re.compile(r"^(player \d won|player \d .* and won\.|A draw)"))
        frame.get_by_role("button", name="First position").click()
        expect(frame.locator("#replay-board")).to_have_attribute("data-ply", "0")
        frame.get_by_role("button", name="Next move").click()
        expect(frame.locator("#replay-board")).to_have_attribute("data-ply", "1")
        expect(frame.locator("#replay-board .mark")).to_have_count(1)
