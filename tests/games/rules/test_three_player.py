"""Three-player tic-tac-toe, bounded and on a torus: one test per rule of RULES.md section 4."""

import random

import pytest

from games.rules import IllegalAction, NotAnAction, RulesError, get_game
from games.rules.base import GameNotOver
from tests.support.rules import possible_goals

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

BOUNDED = get_game("tictactoe-3player")
TORUS = get_game("tictactoe-3player-torus")
BOTH = pytest.mark.parametrize("game", [BOUNDED, TORUS], ids=["bounded", "torus"])


def mark(m, n):
    return f"(mark {m} {n})"


def interleave(x, o, z):
    """The action list in which x, o and z mark their cells (lists of (m, n)) in turn."""
    actions = []
    for turn in range(len(x)):
        for cells in (x, o, z):
            if turn < len(cells):
                actions.append(mark(*cells[turn]))
    return actions


def from_picture(picture):
    """Actions that build ``picture`` (rows of x, o, z, .), each role's cells in reading order."""
    rows = picture.split()
    cells = {c: [(m + 1, n + 1) for m, row in enumerate(rows) for n, v in enumerate(row) if v == c] for c in "xoz"}
    return interleave(cells["x"], cells["o"], cells["z"])


# Full 5x5 boards without a four on the bounded board (x 9 marks, o and z 8 each).
FULL_NO_THREES = """
zxoxo
xzozx
zzxoz
xxozz
oxoxo
"""
FULL_O_AND_Z_THREES = """
ooozo
zxxzx
xxzzz
ozoxz
xooxx
"""


def test_roles_info_and_variant():
    assert BOUNDED.roles == TORUS.roles == ("xplayer", "oplayer", "zplayer")
    assert BOUNDED.info.family == TORUS.info.family == "three-player"
    assert BOUNDED.info.variant_of is None and TORUS.info.variant_of == "tictactoe-3player"


@BOTH
def test_turn_order_is_x_then_o_then_z(game):
    state = game.initial_state()
    seen = []
    for action in ["(mark 1 1)", "(mark 1 2)", "(mark 1 3)", "(mark 5 5)"]:
        seen.append(game.to_move(state))
        state = game.play(state, game.to_move(state), action)
    assert seen == ["xplayer", "oplayer", "zplayer", "xplayer"]
    assert game.view(state)["cells"][:3] == ["x", "o", "z"] and game.view(state)["cells"][24] == "x"


@BOTH
def test_waiting_roles_may_only_noop(game):
    state = game.initial_state()
    assert game.legal_moves(state, "oplayer") == game.legal_moves(state, "zplayer") == ["noop"]
    assert len(game.legal_moves(state, "xplayer")) == 25
    state = game.next_state(state, {"xplayer": "(mark 3 3)", "oplayer": "noop", "zplayer": "noop"})
    assert game.legal_moves(state, "xplayer") == ["noop"]
    assert "(mark 3 3)" not in game.legal_moves(state, "oplayer")
    with pytest.raises(IllegalAction) as err:
        game.next_state(state, {"xplayer": "noop", "oplayer": "(mark 1 1)", "zplayer": "(mark 2 2)"})
    assert err.value.code == "not_your_turn" and err.value.role == "zplayer"


# A four of x that wraps around an edge, with o and z marks nowhere near a line.
WRAPPED_FOURS = {
    "row": [(1, 4), (1, 5), (1, 1), (1, 2)],
    "column": [(4, 1), (5, 1), (1, 1), (2, 1)],
    "diagonal": [(4, 4), (5, 5), (1, 1), (2, 2)],
    "anti-diagonal": [(1, 2), (5, 3), (4, 4), (3, 5)],
}
QUIET_O = [(2, 3), (3, 1), (4, 2)]
QUIET_Z = [(3, 3), (5, 4), (2, 4)]


