"""Quick game, challenges and ratings in the browser."""

import pytest
from playwright.sync_api import expect

from games import services
from games.match import ratings
from games.models import Rating, Seat
from games.rules import get_game
from tests.browser.conftest import match_id_of
from tests.support.players import make_accounts, play_first_moves, start_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def quick_game(page, game: str) -> None:
    form = page.locator("#quick-form")
    form.get_by_label("Rule set").select_option(game)
    form.get_by_role("button", name="Find an opponent").click()


def test_two_players_use_quick_game_and_land_in_the_same_match(player_page):
    ada, bob = player_page("Ada"), player_page("Bob")
    quick_game(ada, "quarto-misere")
    expect(ada.locator("#quick-status")).to_contain_text("Waiting for an opponent")
    expect(ada.get_by_role("button", name="Cancel")).to_be_visible()
    quick_game(bob, "quarto-misere")
    ada.wait_for_url("**/matches/*/")
    bob.wait_for_url("**/matches/*/")
    assert match_id_of(ada) == match_id_of(bob)
    for page in (ada, bob):
        expect(page.locator("#seats")).to_contain_text("(you)")
        expect(page.locator("h1")).to_contain_text("casual")


def test_cancelling_a_quick_game_leaves_the_pool(player_page):
    ada = player_page("Ada")
    quick_game(ada, "tictactoe-x9")
    ada.get_by_role("button", name="Cancel").click()
    expect(ada.get_by_role("button", name="Find an opponent")).to_be_visible()
    bob = player_page("Bob")
    quick_game(bob, "tictactoe-x9")
    expect(bob.locator("#quick-status")).to_contain_text("Waiting for an opponent")
    assert "/matches/" not in ada.url


def test_a_challenge_from_the_online_list_is_accepted_and_opens_the_match(player_page):
    ada, bob = player_page("Ada"), player_page("Bob")
    online = ada.locator("#online-players")
    expect(online).to_contain_text("Bob")
    ada.locator("#quick-form").get_by_label("Rule set").select_option("nine-board-tictactoe")
    online.get_by_role("button", name="Challenge Bob").click()
    expect(ada.locator("#challenge-tray")).to_contain_text("Waiting for Bob to answer")
    tray = bob.locator("#challenge-tray")
    expect(tray).to_contain_text("Ada challenges you to Nine-Board Tic-Tac-Toe (casual, untimed)")
    tray.get_by_role("button", name="Accept").click()
    bob.wait_for_url("**/matches/*/")
    ada.wait_for_url("**/matches/*/")
    assert match_id_of(ada) == match_id_of(bob)


def test_a_challenge_from_a_player_page_reaches_any_page_and_a_decline_is_told(player_page):
    ada, bob = player_page("Ada"), player_page("Bob")
    bob.goto("/history/")  # the challenge reaches Bob wherever he is on the site
    ada.locator("#online-players").get_by_role("link", name="Bob").click()
    form = ada.locator("#challenge-form")
    form.get_by_label("Challenge to").select_option("tictactoe-3player")
    form.get_by_label("Time control").select_option("3+2")
    expect(form.get_by_label("Rated")).to_be_disabled()  # guests play casual only
    form.get_by_role("button", name="Challenge").click()
    expect(ada.locator("#challenge-status")).to_have_text("Challenge sent: waiting for the answer.")
    tray = bob.locator("#challenge-tray")
    expect(tray).to_contain_text("Ada challenges you to Three-Player Tic-Tac-Toe (casual, 3+2)")
    tray.get_by_role("button", name="Decline").click()
    expect(ada.locator("#challenge-tray")).to_contain_text("declined")
    assert "/matches/" not in ada.url


def test_the_challenge_line_on_a_player_page_follows_the_answer(player_page):
    """The line beside a player page's challenge form follows the challenge: waiting while it is
    open, then that it was declined, or cancelled from the tray; never still waiting after."""
    ada, bob = player_page("Ada"), player_page("Bob")
    ada.locator("#online-players").get_by_role("link", name="Bob").click()
    form, line = ada.locator("#challenge-form"), ada.locator("#challenge-status")
    form.get_by_role("button", name="Challenge").click()
    expect(line).to_have_text("Challenge sent: waiting for the answer.")
    bob.locator("#challenge-tray").get_by_role("button", name="Decline").click()
    expect(line).to_have_text("Bob declined your challenge.")

    form.get_by_role("button", name="Challenge").click()
    expect(line).to_have_text("Challenge sent: waiting for the answer.")
    ada.locator("#challenge-tray").get_by_role("button", name="Cancel").click()
    expect(line).to_have_text("Your challenge was cancelled.")
    expect(bob.locator("#challenge-tray")).to_contain_text("was cancelled")


