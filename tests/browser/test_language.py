"""A German browser gets German pages; the footer's menu switches the language and the choice
is remembered (the cookie, and the account); light and dark, at phone width, nothing overflows
(German words are long)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.services import match_create
from lobby.models import User
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_accounts, session_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def nothing_overflows(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.url
    footer = page.locator(".site-footer")
    assert footer.evaluate("e => e.scrollWidth <= e.clientWidth"), page.url


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_german_browser_gets_german_and_the_menu_switches_and_remembers(browser, live_server, scheme):
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, color_scheme=scheme, locale="de-DE")
    try:
        page = context.new_page()
        page.goto("/login/")
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.get_by_role("heading", level=1)).to_have_text("Anmelden")
        expect(page.get_by_label("Sprache")).to_have_value("de")
        # The scripts read the same language (the JavaScript catalogue).
        assert page.evaluate("gettext('Push notifications are off in this browser.')") == \
            "Push-Benachrichtigungen sind in diesem Browser aus."
        nothing_overflows(page)
        page.goto("/no-such-page/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Hier ist nichts")
        nothing_overflows(page)

        page.get_by_label("Sprache").select_option("fr")  # the menu sends itself
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(page.get_by_role("heading", level=1)).to_have_text("Rien ici")  # back on the same page
        page.goto("/signup/")
        expect(page.get_by_role("heading", level=1)).to_have_text("S’inscrire")
        nothing_overflows(page)
        page.reload()
        expect(page.get_by_label("Langue")).to_have_value("fr")
        assert {c["name"]: c["value"] for c in context.cookies()}["django_language"] == "fr"
    finally:
        context.close()


def test_an_accounts_choice_follows_it_to_another_browser(browser, live_server):
    (member,) = outside_the_event_loop(lambda: make_accounts(1, "Polyglot"))
    contexts = []
    try:
        for locale in ("en-GB", "de-DE"):
            context = browser.new_context(base_url=live_server.url, viewport=PHONE, locale=locale)
            contexts.append(context)
        first, second = (context.new_page() for context in contexts)
        cookie = outside_the_event_loop(lambda: session_cookie(member))
        contexts[0].add_cookies([{"name": "sessionid", "value": cookie, "url": live_server.url}])
        first.goto("/account/notifications/")
        expect(first.get_by_role("heading", level=1)).to_have_text("Notifications")
        first.get_by_label("Language").select_option("es")
        expect(first.get_by_role("heading", level=1)).to_have_text("Notificaciones")
        assert outside_the_event_loop(lambda: User.objects.get(pk=member.pk).language) == "es"
        nothing_overflows(first)

        second.goto("/login/?next=/account/notifications/")  # a German browser signs in: Spanish from then on
        expect(second.get_by_role("heading", level=1)).to_have_text("Anmelden")
        second.get_by_label("Benutzername").fill(member.username)
        second.get_by_label("Passwort").fill("a long enough password")
        second.get_by_role("button", name="Anmelden").last.click()
        expect(second.locator("html")).to_have_attribute("lang", "es")
        expect(second.get_by_role("heading", level=1)).to_have_text("Notificaciones")
        nothing_overflows(second)
    finally:
        for context in contexts:
            context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_german_browser_gets_the_match_page_and_its_scripts_in_german(browser, live_server, scheme):
    """The page's words and what its scripts write (the status line, the seats, the clocks'
    words) read German; at phone width nothing overflows."""
    def create():
        (member,) = make_accounts(1, "Gastgeber")
        settings = MatchSettings(game="nine-board-tictactoe-pie", time_control=TimeControl(days=2))
        return match_create(user=member, settings=settings, role="red")

    match = outside_the_event_loop(create)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, color_scheme=scheme, locale="de-DE")
    try:
        page = context.new_page()
        page.goto(f"/matches/{match.pk}/")
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.get_by_role("heading", name="Spieler", exact=True)).to_be_visible()
        expect(page.locator("#status-line")).to_have_text("Warte auf Spieler: 1 freier Platz.")
        expect(page.locator("#time-control")).to_contain_text("Fernpartie")
        seats = page.locator("#seats")
        expect(seats.locator('[data-role="red"] .seat__role')).to_have_text("Rot, spielt x")
        expect(seats.locator('li[data-role="blue"]')).to_contain_text("freier Platz")
        expect(seats.locator('li[data-role="blue"]')).to_contain_text("Wähle oben einen Namen, um beizutreten.")
        expect(page.locator("#spectators")).to_have_text(re.compile(r"^\d+ schau(t|en) zu$"))
        nothing_overflows(page)
    finally:
        context.close()
