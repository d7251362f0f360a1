"""The interface pass, in real Chromium: coordinates, keyboard play, screen-reader text,
phones, the lobby's dead matches, a guest logging out, looking back, the rules pages,
spectators and rematches, error pages, dark mode."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Analysis, Match, Seat
from tests.browser.conftest import VIEWPORT, match_id_of
from tests.browser.helpers import (
    PLAYABLE,
    click_turns,
    create_match,
    join_match,
    outside_the_event_loop,
    screenshot,
    wait_version,
)
from tests.support.players import make_players, play_out, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def started(player_page, game="nine-board-tictactoe", roles=("xPlayer", "oPlayer")):
    ada, bob = player_page("Ada"), player_page("Bob")
    match_id = create_match(ada, game, seat=roles[0])
    join_match(bob, f"/matches/{match_id}/", roles[1])
    wait_version(ada, 0)
    return ada, bob, match_id


def center(box):
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_coordinates_match_the_move_list(player_page):
    ada, bob, match_id = started(player_page)
    ada.locator('#board [data-action="(play 2 2 3 1 x)"]').click()
    wait_version(bob, 1)
    expect(bob.locator("#moves li .moves__step")).to_have_text(["x B2 a3"])
    # Column "B" and the small "a" under it, row "2" and the small "3" beside it, meet on that cell.
    cell = bob.locator('#board [data-cell="42"]')  # sub-board (2, 2), cell (3, 1)
    expect(cell).to_have_attribute("data-content", "x")
    x, y = center(cell.bounding_box())
    top = bob.locator("#board .coords__top .coords__group").nth(1)
    assert top.locator(".coords__major").inner_text() == "B"
    letter = top.locator(".coords__minor").nth(0)
    assert letter.inner_text() == "a" and abs(center(letter.bounding_box())[0] - x) < 2
    left = bob.locator("#board .coords__left .coords__group").nth(1)
    assert left.locator(".coords__major").inner_text() == "2"
    number = left.locator(".coords__minor").nth(2)
    assert number.inner_text() == "3" and abs(center(number.bounding_box())[1] - y) < 2


@pytest.mark.parametrize("game,size", [("tictactoe-3player", 5), ("quarto-misere", 4)])
def test_small_boards_have_coordinates_too(player_page, game, size):
    ada = player_page("Ada")
    create_match(ada, game)
    expect(ada.locator("#board .coords__top .coords__minor")).to_have_text(list("abcde"[:size]))
    expect(ada.locator("#board .coords__left .coords__minor")).to_have_text([str(n) for n in range(1, size + 1)])


# Each move row's number (its centre) and its label's first line (the centre of the line boxes
# at the label's top), measured in one go in the page: the list is drawn anew by each state the
# page applies, so measuring row by row from the test could read a row the page had just replaced.
ROWS_MEASURED = """list => [...list.querySelectorAll("li")].map((row) => {
    const number = row.querySelector(".moves__number").getBoundingClientRect();
    const label = row.querySelector(".moves__step");
    const range = document.createRange();
    range.selectNodeContents(label);
    const rects = [...range.getClientRects()].filter((r) => r.height > 0);
    const top = Math.min(...rects.map((r) => r.top));
    const first = rects.filter((r) => r.top < top + 4);
    return {text: row.innerText, numberHeight: number.height, labelHeight: label.getBoundingClientRect().height,
            numberMiddle: number.top + number.height / 2,
            firstLineMiddle: (Math.min(...first.map((r) => r.top)) + Math.max(...first.map((r) => r.bottom))) / 2};
})"""


def test_a_long_move_label_keeps_its_number_beside_its_first_line(player_page):
    """In the move list, a Quarto move whose label wraps onto a second line has its number beside
    the label's first line, not beside the second."""
    people = outside_the_event_loop(lambda: make_players(2, "Wrap"))
    match = outside_the_event_loop(lambda: play_out(start_match("quarto-misere", people), people, seed=2))
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/")
    wait_version(page, match.version)  # the live state applied: the list as it stays
    expect(page.locator("#moves li")).to_have_count(match.version)
    rows = page.locator("#moves").evaluate(ROWS_MEASURED)
    wrapped = [row for row in rows if row["labelHeight"] >= 1.8 * row["numberHeight"]]
    assert wrapped, "no label wrapped: the test shows nothing"
    for row in wrapped:
        assert abs(row["numberMiddle"] - row["firstLineMiddle"]) < 3, row["text"]


