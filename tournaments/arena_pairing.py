"""Arena pairing: pure, the standard library only.

Whenever players are free (not in a game, not paused) they are paired among themselves by a
minimum-cost matching. The cost of a pair is its rank gap weighted by ``RANK_WEIGHT`` plus its
rating gap (lichess's two terms): leaders meet leaders, and among players of one standing the
ratings decide. A pair that met in either player's last game is never made. As many players as
can be are paired; among the pairings of that size the cheapest is chosen.

The matching is exact (a search over subsets, memoised) for up to ``EXACT_MAX`` free players at a
time; a larger pool is taken in rank order in windows of that size, each solved exactly, a
player left over in one window tried in the next. Pairs far apart in rank cost the most anyway,
so windows in rank order lose little against one matching over the whole pool, and a wave of
thousands of players stays linear in their number.

The first mover is the one who moved first less often (first moves minus second moves), then
the one who moved second in their last game, then the better placed: over an arena each
player moves first in about half of their games, as colours alternate on lichess.

    >>> a = Free("a", rank=1, rating=1500)
    >>> b = Free("b", rank=2, rating=1600, last_opponent="c")
    >>> c = Free("c", rank=3, rating=1500, last_opponent="b")
    >>> pair([a, b, c])
    [('a', 'b')]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cache

RANK_WEIGHT = 300  # one place of rank costs as much as 300 rating points
EXACT_MAX = 12  # free players matched exactly at once (2**12 subsets)


@dataclass(frozen=True)
class Free:
    """A player free to be paired: their place in the standings (1 is first), rating, the
    opponent of their last game (None: none yet) and their first-move history."""

    player: Hashable
    rank: int
    rating: int
    last_opponent: Hashable | None = None
    first_balance: int = 0  # games moving first minus games moving second
    last_first: bool | None = None  # whether they moved first in their last game


def cost(a: Free, b: Free) -> int | None:
    """What pairing ``a`` with ``b`` costs; None if they may not meet (each other's last opponent)."""
    if a.player == b.player or a.last_opponent == b.player or b.last_opponent == a.player:
        return None
    return RANK_WEIGHT * abs(a.rank - b.rank) + abs(a.rating - b.rating)


def first_mover(a: Free, b: Free) -> tuple[Free, Free]:
    """(who moves first, who moves second) of a pair."""
    def key(p: Free) -> tuple[int, int, int]:
        return (p.first_balance, 1 if p.last_first else 0, p.rank)
    return (a, b) if key(a) <= key(b) else (b, a)


def _match_exact(pool: Sequence[Free]) -> tuple[list[tuple[Free, Free]], list[Free]]:
    """The most pairs ``pool`` allows at the least total cost, and who is left over."""
    n = len(pool)
    costs = [[cost(pool[i], pool[j]) for j in range(n)] for i in range(n)]

    @cache
    def best(mask: int) -> tuple[int, int, tuple[tuple[int, int], ...]]:
        """(players left over, total cost, pairs) for the players in ``mask``."""
        if not mask:
            return 0, 0, ()
        i = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << i)
        left, total, pairs = best(rest)
        choice = (left + 1, total, pairs)
        j_bits = rest
        while j_bits:
            j = (j_bits & -j_bits).bit_length() - 1
            j_bits &= j_bits - 1
            c = costs[i][j]
            if c is None:
                continue
            left, total, pairs = best(rest & ~(1 << j))
            if (left, total + c) < choice[:2]:
                choice = (left, total + c, ((i, j), *pairs))
        return choice

    _, _, pairs = best((1 << n) - 1)
    paired = {k for pair in pairs for k in pair}
    return [(pool[i], pool[j]) for i, j in pairs], [p for k, p in enumerate(pool) if k not in paired]


def pair(free: Sequence[Free]) -> list[tuple[Hashable, Hashable]]:
    """The games to start among ``free`` players, each as (first mover, second mover)."""
    if len({p.player for p in free}) != len(free):
        raise ValueError("each free player is listed once")
    ordered = sorted(free, key=lambda p: (p.rank, -p.rating))
    games: list[tuple[Hashable, Hashable]] = []
    carried: list[Free] = []
    start = 0
    while start < len(ordered):
        room = max(EXACT_MAX - len(carried), 2)
        window = carried[:EXACT_MAX] + ordered[start:start + room]
        start += room
        pairs, carried = _match_exact(window)
        games.extend((first.player, second.player) for first, second in (first_mover(a, b) for a, b in pairs))
    return games
