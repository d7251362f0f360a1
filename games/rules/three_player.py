"""Three-Player Tic-Tac-Toe on a 5x5 board (RULES.md section 4), bounded or wrapped into a torus.

xplayer, oplayer and zplayer mark empty cells in turn with ``(mark m n)`` (row m, column n,
1..5). The game ends at the first four in a row or on a full board; each role then scores 100
for a four, else 66 for a three, else 33 if nobody has a four, else 0.

Cell ``(m, n)`` is bit ``(m-1)*5 + (n-1)`` of a 25-bit mask, one mask per role; every run of
four and of three cells is precomputed as a mask at import, so a line test is one AND.

Example::

    >>> state = THREE_PLAYER.replay(["(mark 1 1)", "(mark 2 1)", "(mark 3 1)"])
    >>> THREE_PLAYER.to_move(state), THREE_PLAYER.action_label("(mark 3 1)")
    ('xplayer', 'a3')
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

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

SIZE = 5
CELLS = SIZE * SIZE
FULL = (1 << CELLS) - 1
MARKS = ("x", "o", "z")  # in role order
COLUMN_LETTERS = "abcde"
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # row, column, diagonal, anti-diagonal
_MARK_ACTION = re.compile(rf"\(mark ({NUMBER}) ({NUMBER})\)")
_NEXT_MOVER = (1, 2, 0)
_BIT = tuple(1 << c for c in range(CELLS))
_CENTRE = tuple((4 - abs(c // SIZE - 2) - abs(c % SIZE - 2)) / 4 for c in range(CELLS))
MODEL_FEATURES = ("win", "block_next", "block_last", "block_holding_three", "first_three", "another_three",
                  "threat", "fork", "build", "block", "centre")
# Fitted by benchmarks/uct_model.py to plain UCT moves (docs/computer.md, "The search, part by part").
MODEL_WEIGHTS = (4.607, 1.871, 1.359, -1.030, 8.851, -0.987, 1.717, 0.298, 18.780, 3.070, 5.038)
_ACTION_TEXTS = tuple(f"(mark {cell // SIZE + 1} {cell % SIZE + 1})" for cell in range(CELLS))
_CELL_OF = {text: cell for cell, text in enumerate(_ACTION_TEXTS)}  # parse's shortcut for the search


def cell_index(m: int, n: int) -> int:
    """The index of cell (row m, column n), both 1-based, as in ``view``."""
    return (m - 1) * SIZE + (n - 1)


def _windows(length: int, wrap: bool) -> tuple[int, ...]:
    """Every run of ``length`` consecutive cells along a row, column or diagonal, as bit masks.

    On the torus a run may start at any cell; runs that cover the same cells (none for
    lengths below 5, but the set makes that a fact rather than an argument) count once.
    """
    found = set()
    for dm, dn in _DIRECTIONS:
        for m in range(SIZE):
            for n in range(SIZE):
                cells = [(m + k * dm, n + k * dn) for k in range(length)]
                if wrap:
                    cells = [(r % SIZE, c % SIZE) for r, c in cells]
                elif not all(0 <= r < SIZE and 0 <= c < SIZE for r, c in cells):
                    continue
                found.add(sum(1 << (r * SIZE + c) for r, c in cells))
    return tuple(sorted(found))


def _cells_of(mask: int) -> tuple[int, ...]:
    return tuple(c for c in range(CELLS) if mask >> c & 1)


def _join(roles: list[Role]) -> str:
    return roles[0] if len(roles) == 1 else f"{', '.join(roles[:-1])} and {roles[-1]}"


@dataclass(frozen=True)
class ThreePlayerState:
    """An immutable position: one 25-bit mask of marked cells per role (x, o, z), and the ply.

    The ply (number of marks so far) also says who is to move: ``roles[ply % 3]``.
    """

    masks: tuple[int, int, int] = (0, 0, 0)
    ply: int = 0

    @property
    def occupied(self) -> int:
        return self.masks[0] | self.masks[1] | self.masks[2]


class ThreePlayerTicTacToe(Game):
    """Three-player tic-tac-toe on a 5x5 board; ``wrap=True`` joins opposite edges (a torus).

    Example::

        >>> game = THREE_PLAYER_TORUS
        >>> state = game.replay(["(mark 1 4)", "(mark 2 1)", "(mark 3 1)", "(mark 1 5)", "(mark 2 2)",
        ...                      "(mark 3 2)", "(mark 1 1)", "(mark 4 4)", "(mark 3 3)", "(mark 1 2)"])
        >>> game.goals(state)
        {'xplayer': 100, 'oplayer': 0, 'zplayer': 66}
    """

    def __init__(self, info: GameInfo, *, wrap: bool) -> None:
        self.info = info
        self.wrap = wrap
        self.fours = _windows(4, wrap)
        self.threes = _windows(3, wrap)
        # The hot loop only tests the fours through the cell just marked.
        self._fours_through = tuple(tuple(w for w in self.fours if w >> c & 1) for c in range(CELLS))
        self._threes_through = tuple(tuple(w for w in self.threes if w >> c & 1) for c in range(CELLS))

    # -- lines --------------------------------------------------------------------------------
    def _four_of(self, mask: int) -> int:
        """A four inside ``mask`` (as a mask), or 0."""
        for window in self.fours:
            if mask & window == window:
                return window
        return 0

    def _has_three(self, mask: int) -> bool:
        for window in self.threes:
            if mask & window == window:
                return True
        return False

    def _four_owner(self, masks: tuple[int, ...] | list[int]) -> int | None:
        for index, mask in enumerate(masks):
            if self._four_of(mask):
                return index
        return None

    def _scores(self, masks: tuple[int, ...] | list[int], four_owner: int | None) -> dict[Role, int]:
        scores = {}
        for index, role in enumerate(self.roles):
            if index == four_owner:
                scores[role] = 100
            elif self._has_three(masks[index]):
                scores[role] = 66
            else:
                scores[role] = 33 if four_owner is None else 0
        return scores

    # -- the hooks ----------------------------------------------------------------------------
    def initial_state(self) -> ThreePlayerState:
        return ThreePlayerState()

    def is_terminal(self, state: ThreePlayerState) -> bool:
        # Only the role that marked last can hold a four: the game ends at the first one, and
        # state_from_json refuses any other board (the search asks this at every node).
        return state.occupied == FULL or bool(self._four_of(state.masks[(state.ply - 1) % 3]))

    def to_move(self, state: ThreePlayerState) -> Role | None:
        return None if self.is_terminal(state) else self.roles[state.ply % 3]

    def legal_actions(self, state: ThreePlayerState) -> list[Action]:
        if self.is_terminal(state):
            return []
        occupied = state.occupied
        return [_ACTION_TEXTS[c] for c in range(CELLS) if not occupied >> c & 1]

    def parse(self, action: Action) -> int:
        """The cell index of ``(mark m n)``. Raises ``NotAnAction``."""
        known = _CELL_OF.get(action) if isinstance(action, str) else None
        if known is not None:
            return known
        found = _MARK_ACTION.fullmatch(action) if isinstance(action, str) else None
        if found is None:
            raise NotAnAction(f"{action!r} is not an action of {self.name}: send (mark m n) with row m "
                              f"and column n from 1 to 5, for example (mark 3 3)", action=action)
        m, n = int(found.group(1)), int(found.group(2))
        if not (1 <= m <= SIZE and 1 <= n <= SIZE):
            raise NotAnAction(f"{action!r} is off the board: rows and columns run from 1 to 5",
                              code="out_of_range", action=action)
        return cell_index(m, n)

    def apply(self, state: ThreePlayerState, role: Role, action: Action) -> ThreePlayerState:
        """Mark a cell for the role in control (``play`` has checked the turn and the end)."""
        cell = self.parse(action)
        for index, mask in enumerate(state.masks):
            if mask >> cell & 1:
                raise IllegalAction(f"{role} cannot play {action}: that cell already holds {MARKS[index]}; "
                                    f"choose an empty cell", code="cell_occupied", role=role, action=action)
        masks = list(state.masks)
        masks[state.ply % 3] |= _BIT[cell]
        return ThreePlayerState((masks[0], masks[1], masks[2]), state.ply + 1)

    def outcome(self, state: ThreePlayerState) -> Outcome:
        four_owner = self._four_owner(state.masks)
        if four_owner is None and state.occupied != FULL:
            raise GameNotOver(f"{self.name} is not over yet: it is {self.roles[state.ply % 3]}'s turn")
        scores = self._scores(state.masks, four_owner)
        top = max(scores.values())
        winners = () if min(scores.values()) == top else tuple(r for r in self.roles if scores[r] == top)
        return Outcome(scores=scores, winners=winners, reason=self._reason(four_owner, scores, set()),
                       line=self._scoring_cells(state.masks, four_owner, scores))

    def outcome_without(self, state: ThreePlayerState, out: Iterable[Role]) -> Outcome:
        """As ``Game.outcome_without``; the reason and the marked lines credit no role in
        ``out`` with a three, and a four of theirs that ended the game was "a random move for"
        them."""
        outcome = super().outcome_without(state, out)
        four_owner = self._four_owner(state.masks)
        return replace(outcome, reason=self._reason(four_owner, outcome.scores, set(out)),
                       line=self._scoring_cells(state.masks, four_owner, outcome.scores))

    def _scoring_cells(self, masks: tuple[int, ...], four_owner: int | None, scores: Mapping[Role, int]) -> tuple[int, ...]:
        """The cells of every line that scored: the four that ended the game, and every three of
        each role that scores 66 for it."""
        cells = self._four_of(masks[four_owner]) if four_owner is not None else 0
        for index, role in enumerate(self.roles):
            if scores[role] == 66:
                for window in self.threes:
                    if masks[index] & window == window:
                        cells |= window
        return _cells_of(cells)

    def _reason(self, four_owner: int | None, scores: Mapping[Role, int], out: set[Role]) -> str:
        """Who scored what and why, in the rules' terms: 100 for a four, 66 for a three, else 33
        on a full board without a four, or 0 beside a four. Roles in ``out`` are left to the
        caller, who says how they left."""
        def each(roles: list[Role]) -> str:
            return " each" if len(roles) > 1 else ""

        def verb(roles: list[Role], one: str, more: str) -> str:
            return one if len(roles) == 1 else more

        threes = [role for role in self.roles if scores[role] == 66]
        if four_owner is not None:
            owner = self.roles[four_owner]
            parts = [f"a random move for {owner} made four in a row" if owner in out
                     else f"{owner} made four in a row (100 points)"]
            if threes:
                parts.append(f"{_join(threes)} {verb(threes, 'has', 'have')} three in a row (66 points{each(threes)})")
            none = [r for r in self.roles if scores[r] == 0 and r != owner and r not in out]
            if none:
                parts.append(f"{_join(none)} {verb(none, 'has', 'have')} no three (0 points)")
            return "; ".join(parts)
        if threes:
            rest = [r for r in self.roles if scores[r] == 33]
            head = f"{_join(threes)} made three in a row on a full board with no four (66 points{each(threes)})"
            return f"{head}; {_join(rest)} made no three (33 points{each(rest)})" if rest else head
        still = [r for r in self.roles if r not in out]
        return (f"the board is full and nobody{' still playing' if out else ''} has three in a row "
                f"(33 points{each(still)})")

    def state_to_json(self, state: ThreePlayerState) -> dict[str, Any]:
        return {"cells": _cell_marks(state), "ply": state.ply}

    def state_from_json(self, data: Mapping[str, Any]) -> ThreePlayerState:
        try:
            cells, ply = data["cells"], data["ply"]
            valid = (set(data) == {"cells", "ply"} and isinstance(cells, list) and len(cells) == CELLS
                     and all(v == "" or v in MARKS for v in cells) and type(ply) is int)
        except (KeyError, TypeError):
            valid = False
        if not valid:
            raise RulesError(f"not a {self.name} state: {data!r}", code="bad_state")
        masks = tuple(sum(1 << c for c, v in enumerate(cells) if v == mark) for mark in MARKS)
        counts = tuple(mask.bit_count() for mask in masks)
        if counts != ((ply + 2) // 3, (ply + 1) // 3, ply // 3):
            raise RulesError(f"not a {self.name} state: {ply} plies need x, o, z to have taken turns, "
                             f"but the board holds {counts[0]} x, {counts[1]} o, {counts[2]} z", code="bad_state")
        owners = [index for index, mask in enumerate(masks) if self._four_of(mask)]
        if owners and owners != [(ply - 1) % 3]:
            raise RulesError(f"not a {self.name} state: the game would have ended at an earlier four",
                             code="bad_state")
        return ThreePlayerState((masks[0], masks[1], masks[2]), ply)

    def view(self, state: ThreePlayerState) -> dict[str, Any]:
        terminal = self.is_terminal(state)
        occupied = state.occupied
        empty = [] if terminal else [c for c in range(CELLS) if not occupied >> c & 1]
        return {
            "family": self.info.family,
            "ply": state.ply,
            "to_move": None if terminal else self.roles[state.ply % 3],
            "markers": dict(zip(self.roles, MARKS)),
            "cells": _cell_marks(state),
            "cell_actions": {str(c): _action_text(c) for c in empty},
            "other_actions": [],
            "highlight": empty,
            "line": list(self.outcome(state).line) if terminal else [],
            "wraps": self.wrap,
        }

    def action_label(self, action: Action) -> str:
        """``(mark m n)`` reads as column letter a-e (n) then row number 1-5 (m): ``(mark 3 1)`` is "a3"."""
        cell = self.parse(action)
        return f"{COLUMN_LETTERS[cell % SIZE]}{cell // SIZE + 1}"

    # -- the computer player's hot loop -------------------------------------------------------
    def random_playout(self, state: ThreePlayerState, rng: random.Random) -> dict[Role, int]:
        """Uniformly random marks to the end; returns the goals.

        Draws from a list of empty cells (swap-remove) and tests only the fours through the cell
        just marked, since a four can appear nowhere else.
        """
        masks, over = list(state.masks), self._four_owner(state.masks)
        if over is not None:
            return self._scores(masks, over)
        empty = list(_cells_of(FULL & ~state.occupied))
        left = len(empty)
        mover = state.ply % 3
        rand = rng.random
        fours_through = self._fours_through
        while left:
            pick = int(rand() * left)  # rand() < 1, so pick < left
            left -= 1
            cell = empty[pick]
            empty[pick] = empty[left]
            mask = masks[mover] | _BIT[cell]
            masks[mover] = mask
            for window in fours_through[cell]:
                if mask & window == window:
                    return self._scores(masks, mover)
            mover = _NEXT_MOVER[mover]
        return self._scores(masks, None)

    def tactical_playout(self, state: ThreePlayerState, rng: random.Random) -> dict[Role, int]:
        """``random_playout`` where the mover completes a four when it can. (Also blocking the
        next mover's four was measured in the search and lost: 5 first places of 21 against
        plain UCTs, against 10 of 21 without tactical playouts; again 33 of 90 against 41 of
        90 side by side; docs/computer.md.)"""
        masks, over = list(state.masks), self._four_owner(state.masks)
        if over is not None:
            return self._scores(masks, over)
        occupied = state.occupied
        empty = list(_cells_of(FULL & ~occupied))
        left = len(empty)
        threats = [0, 0, 0]  # per role: the cells that would complete one of its fours
        for role in range(3):
            for window in self.fours:
                own = masks[role] & window
                rest = window & ~own
                if own.bit_count() == 3 and not rest & occupied:
                    threats[role] |= rest
        mover = state.ply % 3
        rand = rng.random
        fours_through = self._fours_through
        while left:
            if threats[mover] & ~occupied:
                return self._win(masks, mover, threats[mover] & ~occupied)
            pick = int(rand() * left)
            cell = empty[pick]
            left -= 1
            empty[pick] = empty[left]
            bit = _BIT[cell]
            occupied |= bit
            mask = masks[mover] | bit
            masks[mover] = mask
            for window in fours_through[cell]:
                own = mask & window
                rest = window & ~own
                if own.bit_count() == 3 and not rest & occupied:
                    threats[mover] |= rest
            mover = _NEXT_MOVER[mover]
        return self._scores(masks, None)

    def move_priors(self, state: ThreePlayerState) -> list[float] | None:
        """Per empty cell, in ``legal_actions`` order: how much it builds the mover's open fours
        (windows no other role has marked, weighted by the mover's marks in them, squared) and
        blocks another role's (windows only that role has marked, likewise), scaled to 0..1."""
        if self.is_terminal(state):
            return []
        masks, occupied = state.masks, state.occupied
        mine = masks[state.ply % 3]
        theirs = occupied & ~mine
        weights = []
        for cell in range(CELLS):
            if occupied >> cell & 1:
                continue
            weight = 0
            for window in self._fours_through[cell]:
                if not window & theirs:
                    weight += (1 + (window & mine).bit_count()) ** 2
                elif not window & mine and any(window & theirs == window & mask for mask in masks):
                    weight += (window & theirs).bit_count() ** 2
            weights.append(weight)
        top = max(weights, default=0) or 1
        return [weight / top for weight in weights]

    def model_features(self, state: ThreePlayerState) -> list[list[float]]:
        """Per empty cell, in ``legal_actions`` order, what a mark there does for the mover, as
        ``MODEL_FEATURES`` names them: a four made; the next or the last role's four blocked;
        either blocked while the mover holds a three (66 whoever makes four); a first three,
        or another; a four left lacking one cell, or two of them; open fours built and others'
        blocked (weighted by their marks, squared); nearness to the centre."""
        masks, occupied = state.masks, state.occupied
        mover = state.ply % 3
        after, last = masks[_NEXT_MOVER[mover]], masks[_NEXT_MOVER[_NEXT_MOVER[mover]]]
        mine = masks[mover]
        others = occupied & ~mine
        holds_three = self._has_three(mine)
        rows = []
        for cell in range(CELLS):
            if occupied >> cell & 1:
                continue
            wins = blocks_after = blocks_last = threats = 0
            build = block = 0
            for window in self._fours_through[cell]:
                own = (window & mine).bit_count()
                if not window & others:
                    if own == 3:
                        wins = 1
                    elif own == 2:
                        threats += 1
                    build += (1 + own) ** 2
                elif not window & mine:
                    theirs_after, theirs_last = (window & after).bit_count(), (window & last).bit_count()
                    if not theirs_last:
                        blocks_after |= theirs_after == 3
                        block += theirs_after * theirs_after
                    elif not theirs_after:
                        blocks_last |= theirs_last == 3
                        block += theirs_last * theirs_last
            marked = mine | _BIT[cell]
            three = any(marked & window == window for window in self._threes_through[cell])
            rows.append([wins, blocks_after, blocks_last, (blocks_after or blocks_last) and holds_three,
                         three and not holds_three, three and holds_three, min(threats, 1), threats >= 2,
                         build / 50.0, block / 20.0, _CENTRE[cell]])
        return rows

    def others_model(self, state: ThreePlayerState) -> list[float] | None:
        """A plain UCT's likely moves (``Game.others_model``): a softmax of ``model_features``
        weighted by ``MODEL_WEIGHTS``."""
        if self.wrap or self.is_terminal(state):
            return None
        scores = [sum(weight * value for weight, value in zip(MODEL_WEIGHTS, row)) for row in self.model_features(state)]
        top = max(scores)
        odds = [math.exp(score - top) for score in scores]
        total = sum(odds)
        return [odd / total for odd in odds]

    def _win(self, masks: list[int], mover: int, cells: int) -> dict[Role, int]:
        masks[mover] |= cells & -cells
        return self._scores(masks, mover)


def _action_text(cell: int) -> Action:
    return _ACTION_TEXTS[cell]


def _cell_marks(state: ThreePlayerState) -> list[str]:
    cells = [""] * CELLS
    for mark, mask in zip(MARKS, state.masks):
        for c in _cells_of(mask):
            cells[c] = mark
    return cells


THREE_PLAYER = ThreePlayerTicTacToe(
    GameInfo("tictactoe-3player", "Three-Player Tic-Tac-Toe", ("xplayer", "oplayer", "zplayer"), "three-player",
             "Three players take turns on a 5x5 board. Four in a row ends the game and scores 100; "
             "when it ends, three in a row still earns 66."),
    wrap=False)

THREE_PLAYER_TORUS = ThreePlayerTicTacToe(
    GameInfo("tictactoe-3player-torus", "Three-Player Tic-Tac-Toe on a torus", ("xplayer", "oplayer", "zplayer"),
             "three-player",
             "Three-player tic-tac-toe on a 5x5 board whose edges wrap around: a line leaving one side "
             "continues on the opposite side.",
             variant_of="tictactoe-3player", variant_name="torus: lines wrap around the edges"),
    wrap=True)
