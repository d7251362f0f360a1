"""The arena's pairing wave (pure): the last opponent never again at once, every free player
paired when a pairing of them all exists, the cheapest pairing by rank and rating, first moves
balanced; a brute force over small pools is the reference."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.arena_pairing import EXACT_MAX, RANK_WEIGHT, Free, cost, first_mover, pair


@st.composite
def pools(draw, most: int = 8):
    n = draw(st.integers(min_value=0, max_value=most))
    ranks = draw(st.permutations(range(1, n + 1)))
    pool = []
    for i in range(n):
        last = draw(st.none() | st.integers(min_value=0, max_value=max(n - 1, 0)))
        pool.append(Free(i, rank=ranks[i], rating=draw(st.integers(1000, 2200)),
                         last_opponent=None if last == i else last,
                         first_balance=draw(st.integers(-2, 2)), last_first=draw(st.none() | st.booleans())))
    return pool


def best_by_brute_force(pool: list[Free]) -> tuple[int, int]:
    """(most pairs, least cost among those) over every set of disjoint allowed pairs."""
    best = (0, 0)

    def walk(rest: list[Free], pairs: int, total: int) -> None:
        nonlocal best
        if (pairs, -total) > (best[0], -best[1]):
            best = (pairs, total)
        if not rest:
            return
        head, tail = rest[0], rest[1:]
        walk(tail, pairs, total)
        for k, other in enumerate(tail):
            c = cost(head, other)
            if c is not None:
                walk(tail[:k] + tail[k + 1:], pairs + 1, total + c)

    walk(pool, 0, 0)
    return best


@given(pools())
@settings(max_examples=300, deadline=None)
def test_no_last_opponent_again_every_player_once_and_the_best_pairing_of_a_small_pool(pool):
    games = pair(pool)
    by_id = {p.player: p for p in pool}
    seen = [player for game in games for player in game]
    assert len(seen) == len(set(seen))
    for first, second in games:
        assert by_id[first].last_opponent != second and by_id[second].last_opponent != first
    most, least = best_by_brute_force(pool)
    assert len(games) == most
    assert sum(cost(by_id[a], by_id[b]) for a, b in games) == least


@given(pools(most=40))
@settings(max_examples=100, deadline=None)
def test_a_large_pool_never_repeats_a_last_opponent_and_leaves_few_waiting(pool):
    games = pair(pool)
    by_id = {p.player: p for p in pool}
    seen = [player for game in games for player in game]
    assert len(seen) == len(set(seen))
    for first, second in games:
        assert by_id[first].last_opponent != second and by_id[second].last_opponent != first
    if all(p.last_opponent is None for p in pool):
        assert len(seen) == len(pool) - len(pool) % 2


def test_leaders_meet_leaders():
    pool = [Free(name, rank=rank, rating=1500) for rank, name in enumerate("abcd", start=1)]
    assert sorted(tuple(sorted(g)) for g in pair(pool)) == [("a", "b"), ("c", "d")]


def test_a_rank_is_worth_rank_weight_rating_points():
    a, b = Free("a", rank=1, rating=1500), Free("b", rank=3, rating=1600)
    assert cost(a, b) == 2 * RANK_WEIGHT + 100


def test_two_who_just_met_wait_for_someone_else():
    a, b = Free("a", rank=1, rating=1500, last_opponent="b"), Free("b", rank=2, rating=1500, last_opponent="a")
    assert pair([a, b]) == []
    assert len(pair([a, b, Free("c", rank=3, rating=1500)])) == 1


def test_the_one_who_moved_first_less_moves_first_then_who_moved_second_last():
    a, b = Free("a", rank=1, rating=1500, first_balance=1), Free("b", rank=2, rating=1500, first_balance=0)
    assert first_mover(a, b) == (b, a)
    a, b = Free("a", rank=1, rating=1500, last_first=True), Free("b", rank=2, rating=1500, last_first=False)
    assert first_mover(a, b) == (b, a)


def test_first_moves_stay_balanced_over_many_waves():
    """Eight players paired wave after wave: each moves first in half of their games, give or take one."""
    balance = dict.fromkeys(range(8), 0)
    last: dict[int, tuple[int, bool]] = {}
    for wave in range(30):
        pool = [Free(i, rank=(i + wave) % 8 + 1, rating=1500, last_opponent=last.get(i, (None, None))[0],
                     first_balance=balance[i], last_first=last.get(i, (None, None))[1]) for i in range(8)]
        for first, second in pair(pool):
            balance[first] += 1
            balance[second] -= 1
            last[first], last[second] = (second, True), (first, False)
    assert all(abs(b) <= 1 for b in balance.values())


def test_the_exact_window_is_large_enough_for_a_small_arena():
    assert EXACT_MAX >= 8
    pool = [Free(i, rank=i + 1, rating=1500 + 10 * i) for i in range(EXACT_MAX)]
    assert len(pair(pool)) == EXACT_MAX // 2
    assert all(abs(a - b) == 1 for a, b in pair(pool))
    assert list(itertools.chain.from_iterable(sorted(g) for g in sorted(pair(pool)))) == list(range(EXACT_MAX))