def test_the_player_page_shows_ratings_and_their_chart(player_page):
    alice, *losers = make_accounts(4)
    for loser in losers:  # three opponents: one pair's results count once a day
        match = play_first_moves(start_match("quarto-misere", [alice, loser], rated=True), [alice, loser])
        services.match_resign(match_id=match.pk, user=loser)
    shown = ratings.shown(Rating.objects.get(player=alice, game="quarto-misere").mu)
    page = player_page(None)
    page.goto(f"/players/{alice.pk}/")
    card = page.locator('.rating-card[data-game="quarto-misere"]')
    expect(card.get_by_test_id("rating")).to_have_text(f"{shown}?")
    expect(card).to_contain_text("3 rated games against 3 opponents, provisional")
    chart = card.get_by_role("img")
    expect(chart).to_have_attribute("aria-label", f"Rating history in {get_game('quarto-misere').name}: "
                                                  f"from 1500 to {shown} over 3 rated games")
    assert len(chart.locator("polyline").get_attribute("points").split()) == 4
    expect(page.locator(".rating-change").first).to_have_text(f"+{shown_change(alice)}")


def shown_change(player) -> int:
    """The change of ``player``'s rating in their latest rated match (the first history row)."""
    seat = Seat.objects.filter(player=player, rating_after__isnull=False).order_by("-match__finished_at").first()
    return seat.rating_after - seat.rating_before


def test_the_match_page_says_when_the_pair_limit_kept_a_result_from_the_ratings(player_page):
    alice, bob = make_accounts(2)
    for _ in range(2):
        match = play_first_moves(start_match("quarto-misere", [alice, bob], rated=True), [alice, bob])
        services.match_resign(match_id=match.pk, user=bob)
    page = player_page(None)
    page.goto(f"/matches/{match.pk}/")
    scores = page.locator("#scores li")
    expect(scores).to_have_count(2)
    for item in (scores.nth(0), scores.nth(1)):
        expect(item).to_contain_text("not rated: the pair's daily limit")
    page.goto(f"/history/?player={alice.pk}")
    expect(page.locator(f'tr[data-match="{match.pk}"]').get_by_test_id("unrated")).to_have_count(2)


# The page's site socket stays CONNECTING until the test calls window.releaseSite(): a stand-in
# that becomes the real WebSocket then (the listeners added meanwhile go to the real one).
HOLD_SITE_SOCKET = """
(() => {
  const Real = window.WebSocket;
  function Held(url, protocols) {
    if (!String(url).endsWith("/ws/site/")) return new Real(url, protocols);
    const listeners = [];
    let real = null;
    const held = {
      get readyState() { return real ? real.readyState : Real.CONNECTING; },
      addEventListener(...args) { listeners.push(args); if (real) real.addEventListener(...args); },
      send(data) { if (!real) throw new DOMException("still connecting", "InvalidStateError"); real.send(data); },
      close(...args) { if (real) real.close(...args); },
    };
    window.releaseSite = () => {
      real = new Real(url, protocols);
      listeners.forEach((args) => real.addEventListener(...args));
    };
    return held;
  }
  Object.assign(Held, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Held;
})();
"""


def test_a_challenge_sent_while_the_pages_socket_is_still_opening_goes_once_it_opens(player_page):
    """A click just after a page loaded, before its site socket is open, is not refused as
    "not connected": the challenge goes as soon as the server has answered (a race seen in a
    loop of the browser layer, in test_the_challenge_line_on_a_player_page_follows_the_answer)."""
    ada, bob = player_page("Ada"), player_page("Bob")
    ada.add_init_script(HOLD_SITE_SOCKET)
    ada.locator("#online-players").get_by_role("link", name="Bob").click()
    ada.wait_for_function("() => typeof window.releaseSite === 'function'")
    line = ada.locator("#challenge-status")
    ada.locator("#challenge-form").get_by_role("button", name="Challenge").click()
    expect(line).to_have_text("Sending the challenge…")
    ada.evaluate("window.releaseSite()")
    expect(line).to_have_text("Challenge sent: waiting for the answer.")
    expect(bob.locator("#challenge-tray")).to_contain_text("Ada challenges you")
