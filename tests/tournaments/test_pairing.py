"""Berger tables: every pair meets once (twice, first movers swapped), each player at most once a
round, the bye rotating, first moves balanced."""

from collections import Counter
from itertools import combinations

import pytest

from tournaments.pairing import berger_rounds

pytestmark = pytest.mark.pure
COUNTS = range(2, 17)


def games_of(rounds):
    return [(a, b) for pairs in rounds for a, b in pairs if a is not None and b is not None]


@pytest.mark.parametrize("n", COUNTS)
def test_a_single_round_robin_pairs_every_two_players_exactly_once(n):
    rounds = berger_rounds(list(range(n)))
    assert len(rounds) == n - 1 + n % 2
    met = Counter(frozenset(game) for game in games_of(rounds))
    assert set(met) == {frozenset(pair) for pair in combinations(range(n), 2)}
    assert set(met.values()) == {1}


@pytest.mark.parametrize("n", COUNTS)
def test_a_double_round_robin_plays_each_pairing_again_with_the_first_mover_swapped(n):
    rounds = berger_rounds(list(range(n)), cycles=2)
    once = len(rounds) // 2
    assert games_of(rounds[once:]) == [(b, a) for a, b in games_of(rounds[:once])]
    ordered = Counter(games_of(rounds))
    assert all(ordered[(a, b)] == 1 and ordered[(b, a)] == 1 for a, b in combinations(range(n), 2))


@pytest.mark.parametrize("n", COUNTS)
def test_nobody_plays_twice_in_a_round(n):
    for pairs in berger_rounds(list(range(n)), cycles=2):
        seated = [p for pair in pairs for p in pair if p is not None]
        assert len(seated) == len(set(seated)) == n  # the one against None sits the round out


@pytest.mark.parametrize("n", [n for n in COUNTS if n % 2])
def test_with_an_odd_count_the_bye_goes_to_each_player_once_a_cycle(n):
    rounds = berger_rounds(list(range(n)), cycles=2)
    byes = [next(a if b is None else b for a, b in pairs if None in (a, b)) for pairs in rounds]
    assert Counter(byes) == {p: 2 for p in range(n)}
    assert sorted(byes[:n]) == list(range(n))


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("cycles", [1, 2])
def test_each_players_first_moves_and_second_moves_differ_by_one_at_most(n, cycles):
    games = games_of(berger_rounds(list(range(n)), cycles=cycles))
    first, second = Counter(a for a, _ in games), Counter(b for _, b in games)
    assert max(abs(first[p] - second[p]) for p in range(n)) <= (1 if cycles == 1 else 0)


def test_players_may_be_any_distinct_values():
    assert games_of(berger_rounds(["ann", "bob"])) == [("ann", "bob")]


@pytest.mark.parametrize("players, cycles", [([1], 1), ([], 1), ([1, 1], 1), ([1, 2], 3)])
def test_what_is_not_a_round_robin_is_refused(players, cycles):
    with pytest.raises(ValueError):
        berger_rounds(players, cycles=cycles)
