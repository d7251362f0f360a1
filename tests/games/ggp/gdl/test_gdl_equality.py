"""Each GDL sheet is the same game as its rule set in ``games.rules``: a few seeded random games
per rule set, compared state by state (facts, terminal, every role's legal moves, goals), plus
the endings random games rarely reach. ``benchmarks/gdl_equality.py`` plays hundreds; docs/ggp.md
has its figures.

A sheet with one rule changed must be caught, so the comparison can fail."""

import random

import pytest

from games.ggp.gdl.equality import compare, compare_line, compare_state
from games.ggp.gdl.sheets import sheet_text
from games.rules import SLUGS, get_game

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

GAMES_IN_CI = 4
SEED = 2026


@pytest.mark.parametrize("slug", SLUGS)
def test_sheet_plays_the_same_game_as_the_rules(slug):
    report = compare(slug, games=GAMES_IN_CI, seed=SEED)
    assert report.mismatches == []
    assert report.games == GAMES_IN_CI and report.states > GAMES_IN_CI * 10
    assert sum(report.outcomes.values()) == GAMES_IN_CI
    assert report.fresh_groundings == 0, "a state fact or move fell outside the sheet's base or input"


@pytest.mark.parametrize("slug", ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie"])
def test_a_full_nine_board_without_a_line_is_a_draw_in_both(slug):
    game = get_game(slug)
    no_line = "xoxxoxoxo" * 9  # each sub-board: x o x / x o x / o x o
    state = game.state_from_json({"board": no_line, "sub": 8, "ply": 81, "swapped": False, "last": 80})
    assert game.goals(state) == {role: 50 for role in game.roles}
    assert compare_state(slug, state).mismatches == []
    changed = sheet_text(slug).replace("(goal ?r 50)", "(goal ?r 40)")
    assert "goal of" in compare_state(slug, state, gdl_text=changed).mismatches[0]


def _random_line_ending(slug, wanted, seed=SEED):
    """The actions of the first seeded random game of ``slug`` whose goals satisfy ``wanted``."""
    game, rng = get_game(slug), random.Random(seed)
    for _ in range(5000):
        state, line = game.initial_state(), []
        while not game.is_terminal(state):
            line.append(rng.choice(game.legal_actions(state)))
            state = game.play(state, game.to_move(state), line[-1])
        if wanted(game.goals(state)):
            return line
    raise AssertionError(f"no such game of {slug} in 5000 random games")


@pytest.mark.parametrize("slug, wanted", [
    ("quarto-misere", lambda goals: set(goals.values()) == {50}),
    ("quarto-misere-classic", lambda goals: set(goals.values()) == {50}),
    ("tictactoe-3player", lambda goals: 100 not in goals.values() and 33 in goals.values()),
    ("tictactoe-3player-torus", lambda goals: 100 not in goals.values() and 33 in goals.values()),
    ("tictactoe-3player", lambda goals: 100 in goals.values() and 66 in goals.values() and 0 in goals.values()),
])
def test_rarer_endings_agree_too(slug, wanted):
    report = compare_line(slug, _random_line_ending(slug, wanted))
    assert report.mismatches == [] and report.games == 1 and wanted(dict(zip(get_game(slug).roles,
                                                                           next(iter(report.outcomes)))))


# One rule changed in a copy of a sheet: (old text, new text, what the comparison must report).
MUTATIONS = [
    ("nine-board-tictactoe", "(next (current ?k ?l))", "(next (current ?l ?k))", "state facts differ"),
    ("nine-board-tictactoe", "(true (cell ?i ?j ?k 1 ?m)) (true (cell ?i ?j ?k 2 ?m)) (true (cell ?i ?j ?k 3 ?m))",
     "(true (cell ?i ?j ?k 1 ?m)) (true (cell ?i ?j ?k 3 ?m))", "terminal"),
    ("nine-board-tictactoe", "(<= (legal ?r noop) (role ?r) (not (true (control ?r))))",
     "(<= (legal ?r noop) (role ?r))", "legal moves of xPlayer"),
    ("tictactoe-x9", "(<= (allowed ?i ?j) (index ?i) (index ?j) (not bound))",
     "(<= (allowed ?i ?j) (index ?i) (index ?j))", "legal moves of oplayer"),
    ("nine-board-tictactoe-pie", "(<= (next (marker ?r ?n)) (true (marker ?r ?m)) (otherMark ?m ?n) swapping)",
     "(<= (next (marker ?r ?m)) (true (marker ?r ?m)) swapping)", "state facts differ"),
    ("nine-board-tictactoe-pie", "(<= (next (current ?i ?j)) (true (current ?i ?j)) swapping)", "",
     "state facts differ"),
    ("tictactoe-3player", "(<= (goal ?r 66)", "(<= (goal ?r 67)", "goal of"),
    ("tictactoe-3player-torus", "(succ 5 1)", "", "terminal"),
    ("quarto-misere", "(<= (next (control ?r)) (true (control ?r)) (not holding))",
     "(<= (next (control ?r)) (true (control ?r)) (not holding) (true (control white)))", "state facts differ"),
    ("quarto-misere-classic", "(<= (goal ?r 0) (true (control ?r)) line)", "(<= (goal ?r 100) (true (control ?r)) line)",
     "goal of"),
]


@pytest.mark.parametrize("slug, old, new, words", MUTATIONS)
def test_a_sheet_with_one_rule_changed_is_caught(slug, old, new, words):
    original = sheet_text(slug)
    assert original.count(old) == 1
    report = compare(slug, games=GAMES_IN_CI, seed=SEED, gdl_text=original.replace(old, new))
    assert report.mismatches, "the changed sheet went unnoticed"
    assert words in report.mismatches[0]
