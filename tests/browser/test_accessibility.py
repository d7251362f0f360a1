"""axe-core (tests/browser/package.json) on every page, at desktop and phone width, in light
and dark mode: no serious or critical violation."""

from __future__ import annotations

import pytest
from django.conf import settings
from playwright.sync_api import expect

from games import services

from tests.browser.conftest import VIEWPORT
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_accounts, make_players, play_first_moves, play_out, session_cookie, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": VIEWPORT, "phone": {"width": 360, "height": 740}}
GAMES = {"nine-board-tictactoe": 12, "tictactoe-3player": 7, "quarto-misere": 6}  # game: moves mid-game
RULES = ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player", "quarto-misere"]
READY = "#board[data-version] .board, [data-diagram] .board, #replay-board .board, main"


def axe_problems(page, axe_script) -> list[str]:
    page.add_script_tag(path=axe_script)
    return page.evaluate("""async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
        .filter((v) => ["serious", "critical"].includes(v.impact))
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`)""")


def matches():
    """A player, and for each board a match of theirs in the middle and one finished."""
    people = make_players(3, "Axe")
    made = {}
    for game, moves in GAMES.items():
        seated = people[:3] if game == "tictactoe-3player" else people[:2]
        made[f"{game} mid-game"] = play_out(start_match(game, seated), seated, seed=1, max_moves=moves).pk
        made[f"{game} finished"] = play_out(start_match(game, seated), seated, seed=2).pk
    rated = make_accounts(2, "AxeMember")
    services.match_resign(match_id=play_first_moves(start_match("quarto-misere", rated, rated=True), rated).pk,
                          user=rated[1])
    made["rated finished"] = rated[0].pk  # a player page with a rating and its chart (not a match)
    return people[0], made


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_passes_axe(browser, live_server, axe_script, width, scheme):
    player, made = outside_the_event_loop(matches)
    finished = made["quarto-misere finished"]
    member_id = made.pop("rated finished")
    pages = {"lobby (visitor)": "/", "history": "/history/", "player": f"/players/{player.pk}/",
             "player with ratings": f"/players/{member_id}/", "leaderboard": "/leaderboards/?game=quarto-misere",
             "replay": f"/matches/{finished}/replay/?ply=3", "rules": "/rules/",
             "not found": "/nowhere/", "form address": "/guest/", "log in": "/login/", "sign up": "/signup/",
             **{f"rules of {slug}": f"/rules/{slug}/" for slug in RULES},
             **{f"{name} (visitor)": f"/matches/{pk}/" for name, pk in made.items()}}
    signed_in = {"lobby (signed in)": "/", "log out": "/logout/", "player (challenge form)": f"/players/{member_id}/",
                 **{name: f"/matches/{pk}/" for name, pk in made.items()}}
    # axe arrives as an inline script: the pages' Content-Security-Policy would refuse it.
    options = {"base_url": live_server.url, "viewport": WIDTHS[width], "color_scheme": scheme, "bypass_csp": True}
    visitor = browser.new_context(**options)
    member = browser.new_context(**options)
    member.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": outside_the_event_loop(lambda: session_cookie(player)),
                         "url": live_server.url}])
    problems = {}
    try:
        for context, urls in [(visitor, pages), (member, signed_in)]:
            page = context.new_page()
            for name, url in urls.items():
                page.goto(url)
                expect(page.locator(READY).first).to_be_visible()
                found = axe_problems(page, axe_script)
                if found:
                    problems[name] = found
    finally:
        visitor.close()
        member.close()
    assert not problems, problems


def test_the_scan_finds_what_it_should(browser, live_server, axe_script):
    """A nameless button and grey-on-grey text are reported: the scan above can fail."""
    context = browser.new_context(base_url=live_server.url, bypass_csp=True)
    page = context.new_page()
    page.goto("/rules/")
    page.evaluate("""() => {
        document.querySelector("main").insertAdjacentHTML("beforeend", '<button type="button"></button>');
        document.querySelector("h1").style.color = "#d8d4cc";
    }""")
    found = " ".join(axe_problems(page, axe_script))
    context.close()
    assert "button-name" in found and "color-contrast" in found
