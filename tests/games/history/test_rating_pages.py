"""Ratings where people look: the player page (per game, with its chart), leaderboards, history rows."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.history import selectors
from games.match import ratings
from games.models import Match, Rating
from tests.support.players import make_accounts, play_first_moves, start_match

pytestmark = pytest.mark.django_db


def rated_win(winner, loser, game="quarto-misere"):
    match = play_first_moves(start_match(game, [winner, loser], rated=True), [winner, loser])
    services.match_resign(match_id=match.pk, user=loser)
    return match


def test_the_player_page_shows_each_rating_with_its_chart(client):
    alice, *losers = make_accounts(4)
    for loser in losers:  # three opponents: one pair's results count once a day
        rated_win(alice, loser)
    rated_win(losers[0], alice, game="tictactoe-x9")
    page = client.get(f"/players/{alice.pk}/").content.decode()
    quarto = Rating.objects.get(player=alice, game="quarto-misere")
    assert f'{ratings.shown(quarto.mu)}?</strong>' in page and "3 rated games against 3 opponents, provisional" in page
    assert page.count('class="rating-chart"') == 2 and page.count("<polyline") == 2
    chart = {r["game"]: r for r in selectors.player_ratings(player=alice)}["quarto-misere"]["chart"]
    assert chart["games"] == 3 and chart["low"] == 1500 and chart["high"] == ratings.shown(quarto.mu)
    assert len(chart["points"].split()) == 4  # the start and one point per rated game


def test_history_rows_show_the_rating_and_its_change(client):
    alice, bob = make_accounts(2)
    rated_win(alice, bob)
    won = Rating.objects.get(player=alice).mu
    page = client.get("/history/").content.decode()
    assert f'+{ratings.shown(won) - 1500}</span>' in page and '<span class="tag">rated</span>' in page


def test_the_leaderboard_lists_established_active_players_by_rating(client):
    players = make_accounts(5)
    now = timezone.now()
    for i, player in enumerate(players):
        Rating.objects.create(player=player, game="quarto-misere", mu=20.0 + i, sigma=2.0, last_played=now,
                              games=selectors.LEADERBOARD_MIN_GAMES + i, opponents=selectors.LEADERBOARD_MIN_OPPONENTS)
    Rating.objects.filter(player=players[0]).update(games=selectors.LEADERBOARD_MIN_GAMES - 1)  # provisional
    Rating.objects.filter(player=players[1]).update(last_played=now - timedelta(days=90))  # inactive
    Rating.objects.filter(player=players[4]).update(opponents=selectors.LEADERBOARD_MIN_OPPONENTS - 1)  # too few met
    page, rows = selectors.leaderboard_page(game="quarto-misere")
    assert [r["id"] for r in rows] == [players[3].pk, players[2].pk]
    assert [r["rank"] for r in rows] == [1, 2] and rows[0]["games"] == ratings.PROVISIONAL_GAMES + 3
    html = client.get("/leaderboards/?game=quarto-misere").content.decode()
    assert str(players[3]) in html and str(players[0]) not in html and str(players[4]) not in html
    assert (f"at least {selectors.LEADERBOARD_MIN_GAMES} rated games against at least "
            f"{selectors.LEADERBOARD_MIN_OPPONENTS} different opponents") in html
    assert "count for the ratings once in any 24 hours" in html
    assert client.get("/leaderboards/?game=chess&page=x").status_code == 200  # the first rule set instead


def test_the_leaderboard_is_paginated(client, monkeypatch):
    monkeypatch.setattr(selectors, "LEADERBOARD_PAGE_SIZE", 2)
    players = make_accounts(5)
    for i, player in enumerate(players):
        Rating.objects.create(player=player, game="tictactoe-3player", mu=30.0 - i, sigma=2.0,
                              last_played=timezone.now(), games=20, opponents=selectors.LEADERBOARD_MIN_OPPONENTS)
    _, rows = selectors.leaderboard_page(game="tictactoe-3player", page=3)
    assert [(r["rank"], r["id"]) for r in rows] == [(5, players[4].pk)]


def test_one_account_farmed_by_a_few_others_stays_off_the_leaderboard_until_it_met_enough(client):
    """Ten counted results need ten days against one opponent, and five opponents to be listed."""
    star, *others = make_accounts(selectors.LEADERBOARD_MIN_OPPONENTS + 1)
    for day in range(2):
        for other in others:
            if day or other is not others[-1]:
                rated_win(star, other)
        for match in Match.objects.filter(finished_at__isnull=False):  # a day passes
            Match.objects.filter(pk=match.pk).update(finished_at=match.finished_at - timedelta(hours=25))
        rating = Rating.objects.get(player=star, game="quarto-misere")
        on_board = [r["id"] for r in selectors.leaderboard_page(game="quarto-misere", days=30)[1]]
        if day == 0:  # nine results would do nothing either: four opponents
            assert (rating.opponents, rating.games) == (selectors.LEADERBOARD_MIN_OPPONENTS - 1, 4)
            assert star.pk not in on_board
    assert (rating.opponents, rating.games) == (selectors.LEADERBOARD_MIN_OPPONENTS, 9)
    assert star.pk not in on_board  # nine rated games
    rated_win(star, others[0])
    assert star.pk in [r["id"] for r in selectors.leaderboard_page(game="quarto-misere")[1]]
