"""The expert's search for misère Quarto, compiled (numba): the same ideas as ``search`` (MCTS
with UCB1, tactical playouts, MCTS-Solver, contempt, exact endgame search, practical play in
proven positions) over bit masks in arrays, so that a second of thinking makes many times the
rounds the pure-Python search makes.

Positions are five integers, as ``QuartoState`` holds them: ``board`` (4 bits a cell),
``filled`` (a bit a cell), ``pool`` (a bit a piece), ``selected`` (-1 when a piece is to be
selected) and ``ply``. A move is a piece (0 to 15) at a selection ply and a cell (0 to 15) at a
placement ply. Outcomes are white's: +1 white wins, 0 a draw, -1 black wins.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
from numba import njit

from games.rules.quarto import CELLS, LINES, MisereQuarto, QuartoState

ALL = (1 << CELLS) - 1
UNKNOWN = 2  # ``proven`` and ``ending`` of a node whose value is not known
ABORT = 9  # the exact search ran out of its node budget
N_LINES = len(LINES)
LINE_CELLS = np.array([cells for _, cells in LINES], dtype=np.int64)
LINE_MASK = np.array([sum(1 << c for c in cells) for _, cells in LINES], dtype=np.int64)
THROUGH = np.full((CELLS, 3), -1, dtype=np.int64)
THROUGH_N = np.zeros(CELLS, dtype=np.int64)
for _line, _mask in enumerate(LINE_MASK):
    for _cell in range(CELLS):
        if _mask >> _cell & 1:
            THROUGH[_cell, THROUGH_N[_cell]] = _line
            THROUGH_N[_cell] += 1
TABLE_BITS = 20
# The exact search looks at the clock between steps of at most this many selection positions:
# about 20 to 40 ms here (0.5 to 1 million a second), so it overruns its deadline by no more.
STEP_MOST = 20_000


def mover_index(ply: int, classic: bool) -> int:
    """The role to act at ``ply`` (0 white, 1 black), as ``MisereQuarto`` has it."""
    return int(_mover(ply, classic))


@njit(cache=True, inline="always")
def _mover(ply, classic):
    if classic:
        return ((ply + 1) >> 1) & 1
    return (ply >> 1) & 1


@njit(cache=True, inline="always")
def _popcount(mask):
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _nth_bit(mask, n):
    for _ in range(n):
        mask &= mask - 1
    low = mask & -mask
    cell = 0
    while low > 1:
        low >>= 1
        cell += 1
    return cell


@njit(cache=True, inline="always")
def _pop_lowest(mask):
    """The index of ``mask``'s lowest set bit, and ``mask`` without it."""
    low = mask & -mask
    return _bit_index(low), mask ^ low


@njit(cache=True, inline="always")
def _bit_index(bit):
    cell = 0
    while bit > 1:
        bit >>= 1
        cell += 1
    return cell


@njit(cache=True)
def _tallies(board, filled, ones, zeros, count):
    for line in range(N_LINES):
        o, z, n = 15, 15, 0
        for j in range(4):
            cell = LINE_CELLS[line, j]
            if filled >> cell & 1:
                piece = (board >> (4 * cell)) & 15
                o &= piece
                z &= ~piece & 15
                n += 1
        ones[line], zeros[line], count[line] = o, z, n


@njit(cache=True, inline="always")
def _unsafe(piece, filled, ones, zeros, count):
    """The empty cells where ``piece`` completes a line."""
    unsafe = 0
    for line in range(N_LINES):
        if count[line] == 3 and (piece & ones[line] or (~piece & zeros[line] & 15)):
            unsafe |= LINE_MASK[line] & ~filled
    return unsafe


@njit(cache=True, inline="always")
def _place_tallies(cell, piece, ones, zeros, count):
    for k in range(THROUGH_N[cell]):
        line = THROUGH[cell, k]
        ones[line] &= piece
        zeros[line] &= ~piece & 15
        count[line] += 1