def test_the_board_is_one_tab_stop_played_with_arrows_and_enter(player_page):
    ada, bob, match_id = started(player_page)
    expect(ada.locator('#board [data-cell][tabindex="0"]')).to_have_count(1)
    ada.locator(".match__rules").focus()
    ada.keyboard.press("Tab")  # from the link before the board, one Tab reaches a cell
    focused = ada.locator("#board [data-cell]:focus")
    expect(focused).to_have_attribute("data-row", "0")
    expect(focused).to_have_attribute("data-col", "0")
    for key in ["ArrowRight", "ArrowRight", "ArrowDown", "ArrowRight"]:
        ada.keyboard.press(key)
    expect(focused).to_have_attribute("aria-label", "sub-board B1, cell a2, empty, playable")
    ring = ada.locator("#board [data-cell]:focus").bounding_box()
    board = ada.locator("#board .nine-grid").bounding_box()
    assert board["x"] <= ring["x"] and ring["x"] + ring["width"] <= board["x"] + board["width"]
    ada.keyboard.press("Enter")
    wait_version(ada, 1)
    assert Match.objects.get(pk=match_id).moves.get().action == "(play 1 2 2 1 x)"
    # One more Tab leaves the board: everything on it was a single stop.
    ada.keyboard.press("Tab")
    expect(ada.locator("#board :focus")).to_have_count(0)


def test_cells_are_named_and_each_move_is_announced(player_page):
    ada, bob, _ = started(player_page)
    expect(bob.locator('#board [data-cell="0"]')).to_have_attribute("aria-label", "sub-board A1, cell a1, empty")
    ada.locator('#board [data-action="(play 1 3 2 2 x)"]').click()
    wait_version(bob, 1)
    live = bob.locator("[aria-live] #last-move, #last-move[aria-live]")
    expect(live).to_have_text("Last move: Ada (X), x C1 b2.")
    expect(bob.locator('#board [data-cell="22"]')).to_have_attribute(
        "aria-label", "sub-board C1, cell b2, x, last move")


def test_every_page_fits_a_phone_and_nine_board_cells_are_comfortable(player_page):
    def analysed_match():
        match = play_out(start_match("quarto-misere", people), people, seed=2)
        even = {"scores": {"white": 0.5, "black": 0.5}, "best": None}
        Analysis.objects.create(match=match, status=Analysis.Status.DONE, rounds=200, positions=match.plies + 1,
                                evaluations=[even] * (match.plies + 1), finished_at=timezone.now())
        return match

    people = outside_the_event_loop(lambda: make_players(2, "Maximiliana Longname"))
    match = outside_the_event_loop(analysed_match)
    phone = player_page("Phil", viewport={"width": 360, "height": 740})
    for url in ["/", "/history/", f"/players/{people[0].pk}/", "/rules/", "/rules/nine-board-tictactoe/",
                "/rules/quarto-misere/", "/nowhere/"]:
        phone.goto(url)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360, url
    phone.goto(f"/matches/{match.pk}/replay/")  # the analysis's summary table: cards, its last column on the page
    blunders = phone.get_by_test_id("blunders-white").bounding_box()
    assert blunders["x"] + blunders["width"] <= 360, blunders
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    roomy = player_page("Rita", viewport=PHONE)
    match_id = create_match(roomy, "nine-board-tictactoe", seat="xPlayer")
    assert roomy.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    cell = roomy.locator("#board .cell").first.bounding_box()
    assert cell["width"] >= 38, cell
    sam = player_page("Sam")
    join_match(sam, f"/matches/{match_id}/", "oPlayer")
    for version in range(6):  # a few moves, for the screenshot in dark mode
        mover = (roomy, sam)[version % 2]
        wait_version(mover, version)
        mover.locator(PLAYABLE).nth(version).click()
    wait_version(roomy, 6)
    roomy.emulate_media(color_scheme="dark")
    screenshot(roomy, "phone-dark")


