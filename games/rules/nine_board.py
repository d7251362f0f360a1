"""Nine-board tic-tac-toe in its three forms: ``nine-board-tictactoe``, ``tictactoe-x9`` and
``nine-board-tictactoe-pie`` (RULES.md sections 1 to 3).

Cells are numbered 0..80: ``sub * 9 + cell``, where ``sub = (i-1)*3 + (j-1)`` is the sub-board
(row ``i``, column ``j`` of the big grid) and ``cell = (k-1)*3 + (l-1)`` the square inside it.
A position keeps one 81-bit mask per mark, so a sub-board is a 9-bit slice of each mask and
"is there a line" is one lookup in a 512-entry table.

Example::

    >>> game = NINE_BOARD
    >>> state = game.play(game.initial_state(), "xPlayer", "(play 2 2 1 3 x)")
    >>> game.view(state)["sub_board"]    # oPlayer must now answer in sub-board (1, 3)
    [1, 3]
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Mapping

from games.rules.base import (
    NUMBER,
    Action,
    Game,
    GameInfo,
    GameNotOver,
    IllegalAction,
    NotAnAction,
    Outcome,
    Role,
    RulesError,
)

SUB_FULL = 0x1FF
BOARD_FULL = (1 << 81) - 1
NO_SUB = -1  # no current sub-board yet (before the first play)
MARKS = ("x", "o")

# The eight lines of one 3x3 board as 9-bit masks, and which of the 512 patterns hold one.
_SMALL_LINES = tuple(
    sum(1 << (r * 3 + c) for r, c in cells)
    for cells in (
        *([(r, c) for c in range(3)] for r in range(3)),
        *([(r, c) for r in range(3)] for c in range(3)),
        [(d, d) for d in range(3)],
        [(d, 2 - d) for d in range(3)],
    )
)
HAS_LINE = tuple(any(pattern & line == line for line in _SMALL_LINES) for pattern in range(512))
# The empty squares of each 9-bit occupancy pattern, for move generation and random playouts.
EMPTY_SQUARES = tuple(tuple(s for s in range(9) if not pattern >> s & 1) for pattern in range(512))
EMPTY_COUNT = tuple(len(squares) for squares in EMPTY_SQUARES)
# The squares that would complete a line for a mark holding ``pattern`` (empty or not: mask them).
THREATS = tuple(sum(1 << s for s in range(9) if not pattern >> s & 1 and HAS_LINE[pattern | 1 << s])
                for pattern in range(512))


@dataclass(frozen=True, slots=True)
class NineBoardState:
    """An immutable position. ``marks[0]`` holds the x cells, ``marks[1]`` the o cells (bit = cell)."""

    marks: tuple[int, int] = (0, 0)
    sub: int = NO_SUB  # the sub-board the next play must go to (if it has room), or NO_SUB
    ply: int = 0  # actions applied so far; even ply: the first role is in control
    swapped: bool = False  # pie rule: blue took red's side
    last: int = -1  # the last cell played, -1 before any play


def cell_index(i: int, j: int, k: int, l: int) -> int:
    """The cell number of 1-based coordinates: sub-board (i, j), square (k, l)."""
    return ((i - 1) * 3 + (j - 1)) * 9 + (k - 1) * 3 + (l - 1)


def cell_coords(index: int) -> tuple[int, int, int, int]:
    sub, square = divmod(index, 9)
    return sub // 3 + 1, sub % 3 + 1, square // 3 + 1, square % 3 + 1


def _board_name(sub: int) -> str:
    """Sub-board (i, j) in people's notation: column letter A-C, row number 1-3 ("B2" is the centre)."""
    return f"{'ABC'[sub % 3]}{sub // 3 + 1}"


def _square_name(square: int) -> str:
    return f"{'abc'[square % 3]}{square // 3 + 1}"