@pytest.mark.parametrize("direction", WRAPPED_FOURS)
def test_a_wrapped_four_counts_only_on_the_torus(direction):
    actions = interleave(WRAPPED_FOURS[direction], QUIET_O, QUIET_Z)
    bounded = BOUNDED.replay(actions)
    assert not BOUNDED.is_terminal(bounded) and BOUNDED.to_move(bounded) == "oplayer"
    torus = TORUS.replay(actions)
    assert TORUS.is_terminal(torus)
    outcome = TORUS.outcome(torus)
    assert outcome.scores == {"xplayer": 100, "oplayer": 0, "zplayer": 0}
    assert outcome.winners == ("xplayer",)
    assert outcome.reason == "xplayer made four in a row (100 points); oplayer and zplayer have no three (0 points)"
    assert sorted(outcome.line) == sorted((m - 1) * 5 + n - 1 for m, n in WRAPPED_FOURS[direction])


def test_a_wrapped_three_counts_only_on_the_torus():
    # o's (2 5) (2 1) (2 2) is a three only when row 2 wraps; x ends the game with a plain four.
    actions = interleave([(1, 1), (1, 2), (1, 3), (1, 4)], [(2, 5), (2, 1), (2, 2)], [(4, 1), (4, 3), (4, 5)])
    assert BOUNDED.goals(BOUNDED.replay(actions))["oplayer"] == 0
    assert TORUS.goals(TORUS.replay(actions))["oplayer"] == 66


@BOTH
@pytest.mark.parametrize("cells", [
    [(2, 1), (2, 2), (2, 3), (2, 4)],  # row
    [(1, 5), (2, 5), (3, 5), (4, 5)],  # column
    [(2, 2), (3, 3), (4, 4), (5, 5)],  # diagonal
    [(1, 4), (2, 3), (3, 2), (4, 1)],  # anti-diagonal
], ids=["row", "column", "diagonal", "anti-diagonal"])
def test_a_four_ends_the_game_in_every_direction(game, cells):
    o, z = [(5, 1), (5, 3), (3, 1)], [(1, 1), (1, 3), (4, 3)]
    state = game.replay(interleave(cells[:3], o, z))
    assert not game.is_terminal(state)
    state = game.play(state, "xplayer", mark(*cells[3]))
    assert game.is_terminal(state) and game.to_move(state) is None
    assert all(game.legal_moves(state, role) == [] for role in game.roles)
    assert game.goals(state)["xplayer"] == 100
    with pytest.raises(IllegalAction) as err:
        game.play(state, "oplayer", "(mark 5 5)")
    assert err.value.code == "game_over"


@BOTH
def test_scores_four_three_and_nothing(game):
    # x makes the four; o has a three; z has none.
    state = game.replay(from_picture("""
        xxxx.
        ooo..
        z.z..
        .....
        ....z
    """))
    outcome = game.outcome(state)
    assert outcome.scores == {"xplayer": 100, "oplayer": 66, "zplayer": 0}
    assert outcome.reason == ("xplayer made four in a row (100 points); oplayer has three in a row (66 points); "
                              "zplayer has no three (0 points)")
    assert outcome.line == (0, 1, 2, 3, 5, 6, 7)  # the four and o's three: every line that scored


@BOTH
def test_two_roles_can_score_66_beside_a_four(game):
    state = game.replay(from_picture("""
        xxxx.
        ooo..
        zzz..
        .....
        .....
    """))
    assert game.goals(state) == {"xplayer": 100, "oplayer": 66, "zplayer": 66}
    assert game.outcome(state).winners == ("xplayer",)


