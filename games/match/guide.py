"""The rules pages: for each game, real positions (played out by the rules from the actions
listed here) that the page draws with the site's own board renderer. Pure reads, no database.

A diagram is a sequence of actions from the start; ``game_guide`` replays it, so a diagram that
stopped being legal fails loudly (and in the tests) instead of teaching wrong rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy, pgettext_lazy

from games.match.labels import seat_label
from games.rules import GAMES, get_game

FULL_SUB_BOARD = ("(play 1 1 1 3 x)", "(play 1 3 1 1 o)", "(play 1 1 3 2 x)", "(play 3 2 1 1 o)",
                  "(play 1 1 2 2 x)", "(play 2 2 1 1 o)", "(play 1 1 1 1 x)", "(play 1 1 2 3 o)",
                  "(play 2 3 1 1 x)", "(play 1 1 2 1 o)", "(play 2 1 1 1 x)", "(play 1 1 3 3 o)",
                  "(play 3 3 1 1 x)", "(play 1 1 1 2 o)", "(play 1 2 1 1 x)", "(play 1 1 3 1 o)",
                  "(play 3 1 1 1 x)")
SUB_BOARD_RULE = ("(play 2 2 1 3 x)", "(play 1 3 2 2 o)", "(play 2 2 3 1 x)")
THREE_PLAYER_END = ("(mark 5 4)", "(mark 1 4)", "(mark 5 3)", "(mark 1 1)", "(mark 2 3)", "(mark 4 3)",
                    "(mark 3 4)", "(mark 4 1)", "(mark 1 5)", "(mark 4 4)", "(mark 3 2)")
QUARTO_LINE = ("(select p1111)", "(place p1111 2 2)", "(select p0111)", "(place p0111 1 2)",
               "(select p0101)", "(place p0101 4 2)", "(select p1110)", "(place p1110 3 2)")


def _x9(actions: tuple[str, ...]) -> tuple[str, ...]:
    """The same moves in Tic-Tac-Toe x9's notation: ``(play i j k l x)`` is ``(mark i j k l)``."""
    return tuple(f"(mark {' '.join(a.strip('()').split()[1:5])})" for a in actions)


@dataclass(frozen=True)
class Diagram:
    name: str
    game: str  # the rule set that plays ``actions``
    actions: tuple[str, ...]


NINE_BOARD = (Diagram("sub_board", "nine-board-tictactoe", SUB_BOARD_RULE),
              Diagram("full", "nine-board-tictactoe", FULL_SUB_BOARD))
DIAGRAMS: dict[str, tuple[Diagram, ...]] = {
    "nine-board-tictactoe": NINE_BOARD,
    "tictactoe-x9": tuple(Diagram(d.name, "tictactoe-x9", _x9(d.actions)) for d in NINE_BOARD),
    "nine-board-tictactoe-pie": (*(Diagram(d.name, "nine-board-tictactoe-pie", d.actions) for d in NINE_BOARD),
                                 Diagram("before_swap", "nine-board-tictactoe-pie", SUB_BOARD_RULE[:1]),
                                 Diagram("after_swap", "nine-board-tictactoe-pie", (*SUB_BOARD_RULE[:1], "swap")),
                                 Diagram("red_again", "nine-board-tictactoe-pie",
                                         (*SUB_BOARD_RULE[:1], "swap", "(play 1 3 2 2 o)"))),
    "tictactoe-3player": (Diagram("scores", "tictactoe-3player", THREE_PLAYER_END),),
    "quarto-misere": (Diagram("pieces", "quarto-misere", ()),
                      Diagram("line", "quarto-misere", QUARTO_LINE),
                      Diagram("own_order", "quarto-misere", QUARTO_LINE[:1]),
                      Diagram("classic_order", "quarto-misere-classic", QUARTO_LINE[:1])),
}


