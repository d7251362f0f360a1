"""What players and spectators see of clocks and match conduct: a time control chosen in the
lobby, ticking clocks, draw offers and takebacks answered by clicking, abort, the sound switch."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import match_id_of
from tests.browser.helpers import (
    PLAYABLE,
    click_turns,
    join_match,
    outside_the_event_loop,
    playable,
    record_notifications,
    screenshot,
    wait_version,
)
from tests.support.players import make_players, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A running clock of a 1+1 match shows less than its minute. Not "0:5x": on a loaded machine
# more than ten seconds may pass between the move that started it and the page read.
TICKED = re.compile(r"^0:[0-5]\d$")


def create_timed(page, clock: str, *, against_the_computer: bool = False) -> int:
    """Nine-Board Tic-Tac-Toe as X from the lobby's form, against the easy computer if asked."""
    page.goto("/")
    form = page.locator("#create-form")
    form.get_by_label("Game").select_option("nine-board-tictactoe")
    form.get_by_label("Your seat").select_option("xPlayer")
    form.get_by_label("Time control").select_option(clock)
    if against_the_computer:
        form.get_by_label("The computer: start at once").check()
        form.get_by_label("Its strength").select_option(label="Easy")
    form.get_by_role("button", name="Create match").click()
    expect(page.locator("#board")).to_have_attribute("data-version", "0")
    return match_id_of(page)


def play_first_cell(page) -> None:
    page.locator(PLAYABLE).first.click()


def test_clocks_tick_for_the_player_to_move_and_a_draw_is_agreed(player_page):
    ada, bob = player_page("Ada"), player_page("Bob")
    match_id = create_timed(ada, "1+1")
    expect(ada.locator("#time-control")).to_have_text("Real time: 1 min + 1 s per move")
    join_match(bob, f"/matches/{match_id}/", "oPlayer")
    watcher = player_page(None)
    watcher.goto(f"/matches/{match_id}/")
    # Each clock starts at its seat's first move, which has 30 s, counted down for everyone.
    for page in (ada, bob, watcher):
        expect(page.locator('.clock[data-role="oPlayer"]')).to_have_text("1:00")
        expect(page.locator('.clock[data-role="xPlayer"].clock--running')).to_have_text("1:00")
    first_move = re.compile(r"^Your first move within [12]\d s, or the match is aborted\.$")
    expect(ada.locator("#first-move")).to_have_text(first_move)
    expect(watcher.locator("#first-move")).to_have_text(re.compile(r"^Ada's first move within [12]\d s"))
    expect(ada.get_by_role("button", name="Offer a draw")).to_have_count(0)  # not before everyone moved
    play_first_cell(ada)
    wait_version(bob, 1)
    expect(bob.locator("#first-move")).to_have_text(first_move)
    expect(bob.locator('.clock[data-role="xPlayer"]')).not_to_have_class(re.compile("clock--running"))
    play_first_cell(bob)
    wait_version(ada, 2)
    for page in (ada, bob, watcher):
        expect(page.locator("#first-move")).to_be_hidden()
        expect(page.locator("#time-control")).to_be_visible()
        expect(page.locator('.clock[data-role="xPlayer"].clock--running')).to_have_text(TICKED)
        expect(page.locator('.clock[data-role="oPlayer"]')).to_have_text("1:00")
    expect(ada.get_by_role("button", name="Ask to take back")).to_have_count(0)  # not in real time

    ada.get_by_role("button", name="Offer a draw").click()
    expect(watcher.locator("#offers")).to_have_text("Ada offers a draw.")
    expect(bob.get_by_role("group", name="Accept the draw?")).to_be_visible()
    screenshot(bob, "clocks-and-a-draw-offer")
    expect(watcher.get_by_role("button", name="Accept")).to_have_count(0)
    bob.get_by_role("group", name="Accept the draw?").get_by_role("button", name="Decline").click()
    expect(watcher.locator("#offers")).to_have_text("Bob declined the draw.")
    expect(ada.locator("#controls")).to_contain_text("you may offer again after your next move")
    expect(ada.get_by_role("button", name="Offer a draw")).to_have_count(0)  # no offering again and again
    bob.get_by_role("button", name="Offer a draw").click()
    ada.get_by_role("group", name="Accept the draw?").get_by_role("button", name="Accept").click()
    for page in (ada, bob, watcher):
        expect(page.locator("#status-line")).to_contain_text("A draw: drawn by agreement")
        expect(page.locator("#moves-end")).to_contain_text("drawn by agreement")
        expect(page.locator(".clock--running")).to_have_count(0)


