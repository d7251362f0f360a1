"""The expert's compiled search for misère Quarto (games/computer/quarto_compiled.py): checked
against the rules' own exact search, in the rules' style (pure: no database, no channel layer)."""

import random
from unittest import mock

import pytest

from games.computer import quarto_compiled as compiled
from games.computer import search
from games.rules import get_game
from games.rules.quarto import ALL_CELLS, CELLS
from tests.games.computer.test_search import WON_AT_PLY_15

pytestmark = pytest.mark.pure

SLUGS = ("quarto-misere-classic", "quarto-misere")


def _random_position(game, rng, pieces_left, placing):
    """A position of random play, not over, with ``pieces_left`` pieces not yet placed and a
    piece waiting to be placed (``placing``) or to be selected."""
    while True:
        state = game.initial_state()
        while not game.is_terminal(state) and (
                CELLS - state.filled.bit_count() > pieces_left or bool(state.ply & 1) != placing):
            state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
        if not game.is_terminal(state):
            return state


def _value_for_mover(game, state):
    """The mover's value (+1, 0, -1) by the rules' own exact search."""
    goals = game.exact_goals(state)
    return (goals[game.to_move(state)] - 50) // 50


@pytest.mark.parametrize("slug", SLUGS)
def test_the_exact_search_agrees_with_the_rules_own(slug):
    game = get_game(slug)
    rng = random.Random(slug)
    table = compiled.Table(bits=16)
    seen = set()
    for n in range(40):
        state = _random_position(game, rng, pieces_left=rng.choice((4, 5, 6, 7)), placing=bool(n % 2))
        table.clear()
        value = compiled.exact_value(table, state.board, state.filled, state.pool, state.selected,
                                     game.order == "classic")
        assert value == _value_for_mover(game, state), state
        seen.add(value)
    assert seen == {-1, 0, 1}  # the positions drawn cover wins, draws and losses


def test_a_null_window_tells_a_win_from_the_rest():
    game = get_game("quarto-misere-classic")
    rng = random.Random(7)
    table = compiled.Table(bits=16)
    for _ in range(20):
        state = _random_position(game, rng, pieces_left=6, placing=False)
        table.clear()
        reaches = compiled.exact_value(table, state.board, state.filled, state.pool, -1, True, 0, 1)
        assert (reaches >= 1) == (_value_for_mover(game, state) == 1)


def test_an_exact_search_out_of_time_says_so():
    game = get_game("quarto-misere-classic")
    state = _random_position(game, random.Random(3), pieces_left=12, placing=False)
    assert compiled.exact_value(compiled.Table(bits=12), state.board, state.filled, state.pool, -1, True,
                                deadline=0.0, step=10) is None


def test_a_playout_hands_over_a_piece_that_has_no_safe_cell_when_there_is_one():
    """Classic order: the selector wins at once by a piece every empty cell would lose with."""
    game = get_game("quarto-misere-classic")
    rng = random.Random(11)
    found = 0
    while found < 5:
        state = _random_position(game, rng, pieces_left=rng.choice((3, 4, 5, 6)), placing=False)
        after = [game.play(state, game.to_move(state), action) for action in game.legal_actions(state)]
        doomed = [s for s in after if all(game.is_terminal(game.play(s, game.to_move(s), a))
                                          for a in game.legal_actions(s))]
        if not doomed:
            continue
        found += 1
        selector_wins = 1 if game.to_move(state) == "white" else -1
        compiled.seed(found)
        for _ in range(50):
            assert compiled.playout(*compiled.position(state), True) == selector_wins


@pytest.mark.parametrize("slug", SLUGS)
def test_it_finds_a_forced_win(slug):
    """The solver (tree search alone, the exact search off) and the exact search each play a
    winning move where the rules' exact search says the mover has one."""
    game = get_game(slug)
    rng = random.Random(f"win {slug}")
    tried = 0
    while tried < 4:
        state = _random_position(game, rng, pieces_left=rng.choice((5, 6)), placing=bool(tried % 2))
        if _value_for_mover(game, state) != 1:
            continue
        tried += 1
        mover = game.to_move(state)
        for exact_cells in (0, CELLS):
            action = compiled.best_move(game, state, seconds=60.0, seed_value=tried, rounds=200_000,
                                        exact_cells=exact_cells)
            after = game.play(state, mover, action)
            assert game.is_terminal(after) or game.exact_goals(after)[mover] == 100, (state, action)


def test_in_a_drawn_position_it_keeps_the_draw():
    game = get_game("quarto-misere-classic")
    rng = random.Random(5)
    tried = 0
    while tried < 4:
        state = _random_position(game, rng, pieces_left=6, placing=bool(tried % 2))
        mover = game.to_move(state)
        values = [game.exact_goals(game.play(state, mover, a))[mover] for a in game.legal_actions(state)]
        if max(values) != 50 or values.count(50) < 2:
            continue
        tried += 1
        action = compiled.best_move(game, state, seconds=60.0, seed_value=tried, rounds=3000)
        assert game.exact_goals(game.play(state, mover, action))[mover] == 50


@pytest.mark.parametrize("slug", SLUGS)
def test_it_plays_legal_moves_through_a_whole_game(slug):
    game = get_game(slug)
    state = game.initial_state()
    while not game.is_terminal(state):
        action = compiled.best_move(game, state, seconds=0.5, seed_value=state.ply, rounds=300)
        assert action in game.legal_actions(state)
        state = game.play(state, game.to_move(state), action)
    assert state.filled == ALL_CELLS or game.goals(state) != {"white": 50, "black": 50}


def test_a_full_tree_goes_on_with_playouts():
    game = get_game("quarto-misere-classic")
    tree = compiled.Tree(40)
    tree.run(500, compiled.position(game.initial_state()), True, 0, 25, 1.4, True)
    assert tree.used[0] <= 40 and tree.visits[0] == 500


def test_the_expert_searches_quarto_compiled_and_other_games_as_before():
    expert = search.LEVELS[-1]
    assert expert.compiled
    quarto, nine = get_game("quarto-misere-classic"), get_game("nine-board-tictactoe")
    with mock.patch.object(compiled, "best_move", return_value="(select p0000)") as spy:
        assert search.play_level(quarto, quarto.initial_state(), level=search.STRONGEST, rng=random.Random(1),
                                 seconds=0.5, most_rounds=50) == "(select p0000)"
        assert spy.call_args.kwargs["rounds"] == 50 and 0 < spy.call_args.kwargs["seconds"] <= 0.5
        # without a clock (post-game analysis, repeatable searches) the search stays the pure one
        assert search.play_level(quarto, quarto.initial_state(), level=search.STRONGEST, rng=random.Random(1),
                                 seconds=None, most_rounds=50) in quarto.legal_actions(quarto.initial_state())
        assert search.play_level(nine, nine.initial_state(), level=search.STRONGEST, rng=random.Random(1),
                                 seconds=0.2, most_rounds=50) in nine.legal_actions(nine.initial_state())
    assert spy.call_count == 1


def test_it_plays_the_forced_win_the_pure_expert_once_missed():
    """Ply 15 of a benchmark game: one placement of nine wins (tests/games/computer/test_search.py)."""
    game = get_game("quarto-misere-classic")
    state = game.replay(WON_AT_PLY_15)
    for exact_cells in (0, CELLS):  # the tree's solver alone, and the exact search first
        action = compiled.best_move(game, state, seconds=60.0, seed_value=1, rounds=2_000_000,
                                    exact_cells=exact_cells)
        assert action == "(place p1101 3 2)"