def test_the_lobby_shows_only_the_fields_and_buttons_that_apply(player_page):
    """Whatever hides itself with the hidden attribute is out of sight, although its class lays it
    out: the custom clock's fields only for a custom clock, and Quick game offers Find before a
    search and Cancel while it waits, never both."""
    ada = player_page("Ada")
    create = ada.locator("#create-form")
    minutes, seconds = create.get_by_label("Minutes each"), create.get_by_label("Seconds added per move")
    expect(create.get_by_label("Time control")).to_have_value("untimed")
    expect(minutes).to_be_hidden()
    expect(seconds).to_be_hidden()
    create.get_by_label("Time control").select_option("custom")
    expect(minutes).to_be_visible()
    expect(seconds).to_be_visible()
    create.get_by_label("Time control").select_option("untimed")
    expect(minutes).to_be_hidden()

    quick = ada.locator("#quick-form")
    find, cancel = quick.get_by_role("button", name="Find an opponent"), quick.get_by_role("button", name="Cancel")
    expect(find).to_be_visible()
    expect(cancel).to_be_hidden()
    quick.get_by_label("Rule set").select_option("tictactoe-x9")
    find.click()
    expect(ada.locator("#quick-status")).to_contain_text("Waiting for an opponent")
    expect(cancel).to_be_visible()
    expect(find).to_be_hidden()
    cancel.click()
    expect(find).to_be_visible()
    expect(cancel).to_be_hidden()


def inside(inner, outer) -> bool:
    return (outer["x"] <= inner["x"] and inner["x"] + inner["width"] <= outer["x"] + outer["width"]
            and outer["y"] <= inner["y"] and inner["y"] + inner["height"] <= outer["y"] + outer["height"])


@pytest.mark.parametrize("game", ["nine-board-tictactoe", "quarto-misere"])
def test_on_a_phone_the_clocks_and_the_pool_are_on_screen_with_the_board(player_page, game):
    """At phone width a timed match shows every clock right above the board, on the first screen;
    the board stays inside its section; and Quarto's pool is right under the board, all of it on
    the first screen too, so a player never scrolls between pool and board."""
    ada = player_page("Ada", viewport=PHONE)
    form = ada.locator("#create-form")
    form.get_by_label("Game").select_option(game)
    form.get_by_label("Time control").select_option("3+2")
    form.get_by_label("The computer: start at once").check()
    form.get_by_role("button", name="Create match").click()
    expect(ada.locator("#status-line")).to_contain_text("Your turn")  # the computer has moved, if it was first
    screen = {"x": 0, "y": 0, **PHONE}
    strip = ada.locator("#board-clocks .clock")
    expect(strip).to_have_count(2)
    grid = ada.locator("#board .coords").bounding_box()
    for clock in strip.all():
        box = clock.bounding_box()
        assert inside(box, screen) and box["y"] + box["height"] <= grid["y"] < box["y"] + box["height"] + 40, box
    assert inside(ada.locator("#board .board").bounding_box(), ada.locator(".match__board").bounding_box())
    if game == "quarto-misere":
        pool = ada.locator("#board .pool-grid").bounding_box()
        assert inside(pool, screen), pool
        assert 0 <= pool["y"] - (grid["y"] + grid["height"]) < 80, (pool, grid)


