"""Tables of three for the three-player game in tournaments: pure (no Django, no database).

A round of a three-player tournament seats its players at tables of three by standing (the
best three together, then the next three), never seating again a trio that met before while
another grouping of the same players exists. When the count is not a multiple of three, one
or two players sit out with a bye worth a table's average (``BYE_POINTS``): those with the
fewest byes so far, the lowest in the standing first. A table of two is never made: the game
needs its three seats.

Points go by place (``place_points``): 1 for first, 1/2 for second, 0 for third, the two-player
Swiss's win, draw and loss spread over three places (an arena doubles them: 2, 1, 0). Players
tied for a place share the points of the places they cover equally.

Seats rotate (``seat_order``): at each table the seats go so that each player sits first,
second and third about equally often.

    >>> place_points({"a": 100, "b": 66, "c": 66})
    {'a': 1.0, 'b': 0.25, 'c': 0.25}
    >>> trio_tables(order=["a", "b", "c", "d"], met=[]).tables, trio_tables(order=["a", "b", "c", "d"], met=[]).byes
    ([('a', 'b', 'c')], ['d'])
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

SEATS = 3
PLACE_POINTS = (1.0, 0.5, 0.0)  # first, second, third
BYE_POINTS = sum(PLACE_POINTS) / SEATS  # a table's average: 1/2
SEARCH_BUDGET = 20_000  # tables tried in one round's search before falling back to the standing order


def place_points(scores: Mapping[Hashable, float]) -> dict[Hashable, float]:
    """Each player's points from the goal values their seats scored (higher is better). Players
    with equal goal values share the points of the places they cover: two tied first score
    (1 + 1/2) / 2 each, all three tied 1/2 each.

        >>> place_points({"a": 100, "b": 33, "c": 0})
        {'a': 1.0, 'b': 0.5, 'c': 0.0}
    """
    if len(scores) != SEATS:
        raise ValueError(f"a table has {SEATS} players, not {len(scores)}")
    ranked = sorted(scores.values(), reverse=True)
    points = {}
    for player, value in scores.items():
        places = [i for i, v in enumerate(ranked) if v == value]
        points[player] = sum(PLACE_POINTS[i] for i in places) / len(places)
    return points


def seat_order(table: Sequence[Hashable], seats: Mapping[Hashable, Sequence[int]]) -> tuple[Hashable, ...]:
    """``table``'s players in seat order (first mover first), given how many times each has sat
    in each seat (``seats[p][i]``: times in seat ``i``; missing: never). The order keeps each
    player's most and least used seats as close as it can, then sends players to the seats
    they used least, then keeps the order given (the higher standing first).

        >>> seat_order(["a", "b", "c"], {"a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0, 1]})
        ('b', 'c', 'a')
    """
    if len(table) != SEATS:
        raise ValueError(f"a table has {SEATS} players, not {len(table)}")

    def cost(order: tuple[Hashable, ...]) -> tuple[int, int]:
        spread = used = 0
        for seat, player in enumerate(order):
            counts = list(seats.get(player, (0,) * SEATS))
            used += counts[seat]
            counts[seat] += 1
            spread = max(spread, max(counts) - min(counts))
        return spread, used

    return min(permutations(table), key=cost)


@dataclass(frozen=True)
class Tables:
    tables: list[tuple[Hashable, ...]]  # each in seat order
    byes: list[Hashable]  # who sits out this round
    repeats: int  # tables whose trio met before (0 unless every grouping repeats one)


def _sit_out(order: Sequence[Hashable], byes_had: Mapping[Hashable, int]) -> list[Hashable]:
    count = len(order) % SEATS
    rank = {p: i for i, p in enumerate(order)}
    chosen = sorted(order, key=lambda p: (byes_had.get(p, 0), -rank[p]))[:count]
    return sorted(chosen, key=rank.__getitem__)


def _search(players: list[Hashable], met: set[frozenset]) -> list[tuple[Hashable, ...]] | None:
    """A grouping of ``players`` (in standing order) into trios none of which is in ``met``,
    the top player seated with the next best that allow one; None if none is found within
    ``SEARCH_BUDGET`` tables tried."""
    budget = [SEARCH_BUDGET]

    def group(rest: list[Hashable]) -> list[tuple[Hashable, ...]] | None:
        if not rest:
            return []
        head, others = rest[0], rest[1:]
        for pair in combinations(others, 2):
            if frozenset((head, *pair)) in met:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return None
            found = group([p for p in others if p not in pair])
            if found is not None:
                return [(head, *pair), *found]
        return None

    return group(players)


def _greedy(players: list[Hashable], met: set[frozenset]) -> list[tuple[Hashable, ...]]:
    """The fallback: the top player with the next two best that did not meet as a trio (or the
    next two if all did), and so on down."""
    tables, rest = [], list(players)
    while rest:
        head, others = rest[0], rest[1:]
        pairs = list(combinations(others, 2))
        pair = next((q for q in pairs if frozenset((head, *q)) not in met), pairs[0])
        tables.append((head, *pair))
        rest = [p for p in others if p not in pair]
    return tables


def trio_tables(*, order: Sequence[Hashable], met: Collection[frozenset],
                seats: Mapping[Hashable, Sequence[int]] | None = None,
                byes_had: Mapping[Hashable, int] | None = None) -> Tables:
    """One round's tables of the players in ``order`` (their standing, best first), given the
    trios that ``met`` before (as frozensets), each player's ``seats`` counts (for
    ``seat_order``) and how many byes each has had. Raises ``ValueError`` with fewer than three
    players."""
    if len(set(order)) != len(order):
        raise ValueError("each player is listed once")
    if len(order) < SEATS:
        raise ValueError(f"a table needs {SEATS} players")
    met = {frozenset(t) for t in met}
    byes = _sit_out(order, byes_had or {})
    playing = [p for p in order if p not in byes]
    grouped = _search(playing, met)
    if grouped is None:
        grouped = _greedy(playing, met)
    seated = [seat_order(t, seats or {}) for t in grouped]
    return Tables(tables=seated, byes=byes, repeats=sum(frozenset(t) in met for t in grouped))
