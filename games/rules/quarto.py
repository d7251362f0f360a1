"""Misère Quarto (RULES.md section 5), in the self-selection order and in the classic order.

Sixteen pieces ``p0000`` .. ``p1111`` (four binary attributes; the first digit is attribute 4)
go one by one onto a 4x4 board: a role first ``(select pXXXX)`` a piece from the pool, then the
piece is ``(place pXXXX x y)`` on an empty cell (column x, row y, 1..4). Whoever places the piece
that completes a line (a row, column or main diagonal whose four pieces share the value of an
attribute) scores 0 and the other 100; a full board without a line is 50 each.

Piece ``pABCD`` is the int ``0bABCD``; the board packs one piece per 4 bits, cell
``(y-1)*4 + (x-1)`` at bits ``4*cell .. 4*cell+3``, with a separate mask of filled cells.

Example::

    >>> state = QUARTO_MISERE.replay(["(select p0101)", "(place p0101 2 3)"])
    >>> QUARTO_MISERE.to_move(state), QUARTO_MISERE.legal_actions(state)[0]
    ('black', '(select p0000)')
"""

from __future__ import annotations

import random
import re
import time
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

SIZE = 4
CELLS = SIZE * SIZE
ALL_CELLS = (1 << CELLS) - 1
ALL_PIECES = (1 << 16) - 1  # bit p set = piece p still in the pool
NO_PIECE = -1
ORDERS = ("self", "classic")
COLUMN_LETTERS = "abcd"
# Attribute 4 is the first digit (bit 3); the word for 1 comes first.
ATTRIBUTE_WORDS = ((8, "tall", "short"), (4, "dark", "light"), (2, "square", "round"), (1, "hollow", "solid"))

_SELECT = re.compile(r"\(select p([01]{4})\)")
_PLACE = re.compile(rf"\(place p([01]{{4}}) ({NUMBER}) ({NUMBER})\)")


def _line_cells() -> tuple[tuple[str, tuple[int, ...]], ...]:
    rows = tuple((f"row {y + 1}", tuple(y * SIZE + x for x in range(SIZE))) for y in range(SIZE))
    columns = tuple((f"column {COLUMN_LETTERS[x]}", tuple(y * SIZE + x for y in range(SIZE))) for x in range(SIZE))
    diagonals = (("the diagonal a1-d4", tuple(i * SIZE + i for i in range(SIZE))),
                 ("the diagonal d1-a4", tuple(i * SIZE + (SIZE - 1 - i) for i in range(SIZE))))
    return rows + columns + diagonals


LINES = _line_cells()  # (name, cells) of the 10 lines
_LINE_MASKS = tuple(sum(1 << c for c in cells) for _, cells in LINES)
# Per cell, the (mask, cells) of the 2 or 3 lines through it: a placement can complete only those.
_LINES_THROUGH = tuple(tuple((mask, cells) for mask, (_, cells) in zip(_LINE_MASKS, LINES) if mask >> c & 1)
                       for c in range(CELLS))
_BIT = tuple(1 << c for c in range(CELLS))
# Per cell, the indexes (in ``LINES``) of the lines through it.
_LINE_INDEXES_THROUGH = tuple(tuple(i for i, mask in enumerate(_LINE_MASKS) if mask >> c & 1) for c in range(CELLS))


def piece_name(piece: int) -> str:
    """``5`` -> ``"p0101"``."""
    return f"p{piece:04b}"


def piece_words(piece: int) -> str:
    """``"tall dark square hollow"`` for p1111, attributes 4 to 1."""
    return " ".join(one if piece & bit else zero for bit, one, zero in ATTRIBUTE_WORDS)


def cell_name(cell: int) -> str:
    """Column letter a-d (x) then row number 1-4 (y): cell (x=2, y=3) is "b3"."""
    return f"{COLUMN_LETTERS[cell % SIZE]}{cell // SIZE + 1}"


def _shared(pieces: list[int]) -> tuple[int, int]:
    """The attribute bits that all ``pieces`` have as 1, and those they all have as 0."""
    ones, zeros = 15, 15
    for piece in pieces:
        ones &= piece
        zeros &= ~piece
    return ones, zeros


