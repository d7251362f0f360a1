"""games.selectors.pairs: the pair limit as it stands, read before a match is played."""

import pytest

from games import selectors, services
from games.selectors.pairs import match_pairs_over_limit, pairs_over_limit
from tests.support.players import make_accounts, play_first_moves, start_match

pytestmark = pytest.mark.django_db(transaction=True)


def counted_result(game: str, winner, loser) -> None:
    match = play_first_moves(start_match(game, [winner, loser], rated=True), [winner, loser])
    services.match_resign(match_id=match.pk, user=loser)


def test_a_pair_whose_result_counted_today_is_over_the_limit_in_that_rule_set_only():
    alice, bob, carol = make_accounts(3)
    assert pairs_over_limit(game="quarto-misere", player_ids=[alice.pk, bob.pk]) == set()
    counted_result("quarto-misere", alice, bob)
    assert pairs_over_limit(game="quarto-misere", player_ids=[bob.pk, alice.pk]) == {(0, 1)}
    assert pairs_over_limit(game="quarto-misere", player_ids=[alice.pk, carol.pk]) == set()
    assert pairs_over_limit(game="tictactoe-x9", player_ids=[alice.pk, bob.pk]) == set()
    assert pairs_over_limit(game="quarto-misere", player_ids=[carol.pk, alice.pk, bob.pk]) == {(1, 2)}


def test_a_rated_rematch_of_the_pair_is_over_the_limit_before_its_first_move_and_a_casual_one_is_not():
    alice, bob = make_accounts(2)
    counted_result("quarto-misere", alice, bob)
    rated = start_match("quarto-misere", [bob, alice], rated=True)
    seats = selectors.match_snapshot(match=rated)["seats"]
    assert match_pairs_over_limit(match=rated, seats=seats) == [("white", "black")]
    casual = start_match("quarto-misere", [bob, alice], rated=False)
    assert match_pairs_over_limit(match=casual, seats=selectors.match_snapshot(match=casual)["seats"]) == []