def test_full_board_without_a_four_scores_66_for_threes_and_33_for_the_rest():
    state = BOUNDED.replay(from_picture(FULL_O_AND_Z_THREES))
    assert state.ply == 25 and BOUNDED.is_terminal(state)
    outcome = BOUNDED.outcome(state)
    assert outcome.scores == {"xplayer": 33, "oplayer": 66, "zplayer": 66}
    assert outcome.winners == ("oplayer", "zplayer")
    assert outcome.reason == ("oplayer and zplayer made three in a row on a full board with no four "
                              "(66 points each); xplayer made no three (33 points)")
    masks = state.masks
    scoring = {c for w in BOUNDED.threes for mask in masks[1:] if mask & w == w for c in range(25) if w >> c & 1}
    assert outcome.line == tuple(sorted(scoring)) and {0, 1, 2, 3, 8, 13, 12, 14} <= scoring


def test_a_role_that_left_play_scores_0_and_is_credited_with_no_line():
    four = BOUNDED.replay(from_picture("""
        xxxx.
        ooo..
        z.z..
        .....
        ....z
    """))
    without_o = BOUNDED.outcome_without(four, ["oplayer"])
    assert without_o.reason == "xplayer made four in a row (100 points); zplayer has no three (0 points)"
    assert without_o.line == (0, 1, 2, 3)
    by_x = BOUNDED.outcome_without(four, ["xplayer"])  # its turns were played at random
    assert by_x.scores == {"xplayer": 0, "oplayer": 66, "zplayer": 0} and by_x.winners == ("oplayer",)
    assert by_x.reason == ("a random move for xplayer made four in a row; oplayer has three in a row (66 points); "
                           "zplayer has no three (0 points)")
    full = BOUNDED.outcome_without(BOUNDED.replay(from_picture(FULL_O_AND_Z_THREES)), ["oplayer", "zplayer"])
    assert full.scores == {"xplayer": 33, "oplayer": 0, "zplayer": 0} and full.winners == ("xplayer",)
    assert full.reason == "the board is full and nobody still playing has three in a row (33 points)"
    assert full.line == ()


def test_full_board_without_any_three_is_33_each_and_a_draw():
    actions = from_picture(FULL_NO_THREES)
    assert not BOUNDED.is_terminal(BOUNDED.replay(actions[:-1]))
    state = BOUNDED.replay(actions)
    outcome = BOUNDED.outcome(state)
    assert outcome.scores == {"xplayer": 33, "oplayer": 33, "zplayer": 33}
    assert outcome.is_draw and outcome.reason == "the board is full and nobody has three in a row (33 points each)"
    assert BOUNDED.view(state)["to_move"] is None and BOUNDED.view(state)["cell_actions"] == {}


@BOTH
def test_outcome_before_the_end_is_refused(game):
    with pytest.raises(GameNotOver):
        game.outcome(game.initial_state())
    with pytest.raises(GameNotOver):
        game.goals(game.replay(["(mark 1 1)"]))


@BOTH
@pytest.mark.parametrize("action, code", [
    ("(mark 1)", "not_an_action"),
    ("(mark 1 2 3)", "not_an_action"),
    ("(mark a b)", "not_an_action"),
    ("(play 1 1)", "not_an_action"),
    ("mark 1 1", "not_an_action"),
    ("(mark 0 3)", "out_of_range"),
    ("(mark 3 6)", "out_of_range"),
    ("(mark -1 2)", "out_of_range"),
    ("(mark 2 2)", "cell_occupied"),
])
def test_refusals_carry_their_code_and_change_nothing(game, action, code):
    state = game.replay(["(mark 2 2)"])
    before = game.state_to_json(state)
    with pytest.raises(RulesError) as err:
        game.play(state, "oplayer", action)
    assert err.value.code == code
    assert isinstance(err.value, IllegalAction if code == "cell_occupied" else NotAnAction)
    assert err.value.action == action and action in str(err.value)
    assert game.state_to_json(state) == before


def test_cell_occupied_names_the_role_and_says_what_to_do():
    with pytest.raises(IllegalAction) as err:
        BOUNDED.play(BOUNDED.replay(["(mark 2 2)"]), "oplayer", "(mark 2 2)")
    assert err.value.role == "oplayer" and "oplayer" in str(err.value) and "empty cell" in str(err.value)


