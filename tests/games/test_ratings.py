"""Ratings: updated once where a rated match finishes, for two and three players, with ties;
provisional at first; never for casual or aborted matches, guests or the computer; rebuilt
from the match log by the recompute command."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from games import ratings, services
from games.clocks import TimeControl
from games.match_settings import MatchSettings
from games.models import Match, Rating, Seat
from games.services import ServiceError
from tests.support.players import make_accounts, make_players, play_first_moves, play_out, run_at_once, start_match

pytestmark = pytest.mark.django_db(transaction=True)


def rating_of(user, game: str) -> Rating:
    return Rating.objects.get(player=user, game=game)


def seats_of(match: Match) -> dict[str, Seat]:
    return {s.role: s for s in match.seats.all()}


def test_a_rated_win_moves_both_ratings_by_the_model():
    alice, bob = make_accounts(2)
    match = play_first_moves(start_match("quarto-misere", [alice, bob], rated=True), [alice, bob])
    services.match_resign(match_id=match.pk, user=bob)
    (mu_a, sigma_a), (mu_b, sigma_b) = ratings.rate([ratings.INITIAL, ratings.INITIAL], [100, 0])
    a, b = rating_of(alice, "quarto-misere"), rating_of(bob, "quarto-misere")
    assert (a.mu, a.sigma, a.games) == (mu_a, sigma_a, 1) and (b.mu, b.sigma, b.games) == (mu_b, sigma_b, 1)
    assert a.mu > ratings.INITIAL[0] > b.mu
    seats = seats_of(match)
    assert seats["white"].rating_before == seats["black"].rating_before == 1500
    assert seats["white"].rating_after == ratings.shown(mu_a) > 1500 > seats["black"].rating_after
    assert seats["white"].rating_provisional and seats["black"].rating_provisional
    assert not Rating.objects.exclude(game="quarto-misere").exists()  # each rule set is its own ladder


def test_a_match_finished_by_its_last_move_is_rated():
    alice, bob = make_accounts(2)
    match = play_out(start_match("nine-board-tictactoe", [alice, bob], rated=True), [alice, bob], seed=3)
    assert match.status == Match.Status.FINISHED
    seats = seats_of(match)
    assert all(s.rating_after is not None for s in seats.values())
    expected = ratings.rate([ratings.INITIAL] * 2, [seats["xPlayer"].score, seats["oPlayer"].score])
    assert rating_of(alice, match.game).mu == expected[0][0] and rating_of(bob, match.game).mu == expected[1][0]


def test_three_players_are_ranked_by_score_with_ties():
    a, b, c = make_accounts(3)
    match = play_first_moves(start_match("tictactoe-3player", [a, b, c], rated=True), [a, b, c])
    services.match_resign(match_id=match.pk, user=b)
    services.match_resign(match_id=match.pk, user=c)  # a scores 100, b and c 0: tied second
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    after = {u.pk: rating_of(u, match.game) for u in (a, b, c)}
    expected = ratings.rate([ratings.INITIAL] * 3, [100, 0, 0])
    assert [after[u.pk].mu for u in (a, b, c)] == [mu for mu, _ in expected]
    assert after[a.pk].mu > ratings.INITIAL[0] > after[b.pk].mu == after[c.pk].mu


def test_ranks_and_draws():
    assert ratings.ranks([100, 66, 33, 0]) == [1, 2, 3, 4]
    assert ratings.ranks([66, 100, 66]) == [2, 1, 2]
    (mu_a, sigma_a), (mu_b, _) = ratings.rate([ratings.INITIAL] * 2, [50, 50])
    assert mu_a == mu_b == ratings.INITIAL[0] and sigma_a < ratings.INITIAL[1]
    assert ratings.shown(25.0) == 1500


def test_a_rating_is_provisional_for_its_first_games():
    alice, bob = make_accounts(2)
    Rating.objects.create(player=alice, game="quarto-misere", mu=30.0, sigma=3.0, games=ratings.PROVISIONAL_GAMES)
    match = start_match("quarto-misere", [alice, bob], rated=True)
    seats = seats_of(match)
    assert (seats["white"].rating_before, seats["white"].rating_provisional) == (ratings.shown(30.0), False)
    assert (seats["black"].rating_before, seats["black"].rating_provisional) == (1500, True)


@pytest.mark.parametrize("how", ["casual", "aborted"])
def test_casual_and_aborted_matches_change_no_rating(how):
    alice, bob = make_accounts(2)
    if how == "casual":
        match = start_match("quarto-misere", [alice, bob])
        services.match_resign(match_id=match.pk, user=bob)
    else:
        match = services.match_create(user=alice, settings=MatchSettings("quarto-misere", rated=True))
        services.match_abort(match_id=match.pk, user=alice)
    assert not Rating.objects.exists()
    assert all(s.rating_after is None for s in match.seats.all())


def test_guests_and_the_computer_play_casual_only():
    alice, = make_accounts(1)
    guest, = make_players(1)
    rated = MatchSettings("quarto-misere", rated=True)
    for kwargs in ({"user": guest}, {"user": alice, "against_computer": True}, {"user": alice, "opponents": [guest]}):
        with pytest.raises(ServiceError) as info:
            services.match_create(settings=rated, **kwargs)
        assert info.value.code == "rated_needs_accounts"
    match = services.match_create(user=alice, settings=rated, role="white")
    with pytest.raises(ServiceError) as info:
        services.seat_join(match_id=match.pk, user=guest)
    assert info.value.code == "rated_needs_accounts"
    assert match.seats.filter(player=guest).count() == 0


def test_a_rematch_stays_rated():
    alice, bob = make_accounts(2)
    match = play_first_moves(start_match("quarto-misere", [alice, bob], rated=True), [alice, bob])
    services.match_resign(match_id=match.pk, user=bob)
    assert services.rematch_offer(match_id=match.pk, user=bob).rated


def test_two_players_resigning_at_once_rate_the_match_exactly_once():
    alice, bob = make_accounts(2)
    match = play_first_moves(start_match("quarto-misere", [alice, bob], rated=True), [alice, bob])
    outcomes = run_at_once([lambda user=user: services.match_resign(match_id=match.pk, user=user)
                            for user in (alice, bob)])
    assert sorted(outcomes) == ["match_over", "ok"]
    assert [r.games for r in Rating.objects.order_by("player_id")] == [1, 1]
    winner = rating_of(alice, match.game).mu > ratings.INITIAL[0]
    seats = seats_of(match)
    assert (seats["white"].rating_after > seats["black"].rating_after) == winner


def stored_numbers():
    return (sorted(Rating.objects.values_list("player_id", "game", "mu", "sigma", "games", "last_played")),
            sorted(Seat.objects.values_list("pk", "rating_before", "rating_provisional", "rating_after")))


def test_the_recompute_command_replays_every_rated_match_to_the_same_numbers(capsys):
    a, b, c = make_accounts(3)
    for loser, winner in ((b, a), (a, b), (c, a), (b, c)):
        match = play_first_moves(start_match("quarto-misere", [winner, loser], rated=True), [winner, loser])
        services.match_resign(match_id=match.pk, user=loser)
    three = play_first_moves(start_match("tictactoe-3player", [c, a, b], rated=True), [c, a, b])
    services.match_resign(match_id=three.pk, user=a)
    services.match_resign(match_id=three.pk, user=b)
    casual = play_first_moves(start_match("quarto-misere", [a, b]), [a, b])
    services.match_resign(match_id=casual.pk, user=a)
    before = stored_numbers()
    call_command("ratings_recompute")
    assert "Replayed 5 rated matches; 0 stored values differed" in capsys.readouterr().out
    assert stored_numbers() == before
    Rating.objects.filter(player=a, game="quarto-misere").update(mu=40.0, games=99)
    Seat.objects.filter(match=three, player=c).update(rating_after=2900)
    call_command("ratings_recompute")
    assert "0 stored values" not in capsys.readouterr().out
    assert stored_numbers() == before


def test_the_lobby_form_makes_rated_matches_for_accounts_only(client):
    member, = make_accounts(1)
    guest, = make_players(1)
    form = {"game": "quarto-misere", "role": "", "opponents": "people", "rated": "on"}
    client.force_login(guest)
    page = client.post("/matches/new/", form, follow=True).content.decode()
    assert "Rated matches are between signed-up players" in page and not Match.objects.exists()
    client.force_login(member)
    response = client.post("/matches/new/", form)
    assert response.status_code == 302 and Match.objects.get().rated


def test_a_flag_fall_rates_the_match_once(fake_time):
    alice, bob = make_accounts(2)
    match = start_match("nine-board-tictactoe", [alice, bob], rated=True, time_control=TimeControl(base=60))
    play_out(match, [alice, bob], max_moves=2)  # a seat out of time before its first move would call it off
    fake_time.advance(61)
    services.clock_flag(match_id=match.pk)
    services.clock_flag(match_id=match.pk)  # a second timer or the sweep: the flag falls once
    assert [r.games for r in Rating.objects.order_by("player_id")] == [1, 1]
    assert rating_of(bob, match.game).mu > ratings.INITIAL[0] > rating_of(alice, match.game).mu  # xPlayer ran out


def test_an_agreed_draw_is_a_tie_and_an_aborted_start_counts_for_nothing():
    alice, bob = make_accounts(2)
    match = play_first_moves(start_match("quarto-misere", [alice, bob], rated=True), [alice, bob])
    services.draw_offer(match_id=match.pk, user=alice)
    services.draw_accept(match_id=match.pk, user=bob)
    a, b = rating_of(alice, match.game), rating_of(bob, match.game)
    assert a.mu == b.mu == ratings.INITIAL[0] and a.sigma < ratings.INITIAL[1] and a.games == b.games == 1
    aborted = start_match("quarto-misere", [alice, bob], rated=True)
    services.match_abort(match_id=aborted.pk, user=bob)  # started, but nobody moved yet
    assert [r.games for r in Rating.objects.order_by("player_id")] == [1, 1]