@njit(cache=True)
def _completes(board, filled, cell):
    """Whether the piece on ``cell`` (in ``board`` and ``filled``) completes a line."""
    for k in range(THROUGH_N[cell]):
        line = THROUGH[cell, k]
        mask = LINE_MASK[line]
        if filled & mask == mask:
            o, z = 15, 15
            for j in range(4):
                piece = (board >> (4 * LINE_CELLS[line, j])) & 15
                o &= piece
                z &= ~piece & 15
            if o or z:
                return True
    return False


@njit(cache=True)
def playout(board, filled, pool, selected, ply, classic):
    """A tactical playout (as ``MisereQuarto.tactical_playout``): white's outcome."""
    ones = np.empty(N_LINES, np.int64)
    zeros = np.empty(N_LINES, np.int64)
    count = np.empty(N_LINES, np.int64)
    _tallies(board, filled, ones, zeros, count)
    candidates = np.empty(16, np.int64)
    while True:
        open_cells = ALL & ~filled
        if not ply & 1:
            risky = 0
            for line in range(N_LINES):
                if count[line] == 3 and (ones[line] or zeros[line]):
                    risky |= LINE_MASK[line] & ~filled
            left = _popcount(pool)
            chosen = -1
            if risky == open_cells:
                found = 0
                rest = pool
                while rest:
                    piece, rest = _pop_lowest(rest)
                    unsafe = _unsafe(piece, filled, ones, zeros, count)
                    if classic:
                        if unsafe == open_cells:
                            chosen = piece
                            break
                    elif unsafe != open_cells:
                        candidates[found] = piece
                        found += 1
                if chosen < 0 and found:
                    chosen = candidates[np.random.randint(found)]
            if chosen < 0:
                chosen = _nth_bit(pool, np.random.randint(left))
            selected = chosen
            pool &= ~(1 << chosen)
            ply += 1
        unsafe = _unsafe(selected, filled, ones, zeros, count)
        safe = open_cells & ~unsafe
        if safe:
            cell = _nth_bit(safe, np.random.randint(_popcount(safe)))
        else:
            cell = _nth_bit(open_cells, np.random.randint(_popcount(open_cells)))
        if unsafe >> cell & 1:
            return -1 if _mover(ply, classic) == 0 else 1
        filled |= 1 << cell
        board |= selected << (4 * cell)
        if filled == ALL:
            return 0
        _place_tallies(cell, selected, ones, zeros, count)
        ply += 1


# -- the exact search: negamax with alpha-beta over a transposition table ---------------------

@njit(cache=True)
def _hash(board, filled, size):
    """A table slot for a position (``size``, the table's, is a power of two)."""
    h = board * 0x1E3779B97F4A7C15 + filled * 0x42B2AE3D27D4EB4F
    return (h ^ (h >> 29)) & (size - 1)


@njit(cache=True, inline="always")
def _order_cells(filled, piece, open_cells, ones, zeros, count, cells, made):
    """The cells where ``piece`` is safe, those making the most new risky lines first, into
    ``cells``; their number (0: the piece completes a line wherever it goes)."""
    safe = open_cells & ~_unsafe(piece, filled, ones, zeros, count)
    n = 0
    while safe:
        cell, safe = _pop_lowest(safe)
        m = 0
        for k in range(THROUGH_N[cell]):
            line = THROUGH[cell, k]
            if count[line] == 2 and (ones[line] & piece or zeros[line] & ~piece & 15):
                m += 1
        j = n
        while j > 0 and made[j - 1] < m:
            cells[j], made[j] = cells[j - 1], made[j - 1]
            j -= 1
        cells[j], made[j] = cell, m
        n += 1
    return n