@BOTH
def test_play_returns_a_new_state_and_leaves_the_old_one_alone(game):
    first = game.initial_state()
    second = game.play(first, "xplayer", "(mark 3 3)")
    assert first == game.initial_state() and game.view(first)["cells"] == [""] * 25
    assert second != first and game.view(second)["cells"][12] == "x"
    assert hash(second) == hash(game.replay(["(mark 3 3)"]))
    with pytest.raises(AttributeError):
        second.ply = 0


@pytest.mark.parametrize("data", [
    None,
    [],
    "cells",
    {},
    {"cells": [""] * 25},
    {"cells": [""] * 24, "ply": 0},
    {"cells": ["y"] + [""] * 24, "ply": 1},
    {"cells": [""] * 25, "ply": "0"},
    {"cells": [""] * 25, "ply": 0, "extra": 1},
    {"cells": ["o"] + [""] * 24, "ply": 1},  # x moves first
    {"cells": ["x"] + [""] * 24, "ply": 2},  # ply and marks disagree
    # o has a four but x moved last: the game would have ended before.
    {"cells": ["o", "o", "o", "o", "", "x", "x", "x", "x", "x", "z", "z", "z", "z"] + [""] * 11, "ply": 14},
])
def test_state_from_json_refuses_garbage(data):
    with pytest.raises(RulesError) as err:
        BOUNDED.state_from_json(data)
    assert err.value.code == "bad_state"


@BOTH
def test_view_draws_the_board(game):
    state = game.replay(["(mark 1 2)", "(mark 5 5)"])
    view = game.view(state)
    assert view["family"] == "three-player" and view["ply"] == 2 and view["to_move"] == "zplayer"
    assert view["markers"] == {"xplayer": "x", "oplayer": "o", "zplayer": "z"}
    assert view["cells"][1] == "x" and view["cells"][24] == "o" and view["cells"].count("") == 23
    assert view["cell_actions"]["0"] == "(mark 1 1)" and view["cell_actions"]["23"] == "(mark 5 4)"
    assert "1" not in view["cell_actions"] and len(view["cell_actions"]) == 23
    assert view["highlight"] == [c for c in range(25) if c not in (1, 24)]
    assert view["other_actions"] == [] and view["line"] == []
    assert view["wraps"] is (game is TORUS)


def test_view_shows_the_four_that_ended_the_game():
    state = TORUS.replay(interleave(WRAPPED_FOURS["row"], QUIET_O, QUIET_Z))
    view = TORUS.view(state)
    assert view["line"] == [0, 1, 3, 4] and view["highlight"] == [] and view["to_move"] is None


def test_action_labels_are_column_letter_then_row():
    assert BOUNDED.action_label("(mark 3 1)") == "a3"
    assert BOUNDED.action_label("(mark 1 5)") == "e1"
    with pytest.raises(NotAnAction):
        BOUNDED.action_label("noop")


@BOTH
def test_random_playout_follows_the_rules_near_the_end(game):
    # Replay a random game that filled the board, stop three marks early, and compare every
    # ending the rules allow with what the playout produces.
    rng = random.Random(8)
    while True:
        state, actions = game.initial_state(), []
        while not game.is_terminal(state):
            actions.append(rng.choice(game.legal_actions(state)))
            state = game.play(state, game.to_move(state), actions[-1])
        if state.ply == 25:
            break
    state = game.replay(actions[:-3])
    endings = possible_goals(game, state)
    seen = [game.random_playout(state, rng) for _ in range(60)]
    assert all(goals in endings for goals in seen)
    assert all(ending in seen for ending in endings)


@BOTH
def test_random_playout_from_a_finished_game_returns_its_goals(game):
    state = game.replay(interleave([(1, 1), (1, 2), (1, 3), (1, 4)], QUIET_O, QUIET_Z))
    assert game.random_playout(state, random.Random(0)) == game.goals(state)
