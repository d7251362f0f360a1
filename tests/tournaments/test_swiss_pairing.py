"""Swiss pairing (py4swiss's Dutch engine behind tournaments.swiss_pairing) over random
tournaments: nobody meets an opponent twice, nobody has a second bye, first moves stay balanced,
absent players are left out; and the standings' Buchholz and Sonneborn-Berger."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.swiss_pairing import Kind, NoPairing, Slot, swiss_pairs, swiss_standings

pytestmark = pytest.mark.pure


def play(players, rounds, outcomes, absent_rounds=None):
    """Pair and play ``rounds`` rounds (the first mover's points drawn from ``outcomes``),
    stopping early where no pairing exists; returns the history and the pairings made."""
    history = {p: [] for p in players}
    made = []
    draws = iter(outcomes)
    for number in range(1, rounds + 1):
        absent = (absent_rounds or {}).get(number, set())
        try:
            pairing = swiss_pairs(players=players, history=history, rounds=rounds, absent=absent)
        except NoPairing:
            break
        made.append(pairing)
        for first, second in pairing.pairs:
            points = next(draws, 0.5)
            history[first].append(Slot(Kind.GAME, points, second, True))
            history[second].append(Slot(Kind.GAME, 1.0 - points, first, False))
        if pairing.bye is not None:
            history[pairing.bye].append(Slot(Kind.BYE, 1.0))
        for player in absent:
            history[player].append(Slot(Kind.ABSENT))
    return history, made


tournaments = st.tuples(st.integers(2, 14), st.integers(1, 9),
                        st.lists(st.sampled_from([1.0, 0.5, 0.0]), min_size=70, max_size=70))


@settings(max_examples=40, deadline=None)
@given(tournaments)
def test_no_pair_meets_twice_and_nobody_has_two_byes(params):
    n, rounds, outcomes = params
    players = [f"p{i}" for i in range(n)]
    _, made = play(players, min(rounds, n - 1), outcomes)
    met = Counter(frozenset(pair) for pairing in made for pair in pairing.pairs)
    assert set(met.values()) <= {1}
    byes = Counter(pairing.bye for pairing in made if pairing.bye is not None)
    assert set(byes.values()) <= {1}
    for pairing in made:
        seated = [p for pair in pairing.pairs for p in pair] + ([pairing.bye] if pairing.bye else [])
        assert sorted(seated) == sorted(players)
        assert (pairing.bye is not None) == (n % 2 == 1)


@settings(max_examples=40, deadline=None)
@given(tournaments)
def test_first_moves_stay_balanced(params):
    n, rounds, outcomes = params
    players = [f"p{i}" for i in range(n)]
    history, made = play(players, min(rounds, n - 1), outcomes)
    for player, slots in history.items():
        firsts = [s.first for s in slots[:-1] if s.kind == Kind.GAME]  # the last round may favour top scorers
        assert abs(firsts.count(True) - firsts.count(False)) <= 2
        assert not any(firsts[i] == firsts[i + 1] == firsts[i + 2] for i in range(len(firsts) - 2))


def test_the_first_round_pairs_the_top_half_against_the_bottom_half_and_the_last_sits_out():
    pairing = swiss_pairs(players=list("abcde"), history={}, rounds=3)
    assert pairing.pairs == [("a", "c"), ("d", "b")]  # the top seed moves first, then alternately
    assert pairing.bye == "e"


def test_absent_players_are_left_out_and_a_late_joiner_is_paired():
    players = list("abcd")
    history = {"a": [Slot(Kind.GAME, 1.0, "b", True)], "b": [Slot(Kind.GAME, 0.0, "a", False)],
               "c": [Slot(Kind.GAME, 0.5, "d", True)], "d": [Slot(Kind.GAME, 0.5, "c", False)],
               "e": [Slot(Kind.HALF_BYE, 0.5)]}
    pairing = swiss_pairs(players=[*players, "e"], history=history, rounds=3, absent={"b"})
    seated = {p for pair in pairing.pairs for p in pair}
    assert "b" not in seated and pairing.bye != "b"
    assert seated == {"a", "c", "d", "e"}


def test_a_player_who_had_the_bye_does_not_get_it_again():
    history, made = play(list("abc"), 2, [1.0, 1.0])
    assert made[0].bye != made[1].bye


def test_a_round_that_cannot_be_paired_says_so():
    history = {"a": [Slot(Kind.GAME, 1.0, "b", True)], "b": [Slot(Kind.GAME, 0.0, "a", False)]}
    with pytest.raises(NoPairing):
        swiss_pairs(players=["a", "b"], history=history, rounds=2)
    with pytest.raises(NoPairing):
        swiss_pairs(players=["a", "b"], history={}, rounds=2, absent={"a"})


def test_bad_histories_are_refused():
    with pytest.raises(ValueError):
        swiss_pairs(players=["a", "b"], history={"a": [Slot(Kind.BYE, 1.0)]}, rounds=2)
    with pytest.raises(ValueError):
        Slot(Kind.GAME, 1.0)
    with pytest.raises(ValueError):
        Slot(Kind.BYE, 2.0)


def test_standings_break_ties_by_buchholz_then_sonneborn_berger():
    # a beat b, c beat d; then a drew c, b beat d: a 1.5, c 1.5, b 1, d 0.
    history = {
        "a": [Slot(Kind.GAME, 1.0, "b", True), Slot(Kind.GAME, 0.5, "c", True)],
        "b": [Slot(Kind.GAME, 0.0, "a", False), Slot(Kind.GAME, 1.0, "d", True)],
        "c": [Slot(Kind.GAME, 1.0, "d", True), Slot(Kind.GAME, 0.5, "a", False)],
        "d": [Slot(Kind.GAME, 0.0, "c", False), Slot(Kind.GAME, 0.0, "b", False)],
        "e": [Slot(Kind.BYE, 1.0), Slot(Kind.HALF_BYE, 0.5)],
    }
    rows = swiss_standings(list("abcde"), history)
    by = {r.player: r for r in rows}
    assert by["a"].buchholz == 2.5 and by["c"].buchholz == 1.5  # b 1 + c 1.5; d 0 + a 1.5
    assert by["a"].sonneborn_berger == 1.0 + 0.75 and by["c"].sonneborn_berger == 0.75
    assert [r.player for r in rows] == ["a", "c", "e", "b", "d"]  # e's byes add nothing to Buchholz
    assert by["e"].buchholz == 0 and by["e"].played == 0 and by["e"].score == 1.5
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]


def test_players_equal_on_every_count_share_a_rank():
    history = {"a": [Slot(Kind.GAME, 0.5, "b", True)], "b": [Slot(Kind.GAME, 0.5, "a", False)]}
    assert [r.rank for r in swiss_standings(["a", "b"], history)] == [1, 1]


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 12), st.integers(2, 6), st.data())
def test_absent_players_are_never_seated_and_everyone_present_is_seated_once(n, rounds, data):
    players = [f"p{i}" for i in range(n)]
    gone = {number: set(data.draw(st.sets(st.sampled_from(players), max_size=n // 3))) for number in
            range(1, rounds + 1)}
    outcomes = data.draw(st.lists(st.sampled_from([1.0, 0.5, 0.0]), min_size=40, max_size=40))
    _, made = play(players, rounds, outcomes, absent_rounds=gone)
    byes = Counter(pairing.bye for pairing in made if pairing.bye is not None)
    assert set(byes.values()) <= {1}
    met = Counter(frozenset(pair) for pairing in made for pair in pairing.pairs)
    assert set(met.values()) <= {1}
    for number, pairing in enumerate(made, start=1):
        seated = [p for pair in pairing.pairs for p in pair] + ([pairing.bye] if pairing.bye else [])
        assert sorted(seated) == sorted(set(players) - gone[number])