@dataclass(frozen=True)
class QuartoState:
    """An immutable position.

    ``board`` packs the pieces 4 bits per cell, ``filled`` marks the occupied cells, ``pool`` has bit
    p set while piece p can still be selected, ``selected`` is the piece waiting to be placed (or
    ``NO_PIECE``). Even plies are selections, odd plies placements.
    """

    board: int = 0
    filled: int = 0
    pool: int = ALL_PIECES
    selected: int = NO_PIECE
    ply: int = 0

    def piece_at(self, cell: int) -> int:
        return self.board >> 4 * cell & 15 if self.filled >> cell & 1 else NO_PIECE


class MisereQuarto(Game):
    """Misère Quarto; ``order="self"`` places what you selected, ``"classic"`` hands it to the opponent.

    Example::

        >>> game = QUARTO_MISERE_CLASSIC
        >>> state = game.play(game.initial_state(), "white", "(select p1111)")
        >>> game.to_move(state), game.legal_actions(state)[0]
        ('black', '(place p1111 1 1)')
    """

    def __init__(self, info: GameInfo, *, order: str) -> None:
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, not {order!r}")
        self.info = info
        self.order = order

    def _mover_index(self, ply: int) -> int:
        """Who acts at ``ply``: self order W W B B W W ..., classic W B B W W B B ..."""
        return (ply >> 1) & 1 if self.order == "self" else ((ply + 1) >> 1) & 1

    def _completed_line(self, state: QuartoState) -> int | None:
        """Index in ``LINES`` of the first line whose pieces share an attribute, or None."""
        for index, mask in enumerate(_LINE_MASKS):
            if state.filled & mask == mask:
                ones, zeros = _shared([state.board >> 4 * c & 15 for c in LINES[index][1]])
                if ones or zeros:
                    return index
        return None

    # -- the hooks ----------------------------------------------------------------------------
    def initial_state(self) -> QuartoState:
        return QuartoState()

    def is_terminal(self, state: QuartoState) -> bool:
        return state.filled == ALL_CELLS or self._completed_line(state) is not None

    def to_move(self, state: QuartoState) -> Role | None:
        return None if self.is_terminal(state) else self.roles[self._mover_index(state.ply)]

    def phase(self, state: QuartoState) -> str:
        """``"select"`` or ``"place"``: what the next action is."""
        return "place" if state.ply & 1 else "select"

    def legal_actions(self, state: QuartoState) -> list[Action]:
        if self.is_terminal(state):
            return []
        if state.ply & 1:
            texts = _PLACE_TEXTS[state.selected]
            return [texts[c] for c in range(CELLS) if not state.filled >> c & 1]
        return [_SELECT_TEXTS[p] for p in range(16) if state.pool >> p & 1]

    def parse(self, action: Action) -> tuple[str, int, int]:
        """``("select", piece, NO_PIECE)`` or ``("place", piece, cell)``. Raises ``NotAnAction``."""
        text = action if isinstance(action, str) else ""
        known = _PARSED.get(text)
        if known is not None:
            return known
        found = _SELECT.fullmatch(text)
        if found:
            return "select", int(found.group(1), 2), NO_PIECE
        found = _PLACE.fullmatch(text)
        if found is None:
            raise NotAnAction(f"{action!r} is not an action of {self.name}: send (select pXXXX) or "
                              f"(place pXXXX x y), with a piece p0000 to p1111 and x, y from 1 to 4",
                              action=action)
        x, y = int(found.group(2)), int(found.group(3))
        if not (1 <= x <= SIZE and 1 <= y <= SIZE):
            raise NotAnAction(f"{action!r} is off the board: x (column) and y (row) run from 1 to 4",
                              code="out_of_range", action=action)
        return "place", int(found.group(1), 2), (y - 1) * SIZE + (x - 1)

    def apply(self, state: QuartoState, role: Role, action: Action) -> QuartoState:
        """Select or place for the role in control (``play`` has checked the turn and the end)."""
        kind, piece, cell = self.parse(action)
        if kind == "select":
            if state.ply & 1:
                raise IllegalAction(f"{role} cannot play {action} now: {piece_name(state.selected)} is selected and "
                                    f"must be placed first; send (place {piece_name(state.selected)} x y)",
                                    code="wrong_phase", role=role, action=action)
            if not state.pool >> piece & 1:
                raise IllegalAction(f"{role} cannot play {action}: {piece_name(piece)} is already on the board; choose a "
                                    f"piece from the pool", code="piece_not_in_pool", role=role, action=action)
            return QuartoState(state.board, state.filled, state.pool & ~(1 << piece), piece, state.ply + 1)
        if not state.ply & 1:
            raise IllegalAction(f"{role} cannot play {action} now: first select a piece from the pool with "
                                f"(select pXXXX)", code="wrong_phase", role=role, action=action)
        if piece != state.selected:
            raise IllegalAction(f"{role} cannot play {action}: the selected piece is {piece_name(state.selected)}; "
                                f"place that one", code="wrong_piece", role=role, action=action)
        if state.filled >> cell & 1:
            raise IllegalAction(f"{role} cannot play {action}: {cell_name(cell)} already holds "
                                f"{piece_name(state.piece_at(cell))}; choose an empty cell",
                                code="cell_occupied", role=role, action=action)
        return QuartoState(state.board | piece << 4 * cell, state.filled | _BIT[cell], state.pool, NO_PIECE,
                           state.ply + 1)

    def outcome(self, state: QuartoState) -> Outcome:
        line = self._completed_line(state)
        if line is None:
            if state.filled != ALL_CELLS:
                raise GameNotOver(f"{self.name} is not over yet: it is {self.to_move(state)}'s turn")
            return Outcome(scores={role: 50 for role in self.roles}, winners=(),
                           reason="the board is full and no line shares an attribute: a draw")
        # A line ends the game at once, so the last action was the placement that made it.
        placer = self.roles[self._mover_index(state.ply - 1)]
        other = self.roles[1 - self._mover_index(state.ply - 1)]
        name, cells = LINES[line]
        ones, zeros = _shared([state.board >> 4 * c & 15 for c in cells])
        words = [one if ones & bit else zero for bit, one, zero in ATTRIBUTE_WORDS if (ones | zeros) & bit]
        return Outcome(scores={placer: 0, other: 100}, winners=(other,),
                       reason=f"{placer} completed {name} of {' and '.join(words)} pieces, which loses",
                       line=cells)

    def state_to_json(self, state: QuartoState) -> dict[str, Any]:
        return {"cells": _cell_names(state),
                "selected": None if state.selected == NO_PIECE else piece_name(state.selected),
                "ply": state.ply}

    def state_from_json(self, data: Mapping[str, Any]) -> QuartoState:
        names = {piece_name(p): p for p in range(16)}
        try:
            cells, selected, ply = data["cells"], data["selected"], data["ply"]
            valid = (set(data) == {"cells", "selected", "ply"} and isinstance(cells, list) and len(cells) == CELLS
                     and all(v == "" or v in names for v in cells) and (selected is None or selected in names)
                     and type(ply) is int)
        except (KeyError, TypeError):
            valid = False
        if not valid:
            raise RulesError(f"not a {self.name} state: {data!r}", code="bad_state")
        used = [v for v in cells if v] + ([selected] if selected else [])
        placed = len(used) - (1 if selected else 0)
        if len(set(used)) != len(used) or ply != 2 * placed + (1 if selected else 0):
            raise RulesError(f"not a {self.name} state: every piece appears once, and after {ply} plies "
                             f"{ply // 2} pieces are on the board and one is selected on odd plies",
                             code="bad_state")
        board = filled = 0
        for cell, value in enumerate(cells):
            if value:
                board |= names[value] << 4 * cell
                filled |= _BIT[cell]
        pool = ALL_PIECES
        for value in used:
            pool &= ~(1 << names[value])
        state = QuartoState(board, filled, pool, names[selected] if selected else NO_PIECE, ply)
        if selected and self._completed_line(state) is not None:
            raise RulesError(f"not a {self.name} state: nobody selects after a line has ended the game",
                             code="bad_state")
        return state

    def view(self, state: QuartoState) -> dict[str, Any]:
        terminal = self.is_terminal(state)
        placing = not terminal and bool(state.ply & 1)
        selecting = not terminal and not state.ply & 1
        empty = [c for c in range(CELLS) if not state.filled >> c & 1] if placing else []
        return {
            "family": self.info.family,
            "ply": state.ply,
            "to_move": None if terminal else self.roles[self._mover_index(state.ply)],
            "markers": {},
            "cells": _cell_names(state),
            "cell_actions": {str(c): _place_text(state.selected, c) for c in empty},
            "other_actions": [],
            "highlight": empty,
            "line": list(self.outcome(state).line) if terminal else [],
            "pool": [piece_name(p) for p in range(16) if state.pool >> p & 1],
            "selected": None if state.selected == NO_PIECE else piece_name(state.selected),
            "phase": self.phase(state),
            "order": self.order,
            "piece_actions": ({piece_name(p): _select_text(p) for p in range(16) if state.pool >> p & 1}
                              if selecting else {}),
        }

    def action_label(self, action: Action) -> str:
        """``"select tall dark square hollow"`` or ``"place short dark round hollow at b3"`` (column b, row 3)."""
        kind, piece, cell = self.parse(action)
        if kind == "select":
            return f"select {piece_words(piece)}"
        return f"place {piece_words(piece)} at {cell_name(cell)}"

    # -- the computer player's hot loop -------------------------------------------------------
    def random_playout(self, state: QuartoState, rng: random.Random) -> dict[Role, int]:
        """Uniformly random selections and placements to the end; returns the goals.

        Pieces and empty cells are drawn from lists by swap-remove; after each placement only the
        lines through that cell are tested, and only once they are full.
        """
        if self.is_terminal(state):
            return self.goals(state)
        rand = rng.random
        board, pool, empty = _working_copy(state)
        filled, pool_left, empty_left, ply, selected = state.filled, len(pool), len(empty), state.ply, state.selected
        lines_through = _LINES_THROUGH
        while True:
            if not ply & 1:
                pick = int(rand() * pool_left)  # rand() < 1, so pick < pool_left
                pool_left -= 1
                selected = pool[pick]
                pool[pick] = pool[pool_left]
                ply += 1
            pick = int(rand() * empty_left)
            empty_left -= 1
            cell = empty[pick]
            empty[pick] = empty[empty_left]
            board[cell] = selected
            filled |= _BIT[cell]
            for mask, (a, b, c, d) in lines_through[cell]:
                if filled & mask == mask:
                    pa, pb, pc, pd = board[a], board[b], board[c], board[d]
                    if pa & pb & pc & pd or (pa | pb | pc | pd) != 15:
                        placer = self._mover_index(ply)
                        return {self.roles[placer]: 0, self.roles[1 - placer]: 100}
            if not empty_left:
                return {role: 50 for role in self.roles}
            ply += 1

    def tactical_playout(self, state: QuartoState, rng: random.Random) -> dict[Role, int]:
        """``random_playout`` where a placement avoids completing a line (it would lose) when it
        can; a selection for oneself picks a piece that has such a place, and a selection for the
        opponent picks one that has none (a win in one) when there is one.

        The lines with three pieces that share a trait (``_risks``) are kept up to date as pieces
        are placed, and the empty cells a piece may not take are a bit mask; while the risky
        cells do not cover every empty cell, no piece lacks a safe place, and a selection is
        uniform without looking at the pieces (py-spy: the per-piece test was a third of the time).
        """
        if self.is_terminal(state):
            return self.goals(state)
        rand = rng.random
        board, pool, empty = _working_copy(state)
        filled, pool_left, empty_left, ply, selected = state.filled, len(pool), len(empty), state.ply, state.selected
        own_piece = self.order == "self"
        line_ones, line_zeros, line_count = _line_tallies(board, filled)
        lines_at, line_cells = _LINE_INDEXES_THROUGH, _LINE_MASKS
        risks = _risks(line_ones, line_zeros, line_count, filled)
        while True:
            open_cells = ALL_CELLS & ~filled
            if not ply & 1:
                risky = 0
                for cell, _, _ in risks:
                    risky |= _BIT[cell]
                if risky != open_cells:  # every piece has a safe place
                    pick = int(rand() * pool_left)
                else:
                    candidates = []
                    for i in range(pool_left):
                        piece, unsafe = pool[i], 0
                        for cell, ones, zeros in risks:
                            if piece & ones or ~piece & zeros:
                                unsafe |= _BIT[cell]
                        if own_piece and unsafe != open_cells:
                            candidates.append(i)
                        elif not own_piece and unsafe == open_cells:
                            candidates = [i]
                            break
                    pick = candidates[int(rand() * len(candidates))] if candidates else int(rand() * pool_left)
                pool_left -= 1
                selected = pool[pick]
                pool[pick] = pool[pool_left]
                ply += 1
            unsafe = _unsafe_cells(risks, selected)
            if unsafe:
                safe = [i for i in range(empty_left) if not unsafe >> empty[i] & 1]
                pick = safe[int(rand() * len(safe))] if safe else int(rand() * empty_left)
            else:
                pick = int(rand() * empty_left)
            empty_left -= 1
            cell = empty[pick]
            empty[pick] = empty[empty_left]
            if unsafe >> cell & 1:
                placer = self._mover_index(ply)
                return {self.roles[placer]: 0, self.roles[1 - placer]: 100}
            if not empty_left:
                return {role: 50 for role in self.roles}
            board[cell] = selected
            filled |= _BIT[cell]
            if risks:
                risks = [risk for risk in risks if risk[0] != cell]
            for line in lines_at[cell]:
                ones, zeros = line_ones[line] & selected, line_zeros[line] & ~selected
                line_ones[line], line_zeros[line] = ones, zeros
                line_count[line] += 1
                if line_count[line] == 3 and (ones or zeros):
                    missing = line_cells[line] & ~filled
                    risks.append((missing.bit_length() - 1, ones, zeros))
            ply += 1

    # The computer's exact endgame search (``Game.exact_goals``): negamax over compact forms.
    EXACT_SEARCH = True

    def exact_goals(self, state: QuartoState, deadline: float | None = None,
                    table: dict | None = None) -> dict[Role, int] | None:
        """Each role's goal under best play from ``state`` (a win 100, a draw 50), by negamax
        with a transposition table over positions between turns (the same board means the
        same pool and the same role to choose); ``None`` if ``deadline`` (``time.monotonic``)
        passes first. ``table`` may be shared by calls on positions of one game."""
        if self.is_terminal(state):
            return self.goals(state)
        mover = self._mover_index(state.ply)
        value = self._negamax(state, deadline, table, -1, 1)
        if value is None:
            return None
        return {self.roles[mover]: 50 + 50 * value, self.roles[1 - mover]: 50 - 50 * value}

    def exact_win(self, state: QuartoState, role: Role, deadline: float | None = None,
                  table: dict | None = None) -> bool | None:
        """Whether ``role`` wins from ``state`` under best play: the same negamax with a null
        window (it only has to show that the value reaches a win, or that it cannot), so it
        settles faster than ``exact_goals``; ``None`` if ``deadline`` passes first."""
        if self.is_terminal(state):
            return self.goals(state)[role] == 100
        if self.roles[self._mover_index(state.ply)] == role:
            value = self._negamax(state, deadline, table, 0, 1)
            return None if value is None else value >= 1
        value = self._negamax(state, deadline, table, -1, 0)
        return None if value is None else value <= -1

    def _negamax(self, state: QuartoState, deadline: float | None, table: dict | None, low: int,
                 high: int) -> int | None:
        """The mover's value of a position that is not over (+1, 0, -1), exact inside the
        window (``low``, ``high``), at most ``low`` or at least ``high`` outside it."""
        board = [state.piece_at(c) for c in range(CELLS)]
        solver = _Negamax(self.order == "classic", {} if table is None else table, deadline, board, state.filled)
        try:
            if state.ply & 1:
                return solver.placing(state.board, state.filled, state.pool, state.selected, low, high)
            return solver.choosing(state.board, state.filled, state.pool, solver.risks(state.filled), low, high)
        except _OutOfTime:
            return None