def test_dead_matches_leave_the_lobby_and_waiting_ones_expire(player_page, live_server):
    watcher = player_page(None)
    ada = player_page("Ada")
    waiting = create_match(ada, "quarto-misere")
    expect(ada.locator("#status-line")).to_contain_text("Keep this page open")
    open_list = watcher.locator("#open-matches")
    expect(open_list.locator(f'[data-match-id="{waiting}"]')).to_be_visible()
    ada.goto("/history/")  # the creator closes the match page
    expect(open_list.locator(f'[data-match-id="{waiting}"]')).to_have_count(0)

    cy = player_page("Cy")
    cy.goto("/")
    form = cy.locator("#create-form")
    form.get_by_label("Game").select_option("quarto-misere")
    form.get_by_label("The computer: start at once").check()
    form.get_by_role("button", name="Create match").click()
    computer = match_id_of(cy)  # once the click has landed on the match page
    expect(cy.locator("#board")).to_have_attribute("data-status", "active")  # its socket is open: Cy is at the table
    live_list = watcher.locator("#live-matches")
    expect(live_list.locator(f'[data-match-id="{computer}"]')).to_be_visible()
    cy.goto("/history/")  # the only person at the table leaves
    expect(live_list.locator(f'[data-match-id="{computer}"]')).to_have_count(0)

    # Long enough after the creator left (the live server has the default setting), the next
    # visit to the lobby calls the match off.
    gone = timezone.now() - timedelta(seconds=settings.WAITING_EXPIRE_SECONDS + 1)
    Seat.objects.filter(match_id=waiting).update(away_since=gone)
    watcher.goto("/")
    assert Match.objects.get(pk=waiting).status == Match.Status.ABORTED
    ada.goto(f"/matches/{waiting}/")
    expect(ada.locator("#status-line")).to_have_text("Aborted: no result.")


def test_a_guest_is_warned_before_logging_out_and_the_opponent_is_not_kept_waiting(player_page):
    ada, bob, match_id = started(player_page)
    click_turns([ada, bob])  # both have begun: leaving now loses the match
    ada.get_by_role("button", name="Log out").click()
    warning = ada.get_by_test_id("logout-warning")
    expect(warning).to_contain_text("give up the name Ada")
    expect(warning.get_by_role("link", name="Sign up and keep the name")).to_have_attribute("href", "/signup/")
    expect(warning).to_contain_text(f"#{match_id}: you resign")
    expect(bob.locator("#board")).to_have_attribute("data-status", "active")  # nothing happened yet
    warning.get_by_role("button", name="Log out and give up the name").click()
    expect(ada.locator(".messages")).to_contain_text("the name Ada is free again")
    expect(bob.locator("#status-line")).to_have_text("Game over: Bob won: Ada resigned.")
    newcomer = player_page("Ada")  # the name can be taken again
    expect(newcomer.get_by_test_id("me")).to_contain_text("Ada")


def test_logging_out_in_one_tab_signs_out_the_others(player_page):
    ada, bob, match_id = started(player_page)
    other_tab = ada.context.new_page()
    other_tab.goto(f"/matches/{match_id}/")
    expect(other_tab.get_by_test_id("me")).to_contain_text("Ada")
    ada.get_by_role("button", name="Log out").click()
    ada.get_by_test_id("logout-warning").get_by_role("button", name="Log out and give up the name").click()
    expect(other_tab.get_by_test_id("me")).to_have_count(0)  # reloaded, signed out
    expect(other_tab.locator("form.guest-form")).to_be_visible()