class NineBoard(Game):
    """One class for the three forms; they differ in role names, action text and the pie swap."""

    def __init__(self, info: GameInfo, *, verb: str, with_marker: bool, pie: bool) -> None:
        self.info = info
        self.verb = verb
        self.with_marker = with_marker
        self.pie = pie
        number = rf" ({NUMBER})"
        marker = " ([a-z]+)" if with_marker else ""
        self._pattern = re.compile(rf"\({verb}{number * 4}{marker}\)")

    # -- turn and markers ---------------------------------------------------------------------
    def to_move(self, state: NineBoardState) -> Role | None:
        if self.is_terminal(state):
            return None
        return self.roles[state.ply % 2]

    def marker_of(self, state: NineBoardState, role: Role) -> str:
        """The mark ``role`` places now: fixed in the plain forms, exchanged by a pie swap."""
        return MARKS[self.roles.index(role) ^ state.swapped]

    def can_swap(self, state: NineBoardState) -> bool:
        """Blue's one chance: its first turn, right after red's first play."""
        return self.pie and state.ply == 1 and not state.swapped and not self.is_terminal(state)

    # -- moves ----------------------------------------------------------------------------------
    def _allowed_cells(self, state: NineBoardState) -> list[int]:
        occupied = state.marks[0] | state.marks[1]
        if state.sub != NO_SUB:
            pattern = occupied >> (9 * state.sub) & SUB_FULL
            if pattern != SUB_FULL:
                return [state.sub * 9 + s for s in EMPTY_SQUARES[pattern]]
        return [c for c in range(81) if not occupied >> c & 1]

    def _action_text(self, state: NineBoardState, role: Role, cell: int) -> Action:
        i, j, k, l = cell_coords(cell)
        if self.with_marker:
            return f"({self.verb} {i} {j} {k} {l} {self.marker_of(state, role)})"
        return f"({self.verb} {i} {j} {k} {l})"

    def legal_actions(self, state: NineBoardState) -> list[Action]:
        mover = self.to_move(state)
        if mover is None:
            return []
        actions = [self._action_text(state, mover, c) for c in self._allowed_cells(state)]
        if self.can_swap(state):
            actions.append("swap")
        return actions

    def parse(self, action: Action) -> tuple[int, str | None] | str:
        """``(cell, marker)`` for a play, ``"swap"`` for the pie swap. Raises ``NotAnAction``."""
        text = action if isinstance(action, str) else ""
        if self.pie and text == "swap":
            return "swap"
        found = self._pattern.fullmatch(text)
        if found is None:
            shape = f"({self.verb} i j k l{' mark' if self.with_marker else ''})"
            raise NotAnAction(f"{action!r} is not an action of {self.name}: expected {shape}"
                              f"{' or swap' if self.pie else ''}, with i, j, k, l from 1 to 3", action=action)
        coords = [int(n) for n in found.groups()[:4]]
        if any(not 1 <= n <= 3 for n in coords):
            raise NotAnAction(f"{action!r}: every coordinate runs from 1 to 3", code="out_of_range", action=action)
        marker = found.group(5) if self.with_marker else None
        if marker is not None and marker not in MARKS:
            raise NotAnAction(f"{action!r}: the mark is x or o, not {marker!r}", action=action)
        return cell_index(*coords), marker

    def apply(self, state: NineBoardState, role: Role, action: Action) -> NineBoardState:
        parsed = self.parse(action)
        if parsed == "swap":
            if not self.can_swap(state):
                raise IllegalAction(f"{role} cannot swap now: blue may swap only on its first turn",
                                    code="swap_unavailable", role=role, action=action)
            return NineBoardState(state.marks, state.sub, state.ply + 1, True, state.last)
        cell, marker = parsed
        mark = self.roles.index(role) ^ state.swapped
        if marker is not None and marker != MARKS[mark]:
            raise IllegalAction(f"{role} plays {MARKS[mark]} now, not {marker}",
                                code="wrong_marker", role=role, action=action)
        if (state.marks[0] | state.marks[1]) >> cell & 1:
            raise IllegalAction(f"{action} is taken: choose an empty cell", code="cell_occupied",
                                role=role, action=action)
        if cell not in self._allowed_cells(state):
            raise IllegalAction(f"{action} is outside the sub-board in play: {role} must play in "
                                f"sub-board {_board_name(state.sub)} ({state.sub // 3 + 1}, {state.sub % 3 + 1})",
                                code="wrong_sub_board", role=role, action=action)
        marks = list(state.marks)
        marks[mark] |= 1 << cell
        return NineBoardState((marks[0], marks[1]), cell % 9, state.ply + 1, state.swapped, cell)

    # -- the end ----------------------------------------------------------------------------------
    def _line_mark(self, state: NineBoardState) -> int | None:
        """The mark (0 x, 1 o) with a line; only the last play can have made one."""
        if state.last < 0:
            return None
        sub = state.last // 9
        for mark in (0, 1):
            if state.marks[mark] >> state.last & 1:
                return mark if HAS_LINE[state.marks[mark] >> (9 * sub) & SUB_FULL] else None
        return None

    def is_terminal(self, state: NineBoardState) -> bool:
        return (state.marks[0] | state.marks[1]) == BOARD_FULL or self._line_mark(state) is not None

    def _line_cells(self, state: NineBoardState, mark: int) -> tuple[int, ...]:
        sub = state.last // 9
        pattern = state.marks[mark] >> (9 * sub) & SUB_FULL
        line = next(line for line in _SMALL_LINES if pattern & line == line)
        return tuple(sub * 9 + s for s in range(9) if line >> s & 1)

    def outcome(self, state: NineBoardState) -> Outcome:
        mark = self._line_mark(state)
        if mark is not None:
            winner = self.roles[mark ^ state.swapped]
            loser = self.roles[1 - self.roles.index(winner)]
            return Outcome({winner: 100, loser: 0}, (winner,),
                           f"{winner} completed a line of {MARKS[mark]} in sub-board {_board_name(state.last // 9)}",
                           self._line_cells(state, mark))
        if (state.marks[0] | state.marks[1]) == BOARD_FULL:
            return Outcome({role: 50 for role in self.roles}, (), "all 81 cells are full without a line: a draw")
        raise GameNotOver("the game is not over yet")

    # -- the boundary ---------------------------------------------------------------------------
    def initial_state(self) -> NineBoardState:
        return NineBoardState()

    def state_to_json(self, state: NineBoardState) -> dict[str, Any]:
        board = "".join("x" if state.marks[0] >> c & 1 else "o" if state.marks[1] >> c & 1 else "." for c in range(81))
        return {"board": board, "sub": state.sub, "ply": state.ply, "swapped": state.swapped, "last": state.last}

    def state_from_json(self, data: Mapping[str, Any]) -> NineBoardState:
        try:
            board, sub, ply, swapped, last = (data[k] for k in ("board", "sub", "ply", "swapped", "last"))
            valid = (isinstance(board, str) and len(board) == 81 and set(board) <= {"x", "o", "."}
                     and type(sub) is int and NO_SUB <= sub <= 8 and type(ply) is int and ply >= 0
                     and type(swapped) is bool and (self.pie or not swapped)
                     and type(last) is int and -1 <= last <= 80)
        except (KeyError, TypeError):
            valid = False
        if not valid:
            raise RulesError(f"not a {self.name} state: {data!r}", code="bad_state")
        marks = (sum(1 << c for c, v in enumerate(board) if v == "x"),
                 sum(1 << c for c, v in enumerate(board) if v == "o"))
        return NineBoardState(marks, sub, ply, swapped, last)

    def view(self, state: NineBoardState) -> dict[str, Any]:
        mover = self.to_move(state)
        occupied = state.marks[0] | state.marks[1]
        allowed = self._allowed_cells(state) if mover else []
        free = state.sub == NO_SUB or (occupied >> (9 * state.sub) & SUB_FULL) == SUB_FULL
        terminal = mover is None
        return {
            "family": "nine-board",
            "ply": state.ply,
            "to_move": mover,
            "markers": {role: self.marker_of(state, role) for role in self.roles},
            "cells": ["x" if state.marks[0] >> c & 1 else "o" if state.marks[1] >> c & 1 else "" for c in range(81)],
            "cell_actions": {str(c): self._action_text(state, mover, c) for c in allowed},
            "other_actions": [{"action": "swap", "label": "Swap sides"}] if self.can_swap(state) else [],
            "highlight": allowed,
            "line": list(self.outcome(state).line) if terminal else [],
            "sub_board": None if free or terminal else [state.sub // 3 + 1, state.sub % 3 + 1],
            "can_swap": self.can_swap(state),
            "last": state.last if state.last >= 0 else None,
        }

    def action_label(self, action: Action) -> str:
        """``(play 2 2 1 3 x)`` reads "x B2 c1": sub-board B2 (column B, row 2), square c1."""
        parsed = self.parse(action)
        if parsed == "swap":
            return "swap"
        cell, marker = parsed
        prefix = f"{marker} " if marker else ""
        return f"{prefix}{_board_name(cell // 9)} {_square_name(cell % 9)}"

    # -- the computer player's hot loop -----------------------------------------------------------
    def random_playout(self, state: NineBoardState, rng: random.Random) -> dict[Role, int]:
        """Uniformly random legal actions to the end; returns the goals.

        Works on nine 9-bit patterns per mark and never builds action text. A pie swap is one
        of blue's legal actions on its first turn, chosen like any other.
        """
        if self.is_terminal(state):
            return self.goals(state)
        rand = rng.random
        pats, both, filled = _patterns(state)
        sub, ply, swapped = state.sub, state.ply, state.swapped
        if self.can_swap(state):
            if rand() * (len(self._allowed_cells(state)) + 1) < 1:
                swapped = True
                ply += 1
        while True:
            mark = (ply & 1) ^ swapped
            if sub == NO_SUB or both[sub] == SUB_FULL:
                sub, square = _random_empty_cell(both, filled, rand)
            else:
                squares = EMPTY_SQUARES[both[sub]]
                square = squares[int(rand() * len(squares))]
            bit = 1 << square
            own = pats[mark]
            own[sub] |= bit
            both[sub] |= bit
            filled += 1
            if HAS_LINE[own[sub]]:
                winner = self.roles[mark ^ swapped]
                return {role: 100 if role == winner else 0 for role in self.roles}
            if filled == 81:
                return {role: 50 for role in self.roles}
            sub = square
            ply += 1

    def tactical_playout(self, state: NineBoardState, rng: random.Random) -> dict[Role, int]:
        """``random_playout`` where the mover completes a line when it can, and otherwise plays a
        square that does not send the opponent to a sub-board where it completes one (nor to a
        full one, which frees it), when such a square exists."""
        if self.is_terminal(state):
            return self.goals(state)
        rand = rng.random
        pats, both, filled = _patterns(state)
        sub, ply, swapped = state.sub, state.ply, state.swapped
        if self.can_swap(state) and rand() * (len(self._allowed_cells(state)) + 1) < 1:
            swapped = True
            ply += 1
        threats = THREATS
        while True:
            mark = (ply & 1) ^ swapped
            own, opp = pats[mark], pats[mark ^ 1]
            if sub == NO_SUB or both[sub] == SUB_FULL:
                if any(threats[own[b]] & ~both[b] for b in range(9)):
                    break
                sub, square = _random_empty_cell(both, filled, rand)
            else:
                here = both[sub]
                if threats[own[sub]] & ~here:
                    break
                squares = EMPTY_SQUARES[here]
                safe = []
                for s in squares:
                    target = both[s] | 1 << s if s == sub else both[s]
                    if target != SUB_FULL and not threats[opp[s]] & ~target:
                        safe.append(s)
                choices = safe or squares
                square = choices[int(rand() * len(choices))]
            bit = 1 << square
            own[sub] |= bit
            both[sub] |= bit
            filled += 1
            if filled == 81:
                return {role: 50 for role in self.roles}
            sub = square
            ply += 1
        winner = self.roles[mark ^ swapped]
        return {role: 100 if role == winner else 0 for role in self.roles}


def _patterns(state: NineBoardState) -> tuple[list[list[int]], list[int], int]:
    """A playout's working copy: each mark's nine 9-bit patterns, their union, the filled count."""
    pats = [[state.marks[m] >> (9 * b) & SUB_FULL for b in range(9)] for m in (0, 1)]
    both = [pats[0][b] | pats[1][b] for b in range(9)]
    return pats, both, sum(9 - EMPTY_COUNT[p] for p in both)


def _random_empty_cell(both: list[int], filled: int, rand) -> tuple[int, int]:
    """A free move: ``(sub-board, square)`` drawn uniformly among every empty cell of the board."""
    n = int(rand() * (81 - filled))
    for b in range(9):
        count = EMPTY_COUNT[both[b]]
        if n < count:
            return b, EMPTY_SQUARES[both[b]][n]
        n -= count
    raise ValueError("the board is full")


NINE_BOARD = NineBoard(
    GameInfo("nine-board-tictactoe", "Nine-Board Tic-Tac-Toe", ("xPlayer", "oPlayer"), "nine-board",
             "Nine small boards in a 3x3 grid. The cell you play picks the small board your opponent must "
             "play in next (any board when that one is full). Three in a row inside any one small board wins."),
    verb="play", with_marker=True, pie=False)

TICTACTOE_X9 = NineBoard(
    GameInfo("tictactoe-x9", "Tic-Tac-Toe x9", ("xplayer", "oplayer"), "nine-board",
             "Nine-board tic-tac-toe in its x9 notation: mark a cell of the small board your opponent's last "
             "cell points to (anywhere when it is full). Three in a row in any small board wins."),
    verb="mark", with_marker=False, pie=False)

NINE_BOARD_PIE = NineBoard(
    GameInfo("nine-board-tictactoe-pie", "Nine-Board Tic-Tac-Toe with the pie rule", ("red", "blue"), "nine-board",
             "Nine-board tic-tac-toe where red opens and blue may answer by swapping sides: blue then owns red's "
             "first mark and red plays on with the other marker. Three in a row in any small board wins."),
    verb="play", with_marker=True, pie=True)
