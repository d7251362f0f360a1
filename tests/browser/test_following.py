"""Following a friend in Chromium: follow them from their page, find them under Following, online
and playing, and watch their live match in one click."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import outside_the_event_loop
from tests.support.players import make_accounts, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_followed_friend_s_live_match_is_watched_in_one_click_from_the_following_page(page_of):
    def players_and_match():
        me, friend, opponent = make_accounts(3, "pal")
        return me, friend, start_match("nine-board-tictactoe", [friend, opponent])

    me, friend, match = outside_the_event_loop(players_and_match)
    friends_page = page_of(friend)
    friends_page.goto("/")  # the friend has a page of the site open: online

    page = page_of(me)
    page.goto("/")
    expect(page.locator("#online-players")).to_contain_text(friend.display_name)
    page.goto(f"/players/{friend.pk}/")
    page.get_by_test_id("follow").click()
    expect(page.get_by_test_id("unfollow")).to_be_visible()

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Following").click()
    row = page.locator(f'tr[data-player="{friend.pk}"]')
    expect(row.get_by_test_id("online")).to_be_visible()
    row.get_by_test_id("watch").click()
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    expect(page.locator("#board .cell").first).to_be_visible()
    expect(page.locator("#seats")).to_contain_text(friend.display_name)
    expect(page.locator("#spectators")).to_contain_text("1 watching")
