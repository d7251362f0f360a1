"""Nine-board tic-tac-toe, its x9 notation and its pie form: one test per rule of RULES.md 1-3."""

import pytest

from games.rules import IllegalAction, NotAnAction, get_game
from games.rules.nine_board import cell_index

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

NINE = get_game("nine-board-tictactoe")
X9 = get_game("tictactoe-x9")
PIE = get_game("nine-board-tictactoe-pie")


def test_roles_and_first_mover():
    assert NINE.roles == ("xPlayer", "oPlayer")
    assert X9.roles == ("xplayer", "oplayer")
    assert PIE.roles == ("red", "blue")
    state = NINE.initial_state()
    assert NINE.legal_moves(state, "oPlayer") == ["noop"]
    assert len(NINE.legal_moves(state, "xPlayer")) == 81


def test_first_move_anywhere():
    moves = NINE.legal_moves(NINE.initial_state(), "xPlayer")
    assert "(play 1 1 1 1 x)" in moves and "(play 3 3 3 3 x)" in moves and "(play 2 1 3 2 x)" in moves


def test_the_cell_played_picks_the_next_sub_board():
    state = NINE.next_state(NINE.initial_state(), {"xPlayer": "(play 2 2 1 3 x)", "oPlayer": "noop"})
    moves = NINE.legal_moves(state, "oPlayer")
    assert sorted(moves) == sorted(f"(play 1 3 {k} {l} o)" for k in (1, 2, 3) for l in (1, 2, 3))
    assert NINE.view(state)["sub_board"] == [1, 3]
    with pytest.raises(IllegalAction) as err:
        NINE.play(state, "oPlayer", "(play 2 2 1 1 o)")
    assert err.value.code == "wrong_sub_board"


def test_the_sent_back_square_may_already_be_taken_in_the_target_board():
    # x plays the centre of the centre: o must play in the centre board, where one cell is taken.
    state = NINE.replay(["(play 2 2 2 2 x)"])
    moves = NINE.legal_moves(state, "oPlayer")
    assert len(moves) == 8 and "(play 2 2 2 2 o)" not in moves
    with pytest.raises(IllegalAction) as err:
        NINE.play(state, "oPlayer", "(play 2 2 2 2 o)")
    assert err.value.code == "cell_occupied"


def test_a_full_sub_board_frees_the_move():
    # Sub-board (1, 1) is full without a line (x o x / x o o / o x x) and o is sent there.
    board = "xoxxoooxx" + "." * 72
    assert board.count("x") == 5 and board.count("o") == 4
    state = NINE.state_from_json({"board": board, "sub": 0, "ply": 9, "swapped": False, "last": 0})
    assert not NINE.is_terminal(state) and NINE.to_move(state) == "oPlayer"
    assert len(NINE.legal_actions(state)) == 72
    assert NINE.view(state)["sub_board"] is None
    assert len(NINE.view(state)["highlight"]) == 72
    # With one cell of (1, 1) still empty, that cell is the only legal play.
    state = NINE.state_from_json({"board": "xoxxoo.xx" + "o" + "." * 71, "sub": 0, "ply": 9,
                                  "swapped": False, "last": 9})
    assert NINE.legal_actions(state) == ["(play 1 1 3 1 o)"]


def test_lines_only_inside_one_sub_board():
    # x takes the top-left square of boards (1,1), (1,2), (1,3): a row across sub-boards is no line.
    actions = ["(play 1 1 1 1 x)", "(play 1 1 3 3 o)", "(play 3 3 1 2 x)", "(play 1 2 3 3 o)",
               "(play 3 3 1 3 x)", "(play 1 3 2 2 o)"]
    state = NINE.replay(actions)
    assert not NINE.is_terminal(state)


def test_three_in_a_row_in_a_sub_board_wins_and_only_that_ends_it():
    # x builds a diagonal in board (2,2); o answers elsewhere.
    actions = ["(play 2 2 1 1 x)", "(play 1 1 2 2 o)", "(play 2 2 2 2 x)", "(play 2 2 1 2 o)",
               "(play 1 2 3 3 x)", "(play 3 3 2 2 o)", "(play 2 2 3 3 x)"]
    state = NINE.replay(actions[:-1])
    assert not NINE.is_terminal(state)
    state = NINE.play(state, "xPlayer", actions[-1])
    assert NINE.is_terminal(state)
    assert NINE.goals(state) == {"xPlayer": 100, "oPlayer": 0}
    outcome = NINE.outcome(state)
    assert outcome.winners == ("xPlayer",)
    assert outcome.line == tuple(cell_index(2, 2, d, d) for d in (1, 2, 3))
    assert NINE.legal_moves(state, "xPlayer") == [] and NINE.legal_moves(state, "oPlayer") == []
    with pytest.raises(IllegalAction) as err:
        NINE.play(state, "oPlayer", "(play 3 3 1 1 o)")
    assert err.value.code == "game_over"


def test_the_draw_at_81_cells():
    # Every sub-board full without a line: P = x o x / x o o / o x x and its mirror Q (x and o
    # exchanged). Five P and four Q make 41 x and 40 o; the last x of sub-board (3, 3) is missing.
    p, q = "xoxxoooxx", "oxooxxxoo"
    board = p * 4 + q * 4 + p[:8] + "."
    state = NINE.state_from_json({"board": board, "sub": 8, "ply": 80, "swapped": False, "last": 71})
    assert not NINE.is_terminal(state)
    assert NINE.legal_actions(state) == ["(play 3 3 3 3 x)"]
    state = NINE.play(state, "xPlayer", "(play 3 3 3 3 x)")
    assert NINE.is_terminal(state)
    assert NINE.goals(state) == {"xPlayer": 50, "oPlayer": 50}
    assert NINE.outcome(state).is_draw and NINE.outcome(state).line == ()


