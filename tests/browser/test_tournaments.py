"""A round robin's page in real Chromium is live: a watcher sees it start and its standings
change when a game ends, without reloading."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.match.clocks import TimeControl
from tests.browser.helpers import click_turns, outside_the_event_loop
from tests.support.players import make_accounts
from tournaments import services
from tournaments.models import TournamentGame

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_round_robins_page_follows_the_start_and_a_result(page_of):
    def a_round_robin():
        ann, bob = make_accounts(2, prefix="robin")
        tournament = services.tournament_create(user=ann, name="Club robin", game="nine-board-tictactoe",
                                                time_control=TimeControl(days=1),
                                                starts_at=timezone.now() + timedelta(minutes=30))
        services.tournament_join(tournament_id=tournament.pk, user=bob)
        return ann, bob, tournament

    ann, bob, tournament = outside_the_event_loop(a_round_robin)
    path = f"/tournaments/{tournament.pk}/"
    owner, watcher = page_of(ann), page_of(None)
    for page in (owner, watcher):
        page.goto(path)
        expect(page.locator("#tournament-live")).to_have_text("live")
    owner.get_by_role("button", name="Start now").click()
    expect(watcher.get_by_test_id("tournament-status")).to_contain_text("Running")
    watch = watcher.get_by_test_id("game-link")
    expect(watch).to_have_text("Watch")

    game = outside_the_event_loop(lambda: TournamentGame.objects.get(tournament=tournament))
    pages = {ann.pk: owner, bob.pk: page_of(bob)}
    for page in pages.values():
        page.goto(f"/matches/{game.match_id}/")
    click_turns([pages[game.first_id], pages[game.second_id]])
    loser = pages[game.second_id]
    loser.get_by_role("button", name="Resign").click()
    loser.get_by_role("button", name="Yes, resign").click()
    winner_row = watcher.locator(f'tr[data-player="{game.first_id}"]')
    expect(winner_row.get_by_test_id("score")).to_have_text("1")
    expect(watch).to_have_text("Replay")
    expect(watcher.get_by_test_id("tournament-status")).to_contain_text("Finished")
