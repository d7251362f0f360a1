"""One real-time match at a time, as a person sees it: a second one is refused with a message
that links to the match being played, from the create form and from Quick game alike."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import match_id_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REFUSAL = "You are already playing a real-time match: finish it first."


def create_against_the_computer(page, clock: str) -> None:
    page.goto("/")
    form = page.locator("#create-form")
    form.get_by_label("Game").select_option("quarto-misere")
    form.get_by_label("The computer: start at once").check()
    form.get_by_label("Time control").select_option(clock)
    form.get_by_role("button", name="Create match").click()


def test_a_second_real_time_match_is_refused_with_a_link_to_the_first(player_page):
    page = player_page("Ada")
    create_against_the_computer(page, "3+2")
    expect(page.locator("#board")).to_be_visible()
    playing = match_id_of(page)

    create_against_the_computer(page, "1+1")
    expect(page.locator(".messages")).to_contain_text(REFUSAL)
    page.locator(".messages").get_by_role("link", name="Go to that match").click()
    expect(page).to_have_url(f"/matches/{playing}/")

    page.goto("/")
    quick = page.locator("#quick-form")
    quick.get_by_label("Time control").select_option("1+1")
    quick.get_by_role("button", name="Find an opponent").click()
    expect(page.locator("#quick-status")).to_have_text(REFUSAL)
    note = page.locator("#challenge-tray [role=alert]")
    expect(note).to_contain_text(REFUSAL)
    note.get_by_role("link", name="Go to that match").click()
    expect(page).to_have_url(f"/matches/{playing}/")
