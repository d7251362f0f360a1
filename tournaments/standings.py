"""Tournament standings from game results: pure, the standard library only.

A game won scores 1, drawn 1/2, lost 0 (a bye, and a game called off before it began, score
nothing: in a round robin each player sits out as often as any other). The tie-break is
Sonneborn-Berger: the scores of the opponents a player beat, plus half the scores of those they
drew with. Standings are ordered by score, then Sonneborn-Berger, then entry order.

    >>> rows = standings(["a", "b", "c"], [Result("a", "b", 1.0), Result("b", "c", 0.5), Result("a", "c", 0.5)])
    >>> [(row.player, row.score, row.tie_break) for row in rows]
    [('a', 1.5, 1.0), ('c', 1.0, 1.0), ('b', 0.5, 0.5)]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True)
class Result:
    """A finished game between ``first`` and ``second``: ``first_score`` is 1, 1/2 or 0, the
    second player scoring the rest; ``None`` for a game called off (nobody scores)."""

    first: Hashable
    second: Hashable
    first_score: float | None

    def __post_init__(self) -> None:
        if self.first_score not in (WIN, DRAW, LOSS, None):
            raise ValueError(f"a game scores 1, 1/2 or 0, not {self.first_score!r}")


@dataclass(frozen=True)
class Standing:
    rank: int
    player: Hashable
    score: float
    tie_break: float  # Sonneborn-Berger
    played: int


def scores(players: Sequence[Hashable], results: Iterable[Result]) -> dict[Hashable, float]:
    """Each player's score."""
    total = dict.fromkeys(players, 0.0)
    for result in results:
        if result.first_score is not None:
            total[result.first] += result.first_score
            total[result.second] += 1.0 - result.first_score
    return total


def standings(players: Sequence[Hashable], results: Iterable[Result]) -> list[Standing]:
    """The players ranked by score, then Sonneborn-Berger (ties share a rank), then entry order."""
    results = list(results)
    total = scores(players, results)
    tie_break = dict.fromkeys(players, 0.0)
    played = dict.fromkeys(players, 0)
    for result in results:
        if result.first_score is None:
            continue
        for player, opponent, score in ((result.first, result.second, result.first_score),
                                        (result.second, result.first, 1.0 - result.first_score)):
            tie_break[player] += score * total[opponent]
            played[player] += 1
    order = sorted(range(len(players)), key=lambda i: (-total[players[i]], -tie_break[players[i]], i))
    rows: list[Standing] = []
    for place, i in enumerate(order, start=1):
        player = players[i]
        tied = rows and (rows[-1].score, rows[-1].tie_break) == (total[player], tie_break[player])
        rows.append(Standing(rank=rows[-1].rank if tied else place, player=player, score=total[player],
                             tie_break=tie_break[player], played=played[player]))
    return rows
