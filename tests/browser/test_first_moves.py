"""A match that never began is not rated: what both players and a spectator see."""

import pytest
from django.conf import settings
from playwright.sync_api import expect

from games.models import Match, Rating
from tests.browser.helpers import PLAYABLE, outside_the_event_loop
from tests.support.players import make_accounts, session_cookie, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_rated_match_resigned_before_the_first_move_is_aborted_and_not_rated(player_page, live_server):
    ada, bob = outside_the_event_loop(lambda: make_accounts(2, "Early"))
    match = outside_the_event_loop(lambda: start_match("nine-board-tictactoe", [ada, bob], rated=True))
    pages = []
    for user in (ada, bob):
        page = player_page(None)
        cookie = outside_the_event_loop(lambda user=user: session_cookie(user))
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"/matches/{match.pk}/")
        pages.append(page)
    ada_page, bob_page = pages
    watcher = player_page(None)
    watcher.goto(f"/matches/{match.pk}/")
    for page in (ada_page, bob_page, watcher):
        expect(page.locator("#seats [data-testid=rating]")).to_have_text(["1500?", "1500?"])
    # Until every player has moved, Abort is the only way out: no Resign button, no draw offer.
    expect(ada_page.get_by_role("button", name="Abort")).to_be_visible()
    expect(ada_page.locator(PLAYABLE).first).to_be_visible()
    expect(ada_page.get_by_role("button", name="Resign")).to_have_count(0)
    expect(ada_page.get_by_role("button", name="Offer a draw")).to_have_count(0)
    # A resignation sent anyway (a page from before, a script) aborts the match.
    ada_page.evaluate('window.boardhall.socket.send({type: "resign"})')
    for page in (ada_page, bob_page, watcher):
        expect(page.locator("#status-line")).to_have_text("Aborted: not rated. Early 1 resigned before moving.")
        expect(page.locator("#board")).to_have_attribute("data-status", "aborted")
        expect(page.locator("#seats [data-testid=rating]")).to_have_text(["1500?", "1500?"])  # nothing moved
        expect(page.get_by_role("button", name="Abort")).to_have_count(0)
    watcher.goto(f"/matches/{match.pk}/replay/")
    expect(watcher.get_by_test_id("replay-result")).to_have_text("Aborted: not rated. Early 1 resigned before moving.")

    def stored():
        seats = list(Match.objects.get(pk=match.pk).seats.values_list("rating_after", "outcome"))
        return seats, Rating.objects.filter(player__in=[ada, bob]).count()

    assert outside_the_event_loop(stored) == ([(None, ""), (None, "")], 0)  # no rating, so no leaderboard entry