@njit(cache=True, inline="always")
def _order_pieces(pool, filled, classic, open_cells, ones, zeros, count, options, widths):
    """The pieces of ``pool`` that have a safe cell, into ``options`` (in the classic order those
    leaving the other role the fewest safe cells first); their number, or -1 if in the classic
    order a piece has no safe cell (handing it over wins)."""
    n = 0
    rest = pool
    while rest:
        p, rest = _pop_lowest(rest)
        safe = open_cells & ~_unsafe(p, filled, ones, zeros, count)
        if not safe:
            if classic:
                return -1
            continue
        w = _popcount(safe) if classic else 0
        j = n
        while j > 0 and widths[j - 1] > w:
            options[j], widths[j] = options[j - 1], widths[j - 1]
            j -= 1
        options[j], widths[j] = p, w
        n += 1
    return n


@njit(cache=True)
def _store(slot, board, filled, lower, upper, t_board, t_filled, t_bounds):
    t_board[slot], t_filled[slot] = board, filled
    t_bounds[slot, 0], t_bounds[slot, 1], t_bounds[slot, 2] = lower, upper, 1


@njit(cache=True, nogil=True)
def exact(board, filled, pool, piece, classic, low, high, t_board, t_filled, t_bounds, budget, frames, lists):
    """The value for the role to act (+1, 0, -1) of the position where ``piece`` waits to be
    placed (``piece`` >= 0; it is not in ``pool``) or a piece is to be selected (``piece`` < 0),
    exact inside (``low``, ``high``), at most ``low`` or at least ``high`` outside it; ``ABORT``
    once ``budget[0]`` selection positions are spent. Selection positions' bounds go to the
    table. Negamax with alpha-beta as ``MisereQuarto``'s own (``_Negamax``), written as a loop
    over a stack of ``frames`` (one row of 16 a depth) and their move ``lists`` (one row of 64):
    numba does not cache a recursive function.

    A frame: 0 board, 1 filled, 2 pool, 3 piece, 4 low, 5 high, 6 best, 7 floor, 8 lower,
    9 upper, 10 slot, 11 next move's index, 12 number of moves, 13 the table's size."""
    size = len(t_filled)
    depth = 0
    f = frames[0]
    f[0], f[1], f[2], f[3], f[4], f[5] = board, filled, pool, piece, low, high
    entering = True
    value = 0
    while True:
        f = frames[depth]
        row = lists[depth]
        ones, zeros, count = row[0:10], row[10:20], row[20:30]
        moves, keys = row[32:48], row[48:64]
        board, filled, pool, piece = f[0], f[1], f[2], f[3]
        if entering:
            entering = False
            low, high = f[4], f[5]
            _tallies(board, filled, ones, zeros, count)
            open_cells = ALL & ~filled
            done = False
            if piece >= 0:
                f[12] = _order_cells(filled, piece, open_cells, ones, zeros, count, moves, keys)
                if f[12] == 0:
                    value, done = -1, True
                f[6] = -1
            else:
                slot = _hash(board, filled, size)
                lower, upper = -1, 1
                if t_filled[slot] == filled and t_board[slot] == board and t_bounds[slot, 2]:
                    lower, upper = t_bounds[slot, 0], t_bounds[slot, 1]
                    if lower == upper or lower >= high:
                        value, done = lower, True
                    elif upper <= low:
                        value, done = upper, True
                    else:
                        f[4], f[5] = max(low, lower), min(high, upper)
                if not done:
                    budget[0] -= 1
                    if budget[0] < 0:
                        return ABORT
                    f[8], f[9], f[10] = lower, upper, slot
                    f[12] = _order_pieces(pool, filled, classic, open_cells, ones, zeros, count, moves, keys)
                    if f[12] < 0:
                        _store(slot, board, filled, 1, 1, t_board, t_filled, t_bounds)
                        value, done = 1, True
                    f[6], f[7] = -1, f[4]
            f[11] = 0
            if done:
                if depth == 0:
                    return value
                depth -= 1
                continue
        else:
            # a child has answered ``value`` (from the child's mover's side): take it in
            if piece >= 0:
                mine = value if classic else -value
            else:
                mine = -value if classic else value
            if mine > f[6]:
                f[6] = mine
                if piece < 0 and mine < f[5]:
                    f[7] = max(f[7], mine)
            f[11] += 1
        # the next move, or the frame's answer
        low, high = f[4], f[5]
        pushed = False
        while f[11] < f[12] and f[6] < high:
            move = moves[f[11]]
            child = frames[depth + 1]
            if piece >= 0:
                after = filled | (1 << move)
                if after == ALL:
                    if 0 > f[6]:
                        f[6] = 0
                    f[11] += 1
                    continue
                floor = max(low, f[6])
                child[0], child[1], child[2], child[3] = board | (piece << (4 * move)), after, pool, -1
                if classic:
                    child[4], child[5] = floor, high
                else:
                    child[4], child[5] = -high, -floor
            else:
                child[0], child[1], child[2], child[3] = board, filled, pool & ~(1 << move), move
                if classic:
                    child[4], child[5] = -high, -f[7]
                else:
                    child[4], child[5] = f[7], high
            pushed = True
            break
        if pushed:
            depth += 1
            entering = True
            continue
        best = f[6]
        if piece < 0:
            lower, upper = f[8], f[9]
            if best >= high:
                _store(f[10], board, filled, best, upper, t_board, t_filled, t_bounds)
            elif best <= low:
                _store(f[10], board, filled, lower, best, t_board, t_filled, t_bounds)
            else:
                _store(f[10], board, filled, best, best, t_board, t_filled, t_bounds)
        value = best
        if depth == 0:
            return value
        depth -= 1


