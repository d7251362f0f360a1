"""Scores (win 1, draw 1/2) and the Sonneborn-Berger tie-break."""

import pytest

from tournaments.standings import Result, scores, standings

pytestmark = pytest.mark.pure


def test_a_win_scores_one_a_draw_half_and_a_called_off_game_nothing():
    results = [Result("a", "b", 1.0), Result("b", "c", 0.5), Result("c", "a", None)]
    assert scores(["a", "b", "c"], results) == {"a": 1.0, "b": 0.5, "c": 0.5}


def test_sonneborn_berger_adds_the_scores_of_those_beaten_and_half_of_those_drawn():
    # a beats b and c; b beats d; c draws d; b and c draw; a and d draw.
    results = [Result("a", "b", 1.0), Result("a", "c", 1.0), Result("b", "d", 1.0),
               Result("c", "d", 0.5), Result("b", "c", 0.5), Result("d", "a", 0.5)]
    rows = {row.player: row for row in standings(["a", "b", "c", "d"], results)}
    assert {p: r.score for p, r in rows.items()} == {"a": 2.5, "b": 1.5, "c": 1.0, "d": 1.0}
    assert rows["a"].tie_break == 1.5 + 1.0 + 0.5 * 1.0
    assert rows["c"].tie_break == 0.5 * 1.0 + 0.5 * 1.5
    assert rows["d"].tie_break == 0.5 * 1.0 + 0.5 * 2.5


def test_equal_scores_are_ordered_by_sonneborn_berger():
    results = [Result("a", "b", 1.0), Result("a", "c", 1.0), Result("b", "d", 1.0),
               Result("c", "d", 0.5), Result("b", "c", 0.5), Result("d", "a", 0.5)]
    ranked = standings(["c", "d", "b", "a"], results)
    assert [row.player for row in ranked] == ["a", "b", "d", "c"]
    assert [row.rank for row in ranked] == [1, 2, 3, 4]


def test_players_equal_in_score_and_tie_break_share_a_rank_in_entry_order():
    ranked = standings(["x", "y", "z"], [Result("x", "y", 0.5)])
    assert [(row.player, row.rank, row.played) for row in ranked] == [("x", 1, 1), ("y", 1, 1), ("z", 3, 0)]


def test_a_score_that_is_not_a_game_result_is_refused():
    with pytest.raises(ValueError):
        Result("a", "b", 0.7)
