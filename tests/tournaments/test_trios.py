"""Tables of three (tournaments.trios) over random standings and histories: everyone is seated
once or sits out, byes go to those with the fewest, a trio that met is not seated again while
another grouping exists, seats rotate, and points by place share ties."""

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.trios import BYE_POINTS, PLACE_POINTS, place_points, seat_order, trio_tables

pytestmark = pytest.mark.pure


def groupings(players):
    """Every way to split ``players`` into trios (brute force, for small counts)."""
    if not players:
        yield []
        return
    head, others = players[0], players[1:]
    for pair in combinations(others, 2):
        rest = [p for p in others if p not in pair]
        for found in groupings(rest):
            yield [frozenset((head, *pair)), *found]


def play(order_draws, count):
    """Seat ``count`` players round after round, each round's standing a draw from
    ``order_draws``; returns the rounds' tables and each player's seat counts."""
    players = list(range(count))
    met, seats, byes, made = set(), {p: [0, 0, 0] for p in players}, dict.fromkeys(players, 0), []
    for draw in order_draws:
        order = [players[i] for i in draw(players)]
        round_ = trio_tables(order=order, met=met, seats=seats, byes_had=byes)
        made.append((order, set(met), round_))
        for table in round_.tables:
            met.add(frozenset(table))
            for seat, player in enumerate(table):
                seats[player][seat] += 1
        for player in round_.byes:
            byes[player] += 1
    return made, seats, byes


rounds = st.lists(st.randoms(use_true_random=False).map(lambda r: lambda ps: r.sample(range(len(ps)), len(ps))),
                  min_size=1, max_size=10)


@given(count=st.integers(3, 30), draws=rounds)
@settings(max_examples=80, deadline=None)
def test_everyone_sits_at_one_table_of_three_or_out(count, draws):
    made, _, byes = play(draws, count)
    for order, _, round_ in made:
        seated = [p for t in round_.tables for p in t]
        assert all(len(t) == 3 for t in round_.tables)
        assert len(round_.byes) == count % 3
        assert sorted(seated + round_.byes) == sorted(order)
    assert max(byes.values()) - min(byes.values()) <= 1  # byes go round before anyone has a second


@given(count=st.integers(3, 11), draws=rounds)
@settings(max_examples=80, deadline=None)
def test_no_trio_repeats_while_another_grouping_exists(count, draws):
    made, _, _ = play(draws, count)
    for order, met, round_ in made:
        playing = [p for p in order if p not in round_.byes]
        possible = any(not (set(g) & met) for g in groupings(playing))
        assert round_.repeats == sum(frozenset(t) in met for t in round_.tables)
        if possible:
            assert round_.repeats == 0


@given(count=st.integers(3, 24), draws=rounds)
@settings(max_examples=80, deadline=None)
def test_seats_rotate(count, draws):
    _, seats, _ = play(draws, count)
    for counts in seats.values():
        assert max(counts) - min(counts) <= 2, seats


@given(cycles=st.integers(1, 5))
def test_the_same_three_sit_each_seat_equally(cycles):
    seats = {p: [0, 0, 0] for p in "abc"}
    for _ in range(3 * cycles):
        for seat, player in enumerate(seat_order(["a", "b", "c"], seats)):
            seats[player][seat] += 1
    assert all(counts == [cycles] * 3 for counts in seats.values())


def test_tables_go_by_standing():
    assert trio_tables(order=list("abcdefg"), met=[]).tables == [("a", "b", "c"), ("d", "e", "f")]
    assert trio_tables(order=list("abcdefg"), met=[]).byes == ["g"]
    assert trio_tables(order=list("abcdef"), met=[frozenset("abc")]).tables == [("a", "b", "d"), ("c", "e", "f")]


def test_fewer_than_three_or_a_repeated_player_is_refused():
    with pytest.raises(ValueError):
        trio_tables(order=["a", "b"], met=[])
    with pytest.raises(ValueError):
        trio_tables(order=["a", "b", "a"], met=[])


@given(st.lists(st.sampled_from([0, 33, 66, 100]), min_size=3, max_size=3))
def test_points_by_place_share_ties(goals):
    points = place_points(dict(zip("abc", goals)))
    assert sum(points.values()) == pytest.approx(sum(PLACE_POINTS))
    for p in "abc":
        for q in "abc":
            if points and goals["abc".index(p)] > goals["abc".index(q)]:
                assert points[p] > points[q]
            if goals["abc".index(p)] == goals["abc".index(q)]:
                assert points[p] == points[q]


def test_points_by_place_examples():
    assert place_points({"a": 100, "b": 66, "c": 0}) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert place_points({"a": 66, "b": 66, "c": 0}) == {"a": 0.75, "b": 0.75, "c": 0.0}
    assert place_points({"a": 33, "b": 33, "c": 33}) == {"a": 0.5, "b": 0.5, "c": 0.5}
    assert BYE_POINTS == 0.5
