"""Misère Quarto in the self-selection and the classic order: one test per rule of RULES.md section 5."""

import random

import pytest

from games.rules import IllegalAction, NotAnAction, RulesError, get_game
from games.rules.base import GameNotOver
from tests.support.rules import possible_goals

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

SELF = get_game("quarto-misere")
CLASSIC = get_game("quarto-misere-classic")
BOTH = pytest.mark.parametrize("game", [SELF, CLASSIC], ids=["self", "classic"])


def steps(*placements):
    """Select-then-place actions for each ``(piece, x, y)``; the same text serves both orders."""
    actions = []
    for piece, x, y in placements:
        actions += [f"(select {piece})", f"(place {piece} {x} {y})"]
    return actions


def fill(arrangement):
    """Placements that fill the board with 16 pieces listed by cell index (y-1)*4 + (x-1)."""
    return steps(*((piece, c % 4 + 1, c // 4 + 1) for c, piece in enumerate(arrangement)))


# No row, column or diagonal of this board shares an attribute.
NO_LINE_BOARD = ["p1011", "p0110", "p0111", "p0101",
                 "p1000", "p1111", "p0010", "p1110",
                 "p0011", "p1001", "p1101", "p0100",
                 "p1100", "p0001", "p1010", "p0000"]
# Only the diagonal a1-d4 shares an attribute (all round), and it needs the last cell.
LINE_AT_THE_LAST_CELL = ["p0000", "p0111", "p1011", "p1001",
                         "p1110", "p0001", "p0101", "p1000",
                         "p0011", "p1111", "p1100", "p1010",
                         "p0010", "p0110", "p1101", "p0100"]
# In the self order the 2nd and 4th placements are black's; in the classic order they are white's.
LAST_PLACER_OF_FOUR = {"quarto-misere": "black", "quarto-misere-classic": "white"}


def test_roles_info_and_variant():
    assert SELF.roles == CLASSIC.roles == ("white", "black")
    assert SELF.info.family == CLASSIC.info.family == "quarto"
    assert SELF.info.variant_of is None and CLASSIC.info.variant_of == "quarto-misere"


@pytest.mark.parametrize("game, expected", [
    (SELF, [("white", "select"), ("white", "place"), ("black", "select"), ("black", "place"), ("white", "select")]),
    (CLASSIC, [("white", "select"), ("black", "place"), ("black", "select"), ("white", "place"),
               ("white", "select")]),
], ids=["self", "classic"])
def test_who_selects_and_who_places(game, expected):
    state = game.initial_state()
    seen = []
    for action in steps(("p0101", 1, 1), ("p1010", 2, 2)) + ["(select p0000)"]:
        view = game.view(state)
        seen.append((view["to_move"], view["phase"]))
        assert all(a.startswith(f"({view['phase']} ") for a in game.legal_actions(state))
        state = game.play(state, game.to_move(state), action)
    assert seen == expected
    assert game.view(state)["order"] == ("self" if game is SELF else "classic")


@BOTH
def test_waiting_role_may_only_noop(game):
    state = game.initial_state()
    assert game.legal_moves(state, "black") == ["noop"]
    assert len(game.legal_moves(state, "white")) == 16
    state = game.next_state(state, {"white": "(select p0101)", "black": "noop"})
    placer = game.to_move(state)
    waiter = "black" if placer == "white" else "white"
    assert game.legal_moves(state, waiter) == ["noop"]
    assert game.legal_moves(state, placer)[:2] == ["(place p0101 1 1)", "(place p0101 2 1)"]
    with pytest.raises(IllegalAction) as err:
        game.next_state(state, {placer: "noop", waiter: "(place p0101 1 1)"})
    assert err.value.code == "not_your_turn"


@BOTH
def test_shared_zeros_make_a_line_and_its_placer_scores_zero(game):
    # p0000 p0001 p0010 p0011 are all short (attribute 4 = 0) and light (attribute 3 = 0).
    state = game.replay(steps(("p0000", 1, 1), ("p0001", 2, 1), ("p0010", 3, 1), ("p0011", 4, 1)))
    assert game.is_terminal(state) and game.to_move(state) is None
    outcome = game.outcome(state)
    placer = LAST_PLACER_OF_FOUR[game.slug]
    other = "white" if placer == "black" else "black"
    assert outcome.scores == {placer: 0, other: 100} and outcome.winners == (other,)
    assert outcome.line == (0, 1, 2, 3)
    assert outcome.reason == f"{placer} completed row 1 of short and light pieces, which loses"
    assert all(game.legal_moves(state, role) == [] for role in game.roles)
    with pytest.raises(IllegalAction) as err:
        game.play(state, "white", "(select p1111)")
    assert err.value.code == "game_over"


@BOTH
@pytest.mark.parametrize("cells, line", [
    ([(2, 1), (2, 2), (2, 3), (2, 4)], (1, 5, 9, 13)),  # column b
    ([(1, 1), (2, 2), (3, 3), (4, 4)], (0, 5, 10, 15)),  # diagonal a1-d4
    ([(4, 1), (3, 2), (2, 3), (1, 4)], (3, 6, 9, 12)),  # diagonal d1-a4
], ids=["column", "diagonal", "anti-diagonal"])
def test_columns_and_both_diagonals_are_lines(game, cells, line):
    tall = ["p1000", "p1011", "p1101", "p1110"]  # only attribute 4 (tall) is shared
    state = game.replay(steps(*((piece, x, y) for piece, (x, y) in zip(tall, cells))))
    outcome = game.outcome(state)
    assert outcome.line == line and outcome.scores[LAST_PLACER_OF_FOUR[game.slug]] == 0
    assert "of tall pieces" in outcome.reason


@BOTH
def test_four_pieces_without_a_shared_attribute_are_not_a_line(game):
    # Every attribute takes both values among p0000 p1111 p0011 p1100.
    state = game.replay(steps(("p0000", 1, 2), ("p1111", 2, 2), ("p0011", 3, 2), ("p1100", 4, 2)))
    assert not game.is_terminal(state)
    assert game.view(state)["phase"] == "select" and game.view(state)["line"] == []
    with pytest.raises(GameNotOver):
        game.outcome(state)


@BOTH
def test_a_full_board_without_a_line_is_a_draw(game):
    actions = fill(NO_LINE_BOARD)
    before_last = game.replay(actions[:-1])
    assert not game.is_terminal(before_last) and game.view(before_last)["pool"] == []
    state = game.play(before_last, game.to_move(before_last), actions[-1])
    assert state.ply == 32 and game.is_terminal(state)
    outcome = game.outcome(state)
    assert outcome.scores == {"white": 50, "black": 50} and outcome.is_draw and outcome.line == ()
    assert "full" in outcome.reason


@BOTH
def test_a_line_made_by_the_last_piece_still_loses(game):
    state = game.replay(fill(LINE_AT_THE_LAST_CELL))
    outcome = game.outcome(state)
    # The 16th placement is black's in the self order and white's in the classic order.
    placer = "black" if game is SELF else "white"
    assert outcome.scores[placer] == 0 and sum(outcome.scores.values()) == 100
    assert outcome.line == (0, 5, 10, 15) and "of round pieces" in outcome.reason


@BOTH
@pytest.mark.parametrize("setup, action, code", [
    ([], "(select p2000)", "not_an_action"),
    ([], "(select p000)", "not_an_action"),
    ([], "(select 0000)", "not_an_action"),
    ([], "(pick p0000)", "not_an_action"),
    ([], "hello", "not_an_action"),
    (["(select p0101)"], "(place p0101 1)", "not_an_action"),
    (["(select p0101)"], "(place p0101 5 1)", "out_of_range"),
    (["(select p0101)"], "(place p0101 1 0)", "out_of_range"),
    (["(select p0101)"], "(place p0101 -1 2)", "out_of_range"),
    (["(select p0101)"], "(select p0000)", "wrong_phase"),
    ([], "(place p0000 1 1)", "wrong_phase"),
    (["(select p0101)"], "(place p0000 1 1)", "wrong_piece"),
    (["(select p0101)", "(place p0101 1 1)"], "(select p0101)", "piece_not_in_pool"),
    (["(select p0101)", "(place p0101 1 1)", "(select p0000)"], "(place p0000 1 1)", "cell_occupied"),
])
def test_refusals_carry_their_code_and_change_nothing(game, setup, action, code):
    state = game.replay(setup)
    role = game.to_move(state)
    before = game.state_to_json(state)
    with pytest.raises(RulesError) as err:
        game.play(state, role, action)
    assert err.value.code == code
    assert isinstance(err.value, NotAnAction if code in ("not_an_action", "out_of_range") else IllegalAction)
    assert err.value.action == action and action in str(err.value)
    if isinstance(err.value, IllegalAction):
        assert err.value.role == role and role in str(err.value)
    assert game.state_to_json(state) == before


def test_refusal_messages_say_what_to_do():
    state = SELF.replay(["(select p0101)"])
    with pytest.raises(IllegalAction) as err:
        SELF.play(state, "white", "(place p0000 1 1)")
    assert "p0101" in str(err.value) and "place that one" in str(err.value)
    with pytest.raises(IllegalAction) as err:
        SELF.play(state, "white", "(select p0000)")
    assert "(place p0101 x y)" in str(err.value)


@BOTH
def test_play_returns_a_new_state_and_leaves_the_old_one_alone(game):
    first = game.replay(["(select p0101)"])
    second = game.play(first, game.to_move(first), "(place p0101 2 3)")
    assert game.view(first)["cells"] == [""] * 16 and game.view(first)["selected"] == "p0101"
    assert game.view(second)["cells"][9] == "p0101" and game.view(second)["selected"] is None
    assert hash(second) == hash(game.replay(["(select p0101)", "(place p0101 2 3)"]))
    with pytest.raises(AttributeError):
        second.ply = 0


def test_json_reads_like_the_board():
    state = SELF.replay(["(select p0101)", "(place p0101 2 3)", "(select p1111)"])
    assert SELF.state_to_json(state) == {"cells": [""] * 9 + ["p0101"] + [""] * 6, "selected": "p1111", "ply": 3}


@pytest.mark.parametrize("data", [
    None,
    [],
    {},
    {"cells": [""] * 16, "ply": 0},
    {"cells": [""] * 15, "selected": None, "ply": 0},
    {"cells": ["p2000"] + [""] * 15, "selected": None, "ply": 2},
    {"cells": [""] * 16, "selected": None, "ply": "0"},
    {"cells": [""] * 16, "selected": None, "ply": 0, "extra": 1},
    {"cells": [""] * 16, "selected": [], "ply": 1},
    {"cells": [""] * 16, "selected": None, "ply": 1},  # a placement is due, but nothing is selected
    {"cells": ["p0000"] + [""] * 15, "selected": "p0000", "ply": 3},  # one piece twice
    {"cells": ["p0000", "p0001"] + [""] * 14, "selected": None, "ply": 2},  # two pieces after one turn
    # A line ended the game, so nobody can have selected afterwards.
    {"cells": ["p0000", "p0001", "p0010", "p0011"] + [""] * 12, "selected": "p1111", "ply": 9},
])
def test_state_from_json_refuses_garbage(data):
    with pytest.raises(RulesError) as err:
        SELF.state_from_json(data)
    assert err.value.code == "bad_state"


@BOTH
def test_view_in_the_select_phase(game):
    state = game.replay(["(select p0101)", "(place p0101 2 3)"])
    view = game.view(state)
    assert view["family"] == "quarto" and view["ply"] == 2 and view["markers"] == {}
    assert view["to_move"] == game.to_move(state) and view["phase"] == "select" and view["selected"] is None
    assert view["cells"][9] == "p0101" and view["cells"].count("") == 15
    assert view["pool"] == sorted(f"p{p:04b}" for p in range(16) if p != 5)
    assert view["piece_actions"] == {piece: f"(select {piece})" for piece in view["pool"]}
    assert view["cell_actions"] == {} and view["highlight"] == [] and view["line"] == []
    assert view["other_actions"] == []


@BOTH
def test_view_in_the_place_phase(game):
    state = game.replay(["(select p0101)", "(place p0101 2 3)", "(select p1111)"])
    view = game.view(state)
    assert view["phase"] == "place" and view["selected"] == "p1111" and view["piece_actions"] == {}
    assert "p1111" not in view["pool"] and len(view["pool"]) == 14
    assert view["cell_actions"]["6"] == "(place p1111 3 2)" and "9" not in view["cell_actions"]
    assert sorted(view["cell_actions"].values()) == sorted(game.legal_actions(state))
    assert view["highlight"] == [c for c in range(16) if c != 9]


def test_view_shows_the_line_that_ended_the_game():
    state = SELF.replay(steps(("p0000", 1, 1), ("p0001", 2, 1), ("p0010", 3, 1), ("p0011", 4, 1)))
    view = SELF.view(state)
    assert view["line"] == [0, 1, 2, 3] and view["to_move"] is None and view["piece_actions"] == {}


def test_action_labels_use_attribute_words():
    assert SELF.action_label("(select p1111)") == "select tall dark square hollow"
    assert SELF.action_label("(select p0000)") == "select short light round solid"
    assert SELF.action_label("(place p1001 2 3)") == "place tall light round hollow at b3"
    with pytest.raises(NotAnAction):
        SELF.action_label("noop")


def swapped(goals):
    return {"white": goals["black"], "black": goals["white"]}


@BOTH
@pytest.mark.parametrize("board, back", [
    (NO_LINE_BOARD, 3),  # a placement is due; a line and a draw are both still possible
    (LINE_AT_THE_LAST_CELL, 2),  # a selection is due, and the last piece must make the line
    (NO_LINE_BOARD, 6),  # a larger tree of endings
], ids=["place-phase", "select-phase", "six-plies"])
def test_random_playout_follows_the_rules_near_the_end(game, board, back):
    state = game.replay(fill(board)[:-back])
    endings = possible_goals(game, state)
    if back < 6:
        # Endings not symmetric between the roles show a playout that blames the wrong placer.
        assert any(swapped(goals) not in endings for goals in endings)
    rng = random.Random(2)
    seen = [game.random_playout(state, rng) for _ in range(200)]
    assert all(goals in endings for goals in seen)
    assert all(ending in seen for ending in endings)


@BOTH
def test_random_playout_from_a_finished_game_returns_its_goals(game):
    state = game.replay(fill(NO_LINE_BOARD))
    assert game.random_playout(state, random.Random(0)) == {"white": 50, "black": 50}


def best_play(game, state):
    """Each role's goal under best play, by plain recursion over ``play`` (small positions)."""
    mover = game.to_move(state)
    if mover is None:
        return game.goals(state)
    return max((best_play(game, game.play(state, mover, a)) for a in game.legal_actions(state)),
               key=lambda goals: goals[mover])


@BOTH
def test_the_exact_endgame_search_agrees_with_plain_recursion(game):
    rng = random.Random(f"exact:{game.slug}")
    seen = {"select": 0, "place": 0}
    values = set()
    while min(seen.values()) < 6:
        state = game.initial_state()
        stop = rng.randint(22, 26)  # 4 to 6 pieces left: small enough for plain recursion
        while not game.is_terminal(state) and state.ply < stop:
            state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
        if game.is_terminal(state):
            continue
        expected = best_play(game, state)
        assert game.exact_goals(state) == expected
        seen[game.phase(state)] += 1
        values.add(expected[game.to_move(state)])
    assert values == {0, 50, 100}  # wins, draws and losses were all among them


@BOTH
def test_the_exact_endgame_search_gives_up_at_its_deadline(game):
    state = game.replay(steps(("p0000", 1, 1), ("p1111", 2, 2)))
    assert game.exact_goals(state, deadline=0.0) is None  # long past: gives up at its first check


@BOTH
def test_the_win_search_agrees_with_the_exact_values(game):
    """``exact_win`` (a null window) says whether a role wins under best play, for the role to
    move and for the other, as the full search's values do."""
    rng = random.Random(f"win:{game.slug}")
    seen = set()
    while len(seen) < 4:
        state = game.initial_state()
        stop = rng.randint(16, 22)  # 5 to 8 pieces left
        while not game.is_terminal(state) and state.ply < stop:
            state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
        if game.is_terminal(state):
            continue
        goals = game.exact_goals(state)
        for role in game.roles:
            won = game.exact_win(state, role)
            assert won == (goals[role] == 100)
            seen.add((role == game.to_move(state), won))
    assert game.exact_win(game.replay(fill(NO_LINE_BOARD)), "white") is False  # over: a draw


@BOTH
def test_the_win_search_gives_up_at_its_deadline(game):
    state = game.replay(steps(("p0000", 1, 1), ("p1111", 2, 2)))
    assert game.exact_win(state, "white", deadline=0.0) is None
