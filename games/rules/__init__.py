"""The rules of Boardhall's games: pure Python, standard library only.

Example::

    >>> from games.rules import get_game
    >>> game = get_game("nine-board-tictactoe")
    >>> game.roles
    ('xPlayer', 'oPlayer')
    >>> state = game.next_state(game.initial_state(), {"xPlayer": "(play 2 2 1 3 x)", "oPlayer": "noop"})
    >>> game.legal_moves(state, "xPlayer")
    ['noop']

``GAMES`` lists every rule set's ``GameInfo`` in lobby order, ``SLUGS`` their slugs (the one list
of the rule sets this site has); see ``base.py`` for the interface.
"""

from games.rules.base import (
    NOOP,
    Action,
    Game,
    GameInfo,
    GameNotOver,
    IllegalAction,
    NotAnAction,
    Outcome,
    Registry,
    Role,
    RulesError,
)
from games.rules.nine_board import NINE_BOARD, NINE_BOARD_PIE, TICTACTOE_X9
from games.rules.quarto import QUARTO_MISERE, QUARTO_MISERE_CLASSIC
from games.rules.three_player import THREE_PLAYER, THREE_PLAYER_TORUS

REGISTRY = Registry()
for _game in (NINE_BOARD, TICTACTOE_X9, NINE_BOARD_PIE, THREE_PLAYER, THREE_PLAYER_TORUS,
              QUARTO_MISERE, QUARTO_MISERE_CLASSIC):
    REGISTRY.add(_game)

GAMES: tuple[GameInfo, ...] = tuple(game.info for game in REGISTRY.games.values())
SLUGS: tuple[str, ...] = tuple(info.slug for info in GAMES)  # the rule sets this site has, in lobby order


def get_game(slug: str) -> Game:
    """The rule set called ``slug``; raises ``KeyError`` naming the known slugs."""
    return REGISTRY.get(slug)


__all__ = [
    "NOOP", "Action", "Game", "GameInfo", "GameNotOver", "GAMES", "IllegalAction", "NotAnAction", "Outcome",
    "Role", "RulesError", "SLUGS", "get_game",
]