def test_looking_back_while_the_game_goes_on(player_page):
    ada, bob, match_id = started(player_page)
    for version, (page, action) in enumerate([(ada, "(play 2 2 1 1 x)"), (bob, "(play 1 1 2 2 o)"),
                                             (ada, "(play 2 2 3 3 x)")]):
        wait_version(page, version)
        page.locator(f'#board [data-action="{action}"]').click()
    wait_version(bob, 3)
    bob.locator('#moves button[data-ply="1"]').click()
    expect(bob.locator("#lookback")).to_contain_text("After move 1 of 3")
    expect(bob.locator("#lookback-board [data-content]")).to_have_count(1)
    expect(bob.locator("#board")).to_be_hidden()
    bob.locator("#lookback-board [data-content]").first.click(force=True)  # a click on that board keeps the arrows
    bob.keyboard.press("ArrowRight")
    expect(bob.locator("#lookback-board [data-content]")).to_have_count(2)
    expect(bob.locator('#moves button[data-ply="2"]')).to_have_attribute("aria-current", "step")
    bob.get_by_role("button", name="Back to the live game").click()
    expect(bob.locator("#board")).to_be_visible()
    expect(bob.locator("#lookback")).to_be_hidden()
    bob.locator('#moves button[data-ply="2"]').click()
    expect(bob.locator("#lookback")).to_be_visible()
    bob.keyboard.press("End")
    expect(bob.locator("#lookback")).to_be_hidden()
    # Ada looks back; Bob's move meanwhile reaches her live board, and the count.
    ada.locator("body").click(position={"x": 5, "y": 5})
    ada.keyboard.press("ArrowLeft")
    expect(ada.locator("#lookback")).to_contain_text("After move 2 of 3")
    bob.locator(PLAYABLE).first.click()
    wait_version(ada, 4)
    expect(ada.locator("#lookback")).to_contain_text("After move 2 of 4")
    ada.get_by_role("button", name="Back to the live game").click()
    expect(ada.locator("#board")).to_have_class(re.compile("board-holder--my-turn"))
    assert Match.objects.get(pk=match_id).version == 4


def test_rules_pages_draw_their_diagrams_for_visitors(player_page):
    visitor = player_page(None)
    cards = visitor.locator(".lobby__games .game-list__item")
    expect(cards).to_have_count(5)
    cards.first.get_by_role("link").click()
    expect(visitor.locator("h1")).to_have_text("How to play Nine-Board Tic-Tac-Toe")
    for slug in ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player",
                 "quarto-misere"]:
        visitor.goto(f"/rules/{slug}/")
        figures = visitor.locator("[data-diagram]")
        assert figures.count() >= 1
        expect(visitor.locator("[data-diagram] .board")).to_have_count(figures.count())
    expect(visitor.locator('[data-diagram="line"] .cell--line')).to_have_count(4)
    screenshot(visitor, "rules-quarto")


def ada_resigned_to_bob(player_page):
    """Ada and Bob's Quarto, which Ada resigned, and a spectator's page on it."""
    ada, bob, match_id = started(player_page, "quarto-misere", ("white", "black"))
    watcher = player_page(None)
    watcher.goto(f"/matches/{match_id}/")
    click_turns([ada, ada, bob])  # Ada chooses and places a piece, Bob chooses one: both have begun
    ada.get_by_role("button", name="Resign").click()
    ada.get_by_role("button", name="Yes, resign").click()
    expect(watcher.locator("#status-line")).to_have_text("Game over: Bob won: Ada resigned.")
    return ada, bob, watcher, match_id


def test_spectators_are_pointed_to_the_rematch(player_page):
    ada, bob, watcher, match_id = ada_resigned_to_bob(player_page)
    bob.get_by_role("button", name="Offer a rematch").click()
    link = watcher.get_by_role("link", name="Watch the rematch")
    expect(link).to_have_attribute("href", f"/matches/{match_id + 1}/")
    expect(watcher.locator("#controls")).to_contain_text("Bob offered a rematch.")


