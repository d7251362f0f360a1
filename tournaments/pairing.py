"""Round-robin pairing by Berger tables: pure, the standard library only.

Players are numbered by their place in the list given (their entry order). With an odd count a
bye (``None``) makes the count even: whoever meets it sits the round out, once per cycle. A
double round robin plays the same tables again with the first movers swapped.

    >>> berger_rounds(["a", "b", "c", "d"])[0]
    [('a', 'd'), ('c', 'b')]
    >>> len(berger_rounds(["a", "b", "c"], cycles=2))
    6
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Player = TypeVar("Player")


def berger_rounds(players: Sequence[Player], *, cycles: int = 1) -> list[list[tuple[Player | None, Player | None]]]:
    """The rounds of a round robin among ``players`` (at least two, each once), ``cycles`` times
    (1 or 2): each round a list of (first mover, second mover), with ``None`` for the bye.

    The circle method: the last player stays put, the others turn one place each round. The
    fixed player moves first in every other round; in the other pairs the one on the turning
    circle's upper half moves first in even rounds, so each player's first moves over a cycle
    differ from their second moves by one at most."""
    if cycles not in (1, 2):
        raise ValueError("a round robin is played once or twice")
    if len(players) < 2:
        raise ValueError("a round robin needs two players at least")
    if len(set(players)) != len(players):
        raise ValueError("each player plays once")
    seats: list[Player | None] = list(players)
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    fixed, turning = seats[-1], seats[:-1]
    once: list[list[tuple[Player | None, Player | None]]] = []
    for r in range(n - 1):
        a = turning[r % (n - 1)]
        pairs = [(fixed, a) if r % 2 else (a, fixed)]
        for i in range(1, n // 2):
            up, down = turning[(r + i) % (n - 1)], turning[(r - i) % (n - 1)]
            pairs.append((up, down) if i % 2 == 0 else (down, up))
        once.append(pairs)
    if cycles == 1:
        return once
    return once + [[(second, first) for first, second in pairs] for pairs in once]
