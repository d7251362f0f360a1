"""An arena in real Chromium: two players on its page are paired when its creator starts it and
land in their game; a watcher on a phone in dark mode sees the game in play, one click from
watching, and the standings change live when the game ends (after the time ran out: it counts,
and the arena finishes with its podium). Its page passes axe at both widths
in both themes."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services as games
from games.match.clocks import TimeControl
from tests.browser.conftest import VIEWPORT, WAIT_MS
from tests.browser.helpers import click_turns, outside_the_event_loop
from tests.browser.test_accessibility import WIDTHS, scan
from tests.support.players import make_accounts, play_first_moves
from tournaments import arena
from tournaments.models import Tournament, TournamentGame

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 360, "height": 740}


def test_two_players_are_paired_land_in_their_game_and_the_standings_follow_live(page_of, browser, live_server):
    def an_arena():
        ann, bob = make_accounts(2, prefix="arena")
        tournament = arena.arena_create(user=ann, name="Lunch arena", game="nine-board-tictactoe",
                                        time_control=TimeControl(base=300, increment=3), minutes=30,
                                        starts_at=timezone.now() + timedelta(minutes=5))
        arena.arena_join(tournament_id=tournament.pk, user=bob)
        return ann, bob, tournament

    ann, bob, tournament = outside_the_event_loop(an_arena)
    path = f"/tournaments/{tournament.pk}/"
    players = {ann.pk: page_of(ann), bob.pk: page_of(bob)}
    watcher_context = browser.new_context(base_url=live_server.url, viewport=PHONE, color_scheme="dark")
    watcher_context.set_default_timeout(WAIT_MS)
    watcher = watcher_context.new_page()
    try:
        for page in (*players.values(), watcher):
            page.goto(path)
            expect(page.locator("#arena-live")).to_have_text("live")
        expect(watcher.get_by_test_id("tournament-status")).to_contain_text("Starts in")
        expect(watcher.locator("#standings-rows tr")).to_have_count(2)

        players[ann.pk].get_by_role("button", name="Start now").click()
        for page in players.values():
            page.wait_for_url(re.compile(r"/matches/\d+/"))
        game = outside_the_event_loop(lambda: TournamentGame.objects.get(tournament=tournament))
        for page in players.values():
            expect(page).to_have_url(re.compile(rf"/matches/{game.match_id}/"))
            expect(page.locator("#tournament-link")).to_contain_text("Lunch arena")
            expect(page.locator("#berserk-form")).to_be_visible()

        expect(watcher.get_by_test_id("tournament-status")).to_contain_text("ends in")
        watch = watcher.get_by_test_id("playing").get_by_role("link", name="Watch")
        expect(watch).to_have_attribute("href", f"/matches/{game.match_id}/")
        expect(watcher.locator(f'#standings-rows tr[data-player="{ann.pk}"]')).to_contain_text("playing")
        assert watcher.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

        first, second = players[game.first_id], players[game.second_id]
        version = click_turns([first, second])
        # The time runs out while they play: their game still finishes and counts, then the arena ends.
        outside_the_event_loop(lambda: Tournament.objects.filter(pk=tournament.pk).update(
            ends_at=timezone.now() - timedelta(seconds=1)))
        second.get_by_role("button", name="Resign").click()
        second.get_by_role("button", name="Yes, resign").click()
        expect(first.locator("#board")).to_have_attribute("data-version", str(version + 1))

        winner_row = watcher.locator(f'#standings-rows tr[data-player="{game.first_id}"]')
        expect(winner_row.get_by_test_id("score")).to_have_text("2")
        expect(watcher.locator("#standings-rows tr").first).to_have_attribute("data-player", str(game.first_id))
        expect(watcher.get_by_test_id("playing").locator("li")).to_have_count(0)
        expect(watcher.get_by_test_id("tournament-status")).to_have_text("Finished.")
        expect(watcher.get_by_test_id("podium").locator("li").first).to_have_attribute("data-player", str(game.first_id))
        watch_page = watcher_context.new_page()
        watch_page.set_viewport_size(VIEWPORT)
        watch_page.goto(f"/matches/{game.match_id}/")
        expect(watch_page.locator("#tournament-link")).to_be_visible()
        expect(watch_page.locator("#berserk-form")).to_have_count(0)
    finally:
        watcher_context.close()


@pytest.mark.parametrize("width", ["desktop", "phone"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_arena_page_with_marks_and_a_game_in_play_passes_axe(browser, live_server, axe_script, width, scheme):
    def under_way():
        ann, bob, cat = make_accounts(3, prefix="axe")
        tournament = arena.arena_create(user=ann, name="Axe arena", game="quarto-misere",
                                        time_control=TimeControl(base=180, increment=2), minutes=30,
                                        starts_at=timezone.now() + timedelta(minutes=5))
        for player in (bob, cat):
            arena.arena_join(tournament_id=tournament.pk, user=player)
        arena.arena_start(tournament_id=tournament.pk, user=ann)
        game = TournamentGame.objects.select_related("match", "first", "second").get(tournament=tournament)
        games.match_resign(match_id=play_first_moves(game.match, [game.first, game.second]).pk, user=game.second)
        return ann, tournament

    ann, tournament = outside_the_event_loop(under_way)
    context = browser.new_context(base_url=live_server.url, viewport=WIDTHS[width], color_scheme=scheme,
                                  bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(f"/tournaments/{tournament.pk}/")
        problems = {}
        scan(page, axe_script, scheme, "arena", problems, ready="#standings-rows .arena-mark")
        assert not problems, problems
    finally:
        context.close()