def test_x9_notation_is_the_same_game():
    nine = NINE.replay(["(play 1 2 3 1 x)", "(play 3 1 2 2 o)"])
    x9 = X9.replay(["(mark 1 2 3 1)", "(mark 3 1 2 2)"])
    assert NINE.view(nine)["cells"] == X9.view(x9)["cells"]
    assert X9.view(x9)["sub_board"] == [2, 2]
    assert X9.legal_moves(x9, "xplayer")[0].startswith("(mark 2 2 ")
    with pytest.raises(NotAnAction):
        X9.play(X9.initial_state(), "xplayer", "(play 1 1 1 1 x)")


@pytest.mark.parametrize("action, code", [
    ("(play 1 1 1 1 o)", "wrong_marker"),
    ("(play 1 1 1 4 x)", "out_of_range"),
    ("(play 0 1 1 1 x)", "out_of_range"),
    ("(play 1 1 1 x)", "not_an_action"),
    ("(mark 1 1 1 1)", "not_an_action"),
    ("(play 1 1 1 1 z)", "not_an_action"),
    ("swap", "not_an_action"),
    ("", "not_an_action"),
])
def test_refusals_have_distinct_codes_and_change_nothing(action, code):
    state = NINE.initial_state()
    before = NINE.state_to_json(state)
    with pytest.raises((IllegalAction, NotAnAction)) as err:
        NINE.play(state, "xPlayer", action)
    assert err.value.code == code
    assert NINE.state_to_json(state) == before


def test_not_your_turn_and_noop_rules():
    state = NINE.initial_state()
    with pytest.raises(IllegalAction) as err:
        NINE.play(state, "oPlayer", "(play 1 1 1 1 o)")
    assert err.value.code == "not_your_turn"
    with pytest.raises(IllegalAction) as err:
        NINE.next_state(state, {"xPlayer": "noop", "oPlayer": "noop"})
    assert err.value.code == "must_act"
    with pytest.raises(IllegalAction) as err:
        NINE.next_state(state, {"xPlayer": "(play 1 1 1 1 x)", "oPlayer": "(play 1 1 1 2 o)"})
    assert err.value.code == "not_your_turn" and err.value.role == "oPlayer"


# -- the pie rule ------------------------------------------------------------------------------

def test_swap_is_offered_only_on_blues_first_turn():
    start = PIE.initial_state()
    assert "swap" not in PIE.legal_moves(start, "red")
    after_red = PIE.play(start, "red", "(play 2 2 1 3 x)")
    assert "swap" in PIE.legal_moves(after_red, "blue")
    assert PIE.view(after_red)["can_swap"] is True
    later = PIE.replay(["(play 2 2 1 3 x)", "(play 1 3 2 2 o)"])
    assert "swap" not in PIE.legal_moves(later, "red")
    later = PIE.play(later, "red", "(play 2 2 3 3 x)")
    assert "swap" not in PIE.legal_moves(later, "blue")
    with pytest.raises(IllegalAction) as err:
        PIE.play(later, "blue", "swap")
    assert err.value.code == "swap_unavailable"


def test_swap_exchanges_markers_and_keeps_the_sub_board():
    state = PIE.replay(["(play 2 2 1 3 x)", "swap"])
    view = PIE.view(state)
    assert view["markers"] == {"red": "o", "blue": "x"}
    assert view["to_move"] == "red"
    assert view["sub_board"] == [1, 3]
    assert view["cells"][cell_index(2, 2, 1, 3)] == "x"
    moves = PIE.legal_moves(state, "red")
    assert all(m.startswith("(play 1 3 ") and m.endswith(" o)") for m in moves) and len(moves) == 9
    with pytest.raises(IllegalAction) as err:
        PIE.play(state, "red", "(play 1 3 1 1 x)")
    assert err.value.code == "wrong_marker"


def test_pie_scores_go_to_the_role_whose_current_marker_made_the_line():
    # After the swap blue plays x and owns red's first mark; blue completes the x diagonal of (2,2).
    state = PIE.replay(["(play 2 2 1 1 x)", "swap", "(play 1 1 2 2 o)", "(play 2 2 2 2 x)",
                        "(play 2 2 1 2 o)", "(play 1 2 3 3 x)", "(play 3 3 2 2 o)", "(play 2 2 3 3 x)"])
    assert PIE.is_terminal(state)
    assert PIE.goals(state) == {"red": 0, "blue": 100}
    assert "blue" in PIE.outcome(state).reason


def test_without_swap_red_keeps_x():
    state = PIE.replay(["(play 2 2 1 1 x)", "(play 1 1 2 2 o)", "(play 2 2 2 2 x)",
                        "(play 2 2 1 2 o)", "(play 1 2 3 3 x)", "(play 3 3 2 2 o)", "(play 2 2 3 3 x)"])
    assert PIE.goals(state) == {"red": 100, "blue": 0}


def test_labels_are_readable():
    assert NINE.action_label("(play 2 2 1 3 x)") == "x B2 c1"
    assert X9.action_label("(mark 1 1 3 3)") == "A1 c3"
    assert PIE.action_label("swap") == "swap"
