"""The replay page in real Chromium: buttons, slider, arrow keys, move list and autoplay all
show the position the rules give at that ply (the marks on the board, and a given cell)."""

import re

import pytest
from playwright.sync_api import Page, expect

from games.rules import get_game
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_players, play_out, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MARKS = "#replay-board [data-content]"


def cell_index(action: str) -> int:
    """The nine-board cell of ``(play i j k l m)``, numbered as in ``view``."""
    i, j, k, l = (int(n) for n in action.strip("()").split()[1:5])
    return ((i - 1) * 3 + (j - 1)) * 9 + (k - 1) * 3 + (l - 1)


def at_ply(page: Page, ply: int) -> None:
    """Each nine-board ply places one mark: ``ply`` marks, and the counters agree."""
    expect(page.locator("#replay-board")).to_have_attribute("data-ply", str(ply))
    expect(page.locator(MARKS)).to_have_count(ply)
    expect(page.locator("#replay-ply")).to_have_text(str(ply))
    expect(page.locator("#replay-slider")).to_have_value(str(ply))


def keys_step(page: Page, steps: list[tuple[str, int]]) -> None:
    """Press each key in turn; the replay shows the ply given with it."""
    for key, ply in steps:
        page.keyboard.press(key)
        at_ply(page, ply)


@pytest.fixture
def finished():
    def play():
        people = make_players(2, "Replayer")
        match = play_out(start_match("nine-board-tictactoe", people), people, seed=4)
        return match, list(match.moves.values_list("action", flat=True))

    match, actions = outside_the_event_loop(play)
    assert len(actions) >= 8
    return match, actions


def test_stepping_through_a_replay(player_page, finished):
    match, actions = finished
    last = len(actions)
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/replay/?ply=3")
    at_ply(page, 3)
    third = page.locator(f'#replay-board [data-cell="{cell_index(actions[2])}"]')
    expect(third).to_have_attribute("data-content", "x")
    expect(third).to_have_class(re.compile(r"\bcell--last\b"))

    page.get_by_role("button", name="First position").click()
    at_ply(page, 0)
    page.get_by_role("button", name="Next move").click()
    page.get_by_role("button", name="Next move").click()
    at_ply(page, 2)
    page.get_by_role("button", name="Previous move").click()
    at_ply(page, 1)
    page.get_by_role("button", name="Last position").click()
    at_ply(page, last)
    expect(page).to_have_url(re.compile(rf"[?&]ply={last}$"))

    page.locator("h1").click()  # keyboard focus on the page, not on a control
    keys_step(page, [("Home", 0), ("ArrowRight", 1), ("ArrowRight", 2), ("ArrowRight", 3), ("ArrowLeft", 2),
                     ("End", last)])

    page.locator("#replay-slider").fill("5")
    at_ply(page, 5)
    fifth = page.locator(f'#replay-board [data-cell="{cell_index(actions[4])}"]')
    expect(fifth).to_have_attribute("data-content", "x")
    assert page.locator(f'#replay-board [data-cell="{cell_index(actions[5])}"]').get_attribute("data-content") is None

    page.locator('#replay-moves button[data-ply="4"]').click()
    at_ply(page, 4)
    expect(page.locator('#replay-moves button[data-ply="4"]')).to_have_attribute("aria-current", "step")


def test_autoplay_runs_to_the_end_and_stops(player_page, finished):
    match, actions = finished
    last = len(actions)
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/replay/?ply={last - 2}")
    at_ply(page, last - 2)
    play = page.locator('.replay-controls [data-step="play"]')
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    at_ply(page, last)
    expect(play).to_have_attribute("aria-pressed", "false")
    board = get_game(match.game).view(get_game(match.game).state_from_json(match.state))
    expect(page.locator(MARKS)).to_have_count(sum(1 for c in board["cells"] if c))


def test_arrow_keys_step_through_the_moves_after_a_click_on_the_board(player_page, finished):
    """As on lichess, the arrow keys, Home and End step through the moves after a click on the
    board too; the read-only board is no tab stop (Tab goes on to the controls), and its cells
    keep their names for screen readers."""
    match, actions = finished
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/replay/?ply=3")
    at_ply(page, 3)
    expect(page.locator('#replay-board [tabindex="0"]')).to_have_count(0)
    first = page.locator(f'#replay-board [data-cell="{cell_index(actions[0])}"]')
    first.click(force=True)  # aria-disabled: nothing is played on a replay
    keys_step(page, [("ArrowRight", 4), ("ArrowRight", 5), ("ArrowLeft", 4), ("Home", 0), ("End", len(actions))])
    expect(first).to_have_attribute("aria-label", re.compile(r"^sub-board [A-C][1-3], cell [a-c][1-3], x"))
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="First position")).to_be_focused()


def test_a_screen_reader_hears_each_move_not_the_whole_board(player_page, finished):
    """Stepping announces the move number with the move itself ("Move 2 of 11: O B2 a3", as
    the move list says it), and the board is no live region: redrawn at every step, it made
    a screen reader read all 81 cells again at each key press."""
    match, actions = finished
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/replay/?ply=0")
    at_ply(page, 0)
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    at_ply(page, 2)
    second = page.locator('#replay-moves button[data-ply="2"]').inner_text()
    status = page.locator("#replay-status")
    expect(status).to_have_attribute("aria-live", "polite")
    expect(status).to_have_text(f"Move 2 of {len(actions)}: {second}")
    page.keyboard.press("Home")
    expect(status).to_have_text(f"Move 0 of {len(actions)}: the start")
    live_boards = page.evaluate("""() => [...document.querySelectorAll('[aria-live]')]
        .filter((region) => region.querySelector('#replay-board [data-cell]') || region.closest('#replay-board'))
        .map((region) => region.id || region.className)""")
    assert live_boards == []


def test_on_a_phone_stepping_keeps_the_page_where_it_is(player_page, finished):
    """On a 360 px phone the move list sits under the board: opening a replay showed the list,
    not the board, and each Next scrolled the page down to the current move, taking the board
    and the button away. The list scrolls within itself; the page stays put."""
    match, actions = finished
    phone = player_page(None, viewport={"width": 360, "height": 740})
    phone.goto(f"/matches/{match.pk}/replay/?ply={len(actions)}")
    at_ply(phone, len(actions))
    assert phone.evaluate("window.scrollY") == 0
    following = phone.get_by_role("button", name="Next move")
    phone.get_by_role("button", name="First position").click()
    at_ply(phone, 0)
    following.scroll_into_view_if_needed()
    before = phone.evaluate("window.scrollY")
    for ply in range(1, 4):
        following.click()
        at_ply(phone, ply)
        assert phone.evaluate("window.scrollY") == before
    moves = phone.locator("#replay-moves")
    phone.get_by_role("button", name="Last position").click()
    at_ply(phone, len(actions))
    assert phone.evaluate("window.scrollY") == before
    current, box = moves.locator(".is-current").bounding_box(), moves.bounding_box()
    assert box["y"] <= current["y"] and current["y"] + current["height"] <= box["y"] + box["height"] + 1