def signed(board: int) -> int:
    """``QuartoState.board`` (64 bits) as the signed 64-bit integer the compiled code holds."""
    return board - (1 << 64) if board >= 1 << 63 else board


def position(state: QuartoState) -> tuple[int, int, int, int, int]:
    """A ``QuartoState`` as the five integers of this module."""
    return signed(state.board), state.filled, state.pool, state.selected, state.ply


class Table:
    """The exact search's transposition table (about 40 MB), reused across calls."""

    def __init__(self, bits: int = TABLE_BITS) -> None:
        self.board = np.zeros(1 << bits, np.int64)
        self.filled = np.zeros(1 << bits, np.int64)
        self.bounds = np.zeros((1 << bits, 3), np.int8)

    def clear(self) -> None:
        self.bounds[:, 2] = 0


def exact_value(table: Table, board: int, filled: int, pool: int, piece: int, classic: bool, low: int = -1,
                high: int = 1, deadline: float | None = None, step: int = 10_000) -> int | None:
    """``exact`` from Python, in steps of ``step`` nodes until ``deadline`` (``time.monotonic``):
    the mover's value, or ``None`` if the deadline passes first."""
    budget = np.zeros(1, np.int64)
    frames = np.zeros((36, 16), np.int64)
    lists = np.zeros((36, 64), np.int64)
    while True:
        budget[0] = step if deadline is not None else 1 << 62
        value = exact(signed(board), filled, pool, piece, classic, low, high, table.board, table.filled, table.bounds,
                      budget, frames, lists)
        if value != ABORT:
            return int(value)
        if time.monotonic() > deadline:
            return None
        step = min(2 * step, STEP_MOST)


# -- the tree -------------------------------------------------------------------------------

@njit(cache=True)
def _apply(move, board, filled, pool, selected, ply):
    if ply & 1:
        return board | (selected << (4 * move)), filled | (1 << move), pool, -1, ply + 1
    return board, filled, pool & ~(1 << move), move, ply + 1


@njit(cache=True)
def _worth(role, outcome, me, contempt):
    """What an end (white's ``outcome``) is worth to ``role``, 0 to 1 (a draw ``contempt`` less to ``me``)."""
    if outcome == 0:
        return (50.0 - (contempt if role == me else 0)) / 100.0
    if (outcome > 0) == (role == 0):
        return 1.0
    return 0.0


