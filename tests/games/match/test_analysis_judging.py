"""The pure part of post-game analysis: marks by loss, losses per move, the summary per role."""

import pytest

from games.match.analysis import THRESHOLDS, classify, judge_moves, summarise

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


@pytest.mark.parametrize(("loss", "mark"), [
    (0.0, None), (0.0999, None), (0.10, "inaccuracy"), (0.1999, "inaccuracy"), (0.20, "mistake"),
    (0.2999, "mistake"), (0.30, "blunder"), (1.0, "blunder"),
])
def test_a_loss_earns_the_mark_of_the_highest_threshold_it_reaches(loss, mark):
    assert classify(loss) == mark


def test_the_thresholds_rise_from_inaccuracy_to_blunder():
    assert [name for name, _ in THRESHOLDS] == ["blunder", "mistake", "inaccuracy"]
    assert [t for _, t in THRESHOLDS] == sorted((t for _, t in THRESHOLDS), reverse=True)


def ev(x, o, best):
    return {"scores": {"x": x, "o": o}, "best": best}


def test_a_moves_loss_is_its_movers_expected_score_before_minus_after():
    moves = [("x", "a1"), ("o", "b1"), ("x", "a2")]
    evaluations = [ev(0.6, 0.4, "a9"), ev(0.55, 0.45, "b1"), ev(0.9, 0.1, "a3"), ev(0.5, 0.5, None)]
    judged = judge_moves(moves, evaluations)
    assert [m["ply"] for m in judged] == [1, 2, 3]
    assert judged[0]["loss"] == pytest.approx(0.05) and judged[0]["mark"] is None and judged[0]["better"] is None
    # o played the search's own choice: no loss, whatever the next search says.
    assert judged[1]["loss"] == 0.0 and judged[1]["mark"] is None
    assert judged[2]["loss"] == pytest.approx(0.4) and judged[2]["mark"] == "blunder" and judged[2]["better"] == "a3"


def test_the_played_moves_value_from_the_same_search_decides_its_loss():
    # The next position's search (0.45 for x) would call a1 a 15-point loss; the search that
    # weighed a1 beside the best move found them equal (0.6 and 0.59): no mark.
    before = {**ev(0.6, 0.4, "a9"), "played": {"x": 0.59, "o": 0.41}}
    judged = judge_moves([("x", "a1")], [before, ev(0.45, 0.55, None)])
    assert judged[0]["loss"] == pytest.approx(0.01) and judged[0]["mark"] is None
    worse = {**ev(0.6, 0.4, "a9"), "played": {"x": 0.25, "o": 0.75}}
    judged = judge_moves([("x", "a1")], [worse, ev(0.9, 0.1, None)])
    assert judged[0]["loss"] == pytest.approx(0.35) and judged[0]["mark"] == "blunder" and judged[0]["better"] == "a9"


def test_a_gain_is_no_loss():
    judged = judge_moves([("x", "a1")], [ev(0.2, 0.8, "a2"), ev(0.7, 0.3, None)])
    assert judged[0]["loss"] == 0.0 and judged[0]["mark"] is None


def test_the_summary_counts_marks_and_averages_losses_per_role_in_turn_order():
    judged = [{"role": "x", "loss": 0.4, "mark": "blunder"}, {"role": "o", "loss": 0.12, "mark": "inaccuracy"},
              {"role": "x", "loss": 0.2, "mark": "mistake"}, {"role": "o", "loss": 0.0, "mark": None}]
    summary = summarise(["x", "o", "z"], judged)
    assert [row["role"] for row in summary] == ["x", "o", "z"]
    assert summary[0] == {"role": "x", "moves": 2, "average_loss": 0.3, "inaccuracy": 0, "mistake": 1, "blunder": 1}
    assert summary[1] == {"role": "o", "moves": 2, "average_loss": 0.06, "inaccuracy": 1, "mistake": 0, "blunder": 0}
    assert summary[2]["moves"] == 0 and summary[2]["average_loss"] == 0.0
