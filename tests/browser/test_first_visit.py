"""What a new user meets on their first visits: the create forms' seats, the header on a phone,
the home page's order on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import GGPPlayer
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_accounts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_create_forms_offer_the_chosen_rule_sets_seats_and_a_third_seat_only_for_three(page_of):
    member, owner, program = outside_the_event_loop(lambda: make_accounts(3, "Seats"))
    outside_the_event_loop(lambda: GGPPlayer.objects.create(account=program, owner=owner, url="http://localhost:9/",
                                                            status=GGPPlayer.Status.ONLINE))
    page = page_of(member)
    page.goto("/")
    form = page.locator("#create-form")
    seat = form.get_by_label("Your seat")
    expect(seat.locator("option")).to_have_text(["Random seat", "X (first to move)", "O (second to move)"])
    form.get_by_label("Game").select_option("tictactoe-3player")
    expect(seat.locator("option")).to_have_text(
        ["Random seat", "X (first to move)", "O (second to move)", "Z (third to move)"])
    page.goto("/ggp/")
    play = page.locator("form", has=page.get_by_role("button", name=f"Play {program.display_name}"))
    third = play.get_by_label("Third seat")
    expect(third).to_be_hidden()
    play.get_by_label("Rule set").select_option("tictactoe-3player")
    expect(third).to_be_visible()
    play.get_by_label("Rule set").select_option("quarto-misere")
    expect(third).to_be_hidden()


FULL_O_AND_Z_THREES = ["ooozo", "zxxzx", "xxzzz", "ozoxz", "xooxx"]  # no four anywhere


def test_a_three_player_game_ending_on_a_full_board_marks_every_scoring_line_and_says_what_scores_mean(page_of):
    from games import services
    from games.rules import get_game
    from tests.support.players import start_match

    def full_board():
        people = make_accounts(3, "Trio")
        match = start_match("tictactoe-3player", people)
        cells = {mark: [(m + 1, n + 1) for m, row in enumerate(FULL_O_AND_Z_THREES) for n, v in enumerate(row)
                        if v == mark] for mark in "xoz"}
        by_mark = dict(zip("xoz", people))
        for turn in range(25):
            mark = "xoz"[turn % 3]
            m, n = cells[mark][turn // 3]
            match = services.move_submit(match_id=match.pk, user=by_mark[mark], action=f"(mark {m} {n})",
                                         version=match.version)
        match.refresh_from_db()
        return match, people

    match, (x, o, z) = outside_the_event_loop(full_board)
    game = get_game("tictactoe-3player")
    line = game.outcome(game.state_from_json(match.state)).line
    page = page_of(None)
    page.goto(f"/matches/{match.pk}/")
    expect(page.locator("#board .cell--line")).to_have_count(len(line))
    expect(page.locator("#board")).to_contain_text("The marked lines scored: four in a row 100 points, three in a row 66")
    expect(page.locator("#result-text")).to_have_text(
        f"{o.display_name} and {z.display_name} made three in a row on a full board with no four (66 points each) "
        f"and share the win; {x.display_name} made no three (33 points).")


def test_a_program_to_move_is_marked_thinking_until_it_has_moved(page_of):
    from botapi.services import bot_upgrade
    from games import services
    from games.rules import get_game
    from tests.support.players import start_match

    game = get_game("tictactoe-x9")

    def bot_to_move():
        person, bot = make_accounts(2, "Think")
        bot_upgrade(user=bot)
        match = start_match(game.slug, [person, bot])
        services.move_submit(match_id=match.pk, user=person, version=0, action=game.legal_actions(game.initial_state())[0])
        match.refresh_from_db()
        return match, person, bot

    match, person, bot = outside_the_event_loop(bot_to_move)
    page = page_of(person)
    page.goto(f"/matches/{match.pk}/")
    bot_seat = page.locator('#seats .seat[data-role="oplayer"]')
    expect(bot_seat.get_by_test_id("thinking")).to_be_visible()
    expect(page.locator("#status-line")).to_have_text(f"{bot.display_name} is thinking (O)…")
    expect(page.get_by_test_id("thinking")).to_have_count(1)

    def bot_moves():
        state = game.state_from_json(type(match).objects.get(pk=match.pk).state)
        services.move_submit(match_id=match.pk, user=bot, version=1, action=game.legal_actions(state)[0])

    outside_the_event_loop(bot_moves)  # in this process: the live server's pages hear of it on a reload
    page.reload()
    expect(page.locator("#board")).to_have_attribute("data-version", "2")
    expect(page.get_by_test_id("thinking")).to_have_count(0)
    expect(page.locator("#status-line")).to_have_text("Your turn (X): move.")


PHONE = {"width": 390, "height": 844}


def test_on_a_phone_the_header_is_a_small_strip_with_a_menu_button_that_opens_the_links(page_of):
    visitor = page_of(None)
    visitor.set_viewport_size(PHONE)
    visitor.goto("/")
    header = visitor.locator(".site-header")
    menu = visitor.get_by_role("button", name="Menu")
    expect(menu).to_have_attribute("aria-expanded", "false")
    height = header.bounding_box()["height"]
    assert height <= 0.1 * PHONE["height"], height
    links = visitor.get_by_role("navigation", name="Main")
    expect(links).to_be_hidden()
    expect(visitor.locator("form.guest-form")).to_be_hidden()  # one name box on the page: the lobby's
    # By the keyboard: Tab to the button, Enter opens, Escape closes and leaves the focus on it.
    menu.focus()
    visitor.keyboard.press("Enter")
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(links.get_by_role("link", name="History")).to_be_visible()
    expect(visitor.locator("form.guest-form")).to_be_visible()
    visitor.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(links).to_be_hidden()
    expect(menu).to_be_focused()
    menu.click()
    links.get_by_role("link", name="History").click()
    visitor.wait_for_url("**/history/")
    # The live matches come before the games' descriptions: within about a screen and a half.
    visitor.goto("/")
    live = visitor.locator("#live-title").bounding_box()["y"]
    assert live <= 1.6 * PHONE["height"], live
    # On a wide screen, no menu button: the links stand in the header.
    visitor.set_viewport_size({"width": 1200, "height": 860})
    expect(menu).to_be_hidden()
    expect(links).to_be_visible()


def test_the_replays_board_hint_keeps_a_margin_from_the_screen_edge_on_a_phone(page_of):
    from tests.support.players import make_players, play_out, start_match

    def finished():
        people = make_players(2, "Hint")
        return play_out(start_match("nine-board-tictactoe", people), people, seed=1)

    match = outside_the_event_loop(finished)
    visitor = page_of(None)
    visitor.set_viewport_size(PHONE)
    visitor.goto(f"/matches/{match.pk}/replay/?ply=3")
    hint = visitor.locator("#replay-board .board-hint").first
    expect(hint).to_be_visible()
    assert hint.bounding_box()["x"] >= 8, hint.bounding_box()
