"""Ratings: updated once where a rated match finishes, for two and three players, with ties;
provisional at first; never for casual or aborted matches, guests or the computer; rebuilt
from the match log by the recompute command."""

from __future__ import annotations

from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.core.management import call_command

from games import selectors, services
from games.match import ratings
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
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
    return (sorted(Rating.objects.values_list("player_id", "game", "mu", "sigma", "games", "opponents", "last_played")),
            sorted(Seat.objects.values_list("pk", "rating_before", "rating_provisional", "rating_after", "unrated_against")))


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


# -- the pair limit --------------------------------------------------------------------------------

def begun(slug: str, players: list, **kwargs) -> Match:
    """A match every seat has moved in: from now on a resignation decides it (before, it aborts)."""
    return play_first_moves(start_match(slug, players, **kwargs), players)


def age_results(hours: float) -> None:
    """Move every finished match ``hours`` into the past (a day passing, without waiting)."""
    for match in Match.objects.filter(finished_at__isnull=False):
        Match.objects.filter(pk=match.pk).update(finished_at=match.finished_at - timedelta(hours=hours))


def test_the_pair_limit_counts_one_result_a_pair_in_any_24_hours():
    at = datetime(2026, 1, 1, tzinfo=dt_timezone.utc)
    ledger = ratings.PairLedger()
    assert not ledger.limited(1, 2, at) and not ledger.met(2, 1)
    ledger.add(2, 1, at)
    assert ledger.met(1, 2) and ledger.limited(1, 2, at + timedelta(hours=23, minutes=59))
    assert not ledger.limited(1, 2, at + ratings.PAIR_WINDOW) and not ledger.limited(1, 3, at)
    assert ledger.excluded([3, 1, 2], at) == {(1, 2)}
    skills = [ratings.INITIAL] * 3
    assert ratings.rate_pairs(skills, [100, 66, 0], set()) == ratings.rate(skills, [100, 66, 0])
    limited = ratings.rate_pairs(skills, [100, 66, 0], {(0, 1)})
    assert limited[0] == ratings.rate(skills[:2], [100, 0])[0]  # rated against the third alone
    assert limited[2] == ratings.rate(skills, [100, 66, 0])[2]  # the third, against both
    assert ratings.rate_pairs(skills[:2], [100, 0], {(0, 1)}) == [None, None]


def test_a_player_standing_for_another_counts_as_that_one_under_the_pair_limit():
    """11 and 12 stand for 2 (two GGP programs of one owner): one pair with 1, none between them."""
    at = datetime(2026, 1, 1, tzinfo=dt_timezone.utc)
    ledger = ratings.PairLedger({11: 2, 12: 2})
    assert ledger.excluded([1, 11, 12], at) == {(0, 2), (1, 2)}
    assert ledger.limited(11, 12, at) and ledger.limited(2, 11, at)
    ledger.add(1, 11, at)
    assert ledger.limited(1, 12, at) and ledger.limited(2, 1, at) and not ledger.limited(1, 3, at)
    assert ledger.met(1, 2) and ledger.met(1, 12) and ledger.met(11, 1)
    assert not ledger.met(12, 1) and not ledger.met(2, 1)  # each account counts its own opponents
    assert not ledger.limited(12, 1, at + ratings.PAIR_WINDOW)


def test_a_pair_second_result_of_the_day_changes_no_rating_and_says_why(client):
    alice, bob, carol = make_accounts(3)
    first = begun("quarto-misere", [alice, bob], rated=True)
    services.match_resign(match_id=first.pk, user=bob)
    counted = [(r.mu, r.sigma, r.games, r.opponents, r.last_played) for r in Rating.objects.order_by("player_id")]
    assert [c[2:4] for c in counted] == [(1, 1), (1, 1)]
    again = begun("quarto-misere", [alice, bob], rated=True)
    services.match_resign(match_id=again.pk, user=bob)
    assert [(r.mu, r.sigma, r.games, r.opponents, r.last_played)
            for r in Rating.objects.order_by("player_id")] == counted
    seats = seats_of(again)
    assert (seats["white"].rating_after, seats["white"].unrated_against) == (None, "black")
    assert (seats["black"].rating_after, seats["black"].unrated_against) == (None, "white")
    assert seats["white"].rating_before == ratings.shown(counted[0][0])  # where it stood, unchanged
    state_seats = selectors.match_snapshot_by_id(match_id=again.pk)["seats"]  # what the match page is sent
    assert [(s["rating_after"], s["unrated_against"]) for s in state_seats] == [(None, ["black"]), (None, ["white"])]
    page = client.get("/history/").content.decode()
    assert page.count("not rated: the pair&#x27;s daily limit") == 2
    other = begun("quarto-misere", [alice, carol], rated=True)  # another opponent counts at once
    services.match_resign(match_id=other.pk, user=carol)
    assert (rating_of(alice, "quarto-misere").games, rating_of(alice, "quarto-misere").opponents) == (2, 2)
    age_results(24)
    later = begun("quarto-misere", [bob, alice], rated=True)  # a day later the pair counts again
    services.match_resign(match_id=later.pk, user=alice)
    assert (rating_of(alice, "quarto-misere").games, rating_of(alice, "quarto-misere").opponents) == (3, 2)
    assert seats_of(later)["white"].unrated_against == "" and seats_of(later)["white"].rating_after is not None


