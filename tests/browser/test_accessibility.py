"""axe-core (tests/browser/package.json) on every page, at desktop and phone width, in light
and dark mode: no serious or critical violation."""

from __future__ import annotations

import pytest
from django.conf import settings
from playwright.sync_api import expect

from games import services
from games.computer.analysis import evaluate_position
from games.match.analysis import match_positions
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Analysis, Match
from tests.browser.conftest import VIEWPORT
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import (
    current_version,
    make_accounts,
    make_players,
    play_first_moves,
    play_out,
    session_cookie,
    start_match,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"desktop": VIEWPORT, "phone": {"width": 360, "height": 740}}
GAMES = {"nine-board-tictactoe": 12, "tictactoe-3player": 7, "quarto-misere": 6}  # game: moves mid-game
RULES = ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player", "quarto-misere"]
READY = "#board[data-version] .board, [data-diagram] .board, #replay-board .board, main"


# The page's background in each theme (static/css/theme.css --bg): the scan ran in the theme it names.
BACKGROUNDS = {"light": "rgb(244, 242, 237)", "dark": "rgb(21, 23, 27)"}


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
    analysed(made["tictactoe-3player finished"])  # its replay shows a graph, marks and a summary
    return people[0], made


def analysed(match_id: int) -> Analysis:
    """A done analysis of the match, written as the worker would (few rounds: only the page is scanned)."""
    match = Match.objects.get(pk=match_id)
    positions = match_positions(match.game, list(match.moves.values_list("role", "action")))
    return Analysis.objects.create(match=match, status=Analysis.Status.DONE, rounds=30, positions=len(positions),
                                   evaluations=[evaluate_position(match.game, state, ply, 30)
                                                for ply, state in enumerate(positions)])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_passes_axe(browser, live_server, axe_script, width, scheme):
    player, made = outside_the_event_loop(matches)
    finished = made["quarto-misere finished"]
    member_id = made.pop("rated finished")
    pages = {"lobby (visitor)": "/", "history": "/history/", "player": f"/players/{player.pk}/",
             "player with ratings": f"/players/{member_id}/", "leaderboard": "/leaderboards/?game=quarto-misere",
             "replay": f"/matches/{finished}/replay/?ply=3", "rules": "/rules/",
             "replay with its analysis": f"/matches/{made['tictactoe-3player finished']}/replay/?ply=5",
             "embed of a live match": f"/embed/{made['quarto-misere mid-game']}/", "embed of a finished match":
             f"/embed/{finished}/",
             "not found": "/nowhere/", "form address": "/guest/", "log in": "/login/", "sign up": "/signup/",
             **{f"rules of {slug}": f"/rules/{slug}/" for slug in RULES},
             **{f"{name} (visitor)": f"/matches/{pk}/" for name, pk in made.items()}}
    signed_in = {"lobby (signed in)": "/", "log out": "/logout/", "player (challenge form)": f"/players/{member_id}/",
                 "following": "/following/",
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
                scan(page, axe_script, scheme, name, problems)
    finally:
        visitor.close()
        member.close()
    assert not problems, problems


def scan(page, axe_script, scheme: str, name: str, problems: dict, ready: str = READY) -> None:
    """Scan ``page`` once ``ready`` shows, after checking it is drawn in ``scheme``."""
    expect(page.locator(ready).first).to_be_visible()
    expect(page.locator("html")).to_have_css("background-color", BACKGROUNDS[scheme])
    found = axe_problems(page, axe_script)
    if found:
        problems[name] = found


def match_states():
    """Two members, a pending challenge to the first (its tray shows on every page), and
    matches in the states the match page draws differently: offers, clocks, a rematch offered
    and one declined, a waiting match, chat."""
    ada, bob = make_accounts(2, "Shade")
    services.challenge_create(user=bob, to_id=ada.pk, settings=MatchSettings(game="quarto-misere"))
    offers = play_out(start_match("nine-board-tictactoe", [ada, bob]), [ada, bob], seed=3, max_moves=2)
    services.draw_offer(match_id=offers.pk, user=bob)
    services.takeback_offer(match_id=offers.pk, user=bob, version=current_version(offers))
    services.chat_post(match_id=offers.pk, user=bob, text="Shall we call it a day?")
    services.chat_post(match_id=offers.pk, user=ada, text="Not yet.")
    clocked = play_out(start_match("quarto-misere", [ada, bob], rated=True, time_control=TimeControl(base=300, increment=3)),
                       [ada, bob], seed=4, max_moves=3)
    days = start_match("tictactoe-3player", [ada, bob, make_players(1, "Third")[0]], time_control=TimeControl(days=2))
    rematched = play_first_moves(start_match("quarto-misere", [ada, bob], rated=True), [ada, bob])
    services.match_resign(match_id=rematched.pk, user=ada)
    services.rematch_offer(match_id=rematched.pk, user=bob)
    declined = play_first_moves(start_match("quarto-misere", [ada, bob]), [ada, bob])
    services.match_resign(match_id=declined.pk, user=bob)
    called_off = services.rematch_offer(match_id=declined.pk, user=ada)
    services.rematch_decline(match_id=declined.pk, user=bob)
    waiting = services.match_create(user=ada, settings=MatchSettings(game="tictactoe-x9"), is_private=True)
    notice = play_first_moves(start_match("nine-board-tictactoe", [ada, bob]), [ada, bob])  # a draw needs a move each
    return (ada, bob), {"offers and chat": offers.pk, "running clocks": clocked.pk, "days per move": days.pk,
                        "rematch offered": rematched.pk, "rematch declined": called_off.pk, "waiting": waiting.pk,
                        "draw declined": notice.pk}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_state_a_page_reaches_by_play_passes_axe(browser, live_server, axe_script, width, scheme):
    """The states a page reaches only by what happens in it, each scanned as it shows: the
    offers line, clocks, a rematch offered or declined, the resign confirmation, an error, a
    declined draw's notice, a look back at an earlier position, the challenge tray; the lobby's
    list of the player's matches and its quick-game search, a challenge sent."""
    (ada, bob), made = outside_the_event_loop(match_states)
    options = {"base_url": live_server.url, "viewport": WIDTHS[width], "color_scheme": scheme, "bypass_csp": True}
    contexts = {}
    for who in (ada, bob):
        contexts[who.pk] = browser.new_context(**options)
        contexts[who.pk].add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                                       "value": outside_the_event_loop(lambda who=who: session_cookie(who))}])
    problems = {}
    try:
        page = contexts[ada.pk].new_page()
        for name, expected in [("offers and chat", "asks to take back"), ("running clocks", None),
                               ("days per move", None), ("rematch offered", "offers a rematch"),
                               ("rematch declined", "Rematch declined"), ("waiting", "Waiting for players")]:
            page.goto(f"/matches/{made[name]}/")
            expect(page.locator("#board[data-version]")).to_be_visible()
            if expected:
                expect(page.locator("main")).to_contain_text(expected)
            scan(page, axe_script, scheme, name, problems, ready="#challenge-tray .challenge")
        page.goto(f"/matches/{made['running clocks']}/")
        expect(page.locator(".clock--running:visible").first).to_be_visible()
        page.get_by_role("button", name="Resign").click()
        page.evaluate("() => window.boardhall.socket.send({type: 'draw_accept'})")  # no offer: an error shows
        expect(page.locator("#action-error")).to_be_visible()
        page.locator("#moves .moves__step").first.click()
        expect(page.locator(".lookback__bar")).to_be_visible()
        scan(page, axe_script, scheme, "resign confirmation, error, look back", problems,
             ready=".confirm .button--danger")

        page.goto(f"/matches/{made['draw declined']}/")
        theirs = contexts[bob.pk].new_page()
        theirs.goto(f"/matches/{made['draw declined']}/")
        page.get_by_role("button", name="Offer a draw").click()
        theirs.locator("#controls").get_by_role("button", name="Decline").click()
        expect(page.locator("#offers")).to_contain_text("declined the draw")
        scan(page, axe_script, scheme, "draw declined", problems, ready="#offers")

        page.goto("/")  # "Your matches" with whose turn it is, then waiting for a quick game
        expect(page.locator("#my-matches .tag--turn").first).to_be_visible()
        page.locator("#quick-form").get_by_role("button", name="Find an opponent").click()
        expect(page.locator("#quick-status")).to_contain_text("Waiting for an opponent")
        scan(page, axe_script, scheme, "lobby: your matches, quick game waiting", problems, ready="#quick-status")
        page.goto(f"/players/{bob.pk}/")  # a challenge sent from the player page, in both trays
        page.locator("#challenge-form").get_by_role("button", name="Challenge").click()
        expect(page.locator("#challenge-status")).to_have_text("Challenge sent: waiting for the answer.")
        scan(page, axe_script, scheme, "player page: challenge sent", problems, ready="#challenge-tray .challenge")
    finally:
        for context in contexts.values():
            context.close()
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


def test_the_scan_finds_a_colour_with_no_dark_counterpart(browser, live_server, axe_script):
    """The offers line's old pale yellow, which stayed light in dark mode under near-white text."""
    context = browser.new_context(base_url=live_server.url, bypass_csp=True, color_scheme="dark")
    page = context.new_page()
    page.goto("/rules/")
    assert axe_problems(page, axe_script) == []
    page.evaluate("""() => document.querySelector("main").insertAdjacentHTML(
        "beforeend", '<p style="background: #fffbea">Ada offers a draw.</p>')""")
    found = " ".join(axe_problems(page, axe_script))
    context.close()
    assert "color-contrast" in found