def _working_copy(state: QuartoState) -> tuple[list[int], list[int], list[int]]:
    """A playout's lists: the piece on each cell, the pieces in the pool, the empty cells."""
    return ([state.piece_at(c) for c in range(CELLS)], [p for p in range(16) if state.pool >> p & 1],
            [c for c in range(CELLS) if not state.filled >> c & 1])


def _line_tallies(board: list[int], filled: int) -> tuple[list[int], list[int], list[int]]:
    """Per line (``LINES`` order): the traits its pieces all have as ones, those they all have
    as zeros (both 15 while it is empty), and how many pieces it holds."""
    ones, zeros, count = [15] * len(LINES), [15] * len(LINES), [0] * len(LINES)
    for line, (_, cells) in enumerate(LINES):
        for c in cells:
            if filled >> c & 1:
                ones[line] &= board[c]
                zeros[line] &= ~board[c]
                count[line] += 1
    return ones, zeros, count


def _risks(ones: list[int], zeros: list[int], tally: list[int], filled: int) -> list[tuple[int, int, int]]:
    """From the lines' tallies (``_line_tallies``): ``(cell, ones, zeros)`` for each line with one
    empty cell whose three pieces share a trait: a piece with a one among ``ones`` or a zero
    among ``zeros`` completes it at ``cell``."""
    return [((_LINE_MASKS[line] & ~filled).bit_length() - 1, ones[line], zeros[line])
            for line in range(len(LINES)) if tally[line] == 3 and (ones[line] or zeros[line])]


