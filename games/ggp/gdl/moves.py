"""Boardhall and GDL side by side: actions to moves, moves to actions, states to facts.

Boardhall's actions are already GDL text (RULES.md writes them so), and the sheets use the
same move vocabulary, so an action and its move are one canonical text; a waiting role's
move is ``noop`` in both. A state maps to the facts the sheet of its rule set keeps (see the
comment at the top of each sheet); the mapping is read from ``state_to_json``, the rules'
public boundary, never from a state's insides.

Example::

    >>> from games.rules import get_game
    >>> game = get_game("tictactoe-3player")
    >>> state = game.initial_state()
    >>> from_gdl("tictactoe-3player", state, "xplayer", "( MARK 3 3 )")
    '(mark 3 3)'
    >>> from_gdl("tictactoe-3player", state, "oplayer", "(mark 3 3)") is None
    True
"""

from __future__ import annotations

from typing import Any, Callable

from games.ggp.gdl import kif
from games.rules import NOOP, Action, Role, get_game
from games.rules.base import gdl_fold

MOVE_MAX_LENGTH = 200  # characters of one move text read from outside
MOVE_MAX_DEPTH = 4


def to_gdl(slug: str, state: Any, role: Role, action: Action | None) -> str:
    """The GDL move of ``role`` playing ``action`` (``None`` or ``noop`` while it waits).

    Raises ``games.rules.NotAnAction`` (a ``ValueError``) for text that is no action of the game.
    """
    game = get_game(slug)
    if action is None or action == NOOP:
        return NOOP
    return game.canonical_action(action)


def from_gdl(slug: str, state: Any, role: Role, move_text: str) -> Action | None:
    """The Boardhall action that ``move_text`` is for ``role`` in ``state``; ``None`` when it
    is not one of that role's legal moves there (malformed text, wrong role, game over included).
    """
    game = get_game(slug)
    if role not in game.roles:
        return None
    try:
        move = kif.canonical(move_text, max_length=MOVE_MAX_LENGTH, max_depth=MOVE_MAX_DEPTH)
    except ValueError:
        return None
    action = gdl_fold(move) if len(move) <= 40 else None
    return action if action in game.legal_moves(state, role) else None


def joint(slug: str, state: Any, action: Action) -> dict[Role, str]:
    """The GDL joint move of one Boardhall step: the role in control plays ``action``, the others noop."""
    game = get_game(slug)
    return {role: to_gdl(slug, state, role, move) for role, move in game.joint(state, action).items()}


def state_facts(slug: str, state: Any) -> frozenset[str]:
    """The facts that hold in ``state`` in the vocabulary of ``slug``'s sheet."""
    game = get_game(slug)
    return _FACTS[game.info.family](game, game.state_to_json(state))


def _nine_board_facts(game: Any, data: dict[str, Any]) -> frozenset[str]:
    roles, board, ply = game.roles, data["board"], data["ply"]
    facts = {f"(control {roles[ply % 2]})"}
    for index, content in enumerate(board):
        sub, square = divmod(index, 9)
        facts.add(f"(cell {sub // 3 + 1} {sub % 3 + 1} {square // 3 + 1} {square % 3 + 1} "
                  f"{'b' if content == '.' else content})")
    if data["sub"] >= 0:
        facts.add(f"(current {data['sub'] // 3 + 1} {data['sub'] % 3 + 1})")
    if game.pie:
        first, second = ("o", "x") if data["swapped"] else ("x", "o")
        facts |= {f"(marker {roles[0]} {first})", f"(marker {roles[1]} {second})"}
        if ply == 0:
            facts.add("opening")
        elif ply == 1:
            facts.add("swapChance")
    return frozenset(facts)


def _three_player_facts(game: Any, data: dict[str, Any]) -> frozenset[str]:
    facts = {f"(control {game.roles[data['ply'] % 3]})"}
    for index, content in enumerate(data["cells"]):
        facts.add(f"(cell {index // 5 + 1} {index % 5 + 1} {content or 'b'})")
    return frozenset(facts)


def _quarto_facts(game: Any, data: dict[str, Any]) -> frozenset[str]:
    ply = data["ply"]
    # Self order: white, white, black, black, ...; classic: white, black, black, white, white, ...
    mover = (ply >> 1) & 1 if game.order == "self" else ((ply + 1) >> 1) & 1
    facts = {f"(control {game.roles[mover]})"}
    placed = set()
    for index, piece in enumerate(data["cells"]):
        facts.add(f"(cell {index % 4 + 1} {index // 4 + 1} {piece or 'b'})")
        placed.add(piece)
    if data["selected"]:
        facts.add(f"(selected {data['selected']})")
        placed.add(data["selected"])
    facts |= {f"(pool p{piece:04b})" for piece in range(16) if f"p{piece:04b}" not in placed}
    return frozenset(facts)


_FACTS: dict[str, Callable[[Any, dict[str, Any]], frozenset[str]]] = {
    "nine-board": _nine_board_facts, "three-player": _three_player_facts, "quarto": _quarto_facts,
}
