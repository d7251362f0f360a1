"""Steps the browser tests share: create and join matches through the pages, play by clicking."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

from django.db import connections
from playwright.sync_api import Page, expect

from games.match.labels import role_label
from tests.browser.conftest import match_id_of

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PLAYABLE = "#board [data-action]:not([disabled])"


def create_match(page: Page, game: str, seat: str = "", private: bool = False) -> int:
    """Create a match from the lobby form; returns its id (the page is on the match)."""
    page.goto("/")
    form = page.locator("#create-form")
    form.get_by_label("Game").select_option(game)
    form.get_by_label("Your seat").select_option(seat)
    if private:
        form.get_by_label("Private").check()
    form.get_by_role("button", name="Create match").click()
    expect(page.locator("#board")).to_have_attribute("data-version", "0")
    return match_id_of(page)


def join_match(page: Page, url: str, seat: str) -> None:
    page.goto(url)
    wait_version(page, 0)
    page.get_by_role("button", name=f"Join as {role_label(seat)}").click()
    expect(page.locator("#seats")).to_contain_text("(you)")


def wait_version(page: Page, version: int) -> None:
    expect(page.locator("#board")).to_have_attribute("data-version", str(version))


def click_turns(pages: list[Page], version: int = 0) -> int:
    """Each page in turn (the player to move) plays its first playable action, from ``version``
    (the first moves, so that the match has begun); returns the version after them all."""
    for page in pages:
        wait_version(page, version)
        page.locator(PLAYABLE).first.click()
        version += 1
    for page in pages:
        wait_version(page, version)
    return version


def my_turn(page: Page) -> bool:
    return page.locator("#board.board-holder--my-turn").count() == 1


def playable(page: Page) -> list[str]:
    return sorted(page.eval_on_selector_all(PLAYABLE, "cells => cells.map(c => c.dataset.action)"))


def play_to_end(players: list[Page], watcher: Page, rng: random.Random, version: int = 0,
                on_turn=None) -> int:
    """Click random playable cells (or pieces) for whoever is to move until the match ends.

    Every page must show each version before the next click; ``watcher`` must also list each
    move. ``on_turn(version, page)`` may play the move itself (return True) or leave it to the
    random choice. Returns the final version.
    """
    while True:
        for page in [*players, watcher]:
            wait_version(page, version)
        expect(watcher.locator("#moves li")).to_have_count(version)
        if watcher.locator("#board").get_attribute("data-status") != "active":
            return version
        movers = [page for page in players if my_turn(page)]
        assert len(movers) == 1, f"version {version}: {len(movers)} pages think it is their turn"
        mover = movers[0]
        if not (on_turn and on_turn(version, mover)):
            action = rng.choice(playable(mover))
            mover.locator(f'{PLAYABLE}[data-action="{action}"]').click()
        version += 1


def screenshot(page: Page, name: str) -> None:
    """Save the page as docs/screenshots/<name>.png when BOARDHALL_SCREENSHOTS=1."""
    if os.environ.get("BOARDHALL_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def record_notifications(page: Page) -> None:
    """The page's tab is in the background and its player allowed notifications: the ones
    shown are kept in ``window.shown`` as [title, body]."""
    page.evaluate("""() => {
        window.shown = [];
        window.Notification = class { constructor(title, options) { window.shown.push([title, options.body]); } };
        window.Notification.permission = "granted";
        Object.defineProperty(document, "hidden", { get: () => true });
    }""")


def outside_the_event_loop(work):
    """Run ``work`` in its own thread: Playwright's loop runs in this one, and the services'
    on-commit broadcasts (``async_to_sync``) refuse to run beside a running loop."""
    outcome = {}

    def run():
        try:
            outcome["value"] = work()
        except BaseException as err:  # re-raised in the test's thread
            outcome["error"] = err
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
