"""The position picture (games/match/picture.py): a PNG of the link-preview size for every rule set."""

import io
import random

import pytest
from PIL import Image

from games.match.picture import HEIGHT, WIDTH, board_png
from games.rules import SLUGS, get_game

pytestmark = pytest.mark.pure


def position_after(slug: str, moves: int):
    game = get_game(slug)
    state, rng = game.initial_state(), random.Random(slug)
    for _ in range(moves):
        if game.is_terminal(state):
            break
        state = game.play(state, game.to_move(state), rng.choice(game.legal_actions(state)))
    return game.view(state)


@pytest.mark.parametrize("slug", SLUGS)
def test_each_rule_set_draws_its_position_as_a_png(slug):
    start, later = board_png(position_after(slug, 0)), board_png(position_after(slug, 12))
    picture = Image.open(io.BytesIO(later))
    assert picture.format == "PNG" and picture.size == (WIDTH, HEIGHT) == (1200, 630)
    assert later != start  # the marks or pieces are drawn
    assert len(later) < 60_000


def test_a_mark_is_drawn_in_its_cell():
    view = position_after("tictactoe-3player", 0)
    empty = Image.open(io.BytesIO(board_png(view))).convert("RGB")
    view["cells"][0] = "x"
    marked = Image.open(io.BytesIO(board_png(view))).convert("RGB")
    centre_of_first_cell = ((WIDTH - 570) // 2 + 57, (HEIGHT - 570) // 2 + 57)
    assert empty.getpixel(centre_of_first_cell) != marked.getpixel(centre_of_first_cell)
