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

from tournaments.swiss_pairing import Kind, NoPairing, Standing, ranked

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


@dataclass(frozen=True)
class TrioSlot:
    """One player's round in a three-player Swiss: ``points`` scored and, for a game (or a game
    one of its players never began, a forfeit), the two ``opponents`` and the ``seat`` taken
    (0 first, 1 second, 2 third)."""

    kind: Kind
    points: float = 0.0
    opponents: tuple[Hashable, ...] = ()
    seat: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.points <= PLACE_POINTS[0]:
            raise ValueError(f"a round scores 0 to {PLACE_POINTS[0]}, not {self.points!r}")
        if (len(self.opponents) == SEATS - 1) != (self.kind in (Kind.GAME, Kind.FORFEIT)):
            raise ValueError("a game and a forfeit have two opponents; a bye and an absence have none")


def trio_standings(players: Sequence[Hashable], history: Mapping[Hashable, Sequence[TrioSlot]]) -> list[Standing]:
    """The players ranked by score, then Buchholz (the scores of both opponents at each table),
    then the Sonneborn-Berger analogue (each game's points times the average score of its two
    opponents), then the order given. As in the two-player Swiss, byes, absences and forfeits
    add to the score only."""
    score = {p: sum(s.points for s in history.get(p, ())) for p in players}
    buchholz, berger, played = dict.fromkeys(players, 0.0), dict.fromkeys(players, 0.0), dict.fromkeys(players, 0)
    for player in players:
        for slot in history.get(player, ()):
            if slot.kind == Kind.GAME:
                opposition = sum(score.get(o, 0.0) for o in slot.opponents)
                buchholz[player] += opposition
                berger[player] += slot.points * opposition / len(slot.opponents)
                played[player] += 1
    return ranked(players, score, buchholz, berger, played)


def trio_round(*, players: Sequence[Hashable], history: Mapping[Hashable, Sequence[TrioSlot]],
               absent: Collection[Hashable] = ()) -> Tables:
    """The next round's tables of a three-player Swiss: ``players`` in their initial order,
    ``history`` their rounds so far; those in ``absent`` are left out. The standing orders the
    tables; the trios met, the seats taken and the byes had come from the history. Raises
    ``NoPairing`` with fewer than three players left."""
    present = [p for p in players if p not in absent]
    if len(present) < SEATS:
        raise NoPairing(f"fewer than {SEATS} players are left to seat at a table")
    order = [row.player for row in trio_standings(present, history)]
    met, seats, byes = set(), {}, {}
    for player in present:
        counts = [0] * SEATS
        for slot in history.get(player, ()):
            if slot.opponents:
                met.add(frozenset((player, *slot.opponents)))
            if slot.seat is not None:
                counts[slot.seat] += 1
            if slot.kind in (Kind.BYE, Kind.HALF_BYE):
                byes[player] = byes.get(player, 0) + 1
        seats[player] = counts
    return trio_tables(order=order, met=met, seats=seats, byes_had=byes)