@njit(cache=True)
def _expand(node, board, filled, pool, selected, ply, classic, allowed, t_first, t_count, t_move, t_ending,
            t_proven, used, capacity):
    """Create ``node``'s children (shuffled: they are tried in that order); ``False`` if the tree is full."""
    if ply & 1:
        moves = ALL & ~filled
    else:
        moves = pool
    moves &= allowed
    n = _popcount(moves)
    if used[0] + n > capacity:
        return False
    first = used[0]
    used[0] += n
    i = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        t_move[first + i] = _bit_index(bit)
        i += 1
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = np.random.randint(i + 1)
        t_move[first + i], t_move[first + j] = t_move[first + j], t_move[first + i]
    for i in range(n):
        child = first + i
        t_first[child] = -1
        t_count[child] = 0
        t_ending[child] = UNKNOWN
        t_proven[child] = UNKNOWN
        if ply & 1:
            cell = t_move[child]
            after = filled | (1 << cell)
            if _completes(board | (selected << (4 * cell)), after, cell):
                t_ending[child] = -1 if _mover(ply, classic) == 0 else 1
            elif after == ALL:
                t_ending[child] = 0
            t_proven[child] = t_ending[child]
    t_first[node] = first
    t_count[node] = n
    return True


@njit(cache=True)
def _try_to_prove(node, mover, t_first, t_count, t_proven):
    first, n = t_first[node], t_count[node]
    if first < 0:
        return False
    best = -2
    complete = True
    for child in range(first, first + n):
        value = t_proven[child]
        if value == UNKNOWN:
            complete = False
            continue
        mine = value if mover == 0 else -value
        if mine == 1:
            t_proven[node] = value
            return True
        if mine > best:
            best = mine
    if complete and n:
        t_proven[node] = best if mover == 0 else -best
        return True
    return False


@njit(cache=True, nogil=True)
def search(rounds, root_board, root_filled, root_pool, root_selected, root_ply, classic, me, contempt, exploration,
           solver, root_allowed, t_first, t_count, t_tried, t_move, t_ending, t_proven, t_visits, t_totals,
           used, capacity):
    """Up to ``rounds`` rounds from the root (node 0); stops early once the root is proven."""
    path = np.empty(40, np.int64)
    for _ in range(rounds):
        if solver and t_proven[0] != UNKNOWN:
            return
        node = 0
        board, filled, pool, selected, ply = root_board, root_filled, root_pool, root_selected, root_ply
        depth = 0
        path[0] = 0
        while True:
            if solver and t_proven[node] != UNKNOWN:
                outcome = t_proven[node]
                break
            if t_ending[node] != UNKNOWN:
                outcome = t_ending[node]
                break
            if t_first[node] < 0:
                allowed = root_allowed if node == 0 else ALL
                if not _expand(node, board, filled, pool, selected, ply, classic, allowed, t_first, t_count, t_move,
                               t_ending, t_proven, used, capacity):
                    outcome = playout(board, filled, pool, selected, ply, classic)
                    break
                if solver:
                    _try_to_prove(node, _mover(ply, classic), t_first, t_count, t_proven)
                    if t_proven[node] != UNKNOWN:
                        outcome = t_proven[node]
                        break
            if t_tried[node] < t_count[node]:
                child = t_first[node] + t_tried[node]
                t_tried[node] += 1
                board, filled, pool, selected, ply = _apply(t_move[child], board, filled, pool, selected, ply)
                depth += 1
                path[depth] = child
                if t_ending[child] != UNKNOWN:
                    outcome = t_ending[child]
                else:
                    outcome = playout(board, filled, pool, selected, ply, classic)
                break
            mover = _mover(ply, classic)
            log_visits = math.log(max(t_visits[node], 1))
            best, best_score = -1, -1.0
            for child in range(t_first[node], t_first[node] + t_count[node]):
                if solver and t_proven[child] != UNKNOWN:
                    score = _worth(mover, t_proven[child], me, contempt)
                elif t_visits[child] == 0:
                    best = child
                    break
                else:
                    visits = t_visits[child]
                    score = t_totals[child, mover] / visits + exploration * math.sqrt(log_visits / visits)
                if score > best_score:
                    best, best_score = child, score
            board, filled, pool, selected, ply = _apply(t_move[best], board, filled, pool, selected, ply)
            node = best
            depth += 1
            path[depth] = node
        w0 = _worth(0, outcome, me, contempt)
        w1 = _worth(1, outcome, me, contempt)
        for i in range(depth + 1):
            visited = path[i]
            t_visits[visited] += 1
            t_totals[visited, 0] += w0
            t_totals[visited, 1] += w1
        if solver and t_proven[path[depth]] != UNKNOWN:
            for i in range(depth - 1, -1, -1):
                parent = path[i]
                if t_proven[parent] != UNKNOWN:
                    break
                if not _try_to_prove(parent, _mover(root_ply + i, classic), t_first, t_count, t_proven):
                    break