def test_a_declined_rematch_leaves_every_page(player_page):
    ada, bob, watcher, match_id = ada_resigned_to_bob(player_page)
    bob.get_by_role("button", name="Offer a rematch").click()
    expect(ada.locator("#controls")).to_contain_text("Bob offers a rematch.")
    expect(watcher.get_by_role("link", name="Watch the rematch")).to_be_visible()
    ada.locator("#controls").get_by_role("button", name="Decline").click()
    expect(ada.get_by_role("button", name="Offer a rematch")).to_be_visible()
    expect(ada.locator("#controls")).not_to_contain_text("offers a rematch")
    expect(watcher.get_by_role("link", name="Watch the rematch")).to_have_count(0)
    # bob waits on the rematch's page; back on the match, he may not offer another
    expect(bob.locator("#status-line")).to_have_text("Rematch declined by Ada: this match was called off.")
    bob.goto(f"/matches/{match_id}/")
    expect(bob.locator("#controls")).to_have_text("Rematch declined.")
    expect(bob.get_by_role("button", name="Offer a rematch")).to_have_count(0)


def test_a_rematch_accepted_in_another_tab_leaves_no_offer_to_answer(player_page):
    """Ada accepts Bob's rematch in a second tab: her first tab, still on the finished match,
    no longer offers Accept and Decline (both refused now) but leads to the rematch under way,
    and so does the finished match opened again later; the watcher is taken to the rematch."""
    ada, bob, watcher, match_id = ada_resigned_to_bob(player_page)
    second = ada.context.new_page()
    second.goto(f"/matches/{match_id}/")
    bob.get_by_role("button", name="Offer a rematch").click()
    second.get_by_role("button", name="Accept the rematch").click()
    expect(second).to_have_url(re.compile(rf"/matches/{match_id + 1}/"))
    expect(bob.locator("#board")).to_have_attribute("data-status", "active")
    bob.goto(f"/matches/{match_id}/")  # back on the finished match, from his history
    for page in (ada, bob):
        expect(page.get_by_role("link", name="Go to the rematch")).to_have_attribute("href", f"/matches/{match_id + 1}/")
        expect(page.locator("#controls").get_by_role("button")).to_have_count(0)
        expect(page.locator("#controls")).not_to_contain_text("offers a rematch")
    expect(watcher).to_have_url(re.compile(rf"/matches/{match_id + 1}/"))  # watchers follow the players


def test_replay_header_says_who_won_and_its_buttons_are_the_sites(player_page):
    people = outside_the_event_loop(lambda: make_players(2, "Replay"))
    match = outside_the_event_loop(lambda: play_out(start_match("quarto-misere", people), people, seed=3))
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/replay/")
    winner = [p.display_name for p in people if p.pk == match.seats.get(outcome="won").player_id]
    expect(page.get_by_test_id("replay-result")).to_contain_text(f"{winner[0]} won")
    for button in page.locator(".replay-controls button").all():
        expect(button).to_have_class(re.compile(r"\bbutton\b"))


def test_error_pages_and_no_console_errors(player_page):
    page = player_page(None)
    problems = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    for url, status in [("/nowhere/", 404), ("/matches/999999/", 404), ("/guest/", 405)]:
        response = page.goto(url)
        assert response.status == status
        expect(page.get_by_test_id("error-page").get_by_role("link", name="Back to the lobby")).to_be_visible()
        expect(page.locator(".site-header")).to_be_visible()
    page.goto("/")
    expect(page.locator("#lobby-status")).to_have_text("live")  # its scripts ran and its socket is open
    assert [p for p in problems if "404" not in p and "405" not in p] == []
    assert page.request.get("/static/favicon.svg").ok


def test_dark_mode_follows_the_system_and_the_switch_is_remembered(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport=VIEWPORT, color_scheme="dark")
    page = context.new_page()
    page.goto("/")
    background = "getComputedStyle(document.documentElement).backgroundColor"
    dark = page.evaluate(background)
    assert sum(int(n) for n in re.findall(r"\d+", dark)[:3]) < 150, dark
    page.locator("#theme-choice").select_option("light")
    light = page.evaluate(background)
    assert sum(int(n) for n in re.findall(r"\d+", light)[:3]) > 600, light
    page.goto("/history/")
    assert page.evaluate(background) == light
    expect(page.locator("#theme-choice")).to_have_value("light")
    context.close()