def test_no_takeback_is_offered_between_people_in_a_per_move_match(player_page):
    """Takebacks are for untimed and correspondence matches: a per-move match offered them."""
    ada, bob = player_page("Ada"), player_page("Bob")
    match_id = create_timed(ada, "m120/60")
    join_match(bob, f"/matches/{match_id}/", "oPlayer")
    play_first_cell(ada)
    wait_version(bob, 1)
    play_first_cell(bob)
    for page in (ada, bob):
        wait_version(page, 2)
        expect(page.get_by_role("button", name="Offer a draw")).to_be_visible()  # the controls are drawn
        expect(page.get_by_role("button", name="Ask to take back")).to_have_count(0)


def test_a_takeback_request_outlives_a_third_players_resignation(page_of):
    """Three people: Ada asks to take back, then Cy resigns (not on his turn: no move is played,
    the version goes up). Bob's Accept kept the version it was drawn at: refused as stale, and
    again at every click, the controls unchanged."""
    people = outside_the_event_loop(lambda: make_players(3))
    match = outside_the_event_loop(lambda: start_match("tictactoe-3player", people))
    ada, bob, cy = pages = [page_of(person) for person in people]
    for page in pages:
        page.goto(f"/matches/{match.pk}/")
    version = click_turns(pages + pages)  # two turns each: Ada (X) to move
    ada.get_by_role("button", name="Ask to take back").click()
    answer = bob.get_by_role("group", name="Let them take back their move?")
    expect(answer).to_be_visible()
    cy.get_by_role("button", name="Resign").click()
    cy.get_by_role("button", name="Yes, resign").click()
    wait_version(bob, version + 1)
    answer.get_by_role("button", name="Accept").click()
    for page in pages:
        wait_version(page, version + 2)
        expect(page.locator("#moves li")).to_have_count(3)  # Ada's last turn and what followed, gone
    expect(bob.locator("#action-error")).to_be_hidden()


def test_a_takeback_asked_and_granted_and_an_abort(player_page):
    ada, bob = player_page("Ada"), player_page("Bob")
    match_id = create_timed(ada, "untimed")
    join_match(bob, f"/matches/{match_id}/", "oPlayer")
    expect(ada.locator(".clock")).to_have_count(0)  # untimed: no clocks
    play_first_cell(ada)
    wait_version(bob, 1)
    ada.get_by_role("button", name="Ask to take back").click()
    expect(bob.locator("#offers")).to_have_text("Ada asks to take back their last move.")
    bob.get_by_role("group", name="Let them take back their move?").get_by_role("button", name="Accept").click()
    for page in (ada, bob):
        wait_version(page, 2)
        expect(page.locator("#moves li")).to_have_count(0)
    expect(ada.locator("#board.board-holder--my-turn")).to_have_count(1)

    play_first_cell(ada)
    wait_version(bob, 3)
    bob.get_by_role("button", name="Abort").click()  # Bob has not moved yet
    for page in (ada, bob):
        expect(page.locator("#status-line")).to_contain_text("aborted")


def test_the_sound_switch_is_remembered(player_page):
    ada, bob = player_page("Ada"), player_page("Bob")
    match_id = create_timed(ada, "untimed")
    join_match(bob, f"/matches/{match_id}/", "oPlayer")
    bob.get_by_role("button", name="Sound on").click()
    expect(bob.get_by_role("button", name="Sound off")).to_have_attribute("aria-pressed", "false")
    bob.reload()
    expect(bob.get_by_role("button", name="Sound off")).to_be_visible()
    record_notifications(bob)  # his tab in the background, notifications allowed
    play_first_cell(ada)
    wait_version(bob, 1)
    expect(bob).to_have_title(re.compile("^Your turn"))
    bob.wait_for_function("() => window.shown.length > 0")
    shown = bob.evaluate("window.shown")
    assert len(shown) == 1 and shown[0][0] == "Boardhall: your turn" and "Last move: Ada" in shown[0][1]