# What people read of each rule set, in their language (the rules keep the English: GDL, the
# move lists and the history use it). Game names as players of each language know them
# (docs/translating.md, "Game vocabulary").
TEXTS = {
    "nine-board-tictactoe": (gettext_lazy("Nine-Board Tic-Tac-Toe"), gettext_lazy(
        "Nine small boards in a 3x3 grid. The cell you play picks the small board your opponent must "
        "play in next (any board when that one is full). Three in a row inside any one small board wins.")),
    "tictactoe-x9": (gettext_lazy("Tic-Tac-Toe x9"), gettext_lazy(
        "Nine-board tic-tac-toe in its x9 notation: mark a cell of the small board your opponent's last "
        "cell points to (anywhere when it is full). Three in a row in any small board wins.")),
    "nine-board-tictactoe-pie": (gettext_lazy("Nine-Board Tic-Tac-Toe with the pie rule"), gettext_lazy(
        "Nine-board tic-tac-toe where red opens and blue may answer by swapping sides: blue then owns red's "
        "first mark and red plays on with the other marker. Three in a row in any small board wins.")),
    "tictactoe-3player": (gettext_lazy("Three-Player Tic-Tac-Toe"), gettext_lazy(
        "Three players take turns on a 5x5 board. Four in a row ends the game and scores 100; "
        "when it ends, three in a row still earns 66.")),
    "tictactoe-3player-torus": (gettext_lazy("Three-Player Tic-Tac-Toe on a torus"), gettext_lazy(
        "Three-player tic-tac-toe on a 5x5 board whose edges wrap around: a line leaving one side "
        "continues on the opposite side.")),
    "quarto-misere": (gettext_lazy("Misère Quarto"), gettext_lazy(
        "Pick a piece from the pool, then place it on the 4x4 board. Whoever completes a row, column or "
        "diagonal of four pieces sharing a trait (tall, dark, square, hollow, or their opposites) loses.")),
    "quarto-misere-classic": (gettext_lazy("Misère Quarto, classic order"), gettext_lazy(
        "Misère Quarto as originally played: you choose the piece your opponent must place. Whoever "
        "completes a line of four pieces sharing a trait loses.")),
}


def _texts(info) -> dict[str, Any]:
    name, summary = TEXTS.get(info.slug, (info.name, info.summary))
    return {"slug": info.slug, "name": str(name), "summary": str(summary)}


_role = seat_label


def guide_games() -> list[dict[str, Any]]:
    """The games that have a rules page, in lobby order, each with its variants, in the active
    language."""
    return [{**_texts(info), "variants": [_texts(v) for v in GAMES if v.variant_of == info.slug]}
            for info in GAMES if not info.variant_of]


def guide_slug(slug: str) -> str | None:
    """The slug of the page that explains the rule set ``slug`` (a variant is on its game's)."""
    info = next((g for g in GAMES if g.slug == slug), None)
    return None if info is None else info.variant_of or info.slug


def game_guide(*, slug: str) -> dict[str, Any]:
    """What the rules page of ``slug`` (a game with a page, see ``guide_slug``) draws: every
    diagram's view after its actions, the last action, and facts for the captions."""
    info = next(g for g in guide_games() if g["slug"] == slug)
    diagrams = {}
    for diagram in DIAGRAMS[slug]:
        game = get_game(diagram.game)
        state = game.replay(list(diagram.actions))
        facts: dict[str, Any] = {"to_move": _role(game.to_move(state)) if not game.is_terminal(state) else None}
        if game.is_terminal(state):
            facts["scores"] = {_role(role): score for role, score in game.goals(state).items()}
        diagrams[diagram.name] = {"view": game.view(state), "last": diagram.actions[-1] if diagram.actions else None,
                                  **facts}
    return {**info, "diagrams": diagrams, "roles": [_role(r) for r in get_game(slug).roles]}


# A rule set's variant as the lobby's variant list names it.
VARIANT_WORDS = {"standard rules": pgettext_lazy("variant", "standard rules"),
                 "torus: lines wrap around the edges": pgettext_lazy("variant", "torus: lines wrap around the edges"),
                 "classic order: you choose your opponent's piece":
                     pgettext_lazy("variant", "classic order: you choose your opponent's piece")}


def game_name(slug: str) -> str:
    """The name of the rule set ``slug`` in the active language (its slug when unknown)."""
    info = next((g for g in GAMES if g.slug == slug), None)
    return str(TEXTS[slug][0]) if slug in TEXTS else info.name if info else slug


def shown_games() -> list[dict[str, Any]]:
    """Every rule set in lobby order, as the lobby's forms list them, in the active language."""
    return [{**_texts(info), "variant_of": info.variant_of,
             "variant_name": str(VARIANT_WORDS.get(info.variant_name, info.variant_name))} for info in GAMES]


def game_choices() -> list[tuple[str, str]]:
    """(slug, name) of every rule set, for a form's choices; the names follow the language at
    each rendering (lazy)."""
    return [(info.slug, TEXTS[info.slug][0] if info.slug in TEXTS else info.name) for info in GAMES]


def seat_words(role: str) -> str:
    """A seat as people see it, in the active language: "X", "Rot", "Blanc"."""
    return _role(role)