def test_each_rule_set_has_its_own_pair_limit():
    alice, bob = make_accounts(2)
    for game in ("quarto-misere", "tictactoe-x9"):
        match = begun(game, [alice, bob], rated=True)
        services.match_resign(match_id=match.pk, user=bob)
    assert [r.games for r in Rating.objects.filter(player=alice).order_by("game")] == [1, 1]


def test_in_the_three_player_game_a_pair_over_its_limit_is_left_out_of_both_updates(client):
    a, b, c, d = make_accounts(4)
    first = begun("tictactoe-3player", [a, b, c], rated=True)
    services.match_resign(match_id=first.pk, user=c)
    services.match_resign(match_id=first.pk, user=b)  # a 100, b and c 0
    before = {u.pk: (r.mu, r.sigma) for u in (a, b, d) for r in [Rating.objects.filter(player=u).first()]
              if r is not None}
    before[d.pk] = ratings.INITIAL
    second = begun("tictactoe-3player", [a, b, d], rated=True)
    services.match_resign(match_id=second.pk, user=d)
    services.match_resign(match_id=second.pk, user=b)  # a 100, b and d 0; a and b met today
    seats = {s.player_id: s for s in second.seats.all()}
    roles = {u: seats[u.pk].role for u in (a, b, d)}
    assert seats[a.pk].unrated_against == roles[b] and seats[b.pk].unrated_against == roles[a]
    assert seats[d.pk].unrated_against == ""
    assert rating_of(a, second.game).mu == ratings.rate([before[a.pk], before[d.pk]], [100, 0])[0][0]
    assert rating_of(b, second.game).mu == ratings.rate([before[b.pk], before[d.pk]], [0, 0])[0][0]
    assert rating_of(d, second.game).mu == ratings.rate([before[a.pk], before[b.pk], before[d.pk]], [100, 0, 0])[2][0]
    assert [rating_of(u, second.game).opponents for u in (a, b, c, d)] == [3, 3, 2, 2]
    page = client.get("/history/").content.decode()
    assert f"not rated against {b.display_name}: the pair" in page and f"not rated against {a.display_name}" in page
    third = begun("tictactoe-3player", [a, b, d], rated=True)  # every pair met today: nothing counts
    services.match_resign(match_id=third.pk, user=a)
    services.match_resign(match_id=third.pk, user=b)
    assert all(s.rating_after is None and len(s.unrated_against.split()) == 2 for s in third.seats.all())
    assert [rating_of(u, second.game).games for u in (a, b, c, d)] == [2, 2, 1, 1]


def test_the_same_pair_finishing_two_matches_at_once_counts_one_of_them():
    alice, bob = make_accounts(2)
    matches = [begun("quarto-misere", [alice, bob], rated=True) for _ in range(2)]
    outcomes = run_at_once([lambda m=m: services.match_resign(match_id=m.pk, user=bob) for m in matches])
    assert outcomes == ["ok", "ok"]
    assert [r.games for r in Rating.objects.order_by("player_id")] == [1, 1]
    assert sorted(s.rating_after is None for s in Seat.objects.filter(player=alice)) == [False, True]


def test_recompute_replays_the_pair_limit_to_the_same_numbers(capsys):
    a, b, c, d = make_accounts(4)
    for day in range(2):
        for winner, loser in ((a, b), (b, a), (a, c), (c, a), (d, a)):
            match = begun("quarto-misere", [winner, loser], rated=True)
            services.match_resign(match_id=match.pk, user=loser)
        for seated in ((a, b, c), (a, b, d), (b, c, d)):
            three = begun("tictactoe-3player", list(seated), rated=True)
            services.match_resign(match_id=three.pk, user=seated[1])
            services.match_resign(match_id=three.pk, user=seated[2])
        if day == 0:
            age_results(30)
    assert Seat.objects.exclude(unrated_against="").filter(rating_after__isnull=True).exists()
    assert Seat.objects.exclude(unrated_against="").filter(rating_after__isnull=False).exists()  # partly rated
    before = stored_numbers()
    call_command("ratings_recompute")
    assert "Replayed 16 rated matches; 0 stored values differed" in capsys.readouterr().out
    assert stored_numbers() == before
    Seat.objects.filter(unrated_against__gt="").update(unrated_against="")
    Rating.objects.filter(player=a).update(opponents=0)
    call_command("ratings_recompute")
    assert "; 0 stored values" not in capsys.readouterr().out
    assert stored_numbers() == before