def test_a_takeback_against_the_computer_in_real_time_is_granted_at_once(player_page):
    """As on lichess: in a casual game against the computer, "Take back" undoes the move and
    the computer's answer at once, even in real time, and the player moves again."""
    ada = player_page("Ada")
    create_timed(ada, "5+3", against_the_computer=True)
    expect(ada.locator("#board")).to_have_attribute("data-status", "active")
    before = playable(ada)
    play_first_cell(ada)
    wait_version(ada, 2)  # the move, and the computer's answer
    expect(ada.locator("#moves li")).to_have_count(2)
    ada.get_by_role("button", name="Take back").click()
    wait_version(ada, 3)
    expect(ada.locator("#moves li")).to_have_count(0)
    expect(ada.locator("#board.board-holder--my-turn")).to_have_count(1)
    assert playable(ada) == before  # the position before the move
    expect(ada.get_by_role("button", name="Take back")).to_have_count(0)  # nothing of Ada's to take back
    play_first_cell(ada)
    wait_version(ada, 5)  # the computer thought again, and answered
    expect(ada.locator("#moves li")).to_have_count(2)
    expect(ada.get_by_role("button", name="Take back")).to_have_count(1)


def test_looking_back_after_a_takeback_shows_the_moves_played_since(player_page):
    """The positions a page fetched to look back are those of the moves it knew then: once a
    takeback replaced a move, looking back shows the move played instead, not the one taken back."""
    ada = player_page("Ada")
    create_timed(ada, "untimed", against_the_computer=True)
    play_first_cell(ada)
    wait_version(ada, 2)  # the move, and the computer's answer
    choices = playable(ada)
    ada.locator(f'{PLAYABLE}[data-action="{choices[0]}"]').click()
    wait_version(ada, 4)
    ada.locator('#moves button[data-ply="3"]').click()  # the page fetches every position so far
    expect(ada.locator("#lookback")).to_contain_text("After move 3 of 4")
    ada.get_by_role("button", name="Back to the live game").click()
    ada.get_by_role("button", name="Take back").click()
    wait_version(ada, 5)
    ada.locator(f'{PLAYABLE}[data-action="{choices[-1]}"]').click()  # another move instead
    wait_version(ada, 7)
    ada.locator('#moves button[data-ply="3"]').click()
    expect(ada.locator("#lookback")).to_contain_text("After move 3 of 4")
    expect(ada.locator("#lookback-board [data-content]")).to_have_count(3)
    expect(ada.locator("#lookback-board .cell--last")).to_have_attribute("data-content", "x")


def test_taking_back_by_keyboard_keeps_the_focus(player_page):
    """The controls are redrawn with each state: the focus stays on "Take back" while there is
    more to take back, then goes to the board, never back to the top of the page."""
    ada = player_page("Ada")
    create_timed(ada, "untimed", against_the_computer=True)
    for version in (2, 4):
        play_first_cell(ada)
        wait_version(ada, version)  # the move, and the computer's answer
    take_back = ada.get_by_role("button", name="Take back")
    take_back.focus()
    ada.keyboard.press("Enter")
    wait_version(ada, 5)
    expect(take_back).to_be_focused()
    ada.keyboard.press("Enter")
    wait_version(ada, 6)
    expect(take_back).to_have_count(0)  # nothing of Ada's left to take back
    expect(ada.locator('#board [tabindex="0"]')).to_be_focused()


def test_a_double_click_on_take_back_takes_back_one_turn(player_page):
    ada = player_page("Ada")
    create_timed(ada, "untimed", against_the_computer=True)
    for version in (2, 4):
        play_first_cell(ada)
        wait_version(ada, version)  # the move, and the computer's answer
    ada.get_by_role("button", name="Take back").dblclick()
    wait_version(ada, 5)
    expect(ada.locator("#moves li")).to_have_count(2)
    ada.get_by_role("button", name="Take back").click()  # a click once the answer came is one again
    wait_version(ada, 6)
    expect(ada.locator("#moves li")).to_have_count(0)
