"""The rating maths, pure: openskill's Weng-Lin Plackett-Luce model, and the scale people see.

Plackett-Luce rates any number of players from a ranking with ties, so the three-player game
(scores 100/66/33/0) and the two-player games (win, loss, draw) share one model. A rating is a
mean ``mu`` and a deviation ``sigma`` (openskill's defaults: 25 and 25/3). People see
``1500 + 42 * (mu - 25)``: a new player is 1500 with a deviation of 350 on that scale, the
starting point of Glicko-2 on lichess, so the numbers read like the ones players know; the
mean, not the cautious ordinal ``mu - 3 sigma``, because the ordinal would start everyone near
450 and rise with every game played, win or lose.

The pair limit: two players' results against each other count for their ratings at most
``PAIR_RESULTS_PER_DAY`` times in any ``PAIR_WINDOW`` (rolling, not a calendar day, so no
midnight doubles it), per rule set. A pair over its limit is left out of both players'
updates: in a two-player match neither rating changes; in the three-player game each player
is rated against the opponents whose pair still counts (``rate_pairs``). So two accounts can
lift one of them by one result's worth a day, whatever they play.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import combinations

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
INITIAL = (MODEL.mu, MODEL.sigma)
SHOWN_BASE, SHOWN_PER_MU = 1500, 42
PROVISIONAL_GAMES = 10  # rated matches before a rating is shown without "?"
PAIR_RESULTS_PER_DAY = 1
PAIR_WINDOW = timedelta(hours=24)

Skill = tuple[float, float]  # (mu, sigma)


def shown(mu: float) -> int:
    """The rating people see for a mean ``mu``: ``shown(25.0) == 1500``."""
    return round(SHOWN_BASE + SHOWN_PER_MU * (mu - MODEL.mu))


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def ranks(scores: Sequence[int]) -> list[int]:
    """1 for the best score; equal scores share a rank: ``ranks([66, 100, 66]) == [2, 1, 2]``."""
    return [1 + sum(other > score for other in scores) for score in scores]


def rate(skills: Sequence[Skill], scores: Sequence[int]) -> list[Skill]:
    """The players' new skills after one match in which they scored ``scores`` (one player per
    team, in the same order as ``skills``)."""
    teams = [[MODEL.create_rating([mu, sigma])] for mu, sigma in skills]
    rated = MODEL.rate(teams, ranks=ranks(scores))
    return [(team[0].mu, team[0].sigma) for team in rated]


def rate_pairs(skills: Sequence[Skill], scores: Sequence[int],
               excluded: set[tuple[int, int]]) -> list[Skill | None]:
    """Like ``rate``, but each player is rated only against the players it has no pair in
    ``excluded`` with (index pairs ``(i, j)``, ``i < j``); None for a player left with nobody.
    With nothing excluded this is ``rate``: ``rate_pairs(s, [100, 0], set()) == rate(s, [100, 0])``."""
    if not excluded:
        return list(rate(skills, scores))
    out: list[Skill | None] = []
    for i in range(len(skills)):
        group = [j for j in range(len(skills)) if j == i or (min(i, j), max(i, j)) not in excluded]
        if len(group) == 1:
            out.append(None)
            continue
        rated = rate([skills[j] for j in group], [scores[j] for j in group])
        out.append(rated[group.index(i)])
    return out


class PairLedger:
    """When the results that counted between two players (of one rule set) finished: what the
    pair limit reads, filled from the match log or by a replay of it."""

    def __init__(self) -> None:
        self._times: dict[tuple[int, int], list[datetime]] = {}

    @staticmethod
    def _key(a: int, b: int) -> tuple[int, int]:
        return (a, b) if a < b else (b, a)

    def add(self, a: int, b: int, at: datetime) -> None:
        self._times.setdefault(self._key(a, b), []).append(at)

    def met(self, a: int, b: int) -> bool:
        """Whether a result between ``a`` and ``b`` ever counted."""
        return self._key(a, b) in self._times

    def limited(self, a: int, b: int, at: datetime) -> bool:
        """Whether a result between ``a`` and ``b`` finishing ``at`` would pass the pair limit."""
        since = at - PAIR_WINDOW
        return sum(t > since for t in self._times.get(self._key(a, b), ())) >= PAIR_RESULTS_PER_DAY

    def excluded(self, players: Sequence[int], at: datetime) -> set[tuple[int, int]]:
        """The index pairs of ``players`` (seated in one match finishing ``at``) over the limit."""
        return {(i, j) for i, j in combinations(range(len(players)), 2) if self.limited(players[i], players[j], at)}
