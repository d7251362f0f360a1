"""A position as a PNG picture, for link previews (Open Graph ``og:image``): the board's grid and
its marks or pieces, drawn from the rules' ``view`` (the same data ``static/js/boards.js`` draws),
1200 x 630 pixels, the size chat apps show in a large preview. Plain shapes only: no text, no
font to find.

Example::

    >>> from games.rules import get_game
    >>> game = get_game("tictactoe-3player")
    >>> board_png(game.view(game.initial_state()))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image, ImageDraw

WIDTH, HEIGHT = 1200, 630
BOARD = 570  # the board's side, centred
BACKGROUND = (245, 241, 232)
PAPER = (255, 253, 248)
INK = (40, 44, 52)
LINE = (200, 196, 186)
WON = (255, 226, 150)  # the cells of the line that ended the game
MARKS = {"x": (196, 62, 52), "o": (40, 96, 178), "z": (46, 140, 80)}
DARK_PIECE, LIGHT_PIECE = (70, 52, 40), (226, 186, 120)


def board_png(view: dict[str, Any]) -> bytes:
    """The position ``view`` (``Game.view(state)``) as PNG bytes."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    left, top = (WIDTH - BOARD) // 2, (HEIGHT - BOARD) // 2
    draw.rectangle((left, top, left + BOARD, top + BOARD), fill=PAPER)
    family = view["family"]
    side = {"nine-board": 9, "three-player": 5, "quarto": 4}[family]
    cell = BOARD / side
    won = set(view.get("line") or ())
    for index, content in enumerate(view["cells"]):
        row, column = _place(family, index)
        box = (left + column * cell, top + row * cell, left + (column + 1) * cell, top + (row + 1) * cell)
        if index in won:
            draw.rectangle(box, fill=WON)
        if content:
            (_piece if family == "quarto" else _mark)(draw, box, content)
    for k in range(side + 1):
        thick = 6 if family == "nine-board" and k % 3 == 0 else 2
        at = round(k * cell)
        draw.line((left + at, top, left + at, top + BOARD), fill=INK if thick > 2 else LINE, width=thick)
        draw.line((left, top + at, left + BOARD, top + at), fill=INK if thick > 2 else LINE, width=thick)
    if family != "nine-board":
        draw.rectangle((left, top, left + BOARD, top + BOARD), outline=INK, width=4)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _place(family: str, index: int) -> tuple[int, int]:
    """The (row, column) on screen of cell ``index``: nine-board cells go sub-board by sub-board."""
    if family == "nine-board":
        sub, small = divmod(index, 9)
        return sub // 3 * 3 + small // 3, sub % 3 * 3 + small % 3
    return divmod(index, 5 if family == "three-player" else 4)


def _shrunk(box: tuple[float, float, float, float], by: float) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = box
    inset = (x1 - x0) * by
    return x0 + inset, y0 + inset, x1 - inset, y1 - inset


def _mark(draw: ImageDraw.ImageDraw, box, mark: str) -> None:
    x0, y0, x1, y1 = _shrunk(box, 0.2)
    colour = MARKS.get(mark, INK)
    width = max(3, round((x1 - x0) / 7))
    if mark == "o":
        draw.ellipse((x0, y0, x1, y1), outline=colour, width=width)
    elif mark == "z":  # a triangle, as the board draws the third player's mark
        draw.polygon(((x0 + x1) / 2, y0, x1, y1, x0, y1), outline=colour, width=width)
    else:
        draw.line((x0, y0, x1, y1), fill=colour, width=width)
        draw.line((x0, y1, x1, y0), fill=colour, width=width)


def _piece(draw: ImageDraw.ImageDraw, box, piece: str) -> None:
    """A Quarto piece "p<tall><dark><square><hollow>": big or small, dark or light, square or
    round, with a hole or without."""
    tall, dark, square, hollow = (piece[position] == "1" for position in (1, 2, 3, 4))
    x0, y0, x1, y1 = _shrunk(box, 0.1 if tall else 0.24)
    colour = DARK_PIECE if dark else LIGHT_PIECE
    (draw.rectangle if square else draw.ellipse)((x0, y0, x1, y1), fill=colour, outline=INK, width=2)
    if hollow:
        draw.ellipse(_shrunk((x0, y0, x1, y1), 0.32), fill=PAPER, outline=INK, width=2)
