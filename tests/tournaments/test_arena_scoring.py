"""Arena scores (pure): win 2, draw 1, loss 0; fire after two wins; berserk's bonus on a win that
was not too short; early draws and quick draws after a draw score nothing; performance breaks ties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.arena_scoring import (
    BERSERK_MIN_PLIES,
    DRAW_STREAK_PLIES,
    EARLY_DRAW_PLIES,
    PERFORMANCE_SPREAD,
    Played,
    sheet,
    standings,
)

LONG = 40


def points(*games: Played) -> list[int]:
    return [mark.points for mark in sheet(games).marks]


def test_a_win_scores_two_a_draw_one_a_loss_nothing():
    assert points(Played("win", LONG), Played("loss", LONG), Played("draw", LONG)) == [2, 0, 1]


def test_after_two_wins_in_a_row_wins_count_double_until_a_game_is_not_won():
    games = [Played("win", LONG)] * 4 + [Played("draw", LONG), Played("win", LONG), Played("win", LONG),
                                        Played("loss", LONG), Played("win", LONG)]
    result = sheet(games)
    assert [m.points for m in result.marks] == [2, 2, 4, 4, 1, 2, 2, 0, 2]
    assert [m.fire for m in result.marks] == [False, False, True, True, False, False, False, False, False]
    assert not result.on_fire and sheet(games[:2]).on_fire


def test_berserk_adds_one_to_a_win_that_was_not_too_short():
    assert points(Played("win", BERSERK_MIN_PLIES, berserk=True)) == [3]
    assert points(Played("win", BERSERK_MIN_PLIES - 1, berserk=True)) == [2]
    assert points(Played("loss", LONG, berserk=True)) == [0]
    fired = sheet([Played("win", LONG)] * 2 + [Played("win", LONG, berserk=True)])
    assert fired.marks[-1] == fired.marks[-1].__class__(5, "win", fire=True, berserk=True)
    assert fired.berserks == 1


def test_an_early_draw_scores_nothing_and_a_draw_after_a_draw_only_if_long():
    assert points(Played("draw", EARLY_DRAW_PLIES - 1)) == [0]
    assert points(Played("draw", EARLY_DRAW_PLIES), Played("draw", DRAW_STREAK_PLIES - 1)) == [1, 0]
    assert points(Played("draw", EARLY_DRAW_PLIES), Played("draw", DRAW_STREAK_PLIES)) == [1, 1]
    assert points(Played("draw", LONG), Played("loss", LONG), Played("draw", EARLY_DRAW_PLIES)) == [1, 0, 1]


def test_performance_is_the_opponents_average_plus_or_minus_the_spread():
    result = sheet([Played("win", LONG, opponent_rating=1600), Played("loss", LONG, opponent_rating=1400)])
    assert result.performance == 1500
    assert sheet([Played("win", LONG, opponent_rating=1500)]).performance == 1500 + PERFORMANCE_SPREAD
    assert sheet([]).performance == 0


def test_ties_are_broken_by_performance_and_equal_ones_share_a_rank():
    sheets = {"a": sheet([Played("win", LONG, opponent_rating=1400)]),
              "b": sheet([Played("win", LONG, opponent_rating=1700)]),
              "c": sheet([Played("win", LONG, opponent_rating=1400)])}
    rows = standings(["a", "b", "c", "d"], sheets)
    assert [(r.rank, r.player) for r in rows] == [(1, "b"), (2, "a"), (2, "c"), (4, "d")]


def test_an_outcome_that_is_not_one_is_refused():
    with pytest.raises(ValueError):
        Played("won", LONG)


@given(st.lists(st.tuples(st.sampled_from(["win", "draw", "loss"]), st.integers(0, 80), st.booleans())))
def test_the_score_is_the_sum_of_the_marks_and_never_more_than_five_a_game(games):
    result = sheet([Played(o, p, berserk=b) for o, p, b in games])
    assert result.score == sum(m.points for m in result.marks)
    assert all(0 <= m.points <= 5 for m in result.marks)
    assert len(result.marks) == len(games)
