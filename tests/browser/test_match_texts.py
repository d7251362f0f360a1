"""Texts a player reads after a match: ratings written alike on the match page and in the
history (as lichess writes them), and a declined rematch told to who offered it."""

import re

import pytest
from playwright.sync_api import expect

from games import services
from games.match import ratings
from games.models import Rating, Seat
from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_accounts, play_first_moves, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def first_rated_match():
    ada, bob = make_accounts(2, "Rater")
    match = play_first_moves(start_match("quarto-misere", [ada, bob], rated=True), [ada, bob])
    services.match_resign(match_id=match.pk, user=bob)
    changes = [s.rating_after - s.rating_before for s in Seat.objects.filter(match=match).order_by("order")]
    return match.pk, ada.pk, changes, ratings.shown(Rating.objects.get(player=ada).mu)


def test_after_a_first_rated_match_ratings_read_the_same_on_the_match_page_and_in_history(page_of):
    """The rating brought to the match, "?" while provisional, then the change; the player page
    shows the current rating."""
    match_id, ada_id, (won, lost), now = outside_the_event_loop(first_rated_match)
    assert won > 0 > lost
    expected = [f"1500? +{won}", f"1500? -{-lost}"]
    page = page_of(None)
    page.goto(f"/matches/{match_id}/")
    expect(page.locator("#seats").get_by_test_id("rating")).to_have_text(expected)
    expect(page.locator("#scores li").first).to_have_text(f"Rater 1 (White): 100, rating {expected[0]}")
    page.goto("/history/")
    expect(page.locator(f'tr[data-match="{match_id}"] .history-rating')).to_have_text(expected)
    page.goto(f"/players/{ada_id}/")
    expect(page.locator('.rating-card[data-game="quarto-misere"]').get_by_test_id("rating")).to_have_text(f"{now}?")
    assert now == 1500 + won


def finished_between_members():
    ada, bob = make_accounts(2, "Again")
    match = play_first_moves(start_match("quarto-misere", [ada, bob]), [ada, bob])
    services.match_resign(match_id=match.pk, user=bob)
    return ada, bob, match.pk


def test_who_offered_a_rematch_is_told_it_was_declined(page_of):
    ada, bob, match_id = outside_the_event_loop(finished_between_members)
    offering = page_of(ada)
    offering.goto(f"/matches/{match_id}/")
    offering.get_by_role("button", name="Offer a rematch").click()
    offering.wait_for_url(lambda url: f"/matches/{match_id}/" not in url)
    expect(offering.locator("#status-line")).to_contain_text("Waiting for players")

    answering = page_of(bob)
    answering.goto(f"/matches/{match_id}/")
    expect(answering.locator("#controls")).to_contain_text("Again 1 offers a rematch.")
    answering.locator("#controls").get_by_role("button", name="Decline").click()

    expect(offering.locator("#status-line")).to_have_text("Rematch declined by Again 2: this match was called off.")
    expect(offering.locator("#moves-end")).to_have_text("Aborted: no result. The rematch offer was declined.")


def test_on_a_phone_the_edge_of_the_sub_board_to_play_in_leaves_the_labels_clear(page_of):
    """The thick outline of the sub-board to play in stays inside the grid, clear of the row
    and column labels, wherever that sub-board is (here the corner one, next to both)."""
    match_id = outside_the_event_loop(lambda: start_match("nine-board-tictactoe", make_accounts(2, "Edge")).pk)
    page = page_of(None)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"/matches/{match_id}/")
    expect(page.locator("#board .coords__left")).to_be_visible()
    overlap = page.evaluate("""() => {
        const corner = document.querySelector("#board .sub-board");
        corner.classList.add("sub-board--forced");
        const style = getComputedStyle(corner);
        const reach = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
        const edge = corner.getBoundingClientRect();
        const rows = document.querySelector("#board .coords__left").getBoundingClientRect();
        const columns = document.querySelector("#board .coords__top").getBoundingClientRect();
        return {rows: rows.right - (edge.left - reach), columns: columns.bottom - (edge.top - reach), reach};
    }""")
    assert overlap["reach"] >= 3, overlap  # still a thick edge
    assert overlap["rows"] <= 0 and overlap["columns"] <= 0, overlap


def test_a_member_who_logs_out_from_a_match_page_lands_signed_out_and_so_do_their_other_tabs(page_of):
    """The server closes the match sockets of both tabs; the tab that logged out is not
    reloaded under its own logging out (which would cancel it), the other one is."""
    ada, bob = outside_the_event_loop(lambda: make_accounts(2, "Leaver"))
    match_id = outside_the_event_loop(lambda: start_match("nine-board-tictactoe", [ada, bob]).pk)
    page = page_of(ada)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/matches/{match_id}/")
    other = page.context.new_page()
    other.goto(f"/matches/{match_id}/")
    for tab in (page, other):
        expect(tab.locator("#seats")).to_contain_text("(you)")
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"^https?://[^/]+/$"))  # the lobby: the logout's redirect
    expect(page.locator("form.guest-form")).to_be_visible()
    expect(other.locator("form.guest-form")).to_be_visible()  # shown again, signed out
    expect(other.locator("#board")).to_have_attribute("data-status", "active")
    expect(other.locator("#seats")).not_to_contain_text("(you)")
    assert not errors


def match_with_a_bot():
    from botapi import services as bot_services

    bot, person = make_accounts(2, "Tagged")
    bot_services.bot_upgrade(user=bot)
    match = play_first_moves(start_match("quarto-misere", [bot, person]), [bot, person])
    services.match_resign(match_id=match.pk, user=person)
    return match.pk


def test_a_bot_account_is_tagged_bot_in_the_match_pages_seats_and_a_person_is_not(page_of):
    match_id = outside_the_event_loop(match_with_a_bot)
    page = page_of(None)
    page.goto(f"/matches/{match_id}/")
    names = page.locator("#seats .seat__name")
    expect(names).to_have_count(2)
    expect(names.nth(0).locator(".tag")).to_have_text("bot")
    expect(names.nth(1).locator(".tag")).to_have_count(0)