@njit(cache=True)
def seed(value):
    np.random.seed(value)


class Tree:
    """A search tree in arrays, for ``search``."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.first = np.full(capacity, -1, np.int32)
        self.count = np.zeros(capacity, np.int8)
        self.tried = np.zeros(capacity, np.int8)
        self.move = np.zeros(capacity, np.int8)
        self.ending = np.full(capacity, UNKNOWN, np.int8)
        self.proven = np.full(capacity, UNKNOWN, np.int8)
        self.visits = np.zeros(capacity, np.int32)
        self.totals = np.zeros((capacity, 2), np.float64)
        self.used = np.ones(1, np.int64)

    def reset(self) -> None:
        used = int(self.used[0])
        self.first[:used] = -1
        self.count[:used] = 0
        self.tried[:used] = 0
        self.ending[:used] = UNKNOWN
        self.proven[:used] = UNKNOWN
        self.visits[:used] = 0
        self.totals[:used] = 0
        self.used[0] = 1

    def run(self, rounds: int, position: tuple[int, int, int, int, int], classic: bool, me: int, contempt: int,
            exploration: float, solver: bool, allowed: int = ALL) -> None:
        search(rounds, *position, classic, me, contempt, exploration, solver, allowed, self.first,
               self.count, self.tried, self.move, self.ending, self.proven, self.visits, self.totals, self.used,
               self.capacity)

    def children(self) -> list[int]:
        first = int(self.first[0])
        return [] if first < 0 else list(range(first, first + int(self.count[0])))


# -- a move ----------------------------------------------------------------------------------

EXACT_CELLS = 10  # the exact search is asked of the root's children from this many empty cells down
WIN_SHARE = 0.5  # the share of the time the search for a forced win may take
EXACT_SHARE = 0.75  # the share of the time by which every child's exact value must be known
CHUNK = 512  # rounds between two looks at the clock
CAPACITY = 2_000_000  # nodes (29 bytes each); a second and a half adds at most about 1.1 million


class Searcher:
    """One process's compiled search: a tree and a table, reused from move to move."""

    def __init__(self, capacity: int = CAPACITY, table_bits: int = TABLE_BITS) -> None:
        self.tree = Tree(capacity)
        self.table = Table(table_bits)

    def choose(self, state, *, classic: bool, seconds: float, seed_value: int, rounds: int = 1 << 62,
               contempt: int = 25, exploration: float = 1.4, exact_cells: int = EXACT_CELLS) -> int:
        """The move (a piece or a cell) for the mover of ``state`` (a ``QuartoState``, not over),
        after at most ``seconds`` and at most ``rounds`` rounds of the tree search."""
        started = time.monotonic()
        deadline = started + seconds
        seed(seed_value)
        tree, here = self.tree, position(state)
        board, filled, pool, selected, ply = here
        me = mover_index(ply, classic)
        moves = (ALL & ~filled) if ply & 1 else pool
        if _popcount(moves) == 1:
            return _bit_index(moves)
        tree.reset()
        tree.run(1, here, classic, me, contempt, exploration, True)
        children = tree.children()
        if CELLS - _popcount(filled) <= exact_cells:
            self._prove_children(here, classic, me, started + seconds * WIN_SHARE, started + seconds * EXACT_SHARE)
        done = 1
        while tree.proven[0] == UNKNOWN and done < rounds and time.monotonic() < deadline:
            tree.run(min(CHUNK, rounds - done), here, classic, me, contempt, exploration, True)
            done += CHUNK
        proven = int(tree.proven[0])
        if proven != UNKNOWN:
            mine = proven if me == 0 else -proven
            keeping = [c for c in children if tree.proven[c] == proven]
            if mine < 1 and len(keeping) > 1 and time.monotonic() < deadline:
                allowed = 0
                for child in keeping:
                    allowed |= 1 << int(tree.move[child])
                tree.reset()
                tree.run(len(keeping), here, classic, me, contempt, exploration, False, allowed)
                while done < rounds and time.monotonic() < deadline:
                    tree.run(min(CHUNK, rounds - done), here, classic, me, contempt, exploration, False, allowed)
                    done += CHUNK
                return int(tree.move[max(tree.children(), key=lambda c: tree.visits[c])])
            return int(tree.move[max(keeping, key=lambda c: tree.visits[c])])
        values = {c: int(tree.proven[c]) for c in children if tree.proven[c] != UNKNOWN}
        floor = max(((v if me == 0 else -v) for v in values.values()), default=-2)
        open_or_good = [c for c in children if c not in values or (values[c] if me == 0 else -values[c]) >= floor]
        return int(tree.move[max(open_or_good or children, key=lambda c: (tree.visits[c], c in values))])

    def _prove_children(self, here, classic, me, win_by, exact_by) -> None:
        """The exact values of the root's children: first a look for a forced win until
        ``win_by``, then each child's value until ``exact_by``."""
        tree, table = self.tree, self.table
        table.clear()
        children = tree.children()
        board, filled, pool, selected, ply = here
        after = []
        for child in children:
            if tree.ending[child] != UNKNOWN:
                continue
            move = int(tree.move[child])
            b, f, p, s, pl = _apply(move, board, filled, pool, selected, ply)
            after.append((child, b, f, p, s, int(_mover(pl, classic))))
        for child, b, f, p, s, mover in after:  # a win for me: the child's mover's value at most -1 (or +1 if mine)
            low, high = (0, 1) if mover == me else (-1, 0)
            value = exact_value(table, b, f, p, s, classic, low, high, win_by)
            if value is None:
                break
            if (mover == me and value >= 1) or (mover != me and value <= -1):
                tree.proven[child] = tree.proven[0] = 1 if me == 0 else -1
                return
        for child, b, f, p, s, mover in after:
            value = exact_value(table, b, f, p, s, classic, -1, 1, exact_by)
            if value is None:
                return
            tree.proven[child] = value if mover == 0 else -value
        _try_to_prove(0, me, tree.first, tree.count, tree.proven)


def warm() -> None:
    """Load every compiled function (compiling and caching it the first time: several seconds,
    once per installation; loading it then takes a fraction of one), so a first move is not late."""
    game_state = QuartoState()
    Searcher(capacity=64, table_bits=8).choose(game_state, classic=True, seconds=0.005, seed_value=0, rounds=64,
                                                exact_cells=CELLS)


_PER_THREAD = threading.local()  # each thinking thread's ``Searcher``, made when it first thinks


def best_move(game: MisereQuarto, state: QuartoState, *, seconds: float, seed_value: int, **options) -> str:
    """The compiled expert's action text for ``state`` of a ``MisereQuarto`` rule set, within
    ``seconds``; ``options`` as ``Searcher.choose`` takes them."""
    searcher = getattr(_PER_THREAD, "searcher", None)
    if searcher is None:
        searcher = _PER_THREAD.searcher = Searcher()
    move = searcher.choose(state, classic=game.order == "classic", seconds=seconds, seed_value=seed_value,
                           **options)
    for action in game.legal_actions(state):
        kind, piece, cell = game.parse(action)
        if (cell if state.ply & 1 else piece) == move:
            return action
    raise AssertionError(f"the compiled search chose {move}, which is not a legal move")