def _unsafe_cells(risks: list[tuple[int, int, int]], piece: int) -> int:
    """The empty cells where ``piece`` would complete a line, as a mask. (The hot loops of the
    playout and of ``_Negamax.choosing`` inline this, to spare a call per piece.)"""
    unsafe = 0
    for cell, ones, zeros in risks:
        if piece & ones or ~piece & zeros:
            unsafe |= _BIT[cell]
    return unsafe


class _OutOfTime(Exception):
    pass


class _Negamax:
    """Misère Quarto solved exactly from a position: values are +1, 0, -1 for the role to act.

    ``choosing`` values a position where a piece is to be selected (the role that selects acts),
    ``placing`` one where ``piece`` waits to be placed (the placer acts). In the classic order the
    placer then selects for the other role, so a placement's value is the next ``choosing`` for
    the same role; in the self order one role selects and places, so it is the negation of the
    other role's ``choosing``. A placement that completes a line loses at once, and is played
    only when nothing else is left; a selection in the classic order that leaves the other role
    no safe cell wins at once. Alpha-beta: a search only needs to know whether a value reaches
    the window (``low``, ``high``); the table keeps each position's bounds, ``(lower, upper)``.

    Moves are tried in the order likeliest to cut the search short: in the classic order the
    pieces that leave the other role the fewest safe cells first, and everywhere the cells on
    which the piece makes the most new risky lines (three pieces sharing a trait) first (side
    by side on 8 positions of play with 8 pieces left: 45% fewer positions visited).

    Positions are bit masks (``packed`` pieces, ``filled`` cells, the ``pool``) and the lines'
    tallies (``_line_tallies``) are kept as pieces are placed and taken back, so a node's
    risky lines come from its parent's without reading the board (py-spy: rebuilding them and
    the lists of empty cells and placed pieces was over half of the time).
    """

    def __init__(self, classic: bool, table: dict, deadline: float | None, board: list[int], filled: int) -> None:
        self.classic, self.table, self.deadline, self.count = classic, table, deadline, 0
        self.ones, self.zeros, self.tally = _line_tallies(board, filled)

    def risks(self, filled: int) -> list[tuple[int, int, int]]:
        """``_risks`` from the kept tallies."""
        return _risks(self.ones, self.zeros, self.tally, filled)

    def choosing(self, packed: int, filled: int, pool: int, risks: list[tuple[int, int, int]],
                 low: int = -1, high: int = 1) -> int:
        key = packed << 16 | filled
        lower, upper = self.table.get(key, (-1, 1))
        if lower == upper or lower >= high:
            return lower
        if upper <= low:
            return upper
        low, high = max(low, lower), min(high, upper)
        self.count += 1
        if self.deadline is not None and not self.count & 255 and time.monotonic() > self.deadline:
            raise _OutOfTime
        open_cells = ALL_CELLS & ~filled
        options = []
        rest = pool
        while rest:
            bit = rest & -rest
            rest ^= bit
            piece = bit.bit_length() - 1
            unsafe = 0
            for cell, ones, zeros in risks:
                if piece & ones or ~piece & zeros:
                    unsafe |= _BIT[cell]
            safe = open_cells & ~unsafe
            if self.classic and not safe:  # the other role must complete a line with it
                self.table[key] = (1, 1)
                return 1
            if safe:
                options.append((piece, safe))
        if self.classic:  # the pieces that leave the other role the fewest safe cells first
            options.sort(key=lambda option: option[1].bit_count())
        best, floor = -1, low
        for piece, safe in options:
            left = pool & ~(1 << piece)
            if self.classic:
                value = -self._place_on(packed, filled, left, risks, piece, safe, -high, -floor)
            else:
                value = self._place_on(packed, filled, left, risks, piece, safe, floor, high)
            if value > best:
                best = value
                if best >= high:
                    break
                floor = max(floor, best)
        self.table[key] = (best, upper) if best >= high else (lower, best) if best <= low else (best, best)
        return best

    def placing(self, packed: int, filled: int, pool: int, piece: int, low: int = -1, high: int = 1) -> int:
        risks = self.risks(filled)
        safe = ALL_CELLS & ~filled & ~_unsafe_cells(risks, piece)
        return self._place_on(packed, filled, pool, risks, piece, safe, low, high) if safe else -1

    def _place_on(self, packed: int, filled: int, pool: int, risks: list[tuple[int, int, int]], piece: int,
                  safe: int, low: int, high: int) -> int:
        """The placer's value of placing ``piece`` on the best of the ``safe`` cells (a mask;
        exact inside the window; at most ``low`` or at least ``high`` otherwise)."""
        best = -1
        ones, zeros, tally = self.ones, self.zeros, self.tally
        cells = []
        while safe:
            bit = safe & -safe
            safe ^= bit
            made = 0
            for line in _LINE_INDEXES_THROUGH[bit.bit_length() - 1]:
                if tally[line] == 2 and (ones[line] & piece or zeros[line] & ~piece):
                    made += 1
            cells.append((-made, bit))
        cells.sort()
        for _, bit in cells:
            after = filled | bit
            if after == ALL_CELLS:
                value = 0
            else:
                cell = bit.bit_length() - 1
                lines = _LINE_INDEXES_THROUGH[cell]
                saved = [(ones[line], zeros[line]) for line in lines]
                next_risks = [risk for risk in risks if risk[0] != cell]
                for line in lines:
                    line_ones, line_zeros = ones[line] & piece, zeros[line] & ~piece
                    ones[line], zeros[line] = line_ones, line_zeros
                    tally[line] += 1
                    if tally[line] == 3 and (line_ones or line_zeros):
                        next_risks.append(((_LINE_MASKS[line] & ~after).bit_length() - 1, line_ones, line_zeros))
                try:
                    if self.classic:
                        value = self.choosing(packed | piece << 4 * cell, after, pool, next_risks, max(low, best), high)
                    else:
                        value = -self.choosing(packed | piece << 4 * cell, after, pool, next_risks, -high,
                                               -max(low, best))
                finally:
                    for line, (line_ones, line_zeros) in zip(lines, saved):
                        ones[line], zeros[line] = line_ones, line_zeros
                        tally[line] -= 1
            if value > best:
                best = value
                if best >= high:
                    break
        return best


