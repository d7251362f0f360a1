"""Each GDL sheet is the same game as its rule set in ``games.rules``: a few seeded random games
per rule set, compared state by state (facts, terminal, every role's legal moves, goals).
``benchmarks/gdl_equality.py`` plays hundreds; docs/ggp.md has its figures.

A sheet with one rule changed must be caught, so the comparison can fail."""

import pytest

from games.ggp.gdl.equality import compare
from games.ggp.gdl.sheets import sheet_text

CHECKED = ("nine-board-tictactoe",)
GAMES_IN_CI = 4


@pytest.mark.parametrize("slug", CHECKED)
def test_sheet_plays_the_same_game_as_the_rules(slug):
    report = compare(slug, games=GAMES_IN_CI, seed=2026)
    assert report.mismatches == []
    assert report.games == GAMES_IN_CI and report.states > GAMES_IN_CI * 10


# One rule changed in a copy of a sheet: (old text, new text, what the comparison must report).
MUTATIONS = {
    "nine-board-tictactoe": [
        ("(next (current ?k ?l))", "(next (current ?l ?k))", "state facts differ"),
        ("(true (cell ?i ?j ?k 1 ?m)) (true (cell ?i ?j ?k 2 ?m)) (true (cell ?i ?j ?k 3 ?m))",
         "(true (cell ?i ?j ?k 1 ?m)) (true (cell ?i ?j ?k 3 ?m))",
         "terminal"),
        ("(<= (legal ?r noop) (role ?r) (not (true (control ?r))))", "(<= (legal ?r noop) (role ?r))",
         "legal moves of xPlayer"),
    ],
}


@pytest.mark.parametrize("slug, old, new, words", [
    (slug, old, new, words) for slug, changes in MUTATIONS.items() for old, new, words in changes])
def test_a_sheet_with_one_rule_changed_is_caught(slug, old, new, words):
    original = sheet_text(slug)
    assert original.count(old) == 1
    report = compare(slug, games=GAMES_IN_CI, seed=2026, gdl_text=original.replace(old, new))
    assert report.mismatches, "the changed sheet went unnoticed"
    assert words in report.mismatches[0]
