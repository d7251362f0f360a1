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
lift one of them by one result's worth a day, whatever they play. A player may stand for
another (``PairLedger(stands_for=...)``: a GGP program for the person who registered it), and
then counts as that one under the limit and among a player's distinct opponents: ten programs
of one account are one opponent, and two of them in one match have no result between them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
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
    pair limit reads, filled from the match log or by a replay of it. Players are account ids;
    ``stands_for`` maps an account to the one it counts as (a GGP program's to its owner's)."""

    def __init__(self, stands_for: Mapping[int, int] | None = None) -> None:
        self._stands_for = dict(stands_for or {})
        self._times: dict[tuple[int, int], list[datetime]] = {}
        self._met: set[tuple[int, int]] = set()  # (account, whom its opponent stands for)

    def _who(self, player: int) -> int:
        return self._stands_for.get(player, player)

    def _key(self, a: int, b: int) -> tuple[int, int]:
        a, b = self._who(a), self._who(b)
        return (a, b) if a < b else (b, a)

    def add(self, a: int, b: int, at: datetime) -> None:
        self._times.setdefault(self._key(a, b), []).append(at)
        self._met.update({(a, self._who(b)), (b, self._who(a))})

    def met(self, a: int, b: int) -> bool:
        """Whether a result of ``a`` against ``b``'s player (``b``, or anyone who stands for the
        same one) ever counted: ``a``'s distinct opponents count that player once."""
        return (a, self._who(b)) in self._met

    def limited(self, a: int, b: int, at: datetime) -> bool:
        """Whether a result between ``a`` and ``b`` finishing ``at`` would pass the pair limit
        (always, when both stand for the same player)."""
        return self._over(self._key(a, b), at, counted_now=0)

    def _over(self, key: tuple[int, int], at: datetime, *, counted_now: int) -> bool:
        since = at - PAIR_WINDOW
        recent = sum(t > since for t in self._times.get(key, ()))
        return key[0] == key[1] or recent + counted_now >= PAIR_RESULTS_PER_DAY

    def excluded(self, players: Sequence[int], at: datetime) -> set[tuple[int, int]]:
        """The index pairs of ``players`` (seated in one match finishing ``at``) over the limit,
        counting the pairs of this match before them: two programs of one owner against the
        same player count as one pair, ``excluded([1, 11, 12], at) == {(0, 2), (1, 2)}`` when 11
        and 12 stand for the same player and 1 has no result against it today."""
        out, counting = set(), Counter()
        for i, j in combinations(range(len(players)), 2):
            key = self._key(players[i], players[j])
            if self._over(key, at, counted_now=counting[key]):
                out.add((i, j))
            else:
                counting[key] += 1
        return out
