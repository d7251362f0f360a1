"""Browser fixtures, shared by every browser test (the history pages' tests use them too).

- ``live_server``: Daphne in a child process on the test database, one for the session.
- ``browser``: Debian's Chromium driven by Playwright, one for the session.
- ``player_page(name)``: a new browser context (its own cookies) on the lobby, signed in as a
  guest called ``name`` through the header form; ``player_page(None)`` stays anonymous.
- ``page_of(user)``: a page in a new browser context signed in as the account ``user`` (its
  session cookie); ``page_of(None)``: a visitor.

Pages fail the test on any uncaught JavaScript error.

Every wait is for a condition (``expect(...)``, ``wait_for_url``, ``wait_for_function``), never
for a time. Its ceiling, ``WAIT_MS``, is generous: on a loaded machine a page may take seconds
to show what the server sent, and a passing test never waits for the ceiling.
"""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.support.live import LiveServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1200, "height": 860}
WAIT_MS = 30_000
expect.set_options(timeout=WAIT_MS)  # Playwright's own default is 5 s: too short under load
MATCH_URL = re.compile(r"/matches/(\d+)/")


@pytest.fixture(autouse=True)
def _live_server_helper():
    """Replaces pytest-django's helper of the same name, which expects its own ``live_server``
    (a thread in this process); ours is Daphne in a child process and needs no settings."""
    yield


@pytest.fixture(scope="session")
def live_server(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        # The computer player thinks briefly here: the tests check that it plays, not how well;
        # and a player who left may be claimed against after 3 seconds instead of a minute.
        # DEBUG off: the pages as people get them (the site's own error pages, not Django's).
        # Every page posts from one address, for the whole session: no limit on creating matches or guests.
        server = LiveServer(env={"COMPUTER_ITERATIONS": "150", "COMPUTER_SECONDS": "0.5",
                                 "ABANDON_SECONDS": "3", "DEBUG": "0", "CREATE_PER_MINUTE": "100000",
                                 "CREATE_PER_ADDRESS_PER_MINUTE": "100000", "COMPUTER_CREATE_PER_MINUTE": "100000",
                                 "COMPUTER_CREATE_PER_ADDRESS_PER_MINUTE": "100000",
                                 "GUEST_CREATE_PER_ADDRESS_PER_MINUTE": "100000",
                                 "GUEST_CREATE_PER_ADDRESS_PER_DAY": "100000",
                                 # A quick analysis; a job a test holds "running" is never taken over.
                                 "ANALYSIS_ROUNDS": "200", "ANALYSIS_STALE_SECONDS": "600"}).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _live_server_forgets(request):
    """After each test, the session's server forgets what it remembers of it: the next test's
    match ids are the same numbers again (tests/support/memory.py)."""
    yield
    if "live_server" in request.fixturenames:
        request.getfixturevalue("live_server").forget()


@pytest.fixture(scope="session")
def browser() -> Browser:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def player_page(browser, live_server):
    contexts, errors = [], []

    def open_page(name: str | None, viewport: dict | None = None) -> Page:
        context = browser.new_context(base_url=live_server.url, viewport=viewport or VIEWPORT)
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{name}: {error}"))
        page.goto("/")
        if name is not None:
            if page.locator("#menu-button").is_visible():  # a phone: the header's forms are behind it
                page.locator("#menu-button").click()
            header = page.locator("form.guest-form")
            header.get_by_label("Your name").fill(name)
            header.get_by_role("button", name="Play as guest").click()
            expect(page.get_by_test_id("me")).to_contain_text(name)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def page_of(browser, live_server):
    """``page_of(user)``: a page in a browser of its own, signed in as ``user`` (None: a visitor)."""
    from django.conf import settings

    from tests.browser.helpers import outside_the_event_loop
    from tests.support.players import session_cookie

    contexts = []

    def open_page(user):
        context = browser.new_context(base_url=live_server.url, viewport=VIEWPORT)
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        if user is not None:
            cookie = outside_the_event_loop(lambda: session_cookie(user))
            context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()


def match_id_of(page: Page) -> int:
    """The id of the match ``page`` is on, once it is on one (a click may still be navigating).
    A page already on a match and going to another should ``expect(page).to_have_url`` that one."""
    page.wait_for_url(MATCH_URL)
    return int(MATCH_URL.search(page.url)[1])



HERE = os.path.dirname(__file__)
AXE = os.path.join(HERE, "node_modules", "axe-core", "axe.min.js")


@pytest.fixture(scope="session")
def axe_script() -> str:
    """axe-core's script, installed from tests/browser/package-lock.json (npm ci) when missing."""
    if not os.path.exists(AXE):
        import shutil
        import subprocess

        if shutil.which("npm") is None:
            pytest.fail("npm is needed for the accessibility tests (apt-get install nodejs npm)")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True, capture_output=True)
    return AXE