_SELECT_TEXTS = tuple(f"(select {piece_name(piece)})" for piece in range(16))
_PLACE_TEXTS = tuple(tuple(f"(place {piece_name(piece)} {cell % SIZE + 1} {cell // SIZE + 1})" for cell in range(CELLS))
                     for piece in range(16))
# Every action's text as ``parse`` reads it, so the search's ``play`` calls skip the regex.
_PARSED = {**{text: ("select", piece, NO_PIECE) for piece, text in enumerate(_SELECT_TEXTS)},
           **{text: ("place", piece, cell) for piece, texts in enumerate(_PLACE_TEXTS)
              for cell, text in enumerate(texts)}}


def _select_text(piece: int) -> Action:
    return _SELECT_TEXTS[piece]


def _place_text(piece: int, cell: int) -> Action:
    return _PLACE_TEXTS[piece][cell]


def _cell_names(state: QuartoState) -> list[str]:
    return [piece_name(state.board >> 4 * c & 15) if state.filled >> c & 1 else "" for c in range(CELLS)]


QUARTO_MISERE = MisereQuarto(
    GameInfo("quarto-misere", "Misère Quarto", ("white", "black"), "quarto",
             "Pick a piece from the pool, then place it on the 4x4 board. Whoever completes a row, column or "
             "diagonal of four pieces sharing a trait (tall, dark, square, hollow, or their opposites) loses."),
    order="self")

QUARTO_MISERE_CLASSIC = MisereQuarto(
    GameInfo("quarto-misere-classic", "Misère Quarto, classic order", ("white", "black"), "quarto",
             "Misère Quarto as originally played: you choose the piece your opponent must place. Whoever "
             "completes a line of four pieces sharing a trait loses.",
             variant_of="quarto-misere", variant_name="classic order: you choose your opponent's piece"),
    order="classic")
