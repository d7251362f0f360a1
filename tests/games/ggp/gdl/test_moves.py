"""Boardhall <-> GDL: actions and moves are one canonical text, and a move read from outside is
an action only when it is legal for that role there."""

import pytest

from games.ggp.gdl import moves
from games.ggp.gdl.reasoner import Reasoner
from games.ggp.gdl.sheets import sheet_text
from games.rules import SLUGS, NotAnAction, get_game

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)


def test_a_move_from_outside_becomes_the_legal_action_it_names():
    game = get_game("nine-board-tictactoe-pie")
    state = game.play(game.initial_state(), "red", "(play 2 2 1 3 x)")
    assert moves.from_gdl(game.slug, state, "blue", "SWAP") == "swap"
    assert moves.from_gdl(game.slug, state, "blue", " ( play 1 3 1 1 o ) ; late") == "(play 1 3 1 1 o)"
    assert moves.from_gdl(game.slug, state, "red", "noop") == "noop"


@pytest.mark.parametrize("text", [
    "(play 2 2 1 1 o)",       # outside the sub-board in play
    "(play 1 3 1 1 x)",       # blue's marker is o
    "noop",                   # blue is in control and must act
    "(play 1 3 1 1 o",        # not KIF
    "(play (1) 3 1 1 o)",
    "((((((play))))))",       # too deep for a move
    "(play " + "1 " * 200 + ")",  # too long for a move
    "",
    "swap swap",
])
def test_anything_else_is_not_an_action(text):
    game = get_game("nine-board-tictactoe-pie")
    state = game.play(game.initial_state(), "red", "(play 2 2 1 3 x)")
    assert moves.from_gdl(game.slug, state, "blue", text) is None
    assert moves.from_gdl(game.slug, state, "green", "swap") is None


def test_actions_become_moves():
    game = get_game("quarto-misere-classic")
    state = game.initial_state()
    assert moves.to_gdl(game.slug, state, "white", "( SELECT  p0101 )") == "(select p0101)"
    assert moves.to_gdl(game.slug, state, "black", None) == "noop"
    assert moves.joint(game.slug, state, "(select p0101)") == {"white": "(select p0101)", "black": "noop"}
    with pytest.raises(NotAnAction):
        moves.to_gdl(game.slug, state, "white", "(select p2)")


@pytest.mark.parametrize("slug", SLUGS)
def test_the_initial_state_maps_to_the_sheets_initial_facts(slug):
    game = get_game(slug)
    assert moves.state_facts(slug, game.initial_state()) == Reasoner(sheet_text(slug)).initial()
